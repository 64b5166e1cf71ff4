/* reduce_scatter.c — reduce_scatter and reduce_scatter_block.
 *
 * Reduce the whole vector to rank 0 (in rank order, so any op is fine),
 * then scatter the pieces.  Two latency terms of log p / p; simple and
 * correct for non-commutative ops and derived types. */
#include <stdlib.h>

#include "coll/coll.h"
#include "coll/coll_util.h"
#include "core/comm.h"
#include "util/status.h"

/* MPI_IN_PLACE: the input is the full vector in rbuf.  rbuf's input is
 * consumed by the reduce before the scatter overwrites it. */
static int fm_rs_reduce(const void *sbuf, void *rbuf, MPI_Count total, MPI_Datatype dt,
                        MPI_Op op, MPI_Comm comm, void **full, void **raw)
{
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    *full = NULL;
    *raw = NULL;
    if (comm->rank == 0 && !(*full = fm_coll_tmp_alloc(total, dt, raw)))
        return FM_ERR_NOMEM;
    return fm_coll_reduce(mine, *full, total, dt, op, 0, comm);
}

int fm_coll_reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt,
                           MPI_Op op, MPI_Comm comm)
{
    const int size = comm->size;
    int *displs = malloc(sizeof *displs * (size_t)size);
    if (!displs)
        return FM_ERR_NOMEM;
    MPI_Count total = 0;
    for (int i = 0; i < size; i++) {
        displs[i] = (int)total;
        total += rcounts[i];
    }
    void *full, *raw;
    int rc = fm_rs_reduce(sbuf, rbuf, total, dt, op, comm, &full, &raw);
    if (rc == FM_OK)
        rc = fm_coll_scatterv(full, rcounts, displs, dt, rbuf, rcounts[comm->rank], dt, 0, comm);
    free(raw);
    free(displs);
    return rc;
}

int fm_coll_reduce_scatter_block(const void *sbuf, void *rbuf, MPI_Count rcount,
                                 MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    void *full, *raw;
    int rc = fm_rs_reduce(sbuf, rbuf, rcount * comm->size, dt, op, comm, &full, &raw);
    if (rc == FM_OK)
        rc = fm_coll_scatter(full, rcount, dt, rbuf, rcount, dt, 0, comm);
    free(raw);
    return rc;
}
