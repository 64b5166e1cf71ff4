/* acc.c — Accumulate, Get_accumulate, Fetch_and_op, Compare_and_swap.
 *
 * Elements are visited in type-map order: the origin as a packed stream,
 * the target through its datatype's blocks.  See rma.h for which elements
 * are updated with one C11 atomic operation and which under the target's
 * `acc` lock word. */
#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "coll/op.h"
#include "dtype/dtype.h"
#include "rma/rma.h"
#include "util/log.h"
#include "util/status.h"

static_assert(sizeof(_Atomic uint8_t) == 1 && sizeof(_Atomic uint16_t) == 2 &&
                  sizeof(_Atomic uint32_t) == 4 && sizeof(_Atomic uint64_t) == 8,
              "atomics on window memory are plain words of the same size");

/* Origin data small enough for the stack is packed there. */
#define STACK_BYTES 256

/* How one element is updated. */
enum aop { AOP_CAS = 0, AOP_SUM, AOP_BAND, AOP_BOR, AOP_BXOR, AOP_REPLACE, AOP_NOOP };

/* The predefined datatype whose elements are of kind k (to run an op on one
 * element); NULL for kinds no atomic path handles. */
/* Elements one C11 atomic can update (integers, float, double); the rest
 * (long double, complex, value-index pairs) go under the lock word. */
static MPI_Datatype atomic_kind_dt(enum fm_basic_kind k)
{
    if (k == FM_BK_LDOUBLE || k == FM_BK_FCOMPLEX || k == FM_BK_DCOMPLEX ||
        k == FM_BK_LDCOMPLEX || k >= FM_BK_FLOAT_INT)
        return NULL;
    return fm_rma_kind_dt(k);
}

static int is_integer_kind(enum fm_basic_kind k)
{
    return k != FM_BK_FLOAT && k != FM_BK_DOUBLE && k != FM_BK_BOOL;
}

static enum aop aop_of(MPI_Op op, enum fm_basic_kind k)
{
    if (op == MPI_REPLACE)
        return AOP_REPLACE;
    if (op == MPI_NO_OP)
        return AOP_NOOP;
    if (!is_integer_kind(k))
        return AOP_CAS;
    if (op == MPI_SUM)
        return AOP_SUM;
    if (op == MPI_BAND)
        return AOP_BAND;
    if (op == MPI_BOR)
        return AOP_BOR;
    if (op == MPI_BXOR)
        return AOP_BXOR;
    return AOP_CAS;
}

/* One element of BITS bits at t: old value to res (if any), t = org op t. */
#define FM_RMA_AOP(BITS)                                                                     \
    static void aop##BITS(void *t, const void *org, void *res, enum aop a, MPI_Op op,        \
                          MPI_Datatype edt)                                                  \
    {                                                                                        \
        _Atomic uint##BITS##_t *at = (_Atomic uint##BITS##_t *)t;                            \
        uint##BITS##_t v = 0, old;                                                           \
        if (a != AOP_NOOP)                                                                   \
            memcpy(&v, org, sizeof v);                                                       \
        switch (a) {                                                                         \
        case AOP_SUM: old = atomic_fetch_add(at, v); break;                                  \
        case AOP_BAND: old = atomic_fetch_and(at, v); break;                                 \
        case AOP_BOR: old = atomic_fetch_or(at, v); break;                                   \
        case AOP_BXOR: old = atomic_fetch_xor(at, v); break;                                 \
        case AOP_REPLACE: old = atomic_exchange(at, v); break;                               \
        case AOP_NOOP: old = atomic_load(at); break;                                         \
        default: {                                                                           \
            uint##BITS##_t nv;                                                               \
            old = atomic_load_explicit(at, memory_order_relaxed);                            \
            do {                                                                             \
                nv = old;                                                                    \
                fm_op_apply(op, &v, &nv, 1, edt);                                            \
            } while (!atomic_compare_exchange_weak(at, &old, nv));                           \
        }                                                                                    \
        }                                                                                    \
        if (res)                                                                             \
            memcpy(res, &old, sizeof old);                                                   \
    }
