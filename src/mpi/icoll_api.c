/* icoll_api.c — nonblocking collectives (MPI_I*) and persistent ones
 * (MPI-4.0 *_init): the same argument checks as the blocking calls
 * (coll_check.c), then the same algorithm recorded into a schedule
 * (coll/sched.h) that the progress engine runs — at once for MPI_I*, at
 * each MPI_Start for *_init. */
#include "coll/coll.h"
#include "coll/rma/coll_rma.h"
#include "coll/sched.h"
#include "mpi/api.h"
#include "mpi/coll_check.h"
#include "mpi/win_api.h"

int fm_icoll_begin(const char *call, MPI_Comm comm, MPI_Info info, MPI_Request *request,
                   fm_coll_call *cc)
{
    if (!request)
        return fm_raise(comm, call, MPI_ERR_ARG, "request=NULL");
    if (info != MPI_INFO_NULL && !fm_info_valid(info))
        return fm_raise(comm, call, MPI_ERR_INFO, "info=%p is not a valid info object",
                        (void *)info);
    int rc = fm_sched_begin(cc, comm);
    return rc == FM_OK ? MPI_SUCCESS : fm_raise_status(comm, call, rc);
}

int fm_icoll_end(const char *call, MPI_Comm comm, fm_coll_call *cc, int persistent,
                 MPI_Request *request)
{
    int rc = persistent ? fm_sched_persist(cc, request) : fm_sched_start_new(cc, request);
    return rc == FM_OK ? MPI_SUCCESS : fm_raise_status(comm, call, rc);
}

/* Check, record `record` (which names the call cc_), start or keep. */
#define NB_COLL(call, persistent, info, comm, request, check, record)    \
    do {                                                                \
        fm_coll_call cc_;                                               \
        int err_ = (check);                                             \
        if (err_ == MPI_SUCCESS)                                        \
            err_ = fm_icoll_begin(call, comm, info, request, &cc_);           \
        if (err_ != MPI_SUCCESS)                                        \
            return err_;                                                \
        record;                                                         \
        return fm_icoll_end(call, comm, &cc_, persistent, request);           \
    } while (0)

/* Each collective once, for both forms: `p` is 1 for the persistent one. */

static int barrier(const char *call, int p, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    NB_COLL(call, p, info, comm, req, fm_check_barrier(call, comm), fm_coll_sel_ibarrier(&cc_));
}

static int bcast(const char *call, int p, void *buf, int count, MPI_Datatype dt, int root,
                 MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    NB_COLL(call, p, info, comm, req, fm_check_bcast(call, buf, count, dt, root, comm),
            fm_cc_bcast(&cc_, buf, count, dt, root));
}

static int reduce(const char *call, int p, const void *sbuf, void *rbuf, int count,
                  MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm, MPI_Info info,
                  MPI_Request *req)
{
    NB_COLL(call, p, info, comm, req,
            fm_check_reduce(call, sbuf, rbuf, count, dt, op, root, comm),
            fm_cc_reduce(&cc_, sbuf, rbuf, count, dt, op, root));
}

static int allreduce(const char *call, int p, const void *sbuf, void *rbuf, int count,
                     MPI_Datatype dt, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    NB_COLL(call, p, info, comm, req, fm_check_allreduce(call, sbuf, rbuf, count, dt, op, comm),
            fm_coll_sel_iallreduce(&cc_, sbuf, rbuf, count, dt, op));
}

static int gather(const char *call, int p, const void *sbuf, int scount, MPI_Datatype sdt,
                  void *rbuf, int rcount, MPI_Datatype rdt, int root, MPI_Comm comm,
                  MPI_Info info, MPI_Request *req)
{
    NB_COLL(call, p, info, comm, req,
            fm_check_gather(call, sbuf, scount, sdt, rbuf, rcount, rdt, root, comm),
            fm_cc_gatherv(&cc_, sbuf, scount, sdt, rbuf, NULL, NULL, rcount, rdt, root));
}

