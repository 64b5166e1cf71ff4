/* icoll_api.c — nonblocking collectives (MPI_I*) and the bodies they share
 * with the persistent ones (MPI-4.0 *_init, coll_init_api.c): the same
 * argument checks as the blocking calls (coll_check.c), then the same
 * algorithm recorded into a schedule (coll/sched.h) that the progress
 * engine runs — at once for MPI_I*, at each MPI_Start for *_init.  Every
 * MPI_I* here is followed by its large-count variant (MPI_Ibcast_c). */
#include "coll/coll.h"
#include "coll/rma/coll_rma.h"
#include "coll/sched.h"
#include "mpi/api.h"
#include "mpi/coll_check.h"
#include "mpi/icoll.h"
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

/* NB_COLL for a call whose recording depends on nothing but its
 * arguments, its communicator and the knobs: an MPI_I* call replays the
 * schedule the last such call recorded, when that one has ended (coll/
 * sched.h, "Replay"), else its new recording is parked for the next.
 * Recording a 4 KiB MPI_Ialltoall at 2 members cost 950 instructions
 * more than the blocking call made. */
#define NB_COLL_REPLAYED(call, persistent, info, comm, request, check, key, record)            \
    do {                                                                                   \
        const fm_sched_key key_ = key;                                                     \
        int e_ = (check);                                                                  \
        if (e_ == MPI_SUCCESS && !(persistent) && (request) &&                             \
            fm_sched_replay(comm, &key_, request))                                         \
            return MPI_SUCCESS;                                                            \
        NB_COLL(call, persistent, info, comm, request, e_, do {                            \
            record;                                                                        \
            if (!(persistent))                                                             \
                fm_sched_reusable(&cc_, &key_);                                            \
        } while (0));                                                                      \
    } while (0)

/* Each collective once, for every form: icoll.h. */

int fm_icoll_barrier(const char *call, int persistent, MPI_Comm comm, MPI_Info info,
                     MPI_Request *req)
{
    int err = fm_check_barrier(call, comm);
    if (err == MPI_SUCCESS && !persistent && req && fm_coll_sel_ibarrier_again(comm, req))
        return MPI_SUCCESS;
    NB_COLL(call, persistent, info, comm, req, err, fm_coll_sel_ibarrier(&cc_));
}

int fm_icoll_bcast(const char *call, int persistent, void *buf, MPI_Count count, MPI_Datatype dt,
                   int root, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    NB_COLL_REPLAYED(call, persistent, info, comm, req,
            fm_check_bcast(call, buf, count, dt, root, comm),
            ((fm_sched_key){.kind = FM_SK_BCAST, .rbuf = buf, .count = count, .dt = dt,
                            .root = root}),
            fm_cc_ibcast(&cc_, buf, count, dt, root));
}

int fm_icoll_reduce(const char *call, int persistent, const void *sbuf, void *rbuf, MPI_Count count,
                    MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm, MPI_Info info,
                    MPI_Request *req)
{
    NB_COLL_REPLAYED(call, persistent, info, comm, req,
            fm_check_reduce(call, sbuf, rbuf, count, dt, op, root, comm),
            ((fm_sched_key){.kind = FM_SK_REDUCE, .sbuf = sbuf, .rbuf = rbuf,
                            .count = count, .dt = dt, .op = op, .root = root}),
            fm_cc_reduce(&cc_, sbuf, rbuf, count, dt, op, root));
}

int fm_icoll_allreduce(const char *call, int persistent, const void *sbuf, void *rbuf,
                       MPI_Count count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm, MPI_Info info,
                       MPI_Request *req)
{
    int err = fm_check_allreduce(call, sbuf, rbuf, count, dt, op, comm);
    if (err == MPI_SUCCESS && !persistent && req &&
        fm_coll_sel_iallreduce_again(sbuf, rbuf, count, dt, op, comm, req))
        return MPI_SUCCESS;
    NB_COLL(call, persistent, info, comm, req, err,
            fm_coll_sel_iallreduce(&cc_, sbuf, rbuf, count, dt, op));
}

