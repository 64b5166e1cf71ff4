/* rma.c — fab_rma_put/get and their _nb and _nbi forms: one-sided copies
 * between any memory of this rank and a rank's segment (include/fabmpi/am.h).
 *
 * How a peer is reached is decided at its first transfer (FABMPI_AM_RMA):
 *   COPY  ourselves, or a peer on this node whose segment is mapped here
 *         (segment.c): memcpy, complete before the call returns;
 *   CMA   a peer on this node whose segment could not be mapped:
 *         process_vm_writev/readv, complete before the call returns (a
 *         peer that refuses CMA falls back to messages);
 *   NET   a peer over a transport with one-sided operations: fi_write /
 *         fi_read (net/net_rma.h) into its segment, registered when the
 *         first peer asks for its key (a library request, answered with
 *         the key and the endpoint's name), so a program that never
 *         transfers over the network registers nothing;
 *   AM    everyone else: a put is a library Long request (the payload
 *         lands in the segment, the handler answers), a get is Short
 *         requests answered by Medium replies, one per fab_am_max_medium()
 *         bytes.  They take active-message credits like any request.
 *
 * Completion: every operation counts its pieces in a fab_event (the
 * caller's for _nb, the implicit one for _nbi, one on the stack for the
 * blocking forms); a piece that finishes at once is never counted, and an
 * _nb whose pieces all finished returns no event (NULL, which fab_wait
 * and fab_test take as done).  The source of a put may be reused when the
 * call returns (the conduit's non-bulk rule): over the network a put up to
 * FABMPI_AM_BOUNCE_LIMIT is copied into a bounce buffer, a larger one
 * waits for its completion, unless FAB_FLAG_BULK defers reuse to the sync.
 * Local buffers are registered only where the provider needs it, by the
 * transport's registration cache (net/ofi/mr_cache.c), which drops what
 * the program unmaps, so unmapping or remapping them between transfers is
 * always safe. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include <fabmpi/am.h>

#include "am/am.h"
#include "am/xfer.h"
#include "boot/world.h"
#include "core/cs.h"
#include "core/progress.h"
#include "core/world.h"
#include "net/net.h"
#include "util/cma.h"
#include "util/log.h"
#include "util/param.h"
#include "util/pvar.h"
#include "util/status.h"
#include "util/copy.h"

enum { HOW_UNSET = 0, HOW_COPY, HOW_CMA, HOW_NET, HOW_AM };
/* How a transfer completes: before the call returns, by its event, or by
 * fab_nbi_wait. */
enum sync { SYNC_NOW, SYNC_NB, SYNC_NBI };
/* The library's handlers (am.h's internal table). */
enum { H_CARD = 0, H_CARD_R, H_PUT, H_PUT_R, H_GET, H_GET_R };

struct fab_event {
    int pending;            /* pieces in flight */
    int status;             /* FAB_OK, or the first failure */
    int flush_rank;         /* FLUSH_BY_READ: a put to it still needs its read behind */
    uint64_t flush_addr;    /* (a byte it wrote) */
    struct fab_event *next; /* free list */
};

/* A rank's registration as its segment's net card told it (NET). */
enum { CARD_NONE = 0, CARD_ASKED, CARD_KNOWN };
struct card {
    int state;
    int ok;
    uint64_t key;
    uint64_t raddr;
};

/* A peer reached by copies: its segment as published, and the distance to
 * where it is mapped here (size 0 until how() chose COPY). */
struct copy_peer {
    uint64_t base, size;
    intptr_t delta;
};

/* One one-sided network operation in flight. */
typedef struct rop {
    fm_xfer x; /* first: the completion leads here */
    struct fab_event *ev;
    void *bounce;     /* given back on completion */
    struct rop *next; /* free list */
} rop;

static struct {
    int up;
    uint8_t *how;          /* [world] HOW_* */
    struct copy_peer *copy; /* [world] COPY: its segment, and where it is mapped here */
    struct card *card;     /* [world] */
    fm_net *net;           /* the one-sided transport (am/xfer.h), opened; NULL: none */
    fm_region_net_card self_card; /* our segment's, once registered */
    int reg_tried, reg_ok;
    struct fab_event nbi;  /* what _nbi operations count into */
    struct fab_event *free_ev;
    rop *free_op;
    int hooked;
    char sink;             /* FLUSH_BY_READ: where the read behind a put lands */
    uint64_t *nbi_flush;   /* [world] FLUSH_BY_READ: a byte an _nbi put wrote there, or 0 */
    void *bounce_free;     /* kept bounce buffers, linked through their first word */
    int bounce_kept;
} R;

