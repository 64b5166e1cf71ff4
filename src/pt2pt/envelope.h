/* envelope.h — reading the envelope of an arrived message (fm_deliver).
 *
 * The bytes come from another process (a peer's store into our shm ring, a
 * received OFI buffer), so they are checked before anything trusts them:
 * the header must fit in the message and an eager payload must lie inside
 * it.  Pure (no state, no I/O): tests/fuzz/fuzz_shm_ring.c and
 * fuzz_ofi_hdr.c call it as fm_deliver does.  Inline, so the message path
 * pays only the compares themselves.
 *
 * What is NOT checked here: the request handles (sreq, rreq) control
 * messages echo back are our own pointers, trusted as the peer returns
 * them; a peer able to write our ring could equally write our memory by CMA. */
#ifndef FM_PT2PT_ENVELOPE_H
#define FM_PT2PT_ENVELOPE_H

#include <stddef.h>
#include <stdint.h>

#include "net/net.h"

/* What fm_deliver does with a message. */
enum {
    FM_ENV_MATCH,    /* EAGER*, RTS: to the matching queue of h->ctx */
    FM_ENV_DISPATCH, /* control or registered protocol: to its handler */
    FM_ENV_BAD,      /* envelope or length inconsistent: dropped, said */
};

typedef struct fm_envelope {
    const fm_hdr *h;     /* the envelope: in the message, or `full` */
    const void *payload; /* MATCH: the data after the header */
    size_t hlen;         /* MATCH: header bytes an unexpected record keeps */
    fm_hdr full;         /* an EAGER_SHORT's envelope completed to an EAGER */
} fm_envelope;

/* Decode msg (len bytes; the transport guarantees sizeof(fm_hdr) readable
 * bytes at msg even when len is smaller).  On FM_ENV_MATCH, e->payload holds
 * e->h->len bytes when the protocol is eager, and all of them lie inside
 * [msg, msg + len). */
static inline int fm_envelope_decode(const void *msg, size_t len, fm_envelope *e)
{
    const fm_hdr *h = msg;
    size_t hlen;
    switch (h->proto) {
    case FM_PROTO_EAGER_SHORT: {
        /* From here on it is an EAGER with its envelope completed. */
        const fm_hdr_short *hs = msg;
        if (__builtin_expect(len < sizeof *hs, 0))
            return FM_ENV_BAD;
        e->full = (fm_hdr){.proto = FM_PROTO_EAGER, .flags = hs->flags, .ctx = hs->ctx,
                           .src = hs->src, .tag = hs->tag, .len = len - sizeof *hs};
        e->h = &e->full;
        e->payload = hs + 1;
        e->hlen = sizeof(fm_hdr);
        return FM_ENV_MATCH;
    }
    case FM_PROTO_EAGER:
        hlen = sizeof(fm_hdr);
        if (__builtin_expect(len < hlen || len - hlen < h->len, 0))
            return FM_ENV_BAD;
        break;
    case FM_PROTO_EAGER_SYNC:
        hlen = sizeof(fm_hdr_rndv);
        if (__builtin_expect(len < hlen || len - hlen < h->len, 0))
            return FM_ENV_BAD;
        break;
    case FM_PROTO_RTS:
        hlen = sizeof(fm_hdr_rndv);
        if (__builtin_expect(len < hlen, 0))
            return FM_ENV_BAD;
        break;
    default:
        /* The built-in control messages are an fm_hdr_rndv; DATA carries
         * h.len bytes after it.  Registered protocols check their own. */
        e->h = h;
        if (h->proto < FM_PROTO_HANDLER_FIRST &&
            (len < sizeof(fm_hdr_rndv) ||
             (h->proto == FM_PROTO_DATA && len - sizeof(fm_hdr_rndv) < h->len)))
            return FM_ENV_BAD;
        return FM_ENV_DISPATCH;
    }
    e->h = h;
    e->payload = (const char *)msg + hlen;
    e->hlen = hlen;
    return FM_ENV_MATCH;
}

#endif
