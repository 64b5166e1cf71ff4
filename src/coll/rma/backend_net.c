/* backend_net.c — the cache backend for members reached through the
 * network: each member's segment is registered with the library's
 * one-sided transport (am/xfer.h, which windows and fab_rma post through
 * too; over OFI, the RMA endpoint), and bytes reach a peer's segment by
 * one-sided writes at (directory address + offset, directory key).
 *
 * Setup, on the communicator's first one-sided collective (never at its
 * creation), the same steps on every member so the collectives pair up even
 * when one member fails:
 *   1. make our segment a region of the active-message layer (am/region.h:
 *      private zeroed memory registered for remote read and write with the
 *      one-sided transport, which it opens once per process): its net card
 *      holds the key, the address peers add offsets to (its virtual
 *      address, or 0 when the transport addresses by offset) and our
 *      endpoint's name;
 *   2. allgather (two-sided) the cards with our length; reach each peer's
 *      region (its endpoint inserted) and keep (address, key) in our
 *      directory;
 *   3. allreduce(min) of "reached all": every member ends with the same
 *      verdict.
 *
 * Ordering.  libfabric orders no RMA writes by default, and the shm
 * provider orders only send-after-send, so a flag written after its data
 * could land first.  The RMA endpoint asks for FI_DELIVERY_COMPLETE, so a
 * write's completion means its bytes are in the target's memory: flag()
 * waits until every earlier write to that peer (data and flags) completed,
 * then writes the flag.  That costs one completion round trip per flag,
 * but holds on every provider; FI_FENCE would save it where offered, but
 * the transport contract does not expose it.  Waiting for earlier flags too keeps one flag
 * word's values landing in the order they were raised.
 *
 * A flag is one aligned 8-byte write.  Readers see a number >= the one
 * they wait for only once the whole word has landed, provided the
 * provider stores it at once or lower addresses first (memcpy, or a TCP
 * stream into place): with little-endian words a partial store reads as a
 * smaller number.
 *
 * Progress.  Readers poll their own flags in local memory; providers with
 * manual progress (shm) move incoming writes only while the target polls
 * its RMA completion queue, so while a cache is attached it holds
 * am/xfer.h's progress hook, which polls it, and a member blocked in any call (two-sided ones included)
 * lets a peer's read of its `done` word finish.
 *
 * Flow control needs a peer's `done` word: peek() is an fi_read of it,
 * needed only when the last value seen is too old (about once per
 * FM_CRMA_FLAGSETS calls per peer). */
#include "coll/rma/cache.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "am/region.h"
#include "am/xfer.h"
#include "coll/coll.h"
#include "core/comm.h"
#include "core/progress.h"
#include "core/world.h"
#include "net/net.h"
#include "util/log.h"
#include "util/status.h"

#define WHY 256

/* Collective agreement: 1 when every member passes ok = 1. */
static int all_ok(MPI_Comm comm, int ok, int *rc)
{
    int in = ok, out = 0;
    *rc = fm_coll_allreduce(&in, &out, 1, MPI_INT, MPI_MIN, comm);
    return *rc == FM_OK && out == 1;
}

typedef struct net_card {
    fm_region_net_card reg;
    uint64_t len;
} net_card;

struct net_be;

/* One write / read in flight, posted through am/xfer.h (which parks one
 * the provider refuses for now; it counts as in flight meanwhile). */
typedef struct net_op {
    fm_xfer x;           /* first: a completion leads here */
    struct net_be *b;
    struct net_op *next; /* free list */
    int peer;
    volatile int done;   /* peek: set on completion */
    uint64_t val;        /* flag value written, or `done` word read */
} net_op;

typedef struct net_be {
    fm_net *net;         /* the transport's one-sided operations; set once we hold
                          * am/xfer.h's completion hook */
    fm_region region;    /* our segment */
    long *inflight;      /* [size] writes not yet completed, per peer */
    long total;          /* all ops not yet completed */
    int err;             /* first failed completion */
    net_op *free_ops;
    net_op **chunks;     /* every op allocation, freed at detach */
    int nchunks;
} net_be;

static net_be *BE(fm_crma *c) { return c->be_state; }