static int bad(const char *call, const char *what, const void *p, size_t n, int rank)
{
    fm_error_msg("%s: %s=%p + n=%zu is not inside rank %d's segment", call, what, p, n, rank);
    return FAB_ERR_BAD_ARG;
}

/* ---- events ---- */

static struct fab_event *ev_new(void)
{
    struct fab_event *e = R.free_ev;
    if (e)
        R.free_ev = e->next;
    else if (!(e = malloc(sizeof *e)))
        return NULL;
    *e = (struct fab_event){0, FAB_OK, -1, 0, NULL};
    return e;
}

static void ev_free(struct fab_event *e)
{
    e->next = R.free_ev;
    R.free_ev = e;
}

static void piece_done(struct fab_event *e, int status)
{
    if (status != FAB_OK && e->status == FAB_OK)
        e->status = status;
    e->pending--;
}

/* ---- the network path ---- */

static fm_net *net(void) { return R.net = fm_xfer_net(); }

/* Register our segment for peers' writes and reads (once). */
static int self_reg(void)
{
    if (!R.reg_tried) {
        R.reg_tried = 1;
        fm_region_register(&fm_am_seg_mine, &R.self_card);
        R.reg_ok = net() && R.self_card.ok;
        if (R.reg_ok && !R.hooked && (R.hooked = fm_xfer_hold() == FM_OK))
            fm_progress_awake++; /* a peer writes here: its writes move as we poll */
        R.reg_ok &= R.hooked;
    }
    return R.reg_ok;
}

/* A peer asks for our card: answer it (ok 0 when we cannot be written). */
static void on_card(fab_am_token_t t, void *buf, size_t n, const fab_am_arg_t *a, unsigned na)
{
    (void)buf, (void)n, (void)a, (void)na;
    static const fm_region_net_card none;
    const fm_region_net_card *m = self_reg() ? &R.self_card : &none;
    fm_am_internal_reply(FM_AM_MEDIUM, t, H_CARD_R, m, sizeof *m, NULL, 0, NULL);
}

static void on_card_reply(fab_am_token_t t, void *buf, size_t n, const fab_am_arg_t *a,
                          unsigned na)
{
    (void)a, (void)na;
    int from = fab_am_token_rank(t);
    fm_region_net_card m;
    struct card *c = &R.card[from];
    c->state = CARD_KNOWN;
    c->ok = 0;
    if (n != sizeof m)
        return;
    memcpy(&m, buf, sizeof m);
    if (fm_region_reach(from, &m))
        *c = (struct card){CARD_KNOWN, 1, m.key, m.raddr};
}

/* 1 when rank's segment takes our one-sided writes and reads. */
static int net_reaches(int rank)
{
    if (fm_peer_net[rank] == &fm_net_shm || !self_reg())
        return 0;
    struct card *c = &R.card[rank];
    if (c->state == CARD_NONE) {
        c->state = CARD_ASKED;
        if (fm_am_internal_request(FM_AM_SHORT, rank, H_CARD, NULL, 0, NULL, 0, 0, NULL) !=
            FAB_OK) {
            c->state = CARD_KNOWN;
            return 0;
        }
    }
    fm_wait_until(c->state == CARD_KNOWN);
    return c->ok;
}

/* Bounce buffers (FABMPI_AM_BOUNCE_LIMIT bytes each) are kept for reuse:
 * a fresh one faults its pages in, and on this project's VMs a fault costs
 * about 16 us a page, which took 64 KiB puts from 3.5 GB/s to 240 MB/s. */
#define BOUNCE_KEEP 64
static void *bounce_get(void)
{
    void *b = R.bounce_free;
    if (b) {
        R.bounce_free = *(void **)b;
        R.bounce_kept--;
        return b;
    }
    return malloc(fm_param.AM_BOUNCE_LIMIT);
}

