/* neighbor_api.c — neighborhood collectives: MPI_Neighbor_allgather(v),
 * MPI_Neighbor_alltoall(v,w), their MPI_Ineighbor_* and *_init forms, and
 * the MPI-4.0 large-count variant of each (MPI_Neighbor_allgather_c:
 * MPI_Count counts and count arrays, MPI_Aint displacements).  Arguments
 * are checked here, one body per collective for every form and width; the
 * exchange is coll/neighbor.c, run at once, or recorded into a schedule
 * (coll/sched.h) like the other nonblocking and persistent collectives. */
#include "coll/coll.h"
#include "coll/coll_util.h"
#include "core/topo.h"
#include "dtype/dtype.h"
#include "mpi/api.h"
#include "mpi/coll_check.h"
#include "util/int_array.h"

/* The communicator is an intracommunicator with a topology; its
 * neighbour counts in *nin / *nout. */
static int check_comm(const char *call, MPI_Comm comm, int *nin, int *nout)
{
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    FM_CHECK_INTRA(call, comm);
    const int *in, *out;
    if (fm_topo_neighbors(comm, nin, &in, nout, &out) != FM_OK)
        return fm_raise(comm, call, MPI_ERR_TOPOLOGY,
                        "%s has no process topology (make it with MPI_Cart_create, "
                        "MPI_Graph_create or MPI_Dist_graph_create)", fm_comm_label(comm));
    return MPI_SUCCESS;
}

/* One side: fixed (counts NULL: `count` of dt per neighbour), v (counts
 * and element displacements) or w (counts, byte displacements, types). */
static int check_side(const char *call, MPI_Comm comm, const void *buf, int n, MPI_Count count,
                      MPI_Datatype dt, fm_iarr counts, const void *displs,
                      const MPI_Datatype dts[], const char *what)
{
    if (buf == MPI_IN_PLACE)
        return fm_raise(comm, call, MPI_ERR_BUFFER,
                        "%s=MPI_IN_PLACE is not allowed in a neighborhood collective", what);
    if (fm_iarr_null(counts)) {
        FM_CHECK_COUNT(call, comm, count);
        FM_CHECK_TYPE(call, comm, dt);
        FM_CHECK_BUF(call, comm, buf, (MPI_Count)count * n, dt, what);
        return MPI_SUCCESS;
    }
    if (n > 0 && (!displs || (!dts && !dt)))
        return fm_raise(comm, call, MPI_ERR_ARG, "%s: a counts, displacements or types array "
                        "is NULL", what);
    if (!dts)
        FM_CHECK_TYPE(call, comm, dt);
    for (int i = 0; i < n; i++) {
        MPI_Count c = fm_iarr_at(counts, i);
        if (c < 0)
            return fm_raise(comm, call, MPI_ERR_COUNT, "%s counts[%d]=%lld must be >= 0", what, i,
                            c);
        MPI_Datatype t = dts ? dts[i] : dt;
        if (c == 0)
            continue;
        FM_CHECK_TYPE(call, comm, t);
        FM_CHECK_BUF(call, comm, buf, c, t, what);
    }
    return MPI_SUCCESS;
}

/* The send and receive buffers do not overlap (MPI_ERR_BUFFER); the v and
 * w forms are compared piece against piece of the same index, since a
 * legal program may interleave its pieces in one array. */
static int check_disjoint(const char *call, MPI_Comm comm, int overlapping)
{
    if (overlapping)
        return fm_raise(comm, call, MPI_ERR_BUFFER, "sendbuf and recvbuf overlap");
    return MPI_SUCCESS;
}

/* Run `record` (naming the call cc_) at once (mode 0), as a nonblocking
 * collective (1) or kept as a persistent one (2). */
#define NEIGHBOR(call, mode, comm, info, request, record)                              \
    do {                                                                              \
        fm_coll_call cc_;                                                             \
        if ((mode) == 0) {                                                            \
            cc_ = FM_COLL_CALL(comm, FM_TAG_NEIGHBOR);                                \
            record;                                                                   \
            return cc_.rc == FM_OK ? MPI_SUCCESS : fm_raise_status(comm, call, cc_.rc); \
        }                                                                             \
        int e_ = fm_icoll_begin(call, comm, info, request, &cc_);                     \
        if (e_ != MPI_SUCCESS)                                                        \
            return e_;                                                                \
        record;                                                                       \
        return fm_icoll_end(call, comm, &cc_, (mode) == 2, request);                  \
    } while (0)

