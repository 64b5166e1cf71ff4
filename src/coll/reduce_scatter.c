/* reduce_scatter.c — reduce_scatter and reduce_scatter_block.
 *
 * Commutative ops with an input buffer (not MPI_IN_PLACE), on up to
 * FM_RS_PAIRWISE_RANKS members or for large vectors: pairwise exchange —
 * p - 1 rounds, each member sending one block and folding one in, so it
 * moves (p - 1) / p of the vector once.  At 2 ranks and 1 MiB that is one
 * 512 KiB exchange, where reduce-then-scatter moved 1 MiB to rank 0 and
 * 512 KiB back: osu_reduce_scatter 178 -> 83 us (Open MPI 139).
 * Otherwise, and for vectors up to 2 KiB on a crowded node (rs_crowded):
 * reduce the whole vector to rank 0 (in rank order, so any op is fine),
 * then scatter the pieces — two latency terms of log p; correct for
 * non-commutative ops.  The blocking form on a crowded node takes the flat
 * allreduce instead where it fits and no block is empty
 * (rs_crowded_blocking). */
#include <stdlib.h>

#include "coll/coll.h"
#include "coll/coll_call.h"
#include "coll/coll_util.h"
#include "coll/op.h"
#include "coll/rma/coll_rma.h"
#include "boot/boot.h"
#include "core/comm.h"
#include "util/status.h"

/* MPI_IN_PLACE: the input is the full vector in rbuf.  rbuf's input is
 * consumed by the reduce before the scatter overwrites it.  The scatter
 * runs even when the reduce failed, so every member returns. */
static void fm_rs_reduce(fm_coll_call *cc, const void *sbuf, void *rbuf, MPI_Count total,
                         MPI_Datatype dt, MPI_Op op, void **full, void **raw)
{
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    *full = NULL;
    *raw = NULL;
    if (cc->comm->rank == 0 && !(*full = fm_cc_tmp(cc, total, dt, raw)))
        fm_cc_fail(cc, FM_ERR_NOMEM);
    fm_cc_set_tag(cc, FM_TAG_REDUCE);
    fm_cc_reduce(cc, mine, *full, total, dt, op, 0);
}

#define FM_RS_PAIRWISE_RANKS 4
#define FM_RS_PAIRWISE_BYTES (64 * 1024)

/* Round k sends the block of member rank + k and receives member rank - k's
 * contribution to ours; counts and displs (elements) per member. */
static void fm_rs_pairwise(fm_coll_call *cc, const void *sbuf, void *rbuf, fm_iarr rcounts,
                           MPI_Count rcount, const MPI_Aint *displs, MPI_Datatype dt, MPI_Op op)
{
    const int size = cc->comm->size, rank = cc->comm->rank;
    const int v = !fm_iarr_null(rcounts);
#define RS_COUNT(i) (v ? fm_iarr_at(rcounts, (i)) : rcount)
#define RS_DISPL(i) (v ? displs[(i)] : (MPI_Aint)rcount * (i))
    const MPI_Count mine = RS_COUNT(rank);
    fm_cc_copy(cc, fm_coll_at(sbuf, RS_DISPL(rank), dt), mine, dt, rbuf, mine, dt);
    void *raw, *tmp = fm_cc_tmp(cc, mine, dt, &raw);
    if (!tmp)
        fm_cc_fail(cc, FM_ERR_NOMEM); /* and take the peers' messages into nothing */
    /* Empty blocks are not exchanged: both ends know every count. */
    for (int k = 1; k < size; k++) {
        const int to = (rank + k) % size, from = (rank - k + size) % size;
        struct fm_request *r[2];
        long long w[2];
        fm_cc_batch b = {.reqs = r, .want = w};
        if (mine)
            fm_cc_irecv(cc, &b, tmp, mine, dt, from);
        if (RS_COUNT(to))
            fm_cc_isend(cc, &b, fm_coll_at(sbuf, RS_DISPL(to), dt), RS_COUNT(to), dt, to);
        fm_cc_waitall(cc, &b);
        if (mine)
            fm_cc_op(cc, op, tmp, rbuf, mine, dt);
    }
#undef RS_COUNT
#undef RS_DISPL
    fm_cc_tmp_done(cc, raw);
}

/* The whole vector's element count and, with rcounts, each member's
 * displacement (malloc'd: *displs).  FM_OK or FM_ERR_NOMEM. */
static int rs_layout(int size, fm_iarr rcounts, MPI_Count rcount, MPI_Count *total,
                     MPI_Aint **displs)
{
    *displs = NULL;
    *total = rcount * size;
    if (fm_iarr_null(rcounts))
        return FM_OK;
    if (!(*displs = malloc(sizeof **displs * (size_t)size)))
        return FM_ERR_NOMEM;
    *total = 0;
    for (int i = 0; i < size; i++) {
        (*displs)[i] = *total;
        *total += fm_iarr_at(rcounts, i);
    }
    return FM_OK;
}