static void bounce_put(void *b)
{
    if (R.bounce_kept >= BOUNCE_KEEP) {
        free(b);
        return;
    }
    *(void **)b = R.bounce_free;
    R.bounce_free = b;
    R.bounce_kept++;
}

static void rop_done(fm_net_rma_op *op, int status)
{
    rop *r = (rop *)(void *)op;
    if (status != FM_OK)
        fm_error_msg("fab_rma: a one-sided transfer failed: %s", fm_status_msg(status));
    piece_done(r->ev, status == FM_OK ? FAB_OK : FAB_ERR_NET);
    if (r->bounce)
        bounce_put(r->bounce);
    r->bounce = NULL;
    r->next = R.free_op;
    R.free_op = r;
}

/* Post one write or read of len <= rma_max bytes; one the transport
 * cannot take yet is parked (am/xfer.h), unless `once` (then
 * FAB_WOULD_BLOCK). */
static int net_one(int write, int rank, void *buf, size_t len, uint64_t remote,
                   struct fab_event *ev, void *bounce, int once)
{
    rop *r = R.free_op;
    if (r)
        R.free_op = r->next;
    else if (!(r = calloc(1, sizeof *r)))
        return FAB_ERR_RESOURCE;
    r->ev = ev;
    r->bounce = bounce;
    const struct card *c = &R.card[rank];
    r->x = (fm_xfer){.op.done = rop_done, .kind = write ? FM_XFER_WRITE : FM_XFER_READ,
                     .world = rank, .buf = buf, .count = len,
                     .raddr = c->raddr + (remote - fm_am_segs[rank].base), .key = c->key};
    int rc = once ? fm_xfer_post_now(&r->x) : fm_xfer_post(&r->x);
    if (rc != FM_OK) {
        r->next = R.free_op;
        R.free_op = r;
        return rc == FM_ERR_AGAIN ? FAB_WOULD_BLOCK : FAB_ERR_NET;
    }
    ev->pending++;
    return FAB_OK;
}

/* A whole transfer in pieces of rma_max; a put on a transport whose
 * completed writes may not have landed yet is followed by a read of its
 * last byte, ordered behind it, so completion means landed. */
static int net_xfer(int write, int rank, char *buf, size_t n, uint64_t remote,
                    struct fab_event *ev, void *bounce, int immediate)
{
    size_t max = R.net->rma_max ? R.net->rma_max : n;
    for (size_t off = 0; off < n; off += max) {
        size_t len = n - off < max ? n - off : max;
        int rc = net_one(write, rank, buf + off, len, remote + off, ev,
                         off + len == n ? bounce : NULL, immediate && off == 0);
        if (rc != FAB_OK)
            return rc;
    }
    return FAB_OK;
}

/* Where a completed write may not have landed yet (FLUSH_BY_READ), a put
 * is remotely complete once a read ordered behind it completes.  The read
 * goes at the sync, one per target, not one per put: many reads among
 * writes in flight stall the net provider (bench/am_rma.c, 64 KiB puts:
 * 160 MB/s against 1.5 GB/s). */
static void need_flush(enum sync sync, int rank, uint64_t addr, struct fab_event *ev)
{
    if (!(R.net->rma_caps & FM_NET_RMA_FLUSH_BY_READ))
        return;
    if (sync == SYNC_NBI) {
        R.nbi_flush[rank] = addr;
    } else {
        ev->flush_rank = rank;
        ev->flush_addr = addr;
    }
}

/* The reads behind an event's or the implicit set's puts. */
static int flush_event(struct fab_event *ev)
{
    int rc = FAB_OK;
    if (ev->flush_rank >= 0) {
        rc = net_one(0, ev->flush_rank, &R.sink, 1, ev->flush_addr, ev, NULL, 0);
        ev->flush_rank = -1;
    }
    return rc;
}

static int flush_nbi(void)
{
    int rc = FAB_OK;
    for (int r = 0; R.nbi_flush && r < fm_world_size; r++)
        if (R.nbi_flush[r]) {
            int e = net_one(0, r, &R.sink, 1, R.nbi_flush[r], &R.nbi, NULL, 0);
            R.nbi_flush[r] = 0;
            if (rc == FAB_OK)
                rc = e;
        }
    return rc;
}