FM_RMA_AOP(8)
FM_RMA_AOP(16)
FM_RMA_AOP(32)
FM_RMA_AOP(64)

typedef void aop_fn(void *, const void *, void *, enum aop, MPI_Op, MPI_Datatype);

static aop_fn *aop_for_width(size_t w)
{
    switch (w) {
    case 1: return aop8;
    case 2: return aop16;
    case 4: return aop32;
    case 8: return aop64;
    default: return NULL;
    }
}

/* Non-atomic update of one element, under the acc lock. */
static void plain_elem(void *t, const void *org, void *res, size_t w, MPI_Op op, MPI_Datatype edt)
{
    if (res)
        memcpy(res, t, w);
    if (op != MPI_NO_OP)
        fm_op_apply(op, org, t, 1, edt);
}

/* Mapped target, atomic-capable kind: element by element. */
static void acc_atomic(fm_rma_ctl *ctl, const unsigned char *org,
                       unsigned char *res, uintptr_t t, MPI_Count tcount, MPI_Datatype tdt,
                       MPI_Op op, MPI_Datatype edt)
{
    size_t ew = (size_t)edt->size;
    aop_fn *fn = aop_for_width(ew);
    enum aop a = aop_of(op, tdt->basic);
    int locked = 0;
    const fm_dt_block one = {tdt->true_lb, (MPI_Aint)((size_t)tcount * (size_t)tdt->size)};
    int contig = fm_dt_is_contig(tdt);
    const fm_dt_block *blocks = contig ? &one : tdt->blocks;
    int nb = contig ? 1 : tdt->nblocks;
    MPI_Count reps = contig ? 1 : tcount;
    size_t k = 0; /* packed element index */
    for (MPI_Count i = 0; i < reps; i++)
        for (int b = 0; b < nb; b++) {
            unsigned char *p = (unsigned char *)t + i * tdt->extent + blocks[b].off;
            size_t n = (size_t)blocks[b].len / ew;
            for (size_t e = 0; e < n; e++, k++, p += ew) {
                const void *o = org ? org + k * ew : NULL;
                void *r = res ? res + k * ew : NULL;
                if (((uintptr_t)p & (ew - 1)) == 0) {
                    fn(p, o, r, a, op, edt);
                    continue;
                }
                /* A misaligned location is misaligned for every origin, so
                 * all of them take the lock for it. */
                if (!locked) {
                    fm_rma_acc_lock(ctl);
                    locked = 1;
                }
                plain_elem(p, o, r, ew, op, edt);
            }
        }
    if (locked)
        fm_rma_acc_unlock(ctl);
}

/* Under the acc lock: target region `tb` (tcount, tdt) local here. */
static void acc_region(unsigned char *tb, const unsigned char *org, MPI_Count tcount,
                       MPI_Datatype tdt, MPI_Op op, void *tmp)
{
    if (op == MPI_NO_OP)
        return;
    if (fm_dt_is_contig(tdt)) {
        /* packed == in-memory layout: the origin stream is the `in` side */
        fm_op_apply(op, org - tdt->true_lb, tb, tcount, tdt);
        return;
    }
    /* origin into the target's layout, then the op in that layout */
    fm_dt_unpack(tmp, tcount, tdt, 0, org, (size_t)tcount * (size_t)tdt->size);
    fm_op_apply(op, tmp, tb, tcount, tdt);
}

/* Scratch able to hold (count, dt) laid out as in memory; returns the
 * buffer pointer to use with (count, dt) and sets *raw for free(). */
static unsigned char *layout_alloc(MPI_Count count, MPI_Datatype dt, void **raw)
{
    MPI_Aint lo, hi;
    fm_rma_span(count, dt, &lo, &hi);
    *raw = malloc((size_t)(hi - lo) + 1);
    return *raw ? (unsigned char *)*raw - lo : NULL;
}