int fm_icoll_gather(const char *call, int persistent, const void *sbuf, MPI_Count scount,
                    MPI_Datatype sdt, void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int root,
                    MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    NB_COLL_REPLAYED(call, persistent, info, comm, req,
            fm_check_gather(call, sbuf, scount, sdt, rbuf, rcount, rdt, root, comm),
            ((fm_sched_key){.kind = FM_SK_GATHER, .sbuf = sbuf, .rbuf = rbuf, .count = scount,
                   .dt = sdt, .count2 = rcount, .dt2 = rdt, .root = root}),
            fm_cc_gatherv(&cc_, sbuf, scount, sdt, rbuf, FM_IARR_NONE, FM_IARR_NONE, rcount, rdt,
                 root));
}

int fm_icoll_gatherv(const char *call, int persistent, const void *sbuf, MPI_Count scount,
            MPI_Datatype sdt, void *rbuf, fm_iarr rcounts, fm_iarr displs,
            MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    NB_COLL(call, persistent, info, comm, req,
            fm_check_gatherv(call, sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm),
            fm_cc_gatherv(&cc_, sbuf, scount, sdt, rbuf, rcounts, displs, 0, rdt, root));
}

int fm_icoll_scatter(const char *call, int persistent, const void *sbuf, MPI_Count scount,
                     MPI_Datatype sdt, void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int root,
                     MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    NB_COLL_REPLAYED(call, persistent, info, comm, req,
            fm_check_scatter(call, sbuf, scount, sdt, rbuf, rcount, rdt, root, comm),
            ((fm_sched_key){.kind = FM_SK_SCATTER, .sbuf = sbuf, .rbuf = rbuf, .count = scount,
                   .dt = sdt, .count2 = rcount, .dt2 = rdt, .root = root}),
            fm_cc_scatterv(&cc_, sbuf, FM_IARR_NONE, FM_IARR_NONE, scount, sdt, rbuf, rcount, rdt,
                  root));
}

int fm_icoll_scatterv(const char *call, int persistent, const void *sbuf, fm_iarr scounts,
             fm_iarr displs, MPI_Datatype sdt, void *rbuf, MPI_Count rcount,
             MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    NB_COLL(call, persistent, info, comm, req,
            fm_check_scatterv(call, sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root, comm),
            fm_cc_scatterv(&cc_, sbuf, scounts, displs, 0, sdt, rbuf, rcount, rdt, root));
}

int fm_icoll_allgather(const char *call, int persistent, const void *sbuf, MPI_Count scount,
                       MPI_Datatype sdt, void *rbuf, MPI_Count rcount, MPI_Datatype rdt,
                       MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    NB_COLL_REPLAYED(call, persistent, info, comm, req,
            fm_check_allgather(call, sbuf, scount, sdt, rbuf, rcount, rdt, comm),
            ((fm_sched_key){.kind = FM_SK_ALLGATHER, .sbuf = sbuf, .rbuf = rbuf, .count = scount,
                   .dt = sdt, .count2 = rcount, .dt2 = rdt}),
            fm_cc_allgather(&cc_, sbuf, scount, sdt, rbuf, rcount, rdt));
}

int fm_icoll_allgatherv(const char *call, int persistent, const void *sbuf, MPI_Count scount,
                        MPI_Datatype sdt, void *rbuf, fm_iarr rcounts, fm_iarr displs,
                        MPI_Datatype rdt, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    NB_COLL(call, persistent, info, comm, req,
            fm_check_allgatherv(call, sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm),
            fm_cc_allgatherv(&cc_, sbuf, scount, sdt, rbuf, rcounts, displs, rdt));
}