/* ---- the active-message path ---- */

static void on_put(fab_am_token_t t, void *buf, size_t n, const fab_am_arg_t *a, unsigned na)
{
    (void)buf, (void)n, (void)na;
    fm_am_internal_reply(FM_AM_SHORT, t, H_PUT_R, NULL, 0, NULL, 1, a);
}

static void on_put_reply(fab_am_token_t t, void *buf, size_t n, const fab_am_arg_t *a,
                         unsigned na)
{
    (void)t, (void)buf, (void)n, (void)na;
    piece_done((struct fab_event *)(uintptr_t)a[0], FAB_OK);
}

/* a: source address in our segment, bytes, the requester's destination,
 * its event. */
static void on_get(fab_am_token_t t, void *buf, size_t n, const fab_am_arg_t *a, unsigned na)
{
    (void)buf, (void)n, (void)na;
    int from = fab_am_token_rank(t);
    size_t len = (size_t)a[1];
    if (!fm_am_in_segment(fm_world_rank, a[0], len)) {
        fm_error_msg("fab_rma_get from rank %d: %zu bytes at 0x%llx are not in our segment", from,
                     len, (unsigned long long)a[0]);
        len = 0;
    }
    fm_am_internal_reply(FM_AM_MEDIUM, t, H_GET_R, (const void *)(uintptr_t)a[0], len, NULL, 2,
                         a + 2);
}

static void on_get_reply(fab_am_token_t t, void *buf, size_t n, const fab_am_arg_t *a,
                         unsigned na)
{
    (void)t, (void)na;
    if (n)
        fm_copy((void *)(uintptr_t)a[0], buf, n);
    piece_done((struct fab_event *)(uintptr_t)a[1], FAB_OK);
}

static int am_put(int rank, void *dst, const void *src, size_t n, struct fab_event *ev,
                  int immediate)
{
    fab_am_arg_t a = (uintptr_t)ev;
    int rc = fm_am_internal_request(FM_AM_LONG, rank, H_PUT, src, n, dst,
                                    immediate ? FAB_FLAG_IMMEDIATE : 0, 1, &a);
    if (rc == FAB_OK)
        ev->pending++;
    return rc;
}

static int am_get(char *dst, int rank, uint64_t src, size_t n, struct fab_event *ev,
                  int immediate)
{
    size_t max = fab_am_max_medium();
    for (size_t off = 0; off < n; off += max) {
        size_t len = n - off < max ? n - off : max;
        fab_am_arg_t a[4] = {src + off, len, (uintptr_t)(dst + off), (uintptr_t)ev};
        int rc = fm_am_internal_request(FM_AM_SHORT, rank, H_GET, NULL, 0, NULL,
                                        immediate && off == 0 ? FAB_FLAG_IMMEDIATE : 0, 4, a);
        if (rc != FAB_OK)
            return rc;
        ev->pending++;
    }
    return FAB_OK;
}

/* ---- choosing a path ---- */

static int how(int rank)
{
    if (R.how[rank])
        return R.how[rank];
    int mode = (int)fm_param.AM_RMA, h = HOW_AM;
    if (rank == fm_world_rank || (mode == FM_AM_RMA_AUTO && fm_am_seg_map(rank))) {
        h = HOW_COPY;
        R.copy[rank] = (struct copy_peer){
            fm_am_segs[rank].base, fm_am_segs[rank].len,
            (intptr_t)((uintptr_t)fm_am_seg_map(rank) - fm_am_segs[rank].base)};
    }
    else if (mode != FM_AM_RMA_AM && fm_peer_net[rank] == &fm_net_shm)
        h = HOW_CMA;
    else if (mode != FM_AM_RMA_AM && net_reaches(rank))
        h = HOW_NET;
    return R.how[rank] = (uint8_t)h;
}