#define TRY(x)                           \
    do {                                 \
        int e_ = (x);                    \
        if (e_ != MPI_SUCCESS)           \
            return e_;                   \
    } while (0)

static int allgather(const char *call, int mode, const void *sbuf, MPI_Count scount,
                     MPI_Datatype sdt, void *rbuf, MPI_Count rcount, MPI_Datatype rdt,
                     MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    int nin, nout;
    TRY(check_comm(call, comm, &nin, &nout));
    TRY(check_side(call, comm, sbuf, 1, scount, sdt, FM_IARR_NONE, NULL, NULL, "sendbuf"));
    TRY(check_side(call, comm, rbuf, nin, rcount, rdt, FM_IARR_NONE, NULL, NULL, "recvbuf"));
    TRY(check_disjoint(call, comm, fm_buffers_overlap(sbuf, 0, scount, sdt, rbuf, 0,
                                                      rcount * nin, rdt)));
    NEIGHBOR(call, mode, comm, info, req,
             fm_cc_neighbor_allgatherv(&cc_, sbuf, scount, sdt, rbuf, FM_IARR_NONE, FM_IARR_NONE,
                                       rcount, rdt));
}

static int allgatherv(const char *call, int mode, const void *sbuf, MPI_Count scount,
                      MPI_Datatype sdt, void *rbuf, fm_iarr rcounts, fm_iarr displs,
                      MPI_Datatype rdt, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    int nin, nout;
    TRY(check_comm(call, comm, &nin, &nout));
    TRY(check_side(call, comm, sbuf, 1, scount, sdt, FM_IARR_NONE, NULL, NULL, "sendbuf"));
    if (nin > 0 && fm_iarr_null(rcounts))
        return fm_raise(comm, call, MPI_ERR_ARG, "recvcounts array is NULL");
    TRY(check_side(call, comm, rbuf, nin, 0, rdt, rcounts, displs.p, NULL, "recvbuf"));
    TRY(check_disjoint(call, comm,
                       fm_overlap_v(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, nin)));
    NEIGHBOR(call, mode, comm, info, req,
             fm_cc_neighbor_allgatherv(&cc_, sbuf, scount, sdt, rbuf, rcounts, displs, 0, rdt));
}

static int alltoall(const char *call, int mode, const void *sbuf, MPI_Count scount,
                    MPI_Datatype sdt, void *rbuf, MPI_Count rcount, MPI_Datatype rdt,
                    MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    int nin, nout;
    TRY(check_comm(call, comm, &nin, &nout));
    TRY(check_side(call, comm, sbuf, nout, scount, sdt, FM_IARR_NONE, NULL, NULL, "sendbuf"));
    TRY(check_side(call, comm, rbuf, nin, rcount, rdt, FM_IARR_NONE, NULL, NULL, "recvbuf"));
    TRY(check_disjoint(call, comm, fm_buffers_overlap(sbuf, 0, scount * nout, sdt, rbuf, 0,
                                                      rcount * nin, rdt)));
    NEIGHBOR(call, mode, comm, info, req,
             fm_cc_neighbor_alltoallv(&cc_, sbuf, FM_IARR_NONE, FM_IARR_NONE, scount, sdt, rbuf,
                                      FM_IARR_NONE, FM_IARR_NONE, rcount, rdt));
}

static int alltoallv(const char *call, int mode, const void *sbuf, fm_iarr scounts,
                     fm_iarr sdispls, MPI_Datatype sdt, void *rbuf, fm_iarr rcounts,
                     fm_iarr rdispls, MPI_Datatype rdt, MPI_Comm comm, MPI_Info info,
                     MPI_Request *req)
{
    int nin, nout;
    TRY(check_comm(call, comm, &nin, &nout));
    if ((nout > 0 && fm_iarr_null(scounts)) || (nin > 0 && fm_iarr_null(rcounts)))
        return fm_raise(comm, call, MPI_ERR_ARG, "a counts array is NULL");
    TRY(check_side(call, comm, sbuf, nout, 0, sdt, scounts, sdispls.p, NULL, "sendbuf"));
    TRY(check_side(call, comm, rbuf, nin, 0, rdt, rcounts, rdispls.p, NULL, "recvbuf"));
    TRY(check_disjoint(call, comm,
                       fm_overlap_vv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt,
                                     nin < nout ? nin : nout)));
    NEIGHBOR(call, mode, comm, info, req,
             fm_cc_neighbor_alltoallv(&cc_, sbuf, scounts, sdispls, 0, sdt, rbuf, rcounts,
                                      rdispls, 0, rdt));
}

