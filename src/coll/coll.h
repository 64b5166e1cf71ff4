/* coll.h — collective algorithms over internal point-to-point on the
 * communicator's collective context (ctx + 1), so they never match user
 * messages.  Arguments are already checked by the API layer; MPI_IN_PLACE
 * is passed through with the standard's meaning.  All return FM_OK or an
 * FM_ERR_* status. */
#ifndef FM_COLL_COLL_H
#define FM_COLL_COLL_H

#include <mpi.h>

int fm_coll_barrier(MPI_Comm comm);
int fm_coll_bcast(void *buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm);
int fm_coll_reduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                   int root, MPI_Comm comm);
int fm_coll_allreduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                      MPI_Comm comm);
int fm_coll_gather(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                   MPI_Count rcount, MPI_Datatype rdt, int root, MPI_Comm comm);
int fm_coll_allgather(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                      MPI_Count rcount, MPI_Datatype rdt, MPI_Comm comm);
/* (Gatherv, Scatter(v), Allgatherv, Alltoall(v), Reduce_scatter(_block),
 * Scan, Exscan follow the same pattern; see src/coll/*.c.) */

#endif
