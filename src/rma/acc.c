/* acc.c — Accumulate, Get_accumulate, Fetch_and_op, Compare_and_swap.
 *
 * Elements are visited in type-map order: the origin as a packed stream,
 * the target through its datatype's layout.  Every update runs under the
 * target's stripe locks with the typed reduction loops of fm_op_apply; see
 * rma.h for why one locked path serves every size. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "coll/op.h"
#include "core/progress.h"
#include "dtype/dtype.h"
#include "rma/rma.h"
#include "util/log.h"
#include "util/status.h"
#include "util/pvar.h"
#include "util/copy.h"

/* Origin data small enough for the stack is packed there. */
#define STACK_BYTES 256
/* Non-contiguous targets are updated through this much stack at a time. */
#define CHUNK_BYTES 4096

/* Target region `tb` (tcount, tdt) local here, layout with holes and a
 * pair kind whose packed form differs from its layout: origin unpacked
 * into the target's layout, then the op in that layout. */
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

/* Mapped target, caller holds the stripes.  Contiguous targets go straight
 * through the kernels; others a chunk at a time through the stack (packed
 * target chunk, op on packed elements of edt, unpacked back), so no
 * allocation unless the packed form of the kind is not its layout. */
static int acc_mapped(unsigned char *tb, const unsigned char *org, unsigned char *rpk,
                      MPI_Count tcount, MPI_Datatype tdt, MPI_Op op)
{
    size_t bytes = (size_t)tcount * (size_t)tdt->size;
    if (fm_dt_is_contig(tdt)) {
        if (rpk)
            fm_copy(rpk, tb + tdt->true_lb, bytes);
        if (op != MPI_NO_OP)
            fm_op_apply(op, org - tdt->true_lb, tb, tcount, tdt);
        return FM_OK;
    }
    MPI_Datatype edt = fm_rma_kind_dt(tdt->basic);
    if (edt && fm_dt_is_contig(edt)) {
        _Alignas(64) unsigned char tio[CHUNK_BYTES];
        size_t esz = (size_t)edt->size, chunk = sizeof tio / esz * esz;
        for (size_t off = 0; off < bytes; off += chunk) {
            size_t len = bytes - off < chunk ? bytes - off : chunk;
            fm_dt_pack(tb, tcount, tdt, off, tio, len);
            if (rpk)
                fm_copy(rpk + off, tio, len);
            if (op == MPI_NO_OP)
                continue;
            fm_op_apply(op, org + off, tio, (MPI_Count)(len / esz), edt);
            fm_dt_unpack(tb, tcount, tdt, off, tio, len);
        }
        return FM_OK;
    }
    void *raw = NULL;
    unsigned char *tmp = NULL;
    if (op != MPI_NO_OP && !(tmp = layout_alloc(tcount, tdt, &raw)))
        return FM_ERR_NOMEM;
    if (rpk)
        fm_dt_pack(tb, tcount, tdt, 0, rpk, bytes);
    acc_region(tb, org, tcount, tdt, op, tmp);
    free(raw);
    return FM_OK;
}