static void op_done(fm_net_rma_op *o, int status)
{
    net_op *op = (net_op *)(void *)o;
    net_be *b = op->b;
    if (status != FM_OK && b->err == FM_OK)
        b->err = status;
    b->total--;
    if (op->peer >= 0) { /* writes; peeks (-1) are reclaimed by their waiter */
        b->inflight[op->peer]--;
        op->next = b->free_ops;
        b->free_ops = op;
    } else {
        op->done = 1;
    }
}

static net_op *op_get(net_be *b)
{
    if (!b->free_ops) {
        enum { N = 64 };
        net_op **cv = realloc(b->chunks, (size_t)(b->nchunks + 1) * sizeof *cv);
        if (!cv)
            return NULL;
        b->chunks = cv;
        net_op *v = calloc(N, sizeof *v);
        if (!v)
            return NULL;
        b->chunks[b->nchunks++] = v;
        for (int i = 0; i < N; i++) {
            v[i].next = b->free_ops;
            b->free_ops = &v[i];
        }
    }
    net_op *op = b->free_ops;
    b->free_ops = op->next;
    op->b = b;
    op->done = 0;
    return op;
}

/* Post one transfer (parked by am/xfer.h when the provider cannot take
 * it yet). */
static int post(fm_crma *c, int write, int peer, void *buf, size_t len, size_t off, net_op *op)
{
    net_be *b = BE(c);
    const fm_crma_dirent *d = &c->dir[peer];
    op->x = (fm_xfer){.op.done = op_done, .kind = write ? FM_XFER_WRITE : FM_XFER_READ,
                      .world = c->comm->world[peer], .buf = buf, .count = len,
                      .raddr = d->raddr + off, .key = d->key};
    int rc = fm_xfer_post(&op->x);
    if (rc != FM_OK) {
        op->next = b->free_ops;
        b->free_ops = op;
        return rc;
    }
    b->total++;
    if (op->peer >= 0)
        b->inflight[peer]++;
    return FM_OK;
}

static int net_put(fm_crma *c, int peer, size_t off, const void *src, size_t len)
{
    net_be *b = BE(c);
    const size_t max = b->net->rma_max;
    while (len) {
        size_t n = len < max ? len : max;
        net_op *op = op_get(b);
        if (!op)
            return FM_ERR_NOMEM;
        op->peer = peer;
        int rc = post(c, 1, peer, (void *)(uintptr_t)src, n, off, op);
        if (rc != FM_OK)
            return rc;
        src = (const char *)src + n;
        off += n;
        len -= n;
    }
    return FM_OK;
}

static int net_sync(fm_crma *c, int peer)
{
    net_be *b = BE(c);
    fm_wait_until(b->inflight[peer] == 0);
    return b->err;
}

static int net_flag(fm_crma *c, int peer, size_t off, uint64_t val)
{
    net_be *b = BE(c);
    /* Data before flag: every earlier write to this peer is in its memory
     * (FI_DELIVERY_COMPLETE) before the flag leaves. */
    int rc = net_sync(c, peer);
    if (rc != FM_OK)
        return rc;
    net_op *op = op_get(b);
    if (!op)
        return FM_ERR_NOMEM;
    op->peer = peer;
    op->val = val; /* the source stays in the op until its completion */
    return post(c, 1, peer, &op->val, sizeof op->val, off, op);
}

static uint64_t net_peek(fm_crma *c, int peer, size_t off)
{
    net_be *b = BE(c);
    if (peer == c->rank) {
        const fm_crma_word *w = (const fm_crma_word *)(const void *)(c->self + off);
        return atomic_load_explicit(&w->v, memory_order_acquire);
    }
    net_op *op = op_get(b);
    if (!op) {
        b->err = FM_ERR_NOMEM;
        return UINT64_MAX;
    }
    op->peer = -1;
    op->val = 0;
    int rc = post(c, 0, peer, &op->val, sizeof op->val, off, op);
    if (rc != FM_OK) {
        if (b->err == FM_OK)
            b->err = rc;
        return UINT64_MAX; /* stop waiting: the next flag() reports the failure */
    }
    fm_wait_until(op->done);
    uint64_t v = b->err == FM_OK ? op->val : UINT64_MAX;
    op->next = b->free_ops;
    b->free_ops = op;
    return v;
}

