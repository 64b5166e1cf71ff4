/* reduce_scatter.c — reduce_scatter and reduce_scatter_block.
 *
 * Reduce the whole vector to rank 0 (in rank order, so any op is fine),
 * then scatter the pieces.  Two latency terms of log p / p; simple and
 * correct for non-commutative ops and derived types. */
#include <stdlib.h>

#include "coll/coll.h"
#include "coll/coll_call.h"
#include "coll/coll_util.h"
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

/* rcounts absent: reduce_scatter_block with rcount per member. */
void fm_cc_reduce_scatter(fm_coll_call *cc, const void *sbuf, void *rbuf, fm_iarr rcounts,
                          MPI_Count rcount, MPI_Datatype dt, MPI_Op op)
{
    if (fm_comm_is_inter(cc->comm)) {
        fm_cc_inter_reduce_scatter(cc, sbuf, rbuf, rcounts, rcount, dt, op);
        return;
    }
    const int size = cc->comm->size;
    MPI_Aint *displs = NULL;
    MPI_Count total = rcount * size;
    if (!fm_iarr_null(rcounts)) {
        /* Read only while recording: the scatter's steps keep addresses. */
        displs = malloc(sizeof *displs * (size_t)size);
        if (!displs) {
            fm_cc_fail(cc, FM_ERR_NOMEM);
            return;
        }
        total = 0;
        for (int i = 0; i < size; i++) {
            displs[i] = total;
            total += fm_iarr_at(rcounts, i);
        }
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

int fm_coll_reduce_scatter(const void *sbuf, void *rbuf, fm_iarr rcounts, MPI_Datatype dt,
                           MPI_Op op, MPI_Comm comm)
{
    fm_coll_call cc = FM_COLL_CALL(comm, FM_TAG_REDUCE);
    fm_cc_reduce_scatter(&cc, sbuf, rbuf, rcounts, 0, dt, op);
    return cc.rc;
}

int fm_coll_reduce_scatter_block(const void *sbuf, void *rbuf, MPI_Count rcount,
                                 MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    fm_coll_call cc = FM_COLL_CALL(comm, FM_TAG_REDUCE);
    fm_cc_reduce_scatter(&cc, sbuf, rbuf, FM_IARR_NONE, rcount, dt, op);
    return cc.rc;
}
