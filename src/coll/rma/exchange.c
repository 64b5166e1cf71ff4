/* exchange.c — alltoall(v,w), allgather(v), and gather(v), scatter(v) and
 * bcast past the eager size, on two members through the collective cache: each
 * member writes its block for the other (if any) into the other's slot of
 * the call's region and raises its flag there, copies its own block while
 * the other writes, then unpacks the other's block (if any) out of its own
 * slot.  One crossing each way,
 * by stores into memory the other maps, where the two-sided exchange is a
 * rendezvous whose copy crosses by CMA (bench/RESULTS.md, "Alltoall at 2
 * members", "Allgather at 2 members").
 *
 * Blocks of up to twice a slot go in two pieces, each a call number and a
 * region of its own.  Both are taken when the exchange begins (at the call,
 * or at MPI_Start), so that calls begun later on the communicator, blocking
 * or not, get the numbers after them on both members alike. */
#include "coll/rma/cache.h"

#include <stdint.h>

#include "coll/coll_call.h"
#include "coll/coll_util.h"
#include "coll/sched.h"
#include "core/comm.h"
#include "dtype/dtype.h"
#include "util/pvar.h"
#include "util/status.h"

enum { XCHG_PIECES = 2 };

/* One exchange: its arguments and where it stands.  A schedule keeps one
 * for its whole life and begins it again at each start. */
typedef struct xchg {
    fm_crma *c;
    MPI_Comm comm;
    fm_crma_block out, in, own_from, own_to;
    size_t piece, most, out_bytes, in_bytes;
    int npieces, k;  /* pieces, and the one in progress */
    int published;   /* piece k is written and its flag raised */
    int own;         /* our own block is copied (or in place) */
    int begun;       /* scheduled: this start has taken its numbers */
    int choose;      /* recorded before the cache was there: each start chooses */
    unsigned long long *count; /* MPI_T's counter of the call's kind */
    int nalt;        /* steps of the two-sided alternative after this one */
    uint64_t seq0;   /* piece k's call number is seq0 + k */
    fm_crma_region r[XCHG_PIECES];
    int rc, in_rc;   /* our writing's and the other's blocks' outcomes */
} xchg;

/* Bytes [at, at + n) of block b's packed form into peer's segment at off:
 * the whole block through the backend, a piece by packing straight into
 * the mapped segment (select.c cuts blocks into pieces only where every
 * member's segment is mapped). */
static int write_piece(fm_crma *c, int peer, size_t off, fm_crma_block b, size_t at, size_t n,
                       size_t total)
{
    if (at == 0 && n == total)
        return fm_crma_write(c, peer, off, b.buf, b.count, b.dt);
    unsigned char *to = fm_crma_mapped(c, peer, off);
    if (!to)
        return FM_ERR_INTERN;
    fm_dt_pack(b.buf, b.count, b.dt, at, to, n);
    return FM_OK;
}

/* Piece k spans `span` bytes from k * piece; of them, we send *on, receive *inn. */
static size_t piece_span(const xchg *x, int k, size_t *on, size_t *inn)
{
    const size_t at = (size_t)k * x->piece, span = x->most - at < x->piece ? x->most - at : x->piece;
    *on = x->out_bytes > at ? (x->out_bytes - at < span ? x->out_bytes - at : span) : 0;
    *inn = x->in_bytes > at ? (x->in_bytes - at < span ? x->in_bytes - at : span) : 0;
    return span;
}

/* Take the call numbers and regions of every piece (in call order). */
static inline __attribute__((always_inline)) void xchg_begin(xchg *x)
{
    fm_crma *c = x->c;
    x->k = 0;
    x->published = 0;
    x->own = x->own_from.buf == NULL;
    x->rc = x->in_rc = FM_OK;
    x->seq0 = c->seq + 1;
    c->seq += (uint64_t)x->npieces;
    for (int k = 0; k < x->npieces; k++) {
        size_t on, inn, span = piece_span(x, k, &on, &inn);
        /* Both members take slots of the larger piece, as the pair does. */
        x->r[k] = fm_crma_take(c, x->seq0 + (uint64_t)k, 2 * ((span + 63) / 64 * 64),
                               span <= FM_CRMA_INLINE);
    }
}

/* Go on as far as the other member lets us: 1 once every piece is in.
 * After an error the pieces still go, stamped as one, so the other is
 * not left waiting. */