/* CMA of n bytes; 1 when the peer refused it (caller falls back). */
static int cma(int write, int rank, void *local, uint64_t remote, size_t n, int *rc)
{
    struct iovec l = {local, n}, r = {(void *)(uintptr_t)remote, n};
    fm_cma_fail f;
    *rc = FAB_OK;
    if (fm_cma_copy(fm_am_segs[rank].pid, write, &l, 1, &r, 1, &f) == 0)
        return 0;
    if (f.err == EPERM || f.err == ENOSYS) {
        fm_log(1, "fab_rma: rank %d refuses CMA (%s); reached by active messages", rank,
               strerror(f.err));
        R.how[rank] = HOW_AM;
        return 1;
    }
    fm_error_msg("fab_rma: process_vm_%s of %zu bytes at 0x%llx in rank %d: %s",
                 write ? "writev" : "readv", f.bytes, (unsigned long long)f.remote, rank,
                 strerror(f.err));
    *rc = FAB_ERR_NET;
    return 0;
}

static inline void copy(int write, int rank, void *local, uint64_t remote, size_t n)
{
    FM_PV_INC(am_rma_copy);
    void *there = (void *)(uintptr_t)(remote + (uint64_t)R.copy[rank].delta);
    if (rank == fm_world_rank) /* both ends may be in our segment */
        fm_move(write ? there : local, write ? local : there, n);
    else
        fm_copy(write ? there : local, write ? local : there, n);
}

/* The common case first, with the fewest checks that keep every error
 * for xfer: a copy into or out of a segment mapped here.  1 when done. */
static inline int try_copy(int write, int rank, void *local, uint64_t remote, size_t n,
                           unsigned flags)
{
    if ((unsigned)rank >= (unsigned)fm_world_size || !R.copy || !local || fm_am_handler_depth ||
        (flags & ~(FAB_FLAG_IMMEDIATE | FAB_FLAG_BULK)))
        return 0;
    const struct copy_peer *c = &R.copy[rank];
    uint64_t off = remote - c->base; /* wraps past size below the segment */
    if (!n || off > c->size || n > c->size - off)
        return 0;
    copy(write, rank, local, remote, n);
    return 1;
}

/* One transfer: write = 1 puts local -> remote.  ev counts what is left
 * in flight. */
static int xfer(const char *call, int write, int rank, void *local, uint64_t remote, size_t n,
                unsigned flags, enum sync sync, struct fab_event *ev)
{
    if (!R.up)
        return FAB_ERR_NOT_INIT;
    if (fm_am_handler_depth) {
        fm_error_msg("%s: called from a handler (handlers may not wait)", call);
        return FAB_ERR_NOT_ALLOWED;
    }
    if (rank < 0 || rank >= fm_world_size) {
        fm_error_msg("%s: rank=%d is not a rank (0..%d)", call, rank, fm_world_size - 1);
        return FAB_ERR_BAD_ARG;
    }
    if (flags & ~(FAB_FLAG_IMMEDIATE | FAB_FLAG_BULK)) {
        fm_error_msg("%s: flags=%#x has bits other than FAB_FLAG_IMMEDIATE|FAB_FLAG_BULK", call,
                     flags);
        return FAB_ERR_BAD_ARG;
    }
    if (!n)
        return FAB_OK;
    if (!local) {
        fm_error_msg("%s: %s=NULL with n=%zu", call, write ? "src" : "dst", n);
        return FAB_ERR_BAD_ARG;
    }
    if (!fm_am_in_segment(rank, remote, n))
        return bad(call, write ? "dst" : "src", (void *)(uintptr_t)remote, n, rank);
    int immediate = (flags & FAB_FLAG_IMMEDIATE) != 0, rc = FAB_OK;
    switch (R.how[rank] ? R.how[rank] : how(rank)) {
    case HOW_COPY:
        copy(write, rank, local, remote, n);
        return FAB_OK;
    case HOW_CMA:
        if (!cma(write, rank, local, remote, n, &rc)) {
            FM_PV_INC(am_rma_cma);
            return rc;
        }
        break; /* refused: by messages (counted there, not here) */
    case HOW_NET: {
        FM_PV_INC(am_rma_net);
        void *bounce = NULL;
        char *buf = local;
        if (write && sync != SYNC_NOW && !(flags & FAB_FLAG_BULK)) {
            /* The source is free on return: a copy, or wait for it to go. */
            if (n <= fm_param.AM_BOUNCE_LIMIT && n <= R.net->rma_max && n >= sizeof(void *) &&
                (bounce = bounce_get())) {
                fm_copy(bounce, local, n);
                buf = bounce;
            } else {
                struct fab_event sent = {0, FAB_OK, -1, 0, NULL};
                rc = net_xfer(1, rank, buf, n, remote, &sent, NULL, immediate);
                fm_wait_until(sent.pending == 0);
                if (rc == FAB_OK && sent.status == FAB_OK)
                    need_flush(sync, rank, remote + n - 1, ev);
                return rc == FAB_OK ? sent.status : rc;
            }
        }
        rc = net_xfer(write, rank, buf, n, remote, ev, bounce, immediate);
        if (rc != FAB_OK && bounce && ev->pending == 0)
            bounce_put(bounce); /* not posted: nobody else gives it back */
        if (rc == FAB_OK && write) {
            need_flush(sync, rank, remote + n - 1, ev);
            if (sync == SYNC_NOW)
                rc = flush_event(ev);
        }
        return rc;
    }
    }
    FM_PV_INC(am_rma_msg);
    return write ? am_put(rank, (void *)(uintptr_t)remote, local, n, ev, immediate)
                 : am_get(local, rank, remote, n, ev, immediate);
}