/* The w form's displacements are MPI_Aint bytes in both widths. */
static int alltoallw(const char *call, int mode, const void *sbuf, fm_iarr scounts,
                     const MPI_Aint sdispls[], const MPI_Datatype sdts[], void *rbuf,
                     fm_iarr rcounts, const MPI_Aint rdispls[], const MPI_Datatype rdts[],
                     MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    int nin, nout;
    TRY(check_comm(call, comm, &nin, &nout));
    if ((nout > 0 && (fm_iarr_null(scounts) || !sdts)) ||
        (nin > 0 && (fm_iarr_null(rcounts) || !rdts)))
        return fm_raise(comm, call, MPI_ERR_ARG, "a counts or types array is NULL");
    TRY(check_side(call, comm, sbuf, nout, 0, NULL, scounts, sdispls, sdts, "sendbuf"));
    TRY(check_side(call, comm, rbuf, nin, 0, NULL, rcounts, rdispls, rdts, "recvbuf"));
    for (int i = 0; i < nin && i < nout; i++)
        if (fm_iarr_at(scounts, i) > 0 && fm_iarr_at(rcounts, i) > 0)
            TRY(check_disjoint(call, comm,
                               fm_buffers_overlap(sbuf, sdispls[i], fm_iarr_at(scounts, i),
                                                  sdts[i], rbuf, rdispls[i],
                                                  fm_iarr_at(rcounts, i), rdts[i])));
    NEIGHBOR(call, mode, comm, info, req,
             fm_cc_neighbor_alltoallw(&cc_, sbuf, scounts, sdispls, sdts, rbuf, rcounts,
                                      rdispls, rdts));
}

/* ---- the entry points ------------------------------------------------------ */

#pragma weak MPI_Neighbor_allgather = PMPI_Neighbor_allgather
int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    FM_API_LOCK();
    return allgather("MPI_Neighbor_allgather", 0, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     recvtype, comm, MPI_INFO_NULL, NULL);
}

#pragma weak MPI_Neighbor_allgather_c = PMPI_Neighbor_allgather_c
int PMPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm)
{
    FM_API_LOCK();
    return allgather("MPI_Neighbor_allgather_c", 0, sendbuf, sendcount, sendtype, recvbuf,
                     recvcount, recvtype, comm, MPI_INFO_NULL, NULL);
}

#pragma weak MPI_Ineighbor_allgather = PMPI_Ineighbor_allgather
int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    FM_API_LOCK();
    return allgather("MPI_Ineighbor_allgather", 1, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     recvtype, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Ineighbor_allgather_c = PMPI_Ineighbor_allgather_c
int PMPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return allgather("MPI_Ineighbor_allgather_c", 1, sendbuf, sendcount, sendtype, recvbuf,
                     recvcount, recvtype, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Neighbor_allgather_init = PMPI_Neighbor_allgather_init
int PMPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    FM_API_LOCK();
    return allgather("MPI_Neighbor_allgather_init", 2, sendbuf, sendcount, sendtype, recvbuf,
                     recvcount, recvtype, comm, info, request);
}

#pragma weak MPI_Neighbor_allgather_init_c = PMPI_Neighbor_allgather_init_c
int PMPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    FM_API_LOCK();
    return allgather("MPI_Neighbor_allgather_init_c", 2, sendbuf, sendcount, sendtype, recvbuf,
                     recvcount, recvtype, comm, info, request);
}

#pragma weak MPI_Neighbor_allgatherv = PMPI_Neighbor_allgatherv
int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    FM_API_LOCK();
    return allgatherv("MPI_Neighbor_allgatherv", 0, sendbuf, sendcount, sendtype, recvbuf,
                      fm_iarr_int(recvcounts), fm_iarr_int(displs), recvtype, comm, MPI_INFO_NULL,
                      NULL);
}

#pragma weak MPI_Neighbor_allgatherv_c = PMPI_Neighbor_allgatherv_c
int PMPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                               MPI_Datatype recvtype, MPI_Comm comm)
{
    FM_API_LOCK();
    return allgatherv("MPI_Neighbor_allgatherv_c", 0, sendbuf, sendcount, sendtype, recvbuf,
                      fm_iarr_wide(recvcounts), fm_iarr_wide(displs), recvtype, comm, MPI_INFO_NULL,
                      NULL);
}