static int gatherv(const char *call, int p, const void *sbuf, int scount, MPI_Datatype sdt,
                   void *rbuf, const int rcounts[], const int displs[], MPI_Datatype rdt,
                   int root, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    NB_COLL(call, p, info, comm, req,
            fm_check_gatherv(call, sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm),
            fm_cc_gatherv(&cc_, sbuf, scount, sdt, rbuf, rcounts, displs, 0, rdt, root));
}

static int scatter(const char *call, int p, const void *sbuf, int scount, MPI_Datatype sdt,
                   void *rbuf, int rcount, MPI_Datatype rdt, int root, MPI_Comm comm,
                   MPI_Info info, MPI_Request *req)
{
    NB_COLL(call, p, info, comm, req,
            fm_check_scatter(call, sbuf, scount, sdt, rbuf, rcount, rdt, root, comm),
            fm_cc_scatterv(&cc_, sbuf, NULL, NULL, scount, sdt, rbuf, rcount, rdt, root));
}

static int scatterv(const char *call, int p, const void *sbuf, const int scounts[],
                    const int displs[], MPI_Datatype sdt, void *rbuf, int rcount,
                    MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    NB_COLL(call, p, info, comm, req,
            fm_check_scatterv(call, sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root, comm),
            fm_cc_scatterv(&cc_, sbuf, scounts, displs, 0, sdt, rbuf, rcount, rdt, root));
}

static int allgather(const char *call, int p, const void *sbuf, int scount, MPI_Datatype sdt,
                     void *rbuf, int rcount, MPI_Datatype rdt, MPI_Comm comm, MPI_Info info,
                     MPI_Request *req)
{
    NB_COLL(call, p, info, comm, req,
            fm_check_allgather(call, sbuf, scount, sdt, rbuf, rcount, rdt, comm),
            fm_cc_allgather(&cc_, sbuf, scount, sdt, rbuf, rcount, rdt));
}

static int allgatherv(const char *call, int p, const void *sbuf, int scount, MPI_Datatype sdt,
                      void *rbuf, const int rcounts[], const int displs[], MPI_Datatype rdt,
                      MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    NB_COLL(call, p, info, comm, req,
            fm_check_allgatherv(call, sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm),
            fm_cc_allgatherv(&cc_, sbuf, scount, sdt, rbuf, rcounts, displs, rdt));
}

static int alltoall(const char *call, int p, const void *sbuf, int scount, MPI_Datatype sdt,
                    void *rbuf, int rcount, MPI_Datatype rdt, MPI_Comm comm, MPI_Info info,
                    MPI_Request *req)
{
    NB_COLL(call, p, info, comm, req,
            fm_check_alltoall(call, sbuf, scount, sdt, rbuf, rcount, rdt, comm),
            fm_cc_alltoallw(&cc_, sbuf, NULL, NULL, scount, sdt, NULL, rbuf, NULL, NULL, rcount,
                            rdt, NULL));
}

static int alltoallv(const char *call, int p, const void *sbuf, const int scounts[],
                     const int sdispls[], MPI_Datatype sdt, void *rbuf, const int rcounts[],
                     const int rdispls[], MPI_Datatype rdt, MPI_Comm comm, MPI_Info info,
                     MPI_Request *req)
{
    NB_COLL(call, p, info, comm, req,
            fm_check_alltoallv(call, sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt,
                               comm),
            fm_cc_alltoallw(&cc_, sbuf, scounts, sdispls, 0, sdt, NULL, rbuf, rcounts, rdispls,
                            0, rdt, NULL));
}

static int alltoallw(const char *call, int p, const void *sbuf, const int scounts[],
                     const int sdispls[], const MPI_Datatype sdts[], void *rbuf,
                     const int rcounts[], const int rdispls[], const MPI_Datatype rdts[],
                     MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    NB_COLL(call, p, info, comm, req,
            fm_check_alltoallw(call, sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls, rdts,
                               comm),
            fm_cc_alltoallw(&cc_, sbuf, scounts, sdispls, 0, NULL, sdts, rbuf, rcounts, rdispls,
                            0, NULL, rdts));
}

