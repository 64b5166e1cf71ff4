/* coll_check.h — argument checks of the collectives (coll_check.c), one
 * per collective, shared by its blocking, nonblocking and persistent entry
 * points, and by the large-count variants of each (MPI_Bcast_c: MPI_Count
 * counts, count arrays and MPI_Aint displacements, passed as fm_iarr).
 * Each returns MPI_SUCCESS, or the error fm_raise returned after naming the
 * call, the argument and its value. */
#ifndef FM_MPI_COLL_CHECK_H
#define FM_MPI_COLL_CHECK_H

#include <mpi.h>

#include "coll/coll_call.h"
#include "util/int_array.h"

int fm_check_barrier(const char *call, MPI_Comm comm);
/* 1 when count elements of dt at a + aoff and at b + boff overlap, by
 * the collectives' rule (coll_check.c): byte ranges for contiguous
 * layouts, the start address for others; an empty side never overlaps. */
int fm_buffers_overlap(const void *a, MPI_Aint aoff, MPI_Count acount, MPI_Datatype adt,
                       const void *b, MPI_Aint boff, MPI_Count bcount, MPI_Datatype bdt);
/* The v forms: one buffer against every piece (counts[i] elements of vdt at
 * displs[i] extents) of a v-form side, and two v-form sides piece against
 * piece of the same index only, since a legal program may interleave its
 * pieces in one array. */
int fm_overlap_v(const void *one, MPI_Count count, MPI_Datatype dt, const void *buf,
                 fm_iarr counts, fm_iarr displs, MPI_Datatype vdt, int n);
int fm_overlap_vv(const void *sbuf, fm_iarr scounts, fm_iarr sdispls, MPI_Datatype sdt,
                  const void *rbuf, fm_iarr rcounts, fm_iarr rdispls, MPI_Datatype rdt, int n);
/* sbuf and rbuf, count elements of dt each, do not overlap (MPI_Reduce_local). */
int fm_check_no_alias(const char *call, const void *sbuf, void *rbuf, MPI_Count count,
                      MPI_Datatype dt);
int fm_check_bcast(const char *call, void *buf, MPI_Count count, MPI_Datatype dt, int root,
                   MPI_Comm comm);
int fm_check_reduce(const char *call, const void *sbuf, void *rbuf, MPI_Count count,
                    MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm);
int fm_check_allreduce(const char *call, const void *sbuf, void *rbuf, MPI_Count count,
                       MPI_Datatype dt, MPI_Op op, MPI_Comm comm);
int fm_check_gather(const char *call, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                    void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int root, MPI_Comm comm);
int fm_check_gatherv(const char *call, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                     void *rbuf, fm_iarr rcounts, fm_iarr displs, MPI_Datatype rdt, int root,
                     MPI_Comm comm);
int fm_check_scatter(const char *call, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                     void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int root, MPI_Comm comm);
int fm_check_scatterv(const char *call, const void *sbuf, fm_iarr scounts, fm_iarr displs,
                      MPI_Datatype sdt, void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int root,
                      MPI_Comm comm);
int fm_check_allgather(const char *call, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                       void *rbuf, MPI_Count rcount, MPI_Datatype rdt, MPI_Comm comm);
int fm_check_allgatherv(const char *call, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                        void *rbuf, fm_iarr rcounts, fm_iarr displs, MPI_Datatype rdt,
                        MPI_Comm comm);
int fm_check_alltoall(const char *call, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                      void *rbuf, MPI_Count rcount, MPI_Datatype rdt, MPI_Comm comm);
int fm_check_alltoallv(const char *call, const void *sbuf, fm_iarr scounts, fm_iarr sdispls,
                       MPI_Datatype sdt, void *rbuf, fm_iarr rcounts, fm_iarr rdispls,
                       MPI_Datatype rdt, MPI_Comm comm);
int fm_check_reduce_scatter(const char *call, const void *sbuf, void *rbuf, fm_iarr rcounts,
                            MPI_Datatype dt, MPI_Op op, MPI_Comm comm);
int fm_check_reduce_scatter_block(const char *call, const void *sbuf, void *rbuf, MPI_Count rcount,
                                  MPI_Datatype dt, MPI_Op op, MPI_Comm comm);
int fm_check_scan(const char *call, const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt,
                  MPI_Op op, MPI_Comm comm, int exclusive);
int fm_check_alltoallw(const char *call, const void *sbuf, fm_iarr scounts,
                       fm_iarr sdispls, const MPI_Datatype sdts[], void *rbuf,
                       fm_iarr rcounts, fm_iarr rdispls, const MPI_Datatype rdts[],
                       MPI_Comm comm);

/* The nonblocking and persistent forms (icoll_api.c): begin checks the
 * request pointer and info and starts recording into cc; end starts the
 * schedule (persistent 0) or keeps it under an inactive request (1).
 * Both return an MPI error code, raised on comm under call. */
int fm_icoll_begin(const char *call, MPI_Comm comm, MPI_Info info, MPI_Request *request,
                   fm_coll_call *cc);
int fm_icoll_end(const char *call, MPI_Comm comm, fm_coll_call *cc, int persistent,
                 MPI_Request *request);

#endif