#pragma weak MPI_Ineighbor_allgatherv = PMPI_Ineighbor_allgatherv
int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return allgatherv("MPI_Ineighbor_allgatherv", 1, sendbuf, sendcount, sendtype, recvbuf,
                      fm_iarr_int(recvcounts), fm_iarr_int(displs), recvtype, comm, MPI_INFO_NULL,
                      request);
}

#pragma weak MPI_Ineighbor_allgatherv_c = PMPI_Ineighbor_allgatherv_c
int PMPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Request *request)
{
    FM_API_LOCK();
    return allgatherv("MPI_Ineighbor_allgatherv_c", 1, sendbuf, sendcount, sendtype, recvbuf,
                      fm_iarr_wide(recvcounts), fm_iarr_wide(displs), recvtype, comm, MPI_INFO_NULL,
                      request);
}

#pragma weak MPI_Neighbor_allgatherv_init = PMPI_Neighbor_allgatherv_init
int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, const int recvcounts[], const int displs[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request)
{
    FM_API_LOCK();
    return allgatherv("MPI_Neighbor_allgatherv_init", 2, sendbuf, sendcount, sendtype, recvbuf,
                      fm_iarr_int(recvcounts), fm_iarr_int(displs), recvtype, comm, info, request);
}

#pragma weak MPI_Neighbor_allgatherv_init_c = PMPI_Neighbor_allgatherv_init_c
int PMPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, const MPI_Count recvcounts[],
                                    const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                    MPI_Info info, MPI_Request *request)
{
    FM_API_LOCK();
    return allgatherv("MPI_Neighbor_allgatherv_init_c", 2, sendbuf, sendcount, sendtype, recvbuf,
                      fm_iarr_wide(recvcounts), fm_iarr_wide(displs), recvtype, comm, info,
                      request);
}

#pragma weak MPI_Neighbor_alltoall = PMPI_Neighbor_alltoall
int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    FM_API_LOCK();
    return alltoall("MPI_Neighbor_alltoall", 0, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, MPI_INFO_NULL, NULL);
}

#pragma weak MPI_Neighbor_alltoall_c = PMPI_Neighbor_alltoall_c
int PMPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm)
{
    FM_API_LOCK();
    return alltoall("MPI_Neighbor_alltoall_c", 0, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, MPI_INFO_NULL, NULL);
}

#pragma weak MPI_Ineighbor_alltoall = PMPI_Ineighbor_alltoall
int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    FM_API_LOCK();
    return alltoall("MPI_Ineighbor_alltoall", 1, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Ineighbor_alltoall_c = PMPI_Ineighbor_alltoall_c
int PMPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return alltoall("MPI_Ineighbor_alltoall_c", 1, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Neighbor_alltoall_init = PMPI_Neighbor_alltoall_init
int PMPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request)
{
    FM_API_LOCK();
    return alltoall("MPI_Neighbor_alltoall_init", 2, sendbuf, sendcount, sendtype, recvbuf,
                    recvcount, recvtype, comm, info, request);
}

#pragma weak MPI_Neighbor_alltoall_init_c = PMPI_Neighbor_alltoall_init_c
int PMPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    FM_API_LOCK();
    return alltoall("MPI_Neighbor_alltoall_init_c", 2, sendbuf, sendcount, sendtype, recvbuf,
                    recvcount, recvtype, comm, info, request);
}

#pragma weak MPI_Neighbor_alltoallv = PMPI_Neighbor_alltoallv
int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    FM_API_LOCK();
    return alltoallv("MPI_Neighbor_alltoallv", 0, sendbuf, fm_iarr_int(sendcounts),
                     fm_iarr_int(sdispls), sendtype, recvbuf, fm_iarr_int(recvcounts),
                     fm_iarr_int(rdispls), recvtype, comm, MPI_INFO_NULL, NULL);
}

#pragma weak MPI_Neighbor_alltoallv_c = PMPI_Neighbor_alltoallv_c
int PMPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm)
{
    FM_API_LOCK();
    return alltoallv("MPI_Neighbor_alltoallv_c", 0, sendbuf, fm_iarr_wide(sendcounts),
                     fm_iarr_wide(sdispls), sendtype, recvbuf, fm_iarr_wide(recvcounts),
                     fm_iarr_wide(rdispls), recvtype, comm, MPI_INFO_NULL, NULL);
}