int fm_icoll_alltoall(const char *call, int persistent, const void *sbuf, MPI_Count scount,
                      MPI_Datatype sdt, void *rbuf, MPI_Count rcount, MPI_Datatype rdt,
                      MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    NB_COLL_REPLAYED(call, persistent, info, comm, req,
            fm_check_alltoall(call, sbuf, scount, sdt, rbuf, rcount, rdt, comm),
            ((fm_sched_key){.kind = FM_SK_ALLTOALL, .sbuf = sbuf, .rbuf = rbuf, .count = scount,
                   .dt = sdt, .count2 = rcount, .dt2 = rdt}),
            fm_cc_alltoallw(&cc_, sbuf, FM_IARR_NONE, FM_IARR_NONE, scount, sdt, NULL, rbuf,
                   FM_IARR_NONE, FM_IARR_NONE, rcount, rdt, NULL));
}

int fm_icoll_alltoallv(const char *call, int persistent, const void *sbuf, fm_iarr scounts,
              fm_iarr sdispls, MPI_Datatype sdt, void *rbuf, fm_iarr rcounts,
              fm_iarr rdispls, MPI_Datatype rdt, MPI_Comm comm, MPI_Info info,
              MPI_Request *req)
{
    NB_COLL(call, persistent, info, comm, req,
            fm_check_alltoallv(call, sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt,
                      comm),
            fm_cc_alltoallw(&cc_, sbuf, scounts, sdispls, 0, sdt, NULL, rbuf, rcounts, rdispls, 0,
                   rdt, NULL));
}

int fm_icoll_alltoallw(const char *call, int persistent, const void *sbuf, fm_iarr scounts,
              fm_iarr sdispls, const MPI_Datatype sdts[], void *rbuf, fm_iarr rcounts,
              fm_iarr rdispls, const MPI_Datatype rdts[], MPI_Comm comm, MPI_Info info,
              MPI_Request *req)
{
    NB_COLL(call, persistent, info, comm, req,
            fm_check_alltoallw(call, sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls, rdts,
                      comm),
            fm_cc_alltoallw(&cc_, sbuf, scounts, sdispls, 0, NULL, sdts, rbuf, rcounts, rdispls, 0,
                   NULL, rdts));
}

int fm_icoll_reduce_scatter(const char *call, int persistent, const void *sbuf, void *rbuf,
                   fm_iarr rcounts, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                   MPI_Info info, MPI_Request *req)
{
    NB_COLL(call, persistent, info, comm, req,
            fm_check_reduce_scatter(call, sbuf, rbuf, rcounts, dt, op, comm),
            fm_cc_reduce_scatter(&cc_, sbuf, rbuf, rcounts, 0, dt, op));
}

int fm_icoll_reduce_scatter_block(const char *call, int persistent, const void *sbuf, void *rbuf,
                                  MPI_Count rcount, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                                  MPI_Info info, MPI_Request *req)
{
    NB_COLL_REPLAYED(call, persistent, info, comm, req,
            fm_check_reduce_scatter_block(call, sbuf, rbuf, rcount, dt, op, comm),
            ((fm_sched_key){.kind = FM_SK_REDUCE_SCATTER_BLOCK, .sbuf = sbuf, .rbuf = rbuf,
                   .count = rcount, .dt = dt, .op = op}),
            fm_cc_reduce_scatter(&cc_, sbuf, rbuf, FM_IARR_NONE, rcount, dt, op));
}

int fm_icoll_scan(const char *call, int persistent, const void *sbuf, void *rbuf, MPI_Count count,
                  MPI_Datatype dt, MPI_Op op, MPI_Comm comm, int exclusive, MPI_Info info,
                  MPI_Request *req)
{
    NB_COLL_REPLAYED(call, persistent, info, comm, req,
            fm_check_scan(call, sbuf, rbuf, count, dt, op, comm, exclusive),
            ((fm_sched_key){.kind = exclusive ? FM_SK_EXSCAN : FM_SK_SCAN, .sbuf = sbuf,
                   .rbuf = rbuf, .count = count, .dt = dt, .op = op}),
            fm_cc_scan(&cc_, sbuf, rbuf, count, dt, op, exclusive));
}

/* ---- the entry points ------------------------------------------------------- */