static inline __attribute__((always_inline)) int xchg_poll(xchg *x)
{
    fm_crma *c = x->c;
    const int peer = 1 - c->rank;
    for (; x->k < x->npieces; x->k++, x->published = 0) {
        const fm_crma_region *r = &x->r[x->k];
        const uint64_t seq = x->seq0 + (uint64_t)x->k;
        const size_t at = (size_t)x->k * x->piece;
        size_t on, inn;
        piece_span(x, x->k, &on, &inn);
        if (!x->published) {
            if (!fm_crma_peer_done(c, peer, r->after))
                return 0; /* its slot still holds a call it has not finished */
            if (x->rc == FM_OK && on)
                x->rc = write_piece(c, peer, fm_crma_slot_off(r, c->rank), x->out, at, on,
                                    x->out_bytes);
            int src = fm_crma_signal_stamped(c, peer, FM_CRMA_OFF_SLOT(r->lane, c->rank), seq,
                                             x->rc == FM_OK ? fm_crma_call_stamp(on, r)
                                                            : FM_CRMA_STAMP_ERR);
            if (x->rc == FM_OK)
                x->rc = src;
            x->published = 1;
            if (!x->own) { /* ours while the other writes its first piece */
                x->own = 1;
                if (x->rc == FM_OK)
                    x->rc = fm_dt_copy(x->own_from.buf, x->own_from.count, x->own_from.dt,
                                       (void *)(uintptr_t)x->own_to.buf, x->own_to.count,
                                       x->own_to.dt);
            }
        }
        const size_t flag = FM_CRMA_OFF_SLOT(r->lane, peer);
        if (!fm_crma_test(c, flag, seq))
            return 0;
        int got = fm_crma_check_stamp(c, flag, fm_crma_call_stamp(inn, r));
        if (got == FM_OK && inn) {
            fm_dt_unpack((void *)(uintptr_t)x->in.buf, x->in.count, x->in.dt, at,
                         c->self + fm_crma_slot_off(r, peer), inn);
            if (!r->inl) /* the other's next write into the slot: cache.h, fm_crma_claim */
                fm_crma_claim(c, fm_crma_slot_off(r, peer), inn);
        }
        if (x->in_rc == FM_OK)
            x->in_rc = got;
        fm_crma_finish(c, seq);
    }
    return 1;
}

static void xchg_init(xchg *x, fm_crma *c, fm_crma_block out, fm_crma_block in,
                      fm_crma_block own_from, fm_crma_block own_to, size_t piece)
{
    *x = (xchg){.c = c, .out = out, .in = in, .own_from = own_from, .own_to = own_to};
    x->out_bytes = (size_t)out.count * (size_t)out.dt->size;
    x->in_bytes = (size_t)in.count * (size_t)in.dt->size;
    x->most = x->out_bytes > x->in_bytes ? x->out_bytes : x->in_bytes;
    x->piece = piece == 0 || piece >= x->most ? x->most : piece;
    x->npieces = x->piece < x->most ? XCHG_PIECES : 1; /* select.c: at most twice a piece */
}

int fm_crma_exchange(fm_crma *c, fm_crma_block out, fm_crma_block in, fm_crma_block own_from,
                     fm_crma_block own_to, size_t piece)
{
    xchg x;
    xchg_init(&x, c, out, in, own_from, own_to, piece);
    xchg_begin(&x);
    fm_wait_until(xchg_poll(&x));
    return x.rc != FM_OK ? x.rc : x.in_rc;
}

/* ---- as a schedule step -------------------------------------------------- */

static int step_xchg(fm_coll_call *cc, void *arg)
{
    xchg *x = arg;
    if (!x->begun) { /* the first poll of this start: it runs within the call */
        if (x->choose) {
            fm_crma *c = x->comm->coll_rma;
            x->c = c && !c->disabled ? c : NULL;
            if (!x->c)
                return 1; /* on to the two-sided steps */
        }
        xchg_begin(x);
        x->begun = 1;
        ++*x->count;
    }
    if (!xchg_poll(x))
        return 0;
    fm_cc_fail(cc, x->rc != FM_OK ? x->rc : x->in_rc);
    x->begun = 0; /* the next start begins again */
    return 1 + x->nalt;
}

void *fm_crma_record_exchange(fm_coll_call *cc, fm_crma *c, fm_crma_block out, fm_crma_block in,
                              fm_crma_block own_from, fm_crma_block own_to, size_t piece,
                              unsigned long long *count)
{
    xchg *x = fm_sched_alloc(cc, sizeof *x);
    if (!x) {
        fm_cc_fail(cc, FM_ERR_NOMEM);
        return NULL;
    }
    xchg_init(x, c, out, in, own_from, own_to, piece);
    x->comm = cc->comm;
    x->choose = !c;
    x->count = count;
    /* the program may free its datatypes while the schedule lives */
    fm_sched_hold_dts(cc, in.dt, own_from.buf ? own_from.dt : NULL);
    fm_sched_hold_dts(cc, own_to.dt, NULL);
    fm_sched_add_poll(cc, step_xchg, x, out.dt, NULL);
    return x;
}

void fm_crma_record_exchange_alt_end(fm_coll_call *cc, void *x, int first_alt)
{
    if (x)
        ((xchg *)x)->nalt = fm_sched_steps(cc) - first_alt;
}
