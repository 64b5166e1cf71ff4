/* am.c — active messages (include/fabmpi/am.h): handlers, requests and
 * replies.
 *
 * Wire: one transport message per Short and Medium, and per Long up to the
 * transport's ordered message size (net.h ordered_max); a larger Long goes
 * as LONG_CHUNK messages (each written at its place in the target's
 * segment on arrival) and a final LONG that runs the handler.  Messages up
 * to that size arrive in order, so the handler runs after every chunk has
 * landed.
 *
 * Credits (credits.h): every message carries the credits its sender
 * owes the receiver; a request handler that sends no reply banks one, and
 * past the slack a hidden reply (ACK) returns them.  Replies and hidden
 * replies take no credit and never wait: a full transport queues them
 * (copied).
 *
 * Everything here runs under the library lock (core/cs.h): handlers run in
 * progress, which only the lock holder makes. */
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fabmpi/am.h>

#include "am/am.h"
#include "am/credits.h"
#include "boot/boot.h"
#include "boot/world.h"
#include "core/cs.h"
#include "core/progress.h"
#include "core/world.h"
#include "net/net.h"
#include "pt2pt/pt2pt.h"
#include "util/log.h"
#include "util/param.h"
#include "util/status.h"
#include "util/copy.h"

#define MAX_ARGS 16
#define NHANDLERS (FAB_AM_HANDLER_MAX + 1)

enum { AM_PROTO = FM_PROTO_HANDLER_FIRST };

enum am_kind {
    AM_SHORT = 0,
    AM_MEDIUM = 1,
    AM_LONG = 2,       /* the last (or only) piece of a Long: runs the handler */
    AM_LONG_CHUNK = 3, /* an earlier piece: only lands */
    AM_ACK = 4,        /* a hidden reply: credits only */
    AM_KIND = 0x0f,    /* the bits above */
    AM_REPLY = 0x10,   /* or'ed in: a reply (returns the request's credit) */
    AM_INTERNAL = 0x20, /* or'ed in: for the library's own handler `handler` */
};

/* A message: the header, for LONG and LONG_CHUNK the long part, nargs
 * arguments, the payload; at least an fm_hdr's 24 bytes in all, so a
 * Short with up to one argument and its ring record word fill half a
 * 64-byte line. */
struct am_hdr {
    uint8_t proto; /* AM_PROTO, where every transport message has its protocol */
    uint8_t kind;
    uint8_t handler;
    uint8_t nargs;
    uint32_t credits; /* credits the sender gives back to the receiver */
    uint64_t len;     /* payload bytes in this message */
};
struct am_long {
    uint64_t dest;  /* where this message's payload goes in the receiver's segment */
    uint64_t base;  /* LONG: the handler's buf (the first byte of the whole payload) */
    uint64_t total; /* LONG: the handler's nbytes */
};
/* A message's header as it is built. */
struct am_out {
    struct am_hdr h;
    uint64_t words[sizeof(struct am_long) / 8 + MAX_ARGS];
};

static int is_long(unsigned kind)
{
    kind &= AM_KIND;
    return kind == AM_LONG || kind == AM_LONG_CHUNK;
}
static size_t hlen_of(unsigned kind, unsigned nargs)
{
    return sizeof(struct am_hdr) + (is_long(kind) ? sizeof(struct am_long) : 0) +
           (size_t)nargs * sizeof(fab_am_arg_t);
}
static struct am_long *long_part(struct am_out *o) { return (struct am_long *)(void *)o->words; }
static fab_am_arg_t *args_of(struct am_out *o)
{
    return o->words + (is_long(o->h.kind) ? sizeof(struct am_long) / 8 : 0);
}

struct fab_am_token {
    int peer;
    int request; /* a request's handler: may reply once */
    int replied;
};

static struct {
    int up;
    fab_am_fn_t fn[NHANDLERS];
    fab_am_fn_t internal[FM_AM_INTERNAL_MAX + 1]; /* the library's own (rma.c) */
    unsigned accept[NHANDLERS]; /* FAB_AM_REQUEST | FAB_AM_REPLY */
    const char *name[NHANDLERS];
    size_t max_medium;
    size_t packed_long; /* FABMPI_AM_PACKED_LONG_LIMIT */
} A;