#pragma weak MPI_Ibarrier = PMPI_Ibarrier
int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_barrier("MPI_Ibarrier", 0, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Ibcast = PMPI_Ibcast
int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_bcast("MPI_Ibcast", 0, buffer, count, datatype, root, comm, MPI_INFO_NULL,
                          request);
}

#pragma weak MPI_Ibcast_c = PMPI_Ibcast_c
int PMPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_bcast("MPI_Ibcast_c", 0, buffer, count, datatype, root, comm, MPI_INFO_NULL,
                          request);
}

#pragma weak MPI_Ireduce = PMPI_Ireduce
int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_reduce("MPI_Ireduce", 0, sendbuf, recvbuf, count, datatype, op, root, comm,
                           MPI_INFO_NULL, request);
}

#pragma weak MPI_Ireduce_c = PMPI_Ireduce_c
int PMPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_reduce("MPI_Ireduce_c", 0, sendbuf, recvbuf, count, datatype, op, root, comm,
                           MPI_INFO_NULL, request);
}

#pragma weak MPI_Iallreduce = PMPI_Iallreduce
int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_allreduce("MPI_Iallreduce", 0, sendbuf, recvbuf, count, datatype, op, comm,
                              MPI_INFO_NULL, request);
}

#pragma weak MPI_Iallreduce_c = PMPI_Iallreduce_c
int PMPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_allreduce("MPI_Iallreduce_c", 0, sendbuf, recvbuf, count, datatype, op, comm,
                              MPI_INFO_NULL, request);
}

#pragma weak MPI_Igather = PMPI_Igather
int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_gather("MPI_Igather", 0, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                           recvtype, root, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Igather_c = PMPI_Igather_c
int PMPI_Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_gather("MPI_Igather_c", 0, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                           recvtype, root, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Igatherv = PMPI_Igatherv
int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_gatherv("MPI_Igatherv", 0, sendbuf, sendcount, sendtype, recvbuf,
                            fm_iarr_int(recvcounts), fm_iarr_int(displs), recvtype, root, comm,
                            MPI_INFO_NULL, request);
}

#pragma weak MPI_Igatherv_c = PMPI_Igatherv_c
int PMPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                    int root, MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_gatherv("MPI_Igatherv_c", 0, sendbuf, sendcount, sendtype, recvbuf,
                            fm_iarr_wide(recvcounts), fm_iarr_wide(displs), recvtype, root, comm,
                            MPI_INFO_NULL, request);
}