static void *net_direct(fm_crma *c, int peer, size_t off)
{
    /* Our own segment is plain memory; peers' are reached by fi_write. */
    return peer == c->rank ? c->self + off : NULL;
}

static void release(fm_crma *c)
{
    net_be *b = BE(c);
    if (b) {
        /* Our last flags may still be in flight: their ops live here. */
        fm_wait_until(b->total == 0);
        fm_region_free(&b->region);
        if (b->net)
            fm_xfer_release();
        for (int i = 0; i < b->nchunks; i++)
            free(b->chunks[i]);
        free(b->chunks);
        free(b->inflight);
        free(b);
    }
    c->be_state = NULL;
    c->self = NULL;
    c->dir = NULL;
}

static int net_attach(fm_crma *c, MPI_Comm comm, char *why)
{
    net_card own;
    memset(&own, 0, sizeof own);
    net_card *cards = calloc((size_t)c->size, sizeof *cards);
    net_be *b = calloc(1, sizeof *b);
    long *inflight = calloc((size_t)c->size, sizeof *inflight);
    int ok = !c->disabled && cards && b && inflight, rc;
    fm_net *net = fm_xfer_net();
    const char *failed = "";
    if (!ok) {
        snprintf(why, WHY, "out of memory for the cache's bookkeeping");
    } else if (!net || fm_xfer_hold() != FM_OK) {
        snprintf(why, WHY, "no OFI RMA endpoint (the provider offers no FI_RMA under the "
                 "memory-registration modes we handle, or FABMPI_OFI_RMA=am)");
        ok = 0;
    }
    if (ok) {
        b->net = net;
        b->inflight = inflight;
        inflight = NULL;
        c->be_state = b;
        b = NULL;
        fm_region *r = &BE(c)->region;
        if (fm_region_alloc(r, c->seg_len, c->seg_len, 0, &failed) != FM_OK) {
            snprintf(why, WHY, "cannot map %zu bytes for the cache (lower "
                     "FABMPI_COLL_CACHE_PAGES)", c->seg_len);
            ok = 0;
        } else {
            c->self = r->base;
            fm_crma_stamp(c);
            fm_region_register(r, &own.reg);
            if (!own.reg.ok) {
                snprintf(why, WHY, "cannot register the %zu-byte cache with the OFI RMA "
                         "endpoint", c->seg_len);
                ok = 0;
            }
        }
    }
    own.reg.ok = ok;
    own.len = c->seg_len;
    rc = fm_coll_allgather(&own, sizeof own, MPI_BYTE, cards, sizeof own, MPI_BYTE, comm);
    ok = ok && rc == FM_OK;
    for (int i = 0; ok && i < c->size; i++) {
        fm_crma_dirent *d = &c->dir[i];
        if (!cards[i].reg.ok || cards[i].len != c->seg_len) {
            ok = 0; /* that member says why */
            break;
        }
        if (i != c->rank && !fm_region_reach(comm->world[i], &cards[i].reg)) {
            snprintf(why, WHY, "cannot insert member %d's RMA endpoint into the address vector",
                     i);
            ok = 0;
            break;
        }
        d->raddr = cards[i].reg.raddr;
        d->key = cards[i].reg.key;
        d->local = 0;
        d->len = cards[i].len;
    }
    int agreed = all_ok(comm, ok, &rc);
    free(cards);
    free(b);
    free(inflight);
    if (agreed)
        return FM_OK;
    release(c);
    return rc != FM_OK ? rc : FM_ERR_NET;
}

static void net_detach(fm_crma *c) { release(c); }

/* Named after the transport carrying it in FABMPI_VERBOSE lines ("rma over
 * ofi"): the network transport is OFI. */
const fm_crma_backend fm_crma_net = {
    .name = "ofi",
    .attach = net_attach,
    .detach = net_detach,
    .peek = net_peek,
    .direct = net_direct,
    .put = net_put,
    .flag = net_flag,
    .sync = net_sync,
};
