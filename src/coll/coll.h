/* coll.h — collective algorithms over internal point-to-point on the
 * communicator's collective context (ctx + 1), so they never match user
 * messages.  Arguments are already checked by the API layer; MPI_IN_PLACE
 * is passed through with the standard's meaning.  All return FM_OK or an
 * FM_ERR_* status.  Per-rank count and displacement arrays are fm_iarr
 * (util/int_array.h): the int calls' and the large-count calls' (MPI_Count
 * counts, MPI_Aint displacements) alike; they are read while the call runs
 * or is recorded, never kept (a schedule's steps hold counts and
 * addresses), so nonblocking and persistent calls need no copy of them. */
#ifndef FM_COLL_COLL_H
#define FM_COLL_COLL_H

#include <mpi.h>

#include "coll/coll_call.h"
#include "util/int_array.h"

int fm_coll_barrier(MPI_Comm comm);
int fm_coll_bcast(void *buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm);
int fm_coll_reduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                   int root, MPI_Comm comm);
int fm_coll_allreduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                      MPI_Comm comm);
/* A new intracommunicator built by a blocking creation call: give it the
 * transport contexts of its own FABMPI_OFI_THREAD_GROUPING asks for
 * (comm_contexts.c; nothing otherwise).  Collective over its members. */
int fm_coll_comm_contexts(MPI_Comm comm);
int fm_coll_gather(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                   MPI_Count rcount, MPI_Datatype rdt, int root, MPI_Comm comm);
int fm_coll_allgather(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                      MPI_Count rcount, MPI_Datatype rdt, MPI_Comm comm);
int fm_coll_gatherv(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                    fm_iarr rcounts, fm_iarr displs, MPI_Datatype rdt, int root, MPI_Comm comm);
int fm_coll_scatter(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                    MPI_Count rcount, MPI_Datatype rdt, int root, MPI_Comm comm);
int fm_coll_scatterv(const void *sbuf, fm_iarr scounts, fm_iarr displs, MPI_Datatype sdt,
                     void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int root, MPI_Comm comm);
int fm_coll_allgatherv(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                       fm_iarr rcounts, fm_iarr displs, MPI_Datatype rdt, MPI_Comm comm);
int fm_coll_alltoall(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                     MPI_Count rcount, MPI_Datatype rdt, MPI_Comm comm);
int fm_coll_alltoallv(const void *sbuf, fm_iarr scounts, fm_iarr sdispls, MPI_Datatype sdt,
                      void *rbuf, fm_iarr rcounts, fm_iarr rdispls, MPI_Datatype rdt,
                      MPI_Comm comm);
int fm_coll_reduce_scatter(const void *sbuf, void *rbuf, fm_iarr rcounts, MPI_Datatype dt,
                           MPI_Op op, MPI_Comm comm);
int fm_coll_reduce_scatter_block(const void *sbuf, void *rbuf, MPI_Count rcount,
                                 MPI_Datatype dt, MPI_Op op, MPI_Comm comm);
/* Exscan leaves rank 0's rbuf untouched (the standard leaves it undefined). */
int fm_coll_scan(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                 MPI_Comm comm);
int fm_coll_exscan(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                   MPI_Comm comm);
int fm_coll_alltoallw(const void *sbuf, fm_iarr scounts, fm_iarr sdispls,
                      const MPI_Datatype sdts[], void *rbuf, fm_iarr rcounts, fm_iarr rdispls,
                      const MPI_Datatype rdts[], MPI_Comm comm);

/* The same algorithms as steps of a call (coll_call.h): acting at once, or
 * recorded into a schedule for a nonblocking or persistent collective
 * (sched.h).  Where one function serves several collectives, absent count
 * arrays (FM_IARR_NONE) select the fixed-count form. */
void fm_cc_barrier(fm_coll_call *cc);
void fm_cc_bcast(fm_coll_call *cc, void *buf, MPI_Count count, MPI_Datatype dt, int root);
/* MPI_Ibcast's and MPI_Bcast_init's schedule: on 2 members past the eager
 * size the exchange through the cache (rma/coll_rma.h) where chosen, tried
 * first at each start; else, and until the cache is there, fm_cc_bcast. */
void fm_cc_ibcast(fm_coll_call *cc, void *buf, MPI_Count count, MPI_Datatype dt, int root);
void fm_cc_allreduce(fm_coll_call *cc, const void *sbuf, void *rbuf, MPI_Count count,
                     MPI_Datatype dt, MPI_Op op);
void fm_cc_gatherv(fm_coll_call *cc, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                   void *rbuf, fm_iarr rcounts, fm_iarr displs, MPI_Count rcount,
                   MPI_Datatype rdt, int root);