#pragma weak MPI_Iscatter = PMPI_Iscatter
int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_scatter("MPI_Iscatter", 0, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                            recvtype, root, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Iscatter_c = PMPI_Iscatter_c
int PMPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_scatter("MPI_Iscatter_c", 0, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                            recvtype, root, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Iscatterv = PMPI_Iscatterv
int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_scatterv("MPI_Iscatterv", 0, sendbuf, fm_iarr_int(sendcounts),
                             fm_iarr_int(displs), sendtype, recvbuf, recvcount, recvtype, root,
                             comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Iscatterv_c = PMPI_Iscatterv_c
int PMPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_scatterv("MPI_Iscatterv_c", 0, sendbuf, fm_iarr_wide(sendcounts),
                             fm_iarr_wide(displs), sendtype, recvbuf, recvcount, recvtype, root,
                             comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Iallgather = PMPI_Iallgather
int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_allgather("MPI_Iallgather", 0, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                              recvtype, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Iallgather_c = PMPI_Iallgather_c
int PMPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_allgather("MPI_Iallgather_c", 0, sendbuf, sendcount, sendtype, recvbuf,
                              recvcount, recvtype, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Iallgatherv = PMPI_Iallgatherv
int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_allgatherv("MPI_Iallgatherv", 0, sendbuf, sendcount, sendtype, recvbuf,
                               fm_iarr_int(recvcounts), fm_iarr_int(displs), recvtype, comm,
                               MPI_INFO_NULL, request);
}

#pragma weak MPI_Iallgatherv_c = PMPI_Iallgatherv_c
int PMPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_allgatherv("MPI_Iallgatherv_c", 0, sendbuf, sendcount, sendtype, recvbuf,
                               fm_iarr_wide(recvcounts), fm_iarr_wide(displs), recvtype, comm,
                               MPI_INFO_NULL, request);
}

#pragma weak MPI_Ialltoall = PMPI_Ialltoall
int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_alltoall("MPI_Ialltoall", 0, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                             recvtype, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Ialltoall_c = PMPI_Ialltoall_c
int PMPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_alltoall("MPI_Ialltoall_c", 0, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                             recvtype, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Ialltoallv = PMPI_Ialltoallv
int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_alltoallv("MPI_Ialltoallv", 0, sendbuf, fm_iarr_int(sendcounts),
                              fm_iarr_int(sdispls), sendtype, recvbuf, fm_iarr_int(recvcounts),
                              fm_iarr_int(rdispls), recvtype, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Ialltoallv_c = PMPI_Ialltoallv_c
int PMPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_alltoallv("MPI_Ialltoallv_c", 0, sendbuf, fm_iarr_wide(sendcounts),
                              fm_iarr_wide(sdispls), sendtype, recvbuf, fm_iarr_wide(recvcounts),
                              fm_iarr_wide(rdispls), recvtype, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Ialltoallw = PMPI_Ialltoallw
int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_alltoallw("MPI_Ialltoallw", 0, sendbuf, fm_iarr_int(sendcounts),
                              fm_iarr_int(sdispls), sendtypes, recvbuf, fm_iarr_int(recvcounts),
                              fm_iarr_int(rdispls), recvtypes, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Ialltoallw_c = PMPI_Ialltoallw_c
int PMPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                      MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_alltoallw("MPI_Ialltoallw_c", 0, sendbuf, fm_iarr_wide(sendcounts),
                              fm_iarr_wide(sdispls), sendtypes, recvbuf, fm_iarr_wide(recvcounts),
                              fm_iarr_wide(rdispls), recvtypes, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Ireduce_scatter = PMPI_Ireduce_scatter
int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_reduce_scatter("MPI_Ireduce_scatter", 0, sendbuf, recvbuf,
                                   fm_iarr_int(recvcounts), datatype, op, comm, MPI_INFO_NULL,
                                   request);
}

#pragma weak MPI_Ireduce_scatter_c = PMPI_Ireduce_scatter_c
int PMPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_reduce_scatter("MPI_Ireduce_scatter_c", 0, sendbuf, recvbuf,
                                   fm_iarr_wide(recvcounts), datatype, op, comm, MPI_INFO_NULL,
                                   request);
}

#pragma weak MPI_Ireduce_scatter_block = PMPI_Ireduce_scatter_block
int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_reduce_scatter_block("MPI_Ireduce_scatter_block", 0, sendbuf, recvbuf,
                                         recvcount, datatype, op, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Ireduce_scatter_block_c = PMPI_Ireduce_scatter_block_c
int PMPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                 MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_reduce_scatter_block("MPI_Ireduce_scatter_block_c", 0, sendbuf, recvbuf,
                                         recvcount, datatype, op, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Iscan = PMPI_Iscan
int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_scan("MPI_Iscan", 0, sendbuf, recvbuf, count, datatype, op, comm, 0,
                         MPI_INFO_NULL, request);
}

#pragma weak MPI_Iscan_c = PMPI_Iscan_c
int PMPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_scan("MPI_Iscan_c", 0, sendbuf, recvbuf, count, datatype, op, comm, 0,
                         MPI_INFO_NULL, request);
}

#pragma weak MPI_Iexscan = PMPI_Iexscan
int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_scan("MPI_Iexscan", 0, sendbuf, recvbuf, count, datatype, op, comm, 1,
                         MPI_INFO_NULL, request);
}

#pragma weak MPI_Iexscan_c = PMPI_Iexscan_c
int PMPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_scan("MPI_Iexscan_c", 0, sendbuf, recvbuf, count, datatype, op, comm, 1,
                         MPI_INFO_NULL, request);
}