/* The update itself: org / rpk packed streams (either may be NULL). */
static int acc_core(struct fm_win *w, fm_rma_peer *p, uintptr_t t, const unsigned char *org,
                    unsigned char *rpk, MPI_Count tcount, MPI_Datatype tdt, MPI_Op op)
{
    MPI_Aint lo, hi;
    fm_rma_span(tcount, tdt, &lo, &hi);
    uint32_t mask = fm_rma_stripes(p, t + (uintptr_t)lo, t + (uintptr_t)hi);
    if (p->direct) {
        /* Allocation, if any, happens under the lock: only derived pair
         * types with holes need it. */
        fm_rma_acc_lock(p->ctl, mask);
        int rc = acc_mapped((unsigned char *)t, org, rpk, tcount, tdt, op);
        fm_rma_acc_unlock(p->ctl, mask);
        return rc;
    }
    /* Private memory of a peer: by the target while it polls (handoff.c),
     * else by CMA: the target region into a local copy of its layout, the
     * op there, back again, all under the stripes. */
    if (w->ho) {
        if (fm_rma_handoff_acc(w, (int)(p - w->peer), t, org, rpk, tcount, tdt, op) == FM_OK)
            return FM_OK;
        /* Peers may be waiting for us to pick up theirs: a rank doing
         * its own by CMA would otherwise never poll, and two ranks
         * updating each other took every handoff back (bench/RESULTS.md,
         * "Accumulates handed to a polling target"). */
        fm_progress();
    }
    FM_PV_INC(rma_cma);
    size_t bytes = (size_t)tcount * (size_t)tdt->size;
    void *traw = NULL, *lraw = NULL;
    int rc = FM_OK;
    unsigned char *tmp = NULL, *tb;
    if ((!fm_dt_is_contig(tdt) && op != MPI_NO_OP && !(tmp = layout_alloc(tcount, tdt, &traw))) ||
        !(tb = layout_alloc(tcount, tdt, &lraw))) {
        free(traw);
        return FM_ERR_NOMEM;
    }
    fm_rma_acc_lock(p->ctl, mask);
    rc = fm_rma_cma(p->pid, 0, tb, tcount, tdt, t, tcount, tdt);
    if (rc == FM_OK && rpk)
        fm_dt_pack(tb, tcount, tdt, 0, rpk, bytes);
    if (rc == FM_OK)
        acc_region(tb, org, tcount, tdt, op, tmp);
    if (rc == FM_OK && op != MPI_NO_OP)
        rc = fm_rma_cma(p->pid, 1, tb, tcount, tdt, t, tcount, tdt);
    fm_rma_acc_unlock(p->ctl, mask);
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
     * kernels read it as the element type (long double needs 16).  A
     * stream up to a chunk is realigned on the stack: handed-off
     * accumulates (handoff.c) arrive here one per poll. */
    _Alignas(64) unsigned char here[CHUNK_BYTES];
    void *aligned = NULL;
    if (org && (uintptr_t)org % _Alignof(max_align_t)) {
        size_t bytes = (size_t)tcount * (size_t)tdt->size;
        void *to = bytes <= sizeof here ? here : (aligned = malloc(bytes));
        if (!to) {
            fm_warn("window: out of memory applying an accumulate from a remote origin");
            return;
        }
        org = fm_copy(to, org, bytes);
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
    if (w->hw_kinds >> tdt->basic & 1)
        return fm_rma_hw_acc(w, obuf, ocount, odt, res, rcount, rdt, trank, tdisp, tcount, tdt, op);
    if (p->remote)
        return fm_rma_remote_acc(w, obuf, ocount, odt, res, rcount, rdt, trank, tdisp, tcount, tdt,
                                 op);
    uintptr_t t = fm_rma_target(w, trank, tdisp);
    size_t bytes = (size_t)tcount * (size_t)tdt->size;
    if (!bytes)
        return FM_OK;
    if (p->direct)
        FM_PV_INC(rma_loadstore); /* else acc_core counts its way */
    if (p->direct && fm_dt_is_contig(tdt) && (op == MPI_NO_OP || fm_dt_is_contig(odt)) &&
        (!res || fm_dt_is_contig(rdt))) {
        /* The common case, without packing: lock, fetch, op, unlock. */
        unsigned char *tb = (unsigned char *)t + tdt->true_lb;
        uint32_t mask = fm_rma_stripes(p, (uintptr_t)tb, (uintptr_t)tb + bytes);
        fm_rma_acc_lock(p->ctl, mask);
        if (res)
            fm_copy((char *)res + rdt->true_lb, tb, bytes);
        if (op != MPI_NO_OP)
            fm_op_apply(op, (const char *)obuf + odt->true_lb - tdt->true_lb, (void *)t, tcount,
                        tdt);
        fm_rma_acc_unlock(p->ctl, mask);
        return FM_OK;
    }
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

/* Compare-and-swap of n bytes at t (peer p's terms) under its stripes:
 * old gets what was there; written only on an equal compare. */
static int cas_core(fm_rma_peer *p, uintptr_t t, const void *val, const void *cmp, void *old,
                    size_t n)
{
    int rc = FM_OK;
    uint32_t mask = fm_rma_stripes(p, t, t + n);
    fm_rma_acc_lock(p->ctl, mask);
    if (p->direct)
        memcpy(old, (const void *)t, n);
    else
        rc = fm_rma_cma(p->pid, 0, old, (MPI_Count)n, MPI_BYTE, t, (MPI_Count)n, MPI_BYTE);
    if (rc == FM_OK && memcmp(old, cmp, n) == 0) {
        if (p->direct)
            memcpy((void *)t, val, n);
        else
            rc = fm_rma_cma(p->pid, 1, (void *)(uintptr_t)val, (MPI_Count)n, MPI_BYTE, t,
                            (MPI_Count)n, MPI_BYTE);
    }
    fm_rma_acc_unlock(p->ctl, mask);
    return rc;
}

void fm_rma_cas_at(struct fm_win *w, uintptr_t t, const void *val, const void *cmp, void *old,
                   size_t n)
{
    cas_core(&w->peer[w->rank], t, val, cmp, old, n);
}

int fm_rma_cas(struct fm_win *w, const void *obuf, const void *cmp, void *res, MPI_Datatype dt,
               int trank, MPI_Aint tdisp)
{
    fm_rma_peer *p = &w->peer[trank];
    if (w->hw_kinds >> dt->basic & 1)
        return fm_rma_hw_cas(w, obuf, cmp, res, dt, trank, tdisp);
    if (p->remote)
        return fm_rma_remote_cas(w, obuf, cmp, res, dt, trank, tdisp);
    uintptr_t t = fm_rma_target(w, trank, tdisp) + (uintptr_t)dt->true_lb;
    size_t n = (size_t)dt->size;
    const char *val = (const char *)obuf + dt->true_lb, *cv = (const char *)cmp + dt->true_lb;
    char *out = (char *)res + dt->true_lb;
    unsigned char old[16];
    if (n > sizeof old)
        return FM_ERR_TYPE;
    if (p->direct) {
        FM_PV_INC(rma_loadstore);
    } else {
        /* As for accumulates (acc_core): by the target while it polls. */
        if (w->ho) {
            if (fm_rma_handoff_cas(w, trank, t, val, cv, out, dt) == FM_OK)
                return FM_OK;
            fm_progress();
        }
        FM_PV_INC(rma_cma);
    }
    int rc = cas_core(p, t, val, cv, old, n);
    if (rc == FM_OK)
        memcpy(out, old, n);
    return rc;
}
