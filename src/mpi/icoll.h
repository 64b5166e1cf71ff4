/* icoll.h — the nonblocking (MPI_I*) and persistent (*_init) collectives,
 * one body each (icoll_api.c) behind their entry points and those of their
 * MPI-4.0 large-count variants (MPI_Ibcast_c, MPI_Bcast_init_c): MPI_Count
 * counts and count and displacement arrays of either width (fm_iarr),
 * read while the schedule is recorded and not kept (coll/coll.h).
 * persistent: 0 starts the schedule (MPI_I*), 1 keeps it under an inactive
 * request (*_init).  Each returns an MPI error code raised under call. */
#ifndef FM_MPI_ICOLL_H
#define FM_MPI_ICOLL_H

#include <mpi.h>

#include "util/int_array.h"

int fm_icoll_barrier(const char *call, int persistent, MPI_Comm comm, MPI_Info info,
                     MPI_Request *req);
int fm_icoll_bcast(const char *call, int persistent, void *buf, MPI_Count count, MPI_Datatype dt,
                   int root, MPI_Comm comm, MPI_Info info, MPI_Request *req);
int fm_icoll_reduce(const char *call, int persistent, const void *sbuf, void *rbuf, MPI_Count count,
                    MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm, MPI_Info info,
                    MPI_Request *req);
int fm_icoll_allreduce(const char *call, int persistent, const void *sbuf, void *rbuf,
                       MPI_Count count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm, MPI_Info info,
                       MPI_Request *req);
int fm_icoll_gather(const char *call, int persistent, const void *sbuf, MPI_Count scount,
                    MPI_Datatype sdt, void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int root,
                    MPI_Comm comm, MPI_Info info, MPI_Request *req);
int fm_icoll_gatherv(const char *call, int persistent, const void *sbuf, MPI_Count scount,
                     MPI_Datatype sdt, void *rbuf, fm_iarr rcounts, fm_iarr displs,
                     MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Info info, MPI_Request *req);
int fm_icoll_scatter(const char *call, int persistent, const void *sbuf, MPI_Count scount,
                     MPI_Datatype sdt, void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int root,
                     MPI_Comm comm, MPI_Info info, MPI_Request *req);
int fm_icoll_scatterv(const char *call, int persistent, const void *sbuf, fm_iarr scounts,
                      fm_iarr displs, MPI_Datatype sdt, void *rbuf, MPI_Count rcount,
                      MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Info info, MPI_Request *req);
int fm_icoll_allgather(const char *call, int persistent, const void *sbuf, MPI_Count scount,
                       MPI_Datatype sdt, void *rbuf, MPI_Count rcount, MPI_Datatype rdt,
                       MPI_Comm comm, MPI_Info info, MPI_Request *req);
int fm_icoll_allgatherv(const char *call, int persistent, const void *sbuf, MPI_Count scount,
                        MPI_Datatype sdt, void *rbuf, fm_iarr rcounts, fm_iarr displs,
                        MPI_Datatype rdt, MPI_Comm comm, MPI_Info info, MPI_Request *req);
int fm_icoll_alltoall(const char *call, int persistent, const void *sbuf, MPI_Count scount,
                      MPI_Datatype sdt, void *rbuf, MPI_Count rcount, MPI_Datatype rdt,
                      MPI_Comm comm, MPI_Info info, MPI_Request *req);
int fm_icoll_alltoallv(const char *call, int persistent, const void *sbuf, fm_iarr scounts,
                       fm_iarr sdispls, MPI_Datatype sdt, void *rbuf, fm_iarr rcounts,
                       fm_iarr rdispls, MPI_Datatype rdt, MPI_Comm comm, MPI_Info info,
                       MPI_Request *req);
int fm_icoll_alltoallw(const char *call, int persistent, const void *sbuf, fm_iarr scounts,
                       fm_iarr sdispls, const MPI_Datatype sdts[], void *rbuf, fm_iarr rcounts,
                       fm_iarr rdispls, const MPI_Datatype rdts[], MPI_Comm comm, MPI_Info info,
                       MPI_Request *req);
int fm_icoll_reduce_scatter(const char *call, int persistent, const void *sbuf, void *rbuf,
                            fm_iarr rcounts, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                            MPI_Info info, MPI_Request *req);
int fm_icoll_reduce_scatter_block(const char *call, int persistent, const void *sbuf, void *rbuf,
                                  MPI_Count rcount, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                                  MPI_Info info, MPI_Request *req);
int fm_icoll_scan(const char *call, int persistent, const void *sbuf, void *rbuf, MPI_Count count,
                  MPI_Datatype dt, MPI_Op op, MPI_Comm comm, int exclusive, MPI_Info info,
                  MPI_Request *req);

#endif
