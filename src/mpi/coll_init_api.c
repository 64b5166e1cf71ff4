/* coll_init_api.c — the MPI-4.0 persistent collectives (*_init) and their
 * large-count variants (*_init_c): the bodies of icoll_api.c (icoll.h),
 * keeping the recorded schedule under an inactive request that each
 * MPI_Start plays. */
#include "core/cs.h"
#include "mpi/icoll.h"
#include "util/int_array.h"

#pragma weak MPI_Barrier_init = PMPI_Barrier_init
int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_barrier("MPI_Barrier_init", 1, comm, info, request);
}

#pragma weak MPI_Bcast_init = PMPI_Bcast_init
int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_bcast("MPI_Bcast_init", 1, buffer, count, datatype, root, comm, info, request);
}

#pragma weak MPI_Bcast_init_c = PMPI_Bcast_init_c
int PMPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                      MPI_Info info, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_bcast("MPI_Bcast_init_c", 1, buffer, count, datatype, root, comm, info,
                          request);
}

#pragma weak MPI_Reduce_init = PMPI_Reduce_init
int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_reduce("MPI_Reduce_init", 1, sendbuf, recvbuf, count, datatype, op, root, comm,
                           info, request);
}

#pragma weak MPI_Reduce_init_c = PMPI_Reduce_init_c
int PMPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_reduce("MPI_Reduce_init_c", 1, sendbuf, recvbuf, count, datatype, op, root,
                           comm, info, request);
}

#pragma weak MPI_Allreduce_init = PMPI_Allreduce_init
int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_allreduce("MPI_Allreduce_init", 1, sendbuf, recvbuf, count, datatype, op, comm,
                              info, request);
}

#pragma weak MPI_Allreduce_init_c = PMPI_Allreduce_init_c
int PMPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_allreduce("MPI_Allreduce_init_c", 1, sendbuf, recvbuf, count, datatype, op,
                              comm, info, request);
}

#pragma weak MPI_Gather_init = PMPI_Gather_init
int PMPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_gather("MPI_Gather_init", 1, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                           recvtype, root, comm, info, request);
}

#pragma weak MPI_Gather_init_c = PMPI_Gather_init_c
int PMPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_gather("MPI_Gather_init_c", 1, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                           recvtype, root, comm, info, request);
}

#pragma weak MPI_Gatherv_init = PMPI_Gatherv_init
int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_gatherv("MPI_Gatherv_init", 1, sendbuf, sendcount, sendtype, recvbuf,
                            fm_iarr_int(recvcounts), fm_iarr_int(displs), recvtype, root, comm,
                            info, request);
}

#pragma weak MPI_Gatherv_init_c = PMPI_Gatherv_init_c
int PMPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_gatherv("MPI_Gatherv_init_c", 1, sendbuf, sendcount, sendtype, recvbuf,
                            fm_iarr_wide(recvcounts), fm_iarr_wide(displs), recvtype, root, comm,
                            info, request);
}

#pragma weak MPI_Scatter_init = PMPI_Scatter_init
int PMPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_scatter("MPI_Scatter_init", 1, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                            recvtype, root, comm, info, request);
}

#pragma weak MPI_Scatter_init_c = PMPI_Scatter_init_c
int PMPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_scatter("MPI_Scatter_init_c", 1, sendbuf, sendcount, sendtype, recvbuf,
                            recvcount, recvtype, root, comm, info, request);
}

#pragma weak MPI_Scatterv_init = PMPI_Scatterv_init
int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_scatterv("MPI_Scatterv_init", 1, sendbuf, fm_iarr_int(sendcounts),
                             fm_iarr_int(displs), sendtype, recvbuf, recvcount, recvtype, root,
                             comm, info, request);
}

#pragma weak MPI_Scatterv_init_c = PMPI_Scatterv_init_c
int PMPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                         MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                         MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                         MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_scatterv("MPI_Scatterv_init_c", 1, sendbuf, fm_iarr_wide(sendcounts),
                             fm_iarr_wide(displs), sendtype, recvbuf, recvcount, recvtype, root,
                             comm, info, request);
}

#pragma weak MPI_Allgather_init = PMPI_Allgather_init
int PMPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_allgather("MPI_Allgather_init", 1, sendbuf, sendcount, sendtype, recvbuf,
                              recvcount, recvtype, comm, info, request);
}

#pragma weak MPI_Allgather_init_c = PMPI_Allgather_init_c
int PMPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Info info, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_allgather("MPI_Allgather_init_c", 1, sendbuf, sendcount, sendtype, recvbuf,
                              recvcount, recvtype, comm, info, request);
}

#pragma weak MPI_Allgatherv_init = PMPI_Allgatherv_init
int PMPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_allgatherv("MPI_Allgatherv_init", 1, sendbuf, sendcount, sendtype, recvbuf,
                               fm_iarr_int(recvcounts), fm_iarr_int(displs), recvtype, comm, info,
                               request);
}