static int reduce_scatter(const char *call, int p, const void *sbuf, void *rbuf,
                          const int rcounts[], MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                          MPI_Info info, MPI_Request *req)
{
    NB_COLL(call, p, info, comm, req,
            fm_check_reduce_scatter(call, sbuf, rbuf, rcounts, dt, op, comm),
            fm_cc_reduce_scatter(&cc_, sbuf, rbuf, rcounts, 0, dt, op));
}

static int reduce_scatter_block(const char *call, int p, const void *sbuf, void *rbuf,
                                int rcount, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                                MPI_Info info, MPI_Request *req)
{
    NB_COLL(call, p, info, comm, req,
            fm_check_reduce_scatter_block(call, sbuf, rbuf, rcount, dt, op, comm),
            fm_cc_reduce_scatter(&cc_, sbuf, rbuf, NULL, rcount, dt, op));
}

static int scan(const char *call, int p, const void *sbuf, void *rbuf, int count,
                MPI_Datatype dt, MPI_Op op, MPI_Comm comm, int exclusive, MPI_Info info,
                MPI_Request *req)
{
    NB_COLL(call, p, info, comm, req,
            fm_check_scan(call, sbuf, rbuf, count, dt, op, comm, exclusive),
            fm_cc_scan(&cc_, sbuf, rbuf, count, dt, op, exclusive));
}

/* ---- the entry points ------------------------------------------------------- */

#pragma weak MPI_Ibarrier = PMPI_Ibarrier
int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    return barrier("MPI_Ibarrier", 0, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Barrier_init = PMPI_Barrier_init
int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return barrier("MPI_Barrier_init", 1, comm, info, request);
}

#pragma weak MPI_Ibcast = PMPI_Ibcast
int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request *request)
{
    return bcast("MPI_Ibcast", 0, buffer, count, datatype, root, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Bcast_init = PMPI_Bcast_init
int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                   MPI_Info info, MPI_Request *request)
{
    return bcast("MPI_Bcast_init", 1, buffer, count, datatype, root, comm, info, request);
}

#pragma weak MPI_Ireduce = PMPI_Ireduce
int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request *request)
{
    return reduce("MPI_Ireduce", 0, sendbuf, recvbuf, count, datatype, op, root, comm,
                  MPI_INFO_NULL, request);
}

#pragma weak MPI_Reduce_init = PMPI_Reduce_init
int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return reduce("MPI_Reduce_init", 1, sendbuf, recvbuf, count, datatype, op, root, comm, info,
                  request);
}

#pragma weak MPI_Iallreduce = PMPI_Iallreduce
int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Request *request)
{
    return allreduce("MPI_Iallreduce", 0, sendbuf, recvbuf, count, datatype, op, comm,
                     MPI_INFO_NULL, request);
}

#pragma weak MPI_Allreduce_init = PMPI_Allreduce_init
int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return allreduce("MPI_Allreduce_init", 1, sendbuf, recvbuf, count, datatype, op, comm, info,
                     request);
}

#pragma weak MPI_Igather = PMPI_Igather
int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    return gather("MPI_Igather", 0, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                  root, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Gather_init = PMPI_Gather_init
int PMPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                    MPI_Request *request)
{
    return gather("MPI_Gather_init", 1, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                  root, comm, info, request);
}