void fm_cc_allgather(fm_coll_call *cc, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                     void *rbuf, MPI_Count rcount, MPI_Datatype rdt);
void fm_cc_allgatherv(fm_coll_call *cc, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                      void *rbuf, fm_iarr rcounts, fm_iarr displs, MPI_Datatype rdt);
void fm_cc_alltoallw(fm_coll_call *cc, const void *sbuf, fm_iarr scounts, fm_iarr sdispls,
                     MPI_Count scount, MPI_Datatype sdt, const MPI_Datatype sdts[], void *rbuf,
                     fm_iarr rcounts, fm_iarr rdispls, MPI_Count rcount, MPI_Datatype rdt,
                     const MPI_Datatype rdts[]);
void fm_cc_reduce_scatter(fm_coll_call *cc, const void *sbuf, void *rbuf, fm_iarr rcounts,
                          MPI_Count rcount, MPI_Datatype dt, MPI_Op op);
void fm_cc_scan(fm_coll_call *cc, const void *sbuf, void *rbuf, MPI_Count count,
                MPI_Datatype dt, MPI_Op op, int exclusive);
/* fm_cc_reduce and fm_cc_scatterv: coll_call.h.  Each of these runs the
 * intercommunicator form (inter.c) when cc->comm is one. */

/* Neighborhood collectives over comm's topology (neighbor.c): absent
 * rcounts / scounts select the fixed-count forms; the w form takes byte
 * displacements (MPI_Aint in both widths) and a type per neighbour.
 * FM_ERR_TOPOLOGY without one. */
void fm_cc_neighbor_allgatherv(fm_coll_call *cc, const void *sbuf, MPI_Count scount,
                               MPI_Datatype sdt, void *rbuf, fm_iarr rcounts, fm_iarr displs,
                               MPI_Count rcount, MPI_Datatype rdt);
void fm_cc_neighbor_alltoallv(fm_coll_call *cc, const void *sbuf, fm_iarr scounts,
                              fm_iarr sdispls, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                              fm_iarr rcounts, fm_iarr rdispls, MPI_Count rcount,
                              MPI_Datatype rdt);
void fm_cc_neighbor_alltoallw(fm_coll_call *cc, const void *sbuf, fm_iarr scounts,
                              const MPI_Aint sdispls[], const MPI_Datatype sdts[], void *rbuf,
                              fm_iarr rcounts, const MPI_Aint rdispls[],
                              const MPI_Datatype rdts[]);

/* Intercommunicators (inter.c): roots are MPI_ROOT / MPI_PROC_NULL / a
 * remote rank; count arrays are indexed by remote rank, except
 * reduce_scatter's (local). */
void fm_cc_inter_barrier(fm_coll_call *cc);
void fm_cc_inter_bcast(fm_coll_call *cc, void *buf, MPI_Count count, MPI_Datatype dt, int root);
void fm_cc_inter_reduce(fm_coll_call *cc, const void *sbuf, void *rbuf, MPI_Count count,
                        MPI_Datatype dt, MPI_Op op, int root);
void fm_cc_inter_allreduce(fm_coll_call *cc, const void *sbuf, void *rbuf, MPI_Count count,
                           MPI_Datatype dt, MPI_Op op);
void fm_cc_inter_reduce_scatter(fm_coll_call *cc, const void *sbuf, void *rbuf,
                                fm_iarr rcounts, MPI_Count rcount, MPI_Datatype dt, MPI_Op op);
void fm_cc_inter_gatherv(fm_coll_call *cc, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                         void *rbuf, fm_iarr rcounts, fm_iarr displs, MPI_Count rcount,
                         MPI_Datatype rdt, int root);
void fm_cc_inter_scatterv(fm_coll_call *cc, const void *sbuf, fm_iarr scounts, fm_iarr displs,
                          MPI_Count scount, MPI_Datatype sdt, void *rbuf, MPI_Count rcount,
                          MPI_Datatype rdt, int root);
void fm_cc_inter_allgatherv(fm_coll_call *cc, const void *sbuf, MPI_Count scount,
                            MPI_Datatype sdt, void *rbuf, fm_iarr rcounts, fm_iarr displs,
                            MPI_Count rcount, MPI_Datatype rdt);
void fm_cc_inter_alltoallw(fm_coll_call *cc, const void *sbuf, fm_iarr scounts, fm_iarr sdispls,
                           MPI_Count scount, MPI_Datatype sdt, const MPI_Datatype sdts[],
                           void *rbuf, fm_iarr rcounts, fm_iarr rdispls, MPI_Count rcount,
                           MPI_Datatype rdt, const MPI_Datatype rdts[]);

#endif