/* The blocking forms: the operation's own event, waited for. */
static int now(const char *call, int write, int rank, void *local, uint64_t remote, size_t n,
               unsigned flags)
{
    struct fab_event e = {0, FAB_OK, -1, 0, NULL};
    int rc = xfer(call, write, rank, local, remote, n, flags, SYNC_NOW, &e);
    if (e.pending) /* copies finish inside xfer: no wait for them */
        fm_wait_until(e.pending == 0);
    return rc != FAB_OK ? rc : e.status;
}

static int nb(const char *call, int write, int rank, void *local, uint64_t remote, size_t n,
              unsigned flags, fab_event_t *out)
{
    if (!out) {
        fm_error_msg("%s: ev=NULL", call);
        return FAB_ERR_BAD_ARG;
    }
    *out = NULL;
    if (try_copy(write, rank, local, remote, n, flags))
        return FAB_OK;
    struct fab_event *e = R.up ? ev_new() : NULL;
    if (R.up && !e)
        return FAB_ERR_RESOURCE;
    int rc = xfer(call, write, rank, local, remote, n, flags, SYNC_NB, e);
    if (e && e->pending == 0 && e->flush_rank < 0) {
        ev_free(e); /* finished already, or never started: no event */
        return rc;
    }
    *out = e; /* after a failure part-way, what did start is still waited for */
    return rc;
}

/* ---- life ---- */

int fm_am_rma_init(void)
{
    memset(&R, 0, sizeof R);
    R.how = calloc((size_t)fm_world_size, sizeof *R.how);
    R.card = calloc((size_t)fm_world_size, sizeof *R.card);
    R.copy = calloc((size_t)fm_world_size, sizeof *R.copy);
    R.nbi_flush = calloc((size_t)fm_world_size, sizeof *R.nbi_flush);
    if (!R.how || !R.card || !R.copy || !R.nbi_flush)
        return FM_ERR_NOMEM;
    fm_am_internal_register(H_CARD, on_card);
    fm_am_internal_register(H_CARD_R, on_card_reply);
    fm_am_internal_register(H_PUT, on_put);
    fm_am_internal_register(H_PUT_R, on_put_reply);
    fm_am_internal_register(H_GET, on_get);
    fm_am_internal_register(H_GET_R, on_get_reply);
    R.up = 1;
    return FM_OK;
}

/* Wait for the last transfer, then give back what init and the transfers took. */
static void rma_teardown(void)
{
    flush_nbi();
    fm_wait_until(R.nbi.pending == 0); /* nothing may land after the transports are gone */
    if (R.hooked) {
        fm_xfer_release();
        fm_progress_awake--;
    }
    fm_region_deregister(&fm_am_seg_mine);
    for (struct fab_event *e; (e = R.free_ev);) {
        R.free_ev = e->next;
        free(e);
    }
    for (void *b; (b = R.bounce_free);) {
        R.bounce_free = *(void **)b;
        free(b);
    }
    for (rop *r; (r = R.free_op);) {
        R.free_op = r->next;
        free(r);
    }
    free(R.how);
    free(R.card);
    free(R.copy);
    free(R.nbi_flush);
    memset(&R, 0, sizeof R);
}