#pragma weak MPI_Ineighbor_alltoallv = PMPI_Ineighbor_alltoallv
int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    FM_API_LOCK();
    return alltoallv("MPI_Ineighbor_alltoallv", 1, sendbuf, fm_iarr_int(sendcounts),
                     fm_iarr_int(sdispls), sendtype, recvbuf, fm_iarr_int(recvcounts),
                     fm_iarr_int(rdispls), recvtype, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Ineighbor_alltoallv_c = PMPI_Ineighbor_alltoallv_c
int PMPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return alltoallv("MPI_Ineighbor_alltoallv_c", 1, sendbuf, fm_iarr_wide(sendcounts),
                     fm_iarr_wide(sdispls), sendtype, recvbuf, fm_iarr_wide(recvcounts),
                     fm_iarr_wide(rdispls), recvtype, comm, MPI_INFO_NULL, request);
}

#pragma weak MPI_Neighbor_alltoallv_init = PMPI_Neighbor_alltoallv_init
int PMPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    FM_API_LOCK();
    return alltoallv("MPI_Neighbor_alltoallv_init", 2, sendbuf, fm_iarr_int(sendcounts),
                     fm_iarr_int(sdispls), sendtype, recvbuf, fm_iarr_int(recvcounts),
                     fm_iarr_int(rdispls), recvtype, comm, info, request);
}

#pragma weak MPI_Neighbor_alltoallv_init_c = PMPI_Neighbor_alltoallv_init_c
int PMPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                   const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    FM_API_LOCK();
    return alltoallv("MPI_Neighbor_alltoallv_init_c", 2, sendbuf, fm_iarr_wide(sendcounts),
                     fm_iarr_wide(sdispls), sendtype, recvbuf, fm_iarr_wide(recvcounts),
                     fm_iarr_wide(rdispls), recvtype, comm, info, request);
}

#pragma weak MPI_Neighbor_alltoallw = PMPI_Neighbor_alltoallw
int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    FM_API_LOCK();
    return alltoallw("MPI_Neighbor_alltoallw", 0, sendbuf, fm_iarr_int(sendcounts), sdispls,
                     sendtypes, recvbuf, fm_iarr_int(recvcounts), rdispls, recvtypes, comm,
                     MPI_INFO_NULL, NULL);
}

#pragma weak MPI_Neighbor_alltoallw_c = PMPI_Neighbor_alltoallw_c
int PMPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    FM_API_LOCK();
    return alltoallw("MPI_Neighbor_alltoallw_c", 0, sendbuf, fm_iarr_wide(sendcounts), sdispls,
                     sendtypes, recvbuf, fm_iarr_wide(recvcounts), rdispls, recvtypes, comm,
                     MPI_INFO_NULL, NULL);
}

#pragma weak MPI_Ineighbor_alltoallw = PMPI_Ineighbor_alltoallw
int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                             MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return alltoallw("MPI_Ineighbor_alltoallw", 1, sendbuf, fm_iarr_int(sendcounts), sdispls,
                     sendtypes, recvbuf, fm_iarr_int(recvcounts), rdispls, recvtypes, comm,
                     MPI_INFO_NULL, request);
}

#pragma weak MPI_Ineighbor_alltoallw_c = PMPI_Ineighbor_alltoallw_c
int PMPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                               void *recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                               MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return alltoallw("MPI_Ineighbor_alltoallw_c", 1, sendbuf, fm_iarr_wide(sendcounts), sdispls,
                     sendtypes, recvbuf, fm_iarr_wide(recvcounts), rdispls, recvtypes, comm,
                     MPI_INFO_NULL, request);
}

#pragma weak MPI_Neighbor_alltoallw_init = PMPI_Neighbor_alltoallw_init
int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                 void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                 const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request)
{
    FM_API_LOCK();
    return alltoallw("MPI_Neighbor_alltoallw_init", 2, sendbuf, fm_iarr_int(sendcounts), sdispls,
                     sendtypes, recvbuf, fm_iarr_int(recvcounts), rdispls, recvtypes, comm, info,
                     request);
}

#pragma weak MPI_Neighbor_alltoallw_init_c = PMPI_Neighbor_alltoallw_init_c
int PMPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                   void *recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    FM_API_LOCK();
    return alltoallw("MPI_Neighbor_alltoallw_init_c", 2, sendbuf, fm_iarr_wide(sendcounts), sdispls,
                     sendtypes, recvbuf, fm_iarr_wide(recvcounts), rdispls, recvtypes, comm, info,
                     request);
}
