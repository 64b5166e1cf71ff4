/* wire.h — the 8-byte prefix of every OFI message, and reading it back.
 *
 * A received buffer comes from another process, so its prefix is checked
 * before anything trusts it: the sender must be a rank of the job and the
 * message must hold what its kind promises.  Pure (no libfabric, no state):
 * xfer.c's poll and tests/fuzz/fuzz_ofi_hdr.c call the same function. */
#ifndef FM_NET_OFI_WIRE_H
#define FM_NET_OFI_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "net/net.h"

/* Wire prefix of every OFI message. */
typedef struct fm_ofi_wire {
    uint32_t src;  /* sender's world rank */
    uint32_t kind; /* FM_OFI_MSG_* */
} fm_ofi_wire;

enum {
    FM_OFI_MSG_DATA = 0,    /* fm_hdr + payload, delivered to pt2pt */
    FM_OFI_MSG_FLUSH = 1,   /* finalize: pushes earlier injects out, not delivered */
    FM_OFI_MSG_RTS_KEY = 2, /* an RTS whose addr is the remote address and rreq
                             * the key (rndv.c) */
};

/* What poll does with a received buffer. */
enum {
    FM_OFI_RX_DELIVER, /* DATA: msg (len bytes, an fm_hdr first) to pt2pt */
    FM_OFI_RX_RTS_KEY, /* RTS_KEY: msg holds a whole fm_hdr_rndv; then deliver */
    FM_OFI_RX_FLUSH,   /* nothing to deliver */
    FM_OFI_RX_BAD,     /* sender, kind or length inconsistent: dropped, said */
};

typedef struct fm_ofi_rx {
    int src;    /* sender's world rank, < world size */
    char *msg;  /* after the prefix */
    size_t len; /* bytes at msg, >= sizeof(fm_hdr) */
} fm_ofi_rx;

static inline int fm_ofi_wire_decode(char *buf, size_t len, int world_size, fm_ofi_rx *out)
{
    const fm_ofi_wire *w = (const fm_ofi_wire *)(void *)buf;
    if (len < sizeof *w)
        return FM_OFI_RX_BAD;
    if (w->kind == FM_OFI_MSG_FLUSH)
        return FM_OFI_RX_FLUSH;
    if (__builtin_expect(len < sizeof *w + sizeof(fm_hdr) || w->src >= (uint32_t)world_size, 0))
        return FM_OFI_RX_BAD;
    out->src = (int)w->src;
    out->msg = buf + sizeof *w;
    out->len = len - sizeof *w;
    if (w->kind == FM_OFI_MSG_DATA)
        return FM_OFI_RX_DELIVER;
    if (w->kind == FM_OFI_MSG_RTS_KEY && out->len >= sizeof(fm_hdr_rndv))
        return FM_OFI_RX_RTS_KEY;
    return FM_OFI_RX_BAD;
}

#endif