void fm_am_rma_finalize(void)
{
    if (R.up)
        rma_teardown();
    fm_xfer_finalize(); /* windows and collective caches are gone by now too */
}

/* ---- the public procedures ---- */

int fab_rma_put(int rank, void *dst, const void *src, size_t n, unsigned flags)
{
    FM_API_LOCK();
    if (try_copy(1, rank, (void *)(uintptr_t)src, (uintptr_t)dst, n, flags))
        return FAB_OK;
    return now("fab_rma_put", 1, rank, (void *)(uintptr_t)src, (uintptr_t)dst, n, flags);
}

int fab_rma_get(void *dst, int rank, const void *src, size_t n, unsigned flags)
{
    FM_API_LOCK();
    if (try_copy(0, rank, dst, (uintptr_t)src, n, flags))
        return FAB_OK;
    return now("fab_rma_get", 0, rank, dst, (uintptr_t)src, n, flags);
}

int fab_rma_put_nb(int rank, void *dst, const void *src, size_t n, unsigned flags,
                   fab_event_t *ev)
{
    FM_API_LOCK();
    return nb("fab_rma_put_nb", 1, rank, (void *)(uintptr_t)src, (uintptr_t)dst, n, flags, ev);
}

int fab_rma_get_nb(void *dst, int rank, const void *src, size_t n, unsigned flags,
                   fab_event_t *ev)
{
    FM_API_LOCK();
    return nb("fab_rma_get_nb", 0, rank, dst, (uintptr_t)src, n, flags, ev);
}

int fab_rma_put_nbi(int rank, void *dst, const void *src, size_t n, unsigned flags)
{
    FM_API_LOCK();
    if (try_copy(1, rank, (void *)(uintptr_t)src, (uintptr_t)dst, n, flags))
        return FAB_OK;
    return xfer("fab_rma_put_nbi", 1, rank, (void *)(uintptr_t)src, (uintptr_t)dst, n, flags,
                SYNC_NBI, &R.nbi);
}

int fab_rma_get_nbi(void *dst, int rank, const void *src, size_t n, unsigned flags)
{
    FM_API_LOCK();
    if (try_copy(0, rank, dst, (uintptr_t)src, n, flags))
        return FAB_OK;
    return xfer("fab_rma_get_nbi", 0, rank, dst, (uintptr_t)src, n, flags, SYNC_NBI, &R.nbi);
}

/* The syncs' common refusals: before MPI_Init, and inside handlers. */
static int may_sync(const char *call)
{
    if (!R.up)
        return FAB_ERR_NOT_INIT;
    if (fm_am_handler_depth) {
        fm_error_msg("%s: called from a handler (handlers may not wait)", call);
        return FAB_ERR_NOT_ALLOWED;
    }
    return FAB_OK;
}

int fab_wait(fab_event_t ev)
{
    FM_API_LOCK();
    if (!ev)
        return FAB_OK;
    int rc = may_sync("fab_wait");
    if (rc != FAB_OK)
        return rc;
    rc = flush_event(ev);
    fm_wait_until(ev->pending == 0);
    if (rc == FAB_OK)
        rc = ev->status;
    ev_free(ev);
    return rc;
}

int fab_test(fab_event_t ev)
{
    FM_API_LOCK();
    if (!ev)
        return FAB_OK;
    int rc = may_sync("fab_test");
    if (rc != FAB_OK)
        return rc;
    if (ev->flush_rank >= 0 && flush_event(ev) != FAB_OK && ev->status == FAB_OK)
        ev->status = FAB_ERR_NET;
    if (ev->pending)
        fm_progress();
    if (ev->pending)
        return FAB_NOT_READY;
    rc = ev->status;
    ev_free(ev);
    return rc;
}

int fab_nbi_wait(void)
{
    FM_API_LOCK();
    int rc = may_sync("fab_nbi_wait");
    if (rc != FAB_OK)
        return rc;
    rc = flush_nbi();
    fm_wait_until(R.nbi.pending == 0);
    if (rc == FAB_OK)
        rc = R.nbi.status;
    R.nbi.status = FAB_OK;
    return rc;
}