/* On a crowded node (every member on it, more ranks than CPUs) each
 * pairwise round waits for its partner to be scheduled.  osu_reduce_scatter
 * at 4 ranks on 2 cores, us, pairwise against reduce to rank 0 then
 * scatter (the blocking form's reduce one-sided, rs_crowded_blocking), two
 * runs of 3-4 rounds: 8 B 6.50 / 4.79 and 6.39 / 5.41, 512 B 6.62 / 5.69
 * and 6.94 / 5.98, 2 KiB 6.86 / 6.53 and 7.83 / 7.03; from 4 KiB on one
 * run or the other has pairwise ahead (16 KiB 11.1 / 10.2 and 12.5 /
 * 18.5).  So up to 2 KiB. */
#define FM_RS_CROWDED_BYTES 2048
static int rs_crowded(MPI_Comm comm, size_t bytes)
{
    return comm->size > 2 && bytes <= FM_RS_CROWDED_BYTES && fm_coll_crowded(comm);
}

/* rcounts absent: reduce_scatter_block with rcount per member. */
void fm_cc_reduce_scatter(fm_coll_call *cc, const void *sbuf, void *rbuf, fm_iarr rcounts,
                          MPI_Count rcount, MPI_Datatype dt, MPI_Op op)
{
    if (fm_comm_is_inter(cc->comm)) {
        fm_cc_inter_reduce_scatter(cc, sbuf, rbuf, rcounts, rcount, dt, op);
        return;
    }
    const int size = cc->comm->size;
    MPI_Aint *displs; /* read only while recording: the scatter's steps keep addresses */
    MPI_Count total;
    if (rs_layout(size, rcounts, rcount, &total, &displs) != FM_OK) {
        fm_cc_fail(cc, FM_ERR_NOMEM);
        return;
    }
    if (total == 0 || dt->size == 0) {
        free(displs);
        return; /* every member knows every count: nothing to do anywhere */
    }
    const size_t bytes = (size_t)total * (size_t)dt->size;
    if (op->commute && sbuf != MPI_IN_PLACE &&
        (size <= FM_RS_PAIRWISE_RANKS || bytes >= FM_RS_PAIRWISE_BYTES) &&
        !rs_crowded(cc->comm, bytes)) {
        fm_rs_pairwise(cc, sbuf, rbuf, rcounts, rcount, displs, dt, op);
        free(displs);
        return;
    }
    void *full, *raw;
    fm_rs_reduce(cc, sbuf, rbuf, total, dt, op, &full, &raw);
    int v = !fm_iarr_null(rcounts);
    fm_cc_set_tag(cc, v ? FM_TAG_SCATTERV : FM_TAG_SCATTER);
    fm_cc_scatterv(cc, full, rcounts, v ? fm_iarr_wide(displs) : FM_IARR_NONE, rcount, dt, rbuf,
                   v ? fm_iarr_at(rcounts, cc->comm->rank) : rcount, dt, 0);
    fm_cc_tmp_done(cc, raw);
    free(displs);
}

/* The blocking form of the crowded case: MPI_Reduce as select.c chooses it
 * (one-sided there: 1.5-1.7 us at 4 ranks on 2 cores against 1.9-2.8
 * two-sided), then the scatter.  With MPI_IN_PLACE rank 0 reduces
 * in place, its block already first.  Both run even when the first fails,
 * so every member returns. */