/* The update itself: org / rpk packed streams (either may be NULL). */
static int acc_core(struct fm_win *w, fm_rma_peer *p, uintptr_t t, const unsigned char *org,
                    unsigned char *rpk, MPI_Count tcount, MPI_Datatype tdt, MPI_Op op)
{
    size_t bytes = (size_t)tcount * (size_t)tdt->size;
    void *traw = NULL, *lraw = NULL;
    int rc = FM_OK;
    MPI_Datatype edt = atomic_kind_dt(tdt->basic);
    if (!w->acc_locked && p->direct && edt && aop_for_width((size_t)edt->size)) {
        acc_atomic(p->ctl, org, rpk, t, tcount, tdt, op, edt);
    } else {
        unsigned char *tmp = NULL;
        if (!fm_dt_is_contig(tdt) && op != MPI_NO_OP && !(tmp = layout_alloc(tcount, tdt, &traw))) {
            rc = FM_ERR_NOMEM;
            goto out;
        }
        unsigned char *tb = (unsigned char *)t;
        if (!p->direct && !(tb = layout_alloc(tcount, tdt, &lraw))) {
            rc = FM_ERR_NOMEM;
            goto out;
        }
        fm_rma_acc_lock(p->ctl);
        if (!p->direct)
            rc = fm_rma_cma(p->pid, 0, tb, tcount, tdt, t, tcount, tdt);
        if (rc == FM_OK && rpk)
            fm_dt_pack(tb, tcount, tdt, 0, rpk, bytes);
        if (rc == FM_OK)
            acc_region(tb, org, tcount, tdt, op, tmp);
        if (rc == FM_OK && !p->direct && op != MPI_NO_OP)
            rc = fm_rma_cma(p->pid, 1, tb, tcount, tdt, t, tcount, tdt);
        fm_rma_acc_unlock(p->ctl);
    }
out:
    free(traw);
    free(lraw);
    return rc;
}

void fm_rma_acc_at(struct fm_win *w, uintptr_t t, const unsigned char *org, unsigned char *rpk,
                   MPI_Count tcount, MPI_Datatype tdt, MPI_Op op)
{
    if (tcount <= 0)
        return;
    /* An origin stream inside a message is only 8-byte aligned; the op
     * kernels read it as the element type (long double needs 16). */
    void *aligned = NULL;
    if (org && (uintptr_t)org % _Alignof(max_align_t)) {
        size_t bytes = (size_t)tcount * (size_t)tdt->size;
        if (!(aligned = malloc(bytes))) {
            fm_warn("window: out of memory applying an accumulate from a remote origin");
            return;
        }
        memcpy(aligned, org, bytes);
        org = aligned;
    }
    if (acc_core(w, &w->peer[w->rank], t, org, rpk, tcount, tdt, op) != FM_OK)
        fm_warn("window: out of memory applying an accumulate from a remote origin");
    free(aligned);
}