static int bad(const char *call, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(const char *call, const char *fmt, ...)
{
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fm_error_msg("%s: %s", call, text);
    return FAB_ERR_BAD_ARG;
}

/* ---- sending ---- */

/* How send_out may treat a transport without room. */
enum send_mode {
    SEND_WAIT, /* a request: make progress until there is room */
    SEND_PARK, /* a reply or hidden reply: queue a copy, never wait */
    SEND_TRY,  /* FAB_FLAG_IMMEDIATE: FAB_WOULD_BLOCK, nothing sent */
};

/* One message to peer, the credits we owe it riding along. */
/* Inlined into the request path: 40 instructions of an 8 B Medium went to
 * the call (docs/AM.md, "A shorter request path"). */
static inline __attribute__((always_inline)) int send_out(int peer, struct am_out *o,
                                                          const void *payload, size_t plen,
                                                          enum send_mode mode)
{
    o->h.proto = AM_PROTO;
    o->h.credits = (uint32_t)fm_am_cr.banked[peer];
    /* Every transport takes messages of at least an fm_hdr (OFI checks): a
     * smaller one goes out as one piece, its payload after the header and
     * zeros after that (which the receiver ignores: it reads len bytes).
     * Only a bare header (no argument, not a Long) is that small, so the
     * bytes to fill are the first word after it: one store clears them,
     * where a memset of a variable length was a byte loop (-mmemset-strategy
     * in meson.build), 30 of a Short reply's instructions. */
    size_t hlen = hlen_of(o->h.kind, o->h.nargs);
    _Static_assert(sizeof(struct am_hdr) + sizeof o->words[0] == sizeof(fm_hdr),
                   "a bare header and one word make an fm_hdr");
    if (hlen + plen < sizeof(fm_hdr)) {
        o->words[0] = 0;
        for (size_t i = 0; i < plen; i++) /* fewer than 8 bytes */
            ((char *)o->words)[i] = ((const char *)payload)[i];
        hlen = sizeof(fm_hdr);
        payload = NULL;
        plen = 0;
    }
    int rc = mode == SEND_WAIT   ? fm_send_or_wait(peer, o, hlen, payload, plen)
             : mode == SEND_PARK ? fm_send_or_park_copy(peer, o, hlen, payload, plen)
                                 : fm_send_now(peer, o, hlen, payload, plen);
    if (rc == FM_ERR_AGAIN && mode == SEND_TRY)
        return FAB_WOULD_BLOCK;
    fm_am_cr.banked[peer] = 0; /* they went with it */
    if (rc != FM_OK) {
        fm_error_msg("active message to rank %d failed: %s", peer, fm_status_msg(rc));
        fm_boot_abort(1, "fabmpi: an active message could not be sent");
    }
    return FAB_OK;
}

/* Payload bytes one message to peer may carry besides a full header
 * (ordered: the pieces of a Long, which must all land before the last one
 * runs its handler). */
static size_t piece(int peer, int ordered)
{
    const fm_net *n = fm_peer_net[peer];
    size_t max = ordered ? n->ordered_max : n->max_msg;
    return max > sizeof(struct am_out) ? max - sizeof(struct am_out) : 0;
}

/* A Long: chunks that only land, then the piece that runs the handler (o:
 * its header with the arguments in place). */
static int send_long(int peer, struct am_out *o, const char *buf, size_t n, uint64_t dest,
                     enum send_mode mode)
{
    /* Past the packed limit, a peer whose segment is mapped here gets the
     * payload copied straight into place and only the header travels (its
     * publication orders the copy before the handler).  Not under
     * IMMEDIATE: a refused request must not have written anything. */
    char *m;
    if (n > A.packed_long && mode != SEND_TRY && (m = fm_am_seg_map(peer))) {
        fm_move(fm_am_seg_at(m, peer, dest), buf, n); /* to ourselves: may overlap */
        o->h.len = 0;
        *long_part(o) = (struct am_long){dest, dest, n};
        return send_out(peer, o, NULL, 0, mode);
    }
    size_t chunk = piece(peer, 1);
    /* Chunks of a reply are marked so (they must not wait either), but only
     * its last piece returns the request's credit. */
    struct am_out c = {.h = {.kind = (uint8_t)(AM_LONG_CHUNK | (o->h.kind & AM_REPLY))}};
    /* Also marked internal: a chunk of the library's own Long is one too. */
    c.h.kind |= (uint8_t)(o->h.kind & AM_INTERNAL);
    size_t off = 0;
    while (n - off > chunk) {
        c.h.len = chunk;
        long_part(&c)->dest = dest + off;
        send_out(peer, &c, buf + off, chunk, mode);
        off += chunk;
    }
    o->h.len = n - off;
    *long_part(o) = (struct am_long){dest + off, dest, n};
    return send_out(peer, o, buf + off, n - off, mode);
}

/* The header of a message of kind (its arguments copied in). */
static void build(struct am_out *o, unsigned kind, unsigned handler, unsigned nargs,
                  const fab_am_arg_t *args, size_t nbytes)
{
    o->h = (struct am_hdr){.kind = (uint8_t)kind, .handler = (uint8_t)handler,
                           .nargs = (uint8_t)nargs, .len = nbytes};
    if (nargs)
        memcpy(args_of(o), args, nargs * sizeof *args);
}

static inline int check_common(const char *call, unsigned handler, unsigned nargs,
                        const fab_am_arg_t *args, const void *buf, size_t nbytes)
{
    if (handler < FAB_AM_HANDLER_MIN || handler > FAB_AM_HANDLER_MAX)
        return bad(call, "handler=%u is not a handler index (%d..%d)", handler,
                   FAB_AM_HANDLER_MIN, FAB_AM_HANDLER_MAX);
    if (nargs > MAX_ARGS)
        return bad(call, "nargs=%u is more than fab_am_max_args() = %d", nargs, MAX_ARGS);
    if (nargs && !args)
        return bad(call, "args=NULL with nargs=%u", nargs);
    if (nbytes && !buf)
        return bad(call, "buf=NULL with nbytes=%zu", nbytes);
    return FAB_OK;
}

static inline int send_request(int kind, int rank, unsigned handler, const void *buf, size_t nbytes,
                        void *dest, unsigned flags, unsigned nargs, const fab_am_arg_t *args);

static int request(const char *call, int kind, int rank, unsigned handler, const void *buf,
                   size_t nbytes, void *dest, unsigned flags, unsigned nargs,
                   const fab_am_arg_t *args)
{
    if (!A.up)
        return FAB_ERR_NOT_INIT;
    if (fm_am_handler_depth) {
        fm_error_msg("%s: called from a handler (a handler may only reply)", call);
        return FAB_ERR_NOT_ALLOWED;
    }
    if (rank < 0 || rank >= fm_world_size)
        return bad(call, "rank=%d is not a rank (0..%d)", rank, fm_world_size - 1);
    int rc = check_common(call, handler, nargs, args, buf, nbytes);
    if (rc)
        return rc;
    if (kind == AM_MEDIUM && nbytes > A.max_medium)
        return bad(call, "nbytes=%zu is more than fab_am_max_medium() = %zu", nbytes,
                   A.max_medium);
    if (kind == AM_LONG && nbytes && !fm_am_in_segment(rank, (uint64_t)(uintptr_t)dest, nbytes))
        return bad(call, "dest_addr=%p + nbytes=%zu is not inside rank %d's segment", dest,
                   nbytes, rank);
    if (flags & ~FAB_FLAG_IMMEDIATE)
        return bad(call, "flags=%#x has bits other than FAB_FLAG_IMMEDIATE", flags);
    return send_request(kind, rank, handler, buf, nbytes, dest, flags, nargs, args);
}

/* A request whose arguments are checked: wait for its credit (or refuse
 * under IMMEDIATE) and send it. */
static inline __attribute__((always_inline)) int send_request(int kind, int rank, unsigned handler, const void *buf, size_t nbytes,
                        void *dest, unsigned flags, unsigned nargs, const fab_am_arg_t *args)
{
    int immediate = (flags & FAB_FLAG_IMMEDIATE) != 0;
    if (!fm_am_has_credit(rank)) {
        if (immediate)
            return FAB_WOULD_BLOCK;
        fm_wait_until(fm_am_has_credit(rank));
    }
    struct am_out o;
    build(&o, (unsigned)kind, handler, nargs, args, nbytes);
    /* IMMEDIATE also refuses a full transport, for what goes in one
     * message; a Long of several pieces waits for room as the conduit's
     * does (its credit was the promise). */
    enum send_mode mode = immediate && ((kind & AM_KIND) != AM_LONG || nbytes <= piece(rank, 1))
                              ? SEND_TRY
                              : SEND_WAIT;
    fm_am_credit_take(rank, 1); /* taken before any wait: another thread
                                 * may send meanwhile */
    int rc = (kind & AM_KIND) == AM_LONG
                 ? send_long(rank, &o, buf, nbytes, (uint64_t)(uintptr_t)dest, mode)
                 : send_out(rank, &o, buf, nbytes, mode);
    if (rc == FAB_WOULD_BLOCK)
        fm_am_credit_take(rank, -1);
    return rc;
}

static int send_reply(int kind, fab_am_token_t token, unsigned handler, const void *buf,
                      size_t nbytes, void *dest, unsigned nargs, const fab_am_arg_t *args);

static int reply(const char *call, int kind, fab_am_token_t token, unsigned handler,
                 const void *buf, size_t nbytes, void *dest, unsigned flags, unsigned nargs,
                 const fab_am_arg_t *args)
{
    if (!A.up)
        return FAB_ERR_NOT_INIT;
    if (!token || !fm_am_handler_depth)
        return bad(call, "token=%p is not the token of a running handler", (void *)token);
    if (!token->request) {
        fm_error_msg("%s: called from a reply handler (replies get no reply)", call);
        return FAB_ERR_NOT_ALLOWED;
    }
    if (token->replied) {
        fm_error_msg("%s: this request handler has replied already (at most once)", call);
        return FAB_ERR_NOT_ALLOWED;
    }
    int rc = check_common(call, handler, nargs, args, buf, nbytes);
    if (rc)
        return rc;
    int peer = token->peer;
    if (kind == AM_MEDIUM && nbytes > A.max_medium)
        return bad(call, "nbytes=%zu is more than fab_am_max_medium() = %zu", nbytes,
                   A.max_medium);
    if (kind == AM_LONG && nbytes && !fm_am_in_segment(peer, (uint64_t)(uintptr_t)dest, nbytes))
        return bad(call, "dest_addr=%p + nbytes=%zu is not inside rank %d's segment", dest,
                   nbytes, peer);
    if (flags & ~FAB_FLAG_IMMEDIATE)
        return bad(call, "flags=%#x has bits other than FAB_FLAG_IMMEDIATE", flags);
    return send_reply(kind, token, handler, buf, nbytes, dest, nargs, args);
}

/* A reply whose arguments are checked; replies never wait (IMMEDIATE
 * changes nothing). */
static int send_reply(int kind, fab_am_token_t token, unsigned handler, const void *buf,
                      size_t nbytes, void *dest, unsigned nargs, const fab_am_arg_t *args)
{
    token->replied = 1;
    struct am_out o;
    build(&o, (unsigned)kind | AM_REPLY, handler, nargs, args, nbytes);
    if ((kind & AM_KIND) == AM_LONG)
        return send_long(token->peer, &o, buf, nbytes, (uint64_t)(uintptr_t)dest, SEND_PARK);
    return send_out(token->peer, &o, buf, nbytes, SEND_PARK);
}

/* ---- negotiated-payload Medium: prepare a library buffer, fill, commit ---- */

/* The request being built and the reply being built (in a handler, so a
 * handler may reply this way while the program holds a prepared request):
 * in library memory (max_medium bytes each, allocated on first use).  A
 * request's credit is taken at prepare, so its commit never waits for one. */
static struct np {
    int active;
    int peer;
    fab_am_token_t token;
    size_t size; /* bytes the caller may fill */
    char *buf;
} NP[2]; /* [is_reply] */

static int prepare(const char *call, int is_reply, int rank, fab_am_token_t token, size_t least,
                   size_t most, unsigned flags, void **buf, size_t *size)
{
    if (!A.up)
        return FAB_ERR_NOT_INIT;
    if (!buf || !size)
        return bad(call, "%s=NULL", !buf ? "buf" : "size");
    struct np *P = &NP[is_reply];
    if (P->active) {
        fm_error_msg("%s: a prepared %s waits for its commit (one at a time)", call,
                     is_reply ? "reply" : "request");
        return FAB_ERR_NOT_ALLOWED;
    }
    if (least > most)
        return bad(call, "least=%zu is more than most=%zu", least, most);
    if (least > A.max_medium)
        return bad(call, "least=%zu is more than fab_am_max_medium() = %zu", least, A.max_medium);
    if (flags & ~FAB_FLAG_IMMEDIATE)
        return bad(call, "flags=%#x has bits other than FAB_FLAG_IMMEDIATE", flags);
    if (!P->buf && !(P->buf = malloc(A.max_medium)))
        return FAB_ERR_RESOURCE;
    if (is_reply) {
        if (!token || !fm_am_handler_depth)
            return bad(call, "token=%p is not the token of a running handler", (void *)token);
        if (!token->request || token->replied) {
            fm_error_msg("%s: %s", call, !token->request ? "called from a reply handler (replies get no reply)"
                                                         : "this request handler has replied already (at most once)");
            return FAB_ERR_NOT_ALLOWED;
        }
        token->replied = 1; /* its one reply is this one */
        rank = token->peer;
    } else {
        if (fm_am_handler_depth) {
            fm_error_msg("%s: called from a handler (a handler may only reply)", call);
            return FAB_ERR_NOT_ALLOWED;
        }
        if (rank < 0 || rank >= fm_world_size)
            return bad(call, "rank=%d is not a rank (0..%d)", rank, fm_world_size - 1);
        if (!fm_am_has_credit(rank)) {
            if (flags & FAB_FLAG_IMMEDIATE)
                return FAB_WOULD_BLOCK;
            fm_wait_until(fm_am_has_credit(rank));
        }
        fm_am_credit_take(rank, 1);
    }
    P->active = 1;
    P->peer = rank;
    P->token = token;
    P->size = most < A.max_medium ? most : A.max_medium;
    *buf = P->buf;
    *size = P->size;
    return FAB_OK;
}

static int commit(const char *call, int is_reply, unsigned handler, size_t nbytes, unsigned nargs,
                  const fab_am_arg_t *args)
{
    if (!A.up)
        return FAB_ERR_NOT_INIT;
    struct np *P = &NP[is_reply];
    if (!P->active || (is_reply ? !fm_am_handler_depth : fm_am_handler_depth)) {
        fm_error_msg("%s: no %s prepared here", call, is_reply ? "reply" : "request");
        return FAB_ERR_NOT_ALLOWED;
    }
    int rc = check_common(call, handler, nargs, args, P->buf, nbytes);
    if (rc)
        return rc;
    if (nbytes > P->size)
        return bad(call, "nbytes=%zu is more than the %zu bytes prepared", nbytes, P->size);
    P->active = 0;
    struct am_out o;
    build(&o, AM_MEDIUM | (is_reply ? AM_REPLY : 0), handler, nargs, args, nbytes);
    return send_out(P->peer, &o, P->buf, nbytes, is_reply ? SEND_PARK : SEND_WAIT);
}

/* ---- receiving ---- */

static __attribute__((cold, noreturn)) void unusable(int peer, const char *what, unsigned v)
{
    char why[200];
    snprintf(why, sizeof why, "fabmpi: rank %d received an active message from rank %d for %s %u",
             fm_world_rank, peer, what, v);
    fm_boot_abort(1, why);
}

static void on_am(int peer, const void *msg, size_t len)
{
    const struct am_hdr *w = msg;
    size_t hlen = hlen_of(w->kind, w->nargs);
    if (len < hlen || len - hlen < w->len || w->nargs > MAX_ARGS) {
        fm_error_msg("malformed active message from rank %d dropped", peer);
        return;
    }
    const char *payload = (const char *)msg + hlen;
    const struct am_long *lp = (const struct am_long *)(const void *)(w + 1);
    const fab_am_arg_t *args =
        (const fab_am_arg_t *)(const void *)((const char *)(w + 1) +
                                             (is_long(w->kind) ? sizeof *lp : 0));
    int is_reply = (w->kind & AM_REPLY) != 0;
    if (peer != fm_world_rank) {
        int got = (int)w->credits + (is_reply && (w->kind & AM_KIND) != AM_LONG_CHUNK);
        fm_am_credit_take(peer, -got);
    }
    void *buf = NULL;
    size_t nbytes = 0;
    switch (w->kind & AM_KIND) {
    case AM_ACK:
        return;
    case AM_LONG_CHUNK:
        fm_copy((void *)(uintptr_t)lp->dest, payload, w->len);
        return;
    case AM_LONG:
        if (w->len)
            fm_copy((void *)(uintptr_t)lp->dest, payload, w->len);
        buf = (void *)(uintptr_t)lp->base;
        nbytes = lp->total;
        break;
    case AM_MEDIUM:
        buf = (void *)payload;
        nbytes = w->len;
        break;
    case AM_SHORT:
        break;
    default:
        unusable(peer, "kind", w->kind);
    }
    fab_am_fn_t fn;
    if (w->kind & AM_INTERNAL) {
        if (w->handler > FM_AM_INTERNAL_MAX || !(fn = A.internal[w->handler]))
            unusable(peer, "an unknown library handler", w->handler);
    } else if (!(fn = A.fn[w->handler]))
        unusable(peer, "a handler this rank has not registered: index", w->handler);
    else if (!(A.accept[w->handler] & (is_reply ? FAB_AM_REPLY : FAB_AM_REQUEST)))
        unusable(peer, is_reply ? "a reply to request-only handler" : "a request to reply-only handler",
                 w->handler);
    struct fab_am_token t = {peer, !is_reply, 0};
    fm_am_handler_depth++;
    fn(&t, buf, nbytes, w->nargs ? args : NULL, w->nargs);
    fm_am_handler_depth--;
    if (NP[1].active && NP[1].token == &t) {
        char why[200];
        snprintf(why, sizeof why,
                 "fabmpi: rank %d: handler %u returned with a prepared reply not committed "
                 "(fab_am_commit_reply_medium must come before the handler returns)",
                 fm_world_rank, w->handler);
        fm_boot_abort(1, why);
    }
    if (is_reply || t.replied || peer == fm_world_rank)
        return;
    /* No reply: the credit is banked, sent back with our next message to
     * the requester or, past the slack, by a hidden reply. */
    if (++fm_am_cr.banked[peer] > fm_am_cr.slack[peer]) {
        struct am_out ack = {.h = {.kind = AM_ACK}};
        send_out(peer, &ack, NULL, 0, SEND_PARK);
    }
}

/* ---- life ---- */

static int keeps_awake; /* the program registered a handler (fm_progress_awake) */

int fm_am_init(int world_rank, int world_size)
{
    (void)world_rank;
    int rc = fm_am_segments_read(world_size);
    if (rc != FM_OK)
        return rc;
    if ((rc = fm_am_credits_setup(world_size)) != FM_OK)
        return rc;
    A.packed_long = fm_param.AM_PACKED_LONG_LIMIT;
    A.max_medium = (size_t)-1;
    for (int p = 0; p < world_size; p++)
        if (piece(p, 0) < A.max_medium)
            A.max_medium = piece(p, 0);
    if ((rc = fm_deliver_register(AM_PROTO, on_am)) != FM_OK)
        return rc;
    int first = fm_world_rank == 0 && world_size > 1 ? 1 : 0;
    fm_log(1, "active messages: %d credits to rank %d (slack %d), %ld to a network peer, %d in "
              "all; max medium %zu bytes",
           fm_am_cr.credits[first], first, fm_am_cr.slack[first], fm_param.AM_CREDITS_PP,
           fm_am_cr.total, A.max_medium);
    A.up = 1;
    return fm_am_rma_init();
}

void fm_am_finalize(void)
{
    A.up = 0;
    if (keeps_awake) {
        keeps_awake = 0;
        fm_progress_awake--;
    }
    fm_am_credits_teardown();
    free(NP[0].buf);
    free(NP[1].buf);
    memset(NP, 0, sizeof NP);
    fm_am_segments_release();
}

/* ---- the library's own handlers (am.h) ---- */

void fm_am_internal_register(unsigned index, fab_am_fn_t fn) { A.internal[index] = fn; }

int fm_am_internal_request(int kind, int rank, unsigned handler, const void *buf, size_t nbytes,
                           void *dest, unsigned flags, unsigned nargs, const fab_am_arg_t *args)
{
    return send_request(kind | AM_INTERNAL, rank, handler, buf, nbytes, dest, flags, nargs, args);
}

int fm_am_internal_reply(int kind, fab_am_token_t token, unsigned handler, const void *buf,
                         size_t nbytes, void *dest, unsigned nargs, const fab_am_arg_t *args)
{
    return send_reply(kind | AM_INTERNAL, token, handler, buf, nbytes, dest, nargs, args);
}

int fm_am_up(void) { return A.up; }
size_t fm_am_max_medium(void) { return A.up ? A.max_medium : 0; }
int fm_am_handler_depth;

/* ---- the public procedures ---- */

int fab_am_register(unsigned index, fab_am_fn_t fn, unsigned flags, const char *name)
{
    FM_API_LOCK();
    if (index < FAB_AM_HANDLER_MIN || index > FAB_AM_HANDLER_MAX)
        return bad("fab_am_register", "index=%u is not a handler index (%d..%d)", index,
                   FAB_AM_HANDLER_MIN, FAB_AM_HANDLER_MAX);
    if (flags & ~(FAB_AM_REQUEST | FAB_AM_REPLY))
        return bad("fab_am_register", "flags=%#x has bits other than FAB_AM_REQUEST|FAB_AM_REPLY",
                   flags);
    if (A.fn[index] && fn && A.fn[index] != fn)
        return bad("fab_am_register", "index=%u is taken (by \"%s\")", index,
                   A.name[index] ? A.name[index] : "?");
    A.fn[index] = fn; /* NULL: free the index */
    if (fn && !keeps_awake) { /* requests may come any time: no napping waits */
        keeps_awake = 1;
        fm_progress_awake++;
    }
    A.accept[index] = flags ? flags : FAB_AM_REQUEST | FAB_AM_REPLY;
    A.name[index] = name;
    return FAB_OK;
}

int fab_am_request_short(int rank, unsigned handler, unsigned flags, unsigned nargs,
                         const fab_am_arg_t *args)
{
    FM_API_LOCK();
    return request("fab_am_request_short", AM_SHORT, rank, handler, NULL, 0, NULL, flags, nargs,
                   args);
}

int fab_am_request_medium(int rank, unsigned handler, const void *buf, size_t nbytes,
                          unsigned flags, unsigned nargs, const fab_am_arg_t *args)
{
    FM_API_LOCK();
    return request("fab_am_request_medium", AM_MEDIUM, rank, handler, buf, nbytes, NULL, flags,
                   nargs, args);
}

int fab_am_request_long(int rank, unsigned handler, const void *buf, size_t nbytes,
                        void *dest_addr, unsigned flags, unsigned nargs, const fab_am_arg_t *args)
{
    FM_API_LOCK();
    return request("fab_am_request_long", AM_LONG, rank, handler, buf, nbytes, dest_addr, flags,
                   nargs, args);
}

int fab_am_reply_short(fab_am_token_t token, unsigned handler, unsigned flags, unsigned nargs,
                       const fab_am_arg_t *args)
{
    FM_API_LOCK();
    return reply("fab_am_reply_short", AM_SHORT, token, handler, NULL, 0, NULL, flags, nargs,
                 args);
}

int fab_am_reply_medium(fab_am_token_t token, unsigned handler, const void *buf, size_t nbytes,
                        unsigned flags, unsigned nargs, const fab_am_arg_t *args)
{
    FM_API_LOCK();
    return reply("fab_am_reply_medium", AM_MEDIUM, token, handler, buf, nbytes, NULL, flags,
                 nargs, args);
}

int fab_am_reply_long(fab_am_token_t token, unsigned handler, const void *buf, size_t nbytes,
                      void *dest_addr, unsigned flags, unsigned nargs, const fab_am_arg_t *args)
{
    FM_API_LOCK();
    return reply("fab_am_reply_long", AM_LONG, token, handler, buf, nbytes, dest_addr, flags,
                 nargs, args);
}

int fab_am_prepare_request_medium(int rank, size_t least, size_t most, unsigned flags, void **buf,
                                  size_t *size)
{
    FM_API_LOCK();
    return prepare("fab_am_prepare_request_medium", 0, rank, NULL, least, most, flags, buf, size);
}

int fab_am_commit_request_medium(unsigned handler, size_t nbytes, unsigned nargs,
                                 const fab_am_arg_t *args)
{
    FM_API_LOCK();
    return commit("fab_am_commit_request_medium", 0, handler, nbytes, nargs, args);
}

int fab_am_prepare_reply_medium(fab_am_token_t token, size_t least, size_t most, unsigned flags,
                                void **buf, size_t *size)
{
    FM_API_LOCK();
    return prepare("fab_am_prepare_reply_medium", 1, 0, token, least, most, flags, buf, size);
}

int fab_am_commit_reply_medium(unsigned handler, size_t nbytes, unsigned nargs,
                               const fab_am_arg_t *args)
{
    FM_API_LOCK();
    return commit("fab_am_commit_reply_medium", 1, handler, nbytes, nargs, args);
}

int fab_am_token_rank(fab_am_token_t token)
{
    FM_API_LOCK();
    if (!token || !fm_am_handler_depth)
        return bad("fab_am_token_rank", "token=%p is not the token of a running handler",
                   (void *)token);
    return token->peer;
}

size_t fab_am_max_medium(void)
{
    FM_API_LOCK();
    return A.up ? A.max_medium : 0;
}

unsigned fab_am_max_args(void) { return MAX_ARGS; }

int fab_am_max_credits(int rank)
{
    FM_API_LOCK();
    if (!A.up)
        return FAB_ERR_NOT_INIT;
    if (rank < 0 || rank >= fm_world_size)
        return bad("fab_am_max_credits", "rank=%d is not a rank of MPI_COMM_WORLD (size %d)", rank,
                   fm_world_size);
    return rank == fm_world_rank ? 0 : fm_am_cr.max_credits[rank];
}

int fab_poll(void)
{
    FM_API_LOCK();
    if (!A.up)
        return FAB_ERR_NOT_INIT;
    if (fm_am_handler_depth) {
        fm_error_msg("fab_poll: called from a handler");
        return FAB_ERR_NOT_ALLOWED;
    }
    /* A program polls in a loop: on an oversubscribed node an empty poll
     * gives the CPU to the rank it waits for, as MPI's waits do. */
    if (!fm_progress() && fm_oversubscribed)
        sched_yield();
    return FAB_OK;
}

const char *fab_strerror(int rc)
{
    switch (rc) {
    case FAB_OK: return "FAB_OK: success";
    case FAB_WOULD_BLOCK: return "FAB_WOULD_BLOCK: not sent, it would have waited (FAB_FLAG_IMMEDIATE)";
    case FAB_ERR_BAD_ARG: return "FAB_ERR_BAD_ARG: an argument is out of range";
    case FAB_ERR_NOT_INIT: return "FAB_ERR_NOT_INIT: before MPI_Init or after MPI_Finalize";
    case FAB_ERR_RESOURCE: return "FAB_ERR_RESOURCE: out of memory";
    case FAB_ERR_NOT_ALLOWED: return "FAB_ERR_NOT_ALLOWED: not allowed from a handler";
    case FAB_NOT_READY: return "FAB_NOT_READY: the operation has not completed yet";
    case FAB_ERR_NET: return "FAB_ERR_NET: a transfer failed (its peer or the network)";
    default: return "unknown fab_ return code";
    }
}