#pragma weak MPI_Igatherv = PMPI_Igatherv
int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request *request)
{
    return gatherv("MPI_Igatherv", 0, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                   recvtype, root, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Gatherv_init = PMPI_Gatherv_init
int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                     MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return gatherv("MPI_Gatherv_init", 1, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                   recvtype, root, comm, info, request);
}

#pragma weak MPI_Iscatter = PMPI_Iscatter
int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    return scatter("MPI_Iscatter", 0, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                   root, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Scatter_init = PMPI_Scatter_init
int PMPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request)
{
    return scatter("MPI_Scatter_init", 1, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, root, comm, info, request);
}

#pragma weak MPI_Iscatterv = PMPI_Iscatterv
int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, MPI_Request *request)
{
    return scatterv("MPI_Iscatterv", 0, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                    recvtype, root, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Scatterv_init = PMPI_Scatterv_init
int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                      MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                      int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return scatterv("MPI_Scatterv_init", 1, sendbuf, sendcounts, displs, sendtype, recvbuf,
                    recvcount, recvtype, root, comm, info, request);
}

#pragma weak MPI_Iallgather = PMPI_Iallgather
int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return allgather("MPI_Iallgather", 0, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     recvtype, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Allgather_init = PMPI_Allgather_init
int PMPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    return allgather("MPI_Allgather_init", 1, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     recvtype, comm, info, request);
}

#pragma weak MPI_Iallgatherv = PMPI_Iallgatherv
int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request *request)
{
    return allgatherv("MPI_Iallgatherv", 0, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                      displs, recvtype, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Allgatherv_init = PMPI_Allgatherv_init
int PMPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return allgatherv("MPI_Allgatherv_init", 1, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                      displs, recvtype, comm, info, request);
}

#pragma weak MPI_Ialltoall = PMPI_Ialltoall
int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return alltoall("MPI_Ialltoall", 0, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                    comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Alltoall_init = PMPI_Alltoall_init
int PMPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request)
{
    return alltoall("MPI_Alltoall_init", 1, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, info, request);
}

#pragma weak MPI_Ialltoallv = PMPI_Ialltoallv
int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return alltoallv("MPI_Ialltoallv", 0, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                     recvcounts, rdispls, recvtype, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Alltoallv_init = PMPI_Alltoallv_init
int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    return alltoallv("MPI_Alltoallv_init", 1, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                     recvcounts, rdispls, recvtype, comm, info, request);
}

#pragma weak MPI_Ialltoallw = PMPI_Ialltoallw
int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request *request)
{
    return alltoallw("MPI_Ialltoallw", 0, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                     recvcounts, rdispls, recvtypes, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Alltoallw_init = PMPI_Alltoallw_init
int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                       const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                       MPI_Info info, MPI_Request *request)
{
    return alltoallw("MPI_Alltoallw_init", 1, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                     recvcounts, rdispls, recvtypes, comm, info, request);
}

#pragma weak MPI_Ireduce_scatter = PMPI_Ireduce_scatter
int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return reduce_scatter("MPI_Ireduce_scatter", 0, sendbuf, recvbuf, recvcounts, datatype, op,
                          comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Reduce_scatter_init = PMPI_Reduce_scatter_init
int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                            MPI_Request *request)
{
    return reduce_scatter("MPI_Reduce_scatter_init", 1, sendbuf, recvbuf, recvcounts, datatype, op,
                          comm, info, request);
}

#pragma weak MPI_Ireduce_scatter_block = PMPI_Ireduce_scatter_block
int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return reduce_scatter_block("MPI_Ireduce_scatter_block", 0, sendbuf, recvbuf, recvcount,
                                datatype, op, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Reduce_scatter_block_init = PMPI_Reduce_scatter_block_init
int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request)
{
    return reduce_scatter_block("MPI_Reduce_scatter_block_init", 1, sendbuf, recvbuf, recvcount,
                                datatype, op, comm, info, request);
}

#pragma weak MPI_Iscan = PMPI_Iscan
int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Request *request)
{
    return scan("MPI_Iscan", 0, sendbuf, recvbuf, count, datatype, op, comm, 0, MPI_INFO_NULL,
                request);
}

#pragma weak MPI_Scan_init = PMPI_Scan_init
int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return scan("MPI_Scan_init", 1, sendbuf, recvbuf, count, datatype, op, comm, 0, info, request);
}

#pragma weak MPI_Iexscan = PMPI_Iexscan
int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Request *request)
{
    return scan("MPI_Iexscan", 0, sendbuf, recvbuf, count, datatype, op, comm, 1, MPI_INFO_NULL,
                request);
}

#pragma weak MPI_Exscan_init = PMPI_Exscan_init
int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return scan("MPI_Exscan_init", 1, sendbuf, recvbuf, count, datatype, op, comm, 1, info,
                request);
}