int fm_rma_acc(struct fm_win *w, const void *obuf, MPI_Count ocount, MPI_Datatype odt, void *res,
               MPI_Count rcount, MPI_Datatype rdt, int trank, MPI_Aint tdisp, MPI_Count tcount,
               MPI_Datatype tdt, MPI_Op op)
{
    fm_rma_peer *p = &w->peer[trank];
    if (p->ofi)
        return fm_rma_remote_acc(w, obuf, ocount, odt, res, rcount, rdt, trank, tdisp, tcount, tdt,
                                 op);
    uintptr_t t = fm_rma_target(w, trank, tdisp);
    size_t bytes = (size_t)tcount * (size_t)tdt->size;
    if (!bytes)
        return FM_OK;
    _Alignas(16) unsigned char ostack[STACK_BYTES], rstack[STACK_BYTES];
    void *oheap = NULL, *rheap = NULL;
    const unsigned char *org = NULL;
    unsigned char *rpk = NULL;
    int rc = FM_OK;

    /* origin as a packed stream (not read for MPI_NO_OP) */
    if (op != MPI_NO_OP) {
        if (fm_dt_is_contig(odt)) {
            org = (const unsigned char *)obuf + odt->true_lb;
        } else {
            unsigned char *o = bytes <= STACK_BYTES ? ostack : (oheap = malloc(bytes));
            if (!o)
                return FM_ERR_NOMEM;
            fm_dt_pack(obuf, ocount, odt, 0, o, bytes);
            org = o;
        }
    }
    /* old target contents as a packed stream, unpacked into res at the end */
    if (res) {
        if (fm_dt_is_contig(rdt))
            rpk = (unsigned char *)res + rdt->true_lb;
        else if (!(rpk = bytes <= STACK_BYTES ? rstack : (rheap = malloc(bytes)))) {
            rc = FM_ERR_NOMEM;
            goto out;
        }
    }

    rc = acc_core(w, p, t, org, rpk, tcount, tdt, op);
    if (rc == FM_OK && res && !fm_dt_is_contig(rdt))
        fm_dt_unpack(res, rcount, rdt, 0, rpk, bytes);
out:
    free(oheap);
    free(rheap);
    return rc;
}

int fm_rma_cas(struct fm_win *w, const void *obuf, const void *cmp, void *res, MPI_Datatype dt,
               int trank, MPI_Aint tdisp)
{
    fm_rma_peer *p = &w->peer[trank];
    if (p->ofi)
        return fm_rma_remote_cas(w, obuf, cmp, res, dt, trank, tdisp);
    uintptr_t t = fm_rma_target(w, trank, tdisp) + (uintptr_t)dt->true_lb;
    size_t n = (size_t)dt->size;
    if (!w->acc_locked && p->direct && (t & (n - 1)) == 0 && aop_for_width(n)) {
        switch (n) {
#define FM_RMA_CAS(BITS)                                                                  \
    case BITS / 8: {                                                                      \
        uint##BITS##_t e, v;                                                              \
        memcpy(&e, (const char *)cmp + dt->true_lb, sizeof e);                            \
        memcpy(&v, (const char *)obuf + dt->true_lb, sizeof v);                           \
        atomic_compare_exchange_strong((_Atomic uint##BITS##_t *)t, &e, v);               \
        memcpy((char *)res + dt->true_lb, &e, sizeof e); /* e holds the old value now */  \
        return FM_OK;                                                                     \
    }
            FM_RMA_CAS(8)
            FM_RMA_CAS(16)
            FM_RMA_CAS(32)
            FM_RMA_CAS(64)
#undef FM_RMA_CAS
        }
    }
    /* Under the acc lock: read, compare, write back when equal. */
    unsigned char old[16];
    int rc = FM_OK;
    if (n > sizeof old)
        return FM_ERR_TYPE;
    fm_rma_acc_lock(p->ctl);
    if (p->direct)
        memcpy(old, (const void *)t, n);
    else
        rc = fm_rma_cma(p->pid, 0, old, (MPI_Count)n, MPI_BYTE, t, (MPI_Count)n, MPI_BYTE);
    if (rc == FM_OK && memcmp(old, (const char *)cmp + dt->true_lb, n) == 0) {
        if (p->direct)
            memcpy((void *)t, (const char *)obuf + dt->true_lb, n);
        else
            rc = fm_rma_cma(p->pid, 1, (char *)(uintptr_t)obuf + dt->true_lb, (MPI_Count)n, MPI_BYTE,
                            t, (MPI_Count)n, MPI_BYTE);
    }
    fm_rma_acc_unlock(p->ctl);
    if (rc == FM_OK)
        memcpy((char *)res + dt->true_lb, old, n);
    return rc;
}