static int rs_crowded_blocking(const void *sbuf, void *rbuf, fm_iarr rcounts, MPI_Count rcount,
                               MPI_Count total, const MPI_Aint *displs, MPI_Datatype dt,
                               MPI_Op op, MPI_Comm comm)
{
    const int root = comm->rank == 0, in_place = sbuf == MPI_IN_PLACE;
    void *full = NULL, *raw = NULL;
    /* Where the whole vector fits the flat allreduce (one round of flags,
     * every member folds in rank order), that and a local copy of this
     * member's block: one crossing instead of the reduce's and the
     * scatter's.  osu_reduce_scatter_block, 4 ranks on 2 cores, 3 rounds
     * alternated, medians, us, reduce + scatter / flat allreduce / Open
     * MPI: 8 B 5.76 / 3.09 / 4.59 (bench/RESULTS.md, "Reduce_scatter
     * through the flat allreduce").  Not where some member's block is
     * empty: that member leaves the reduce as soon as it has written, and
     * the flat round would make it wait for all (osu_reduce_scatter 1 B,
     * counts {1, 0, 0, 0}: 2.00 against 3.12 us). */
    int every_block = 1;
    for (int i = 0; displs && i < comm->size; i++)
        every_block &= fm_iarr_at(rcounts, i) > 0;
    if (every_block &&
        fm_coll_allreduce_is_flat(comm, (size_t)total * (size_t)dt->size, dt)) {
        if (!(full = fm_coll_tmp_alloc(total, dt, &raw)))
            fm_boot_abort(1, "fabmpi: MPI_Reduce_scatter: out of memory for the reduced vector");
        int rc = fm_coll_sel_allreduce(in_place ? rbuf : sbuf, full, total, dt, op, comm);
        MPI_Count n = displs ? fm_iarr_at(rcounts, comm->rank) : rcount;
        MPI_Aint at = displs ? displs[comm->rank] : (MPI_Aint)rcount * comm->rank;
        if (rc == FM_OK)
            rc = fm_dt_copy(fm_coll_at(full, at, dt), n, dt, rbuf, n, dt);
        fm_coll_tmp_free(raw);
        return rc;
    }
    if (root && !(full = in_place ? rbuf : fm_coll_tmp_alloc(total, dt, &raw)))
        fm_boot_abort(1, "fabmpi: MPI_Reduce_scatter: out of memory for the reduced vector");
    int rc = fm_coll_sel_reduce(root && in_place ? MPI_IN_PLACE : in_place ? rbuf : sbuf, full,
                                total, dt, op, 0, comm);
    void *to = root && in_place ? MPI_IN_PLACE : rbuf;
    int rc2 = displs ? fm_coll_scatterv(full, rcounts, fm_iarr_wide(displs), dt, to,
                                        fm_iarr_at(rcounts, comm->rank), dt, 0, comm)
                     : fm_coll_scatter(full, rcount, dt, to, rcount, dt, 0, comm);
    fm_coll_tmp_free(raw);
    return rc != FM_OK ? rc : rc2;
}

/* Blocking calls: the crowded case above, else the recorded algorithm. */
static int rs_blocking(const void *sbuf, void *rbuf, fm_iarr rcounts, MPI_Count rcount,
                       MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    MPI_Count total = rcount * comm->size;
    for (int i = 0; !fm_iarr_null(rcounts) && i < comm->size; i++)
        total += fm_iarr_at(rcounts, i); /* rcount is 0 then */
    /* Nothing moves on any member (the type signatures match): no
     * message pattern to run.  osu_reduce_scatter_block's 1 B row is such a
     * call (0 elements each): 329 -> 269 instructions. */
    if ((total == 0 || dt->size == 0) && !fm_comm_is_inter(comm))
        return FM_OK;
    int rc;
    /* Two members with an input buffer (MPI_IN_PLACE is all members or
     * none): one exchange through the collective cache where it runs. */
    if (comm->size == 2 && !fm_comm_is_inter(comm) && total && dt->size &&
        sbuf != MPI_IN_PLACE &&
        fm_coll_sel_reduce_scatter_pair(
            sbuf, rbuf, fm_iarr_null(rcounts) ? rcount : fm_iarr_at(rcounts, 0),
            fm_iarr_null(rcounts) ? rcount : fm_iarr_at(rcounts, 1), dt, op, comm, &rc))
        return rc;
    /* Displacements only for the crowded case: the recorded one makes its own. */
    if (!fm_comm_is_inter(comm) && total && dt->size &&
        rs_crowded(comm, (size_t)total * (size_t)dt->size)) {
        MPI_Aint *displs;
        /* Every member must take the same way: none may drop out alone. */
        if (rs_layout(comm->size, rcounts, rcount, &total, &displs) != FM_OK)
            fm_boot_abort(1, "fabmpi: MPI_Reduce_scatter: out of memory for the displacements");
        rc = rs_crowded_blocking(sbuf, rbuf, rcounts, rcount, total, displs, dt, op, comm);
        free(displs);
        return rc;
    }
    fm_coll_call cc = FM_COLL_CALL(comm, FM_TAG_REDUCE);
    fm_cc_reduce_scatter(&cc, sbuf, rbuf, rcounts, rcount, dt, op);
    return cc.rc;
}

int fm_coll_reduce_scatter(const void *sbuf, void *rbuf, fm_iarr rcounts, MPI_Datatype dt,
                           MPI_Op op, MPI_Comm comm)
{
    return rs_blocking(sbuf, rbuf, rcounts, 0, dt, op, comm);
}

int fm_coll_reduce_scatter_block(const void *sbuf, void *rbuf, MPI_Count rcount,
                                 MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    return rs_blocking(sbuf, rbuf, FM_IARR_NONE, rcount, dt, op, comm);
}