#pragma weak MPI_Allgatherv_init_c = PMPI_Allgatherv_init_c
int PMPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                           MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_allgatherv("MPI_Allgatherv_init_c", 1, sendbuf, sendcount, sendtype, recvbuf,
                               fm_iarr_wide(recvcounts), fm_iarr_wide(displs), recvtype, comm, info,
                               request);
}

#pragma weak MPI_Alltoall_init = PMPI_Alltoall_init
int PMPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_alltoall("MPI_Alltoall_init", 1, sendbuf, sendcount, sendtype, recvbuf,
                             recvcount, recvtype, comm, info, request);
}

#pragma weak MPI_Alltoall_init_c = PMPI_Alltoall_init_c
int PMPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_alltoall("MPI_Alltoall_init_c", 1, sendbuf, sendcount, sendtype, recvbuf,
                             recvcount, recvtype, comm, info, request);
}

#pragma weak MPI_Alltoallv_init = PMPI_Alltoallv_init
int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_alltoallv("MPI_Alltoallv_init", 1, sendbuf, fm_iarr_int(sendcounts),
                              fm_iarr_int(sdispls), sendtype, recvbuf, fm_iarr_int(recvcounts),
                              fm_iarr_int(rdispls), recvtype, comm, info, request);
}

#pragma weak MPI_Alltoallv_init_c = PMPI_Alltoallv_init_c
int PMPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_alltoallv("MPI_Alltoallv_init_c", 1, sendbuf, fm_iarr_wide(sendcounts),
                              fm_iarr_wide(sdispls), sendtype, recvbuf, fm_iarr_wide(recvcounts),
                              fm_iarr_wide(rdispls), recvtype, comm, info, request);
}

#pragma weak MPI_Alltoallw_init = PMPI_Alltoallw_init
int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                        MPI_Info info, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_alltoallw("MPI_Alltoallw_init", 1, sendbuf, fm_iarr_int(sendcounts),
                              fm_iarr_int(sdispls), sendtypes, recvbuf, fm_iarr_int(recvcounts),
                              fm_iarr_int(rdispls), recvtypes, comm, info, request);
}

#pragma weak MPI_Alltoallw_init_c = PMPI_Alltoallw_init_c
int PMPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                          MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_alltoallw("MPI_Alltoallw_init_c", 1, sendbuf, fm_iarr_wide(sendcounts),
                              fm_iarr_wide(sdispls), sendtypes, recvbuf, fm_iarr_wide(recvcounts),
                              fm_iarr_wide(rdispls), recvtypes, comm, info, request);
}

#pragma weak MPI_Reduce_scatter_init = PMPI_Reduce_scatter_init
int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                             MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_reduce_scatter("MPI_Reduce_scatter_init", 1, sendbuf, recvbuf,
                                   fm_iarr_int(recvcounts), datatype, op, comm, info, request);
}

#pragma weak MPI_Reduce_scatter_init_c = PMPI_Reduce_scatter_init_c
int PMPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                               MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_reduce_scatter("MPI_Reduce_scatter_init_c", 1, sendbuf, recvbuf,
                                   fm_iarr_wide(recvcounts), datatype, op, comm, info, request);
}

#pragma weak MPI_Reduce_scatter_block_init = PMPI_Reduce_scatter_block_init
int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_reduce_scatter_block("MPI_Reduce_scatter_block_init", 1, sendbuf, recvbuf,
                                         recvcount, datatype, op, comm, info, request);
}

#pragma weak MPI_Reduce_scatter_block_init_c = PMPI_Reduce_scatter_block_init_c
int PMPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                     MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_reduce_scatter_block("MPI_Reduce_scatter_block_init_c", 1, sendbuf, recvbuf,
                                         recvcount, datatype, op, comm, info, request);
}

#pragma weak MPI_Scan_init = PMPI_Scan_init
int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_scan("MPI_Scan_init", 1, sendbuf, recvbuf, count, datatype, op, comm, 0, info,
                         request);
}

#pragma weak MPI_Scan_init_c = PMPI_Scan_init_c
int PMPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_scan("MPI_Scan_init_c", 1, sendbuf, recvbuf, count, datatype, op, comm, 0, info,
                         request);
}

#pragma weak MPI_Exscan_init = PMPI_Exscan_init
int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_scan("MPI_Exscan_init", 1, sendbuf, recvbuf, count, datatype, op, comm, 1, info,
                         request);
}

#pragma weak MPI_Exscan_init_c = PMPI_Exscan_init_c
int PMPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    FM_API_LOCK();
    return fm_icoll_scan("MPI_Exscan_init_c", 1, sendbuf, recvbuf, count, datatype, op, comm, 1,
                         info, request);
}
