/* coll_api.c — MPI blocking collective entry points and their MPI-4.0
 * large-count variants (MPI_Bcast_c: MPI_Count counts, MPI_Count count
 * arrays and MPI_Aint displacements): one body per collective runs the
 * argument checks (coll_check.c), then the algorithms in src/coll, which
 * take MPI_Count counts and read arrays of either width (fm_iarr). */
#include "boot/hang.h"
#include "coll/coll.h"
#include "coll/rma/coll_rma.h"
#include "dtype/dtype.h"
#include "mpi/api.h"
#include "mpi/coll_check.h"
#include "util/int_array.h"

#define FINISH(call, comm, rc) \
    return (rc) == FM_OK ? MPI_SUCCESS : fm_raise_status(comm, call, rc)

#pragma weak MPI_Barrier = PMPI_Barrier
int PMPI_Barrier(MPI_Comm comm)
{
    FM_API_LOCK();
    static const char call[] = "MPI_Barrier";
    int err = fm_check_barrier(call, comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, FM_HANG_NONE, FM_HANG_NONE, comm->name, -1);
    int rc = fm_coll_sel_barrier(comm);
    FINISH(call, comm, rc);
}


static int bcast(const char *call, void *buf, MPI_Count count, MPI_Datatype dt, int root,
                 MPI_Comm comm)
{
    int err = fm_check_bcast(call, buf, count, dt, root, comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, root, FM_HANG_NONE, comm->name, count);
    int rc = fm_coll_sel_bcast(buf, count, dt, root, comm);
    FINISH(call, comm, rc);
}

#pragma weak MPI_Bcast = PMPI_Bcast
int PMPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    FM_API_LOCK();
    return bcast("MPI_Bcast", buf, count, dt, root, comm);
}

#pragma weak MPI_Bcast_c = PMPI_Bcast_c
int PMPI_Bcast_c(void *buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    FM_API_LOCK();
    return bcast("MPI_Bcast_c", buf, count, dt, root, comm);
}

static int reduce(const char *call, const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt,
                  MPI_Op op, int root, MPI_Comm comm)
{
    int err = fm_check_reduce(call, sbuf, rbuf, count, dt, op, root, comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, root, FM_HANG_NONE, comm->name, count);
    int rc = fm_coll_sel_reduce(sbuf, rbuf, count, dt, op, root, comm);
    FINISH(call, comm, rc);
}

#pragma weak MPI_Reduce = PMPI_Reduce
int PMPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                MPI_Comm comm)
{
    FM_API_LOCK();
    return reduce("MPI_Reduce", sbuf, rbuf, count, dt, op, root, comm);
}

#pragma weak MPI_Reduce_c = PMPI_Reduce_c
int PMPI_Reduce_c(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                  int root, MPI_Comm comm)
{
    FM_API_LOCK();
    return reduce("MPI_Reduce_c", sbuf, rbuf, count, dt, op, root, comm);
}

static int allreduce(const char *call, const void *sbuf, void *rbuf, MPI_Count count,
                     MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    int err = fm_check_allreduce(call, sbuf, rbuf, count, dt, op, comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, FM_HANG_NONE, FM_HANG_NONE, comm->name, count);
    int rc = fm_coll_sel_allreduce(sbuf, rbuf, count, dt, op, comm);
    FINISH(call, comm, rc);
}

#pragma weak MPI_Allreduce = PMPI_Allreduce
int PMPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                   MPI_Comm comm)
{
    FM_API_LOCK();
    return allreduce("MPI_Allreduce", sbuf, rbuf, count, dt, op, comm);
}

#pragma weak MPI_Allreduce_c = PMPI_Allreduce_c
int PMPI_Allreduce_c(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                     MPI_Comm comm)
{
    FM_API_LOCK();
    return allreduce("MPI_Allreduce_c", sbuf, rbuf, count, dt, op, comm);
}

static int gather(const char *call, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                  void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    int err = fm_check_gather(call, sbuf, scount, sdt, rbuf, rcount, rdt, root, comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, root, FM_HANG_NONE, comm->name, scount);
    int rc = fm_coll_gather(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm);
    FINISH(call, comm, rc);
}

#pragma weak MPI_Gather = PMPI_Gather
int PMPI_Gather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                MPI_Datatype rdt, int root, MPI_Comm comm)
{
    FM_API_LOCK();
    return gather("MPI_Gather", sbuf, scount, sdt, rbuf, rcount, rdt, root, comm);
}

#pragma weak MPI_Gather_c = PMPI_Gather_c
int PMPI_Gather_c(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                  MPI_Count rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    FM_API_LOCK();
    return gather("MPI_Gather_c", sbuf, scount, sdt, rbuf, rcount, rdt, root, comm);
}

static int gatherv(const char *call, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                   void *rbuf, fm_iarr rcounts, fm_iarr displs, MPI_Datatype rdt, int root,
                   MPI_Comm comm)
{
    int err = fm_check_gatherv(call, sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, root, FM_HANG_NONE, comm->name, scount);
    int rc = fm_coll_gatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm);
    FINISH(call, comm, rc);
}

#pragma weak MPI_Gatherv = PMPI_Gatherv
int PMPI_Gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, const int rcounts[],
                 const int displs[], MPI_Datatype rdt, int root, MPI_Comm comm)
{
    FM_API_LOCK();
    return gatherv("MPI_Gatherv", sbuf, scount, sdt, rbuf, fm_iarr_int(rcounts),
                   fm_iarr_int(displs), rdt, root, comm);
}

#pragma weak MPI_Gatherv_c = PMPI_Gatherv_c
int PMPI_Gatherv_c(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                   const MPI_Count rcounts[], const MPI_Aint displs[], MPI_Datatype rdt, int root,
                   MPI_Comm comm)
{
    FM_API_LOCK();
    return gatherv("MPI_Gatherv_c", sbuf, scount, sdt, rbuf, fm_iarr_wide(rcounts),
                   fm_iarr_wide(displs), rdt, root, comm);
}

static int scatter(const char *call, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                   void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    int err = fm_check_scatter(call, sbuf, scount, sdt, rbuf, rcount, rdt, root, comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, root, FM_HANG_NONE, comm->name, scount);
    int rc = fm_coll_scatter(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm);
    FINISH(call, comm, rc);
}

#pragma weak MPI_Scatter = PMPI_Scatter
int PMPI_Scatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                 MPI_Datatype rdt, int root, MPI_Comm comm)
{
    FM_API_LOCK();
    return scatter("MPI_Scatter", sbuf, scount, sdt, rbuf, rcount, rdt, root, comm);
}

#pragma weak MPI_Scatter_c = PMPI_Scatter_c
int PMPI_Scatter_c(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                   MPI_Count rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    FM_API_LOCK();
    return scatter("MPI_Scatter_c", sbuf, scount, sdt, rbuf, rcount, rdt, root, comm);
}

static int scatterv(const char *call, const void *sbuf, fm_iarr scounts, fm_iarr displs,
                    MPI_Datatype sdt, void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int root,
                    MPI_Comm comm)
{
    int err = fm_check_scatterv(call, sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root, comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, root, FM_HANG_NONE, comm->name, rcount);
    int rc = fm_coll_scatterv(sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root, comm);
    FINISH(call, comm, rc);
}

#pragma weak MPI_Scatterv = PMPI_Scatterv
int PMPI_Scatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype sdt,
                  void *rbuf, int rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    FM_API_LOCK();
    return scatterv("MPI_Scatterv", sbuf, fm_iarr_int(scounts), fm_iarr_int(displs), sdt, rbuf,
                    rcount, rdt, root, comm);
}

#pragma weak MPI_Scatterv_c = PMPI_Scatterv_c
int PMPI_Scatterv_c(const void *sbuf, const MPI_Count scounts[], const MPI_Aint displs[],
                    MPI_Datatype sdt, void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int root,
                    MPI_Comm comm)
{
    FM_API_LOCK();
    return scatterv("MPI_Scatterv_c", sbuf, fm_iarr_wide(scounts), fm_iarr_wide(displs), sdt, rbuf,
                    rcount, rdt, root, comm);
}

static int allgather(const char *call, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                     void *rbuf, MPI_Count rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    int err = fm_check_allgather(call, sbuf, scount, sdt, rbuf, rcount, rdt, comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, FM_HANG_NONE, FM_HANG_NONE, comm->name, scount);
    int rc = fm_coll_sel_allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
    FINISH(call, comm, rc);
}

#pragma weak MPI_Allgather = PMPI_Allgather
int PMPI_Allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                   MPI_Datatype rdt, MPI_Comm comm)
{
    FM_API_LOCK();
    return allgather("MPI_Allgather", sbuf, scount, sdt, rbuf, rcount, rdt, comm);
}

#pragma weak MPI_Allgather_c = PMPI_Allgather_c
int PMPI_Allgather_c(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                     MPI_Count rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    FM_API_LOCK();
    return allgather("MPI_Allgather_c", sbuf, scount, sdt, rbuf, rcount, rdt, comm);
}

static int allgatherv(const char *call, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                      void *rbuf, fm_iarr rcounts, fm_iarr displs, MPI_Datatype rdt, MPI_Comm comm)
{
    int err = fm_check_allgatherv(call, sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, FM_HANG_NONE, FM_HANG_NONE, comm->name, scount);
    int rc = fm_coll_sel_allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm);
    FINISH(call, comm, rc);
}

#pragma weak MPI_Allgatherv = PMPI_Allgatherv
int PMPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, const int rcounts[],
                    const int displs[], MPI_Datatype rdt, MPI_Comm comm)
{
    FM_API_LOCK();
    return allgatherv("MPI_Allgatherv", sbuf, scount, sdt, rbuf, fm_iarr_int(rcounts),
                      fm_iarr_int(displs), rdt, comm);
}

#pragma weak MPI_Allgatherv_c = PMPI_Allgatherv_c
int PMPI_Allgatherv_c(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                      const MPI_Count rcounts[], const MPI_Aint displs[], MPI_Datatype rdt,
                      MPI_Comm comm)
{
    FM_API_LOCK();
    return allgatherv("MPI_Allgatherv_c", sbuf, scount, sdt, rbuf, fm_iarr_wide(rcounts),
                      fm_iarr_wide(displs), rdt, comm);
}

static int alltoall(const char *call, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                    void *rbuf, MPI_Count rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    int err = fm_check_alltoall(call, sbuf, scount, sdt, rbuf, rcount, rdt, comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, FM_HANG_NONE, FM_HANG_NONE, comm->name, scount);
    int rc = fm_coll_alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
    FINISH(call, comm, rc);
}

#pragma weak MPI_Alltoall = PMPI_Alltoall
int PMPI_Alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                  MPI_Datatype rdt, MPI_Comm comm)
{
    FM_API_LOCK();
    return alltoall("MPI_Alltoall", sbuf, scount, sdt, rbuf, rcount, rdt, comm);
}

#pragma weak MPI_Alltoall_c = PMPI_Alltoall_c
int PMPI_Alltoall_c(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                    MPI_Count rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    FM_API_LOCK();
    return alltoall("MPI_Alltoall_c", sbuf, scount, sdt, rbuf, rcount, rdt, comm);
}

static int alltoallv(const char *call, const void *sbuf, fm_iarr scounts, fm_iarr sdispls,
                     MPI_Datatype sdt, void *rbuf, fm_iarr rcounts, fm_iarr rdispls,
                     MPI_Datatype rdt, MPI_Comm comm)
{
    int err = fm_check_alltoallv(call, sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt,
                                 comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, FM_HANG_NONE, FM_HANG_NONE, comm->name, -1);
    int rc = fm_coll_alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm);
    FINISH(call, comm, rc);
}

#pragma weak MPI_Alltoallv = PMPI_Alltoallv
int PMPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype sdt,
                   void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rdt,
                   MPI_Comm comm)
{
    FM_API_LOCK();
    return alltoallv("MPI_Alltoallv", sbuf, fm_iarr_int(scounts), fm_iarr_int(sdispls), sdt, rbuf,
                     fm_iarr_int(rcounts), fm_iarr_int(rdispls), rdt, comm);
}

#pragma weak MPI_Alltoallv_c = PMPI_Alltoallv_c
int PMPI_Alltoallv_c(const void *sbuf, const MPI_Count scounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sdt, void *rbuf, const MPI_Count rcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype rdt, MPI_Comm comm)
{
    FM_API_LOCK();
    return alltoallv("MPI_Alltoallv_c", sbuf, fm_iarr_wide(scounts), fm_iarr_wide(sdispls), sdt,
                     rbuf, fm_iarr_wide(rcounts), fm_iarr_wide(rdispls), rdt, comm);
}

static int reduce_scatter(const char *call, const void *sbuf, void *rbuf, fm_iarr rcounts,
                          MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    int err = fm_check_reduce_scatter(call, sbuf, rbuf, rcounts, dt, op, comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, FM_HANG_NONE, FM_HANG_NONE, comm->name, -1);
    int rc = fm_coll_reduce_scatter(sbuf, rbuf, rcounts, dt, op, comm);
    FINISH(call, comm, rc);
}

#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter
int PMPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt,
                        MPI_Op op, MPI_Comm comm)
{
    FM_API_LOCK();
    return reduce_scatter("MPI_Reduce_scatter", sbuf, rbuf, fm_iarr_int(rcounts), dt, op, comm);
}

#pragma weak MPI_Reduce_scatter_c = PMPI_Reduce_scatter_c
int PMPI_Reduce_scatter_c(const void *sbuf, void *rbuf, const MPI_Count rcounts[], MPI_Datatype dt,
                          MPI_Op op, MPI_Comm comm)
{
    FM_API_LOCK();
    return reduce_scatter("MPI_Reduce_scatter_c", sbuf, rbuf, fm_iarr_wide(rcounts), dt, op, comm);
}

static int reduce_scatter_block(const char *call, const void *sbuf, void *rbuf, MPI_Count rcount,
                                MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    int err = fm_check_reduce_scatter_block(call, sbuf, rbuf, rcount, dt, op, comm);
    if (err != MPI_SUCCESS)
        return err;
    /* Nothing moves on any member (rcount is the same on all): nothing can
     * hang either, so no hang record.  osu_reduce_scatter_block's rows
     * below one element a member: 203 -> 101 instructions a call. */
    if ((rcount == 0 || dt->size == 0) && !fm_comm_is_inter(comm))
        return MPI_SUCCESS;
    FM_HANG_SCOPE(call, FM_HANG_NONE, FM_HANG_NONE, comm->name, rcount);
    int rc = fm_coll_reduce_scatter_block(sbuf, rbuf, rcount, dt, op, comm);
    FINISH(call, comm, rc);
}

#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block
int PMPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt, MPI_Op op,
                              MPI_Comm comm)
{
    FM_API_LOCK();
    return reduce_scatter_block("MPI_Reduce_scatter_block", sbuf, rbuf, rcount, dt, op, comm);
}

#pragma weak MPI_Reduce_scatter_block_c = PMPI_Reduce_scatter_block_c
int PMPI_Reduce_scatter_block_c(const void *sbuf, void *rbuf, MPI_Count rcount, MPI_Datatype dt,
                                MPI_Op op, MPI_Comm comm)
{
    FM_API_LOCK();
    return reduce_scatter_block("MPI_Reduce_scatter_block_c", sbuf, rbuf, rcount, dt, op, comm);
}

static int scan_common(const char *call, const void *sbuf, void *rbuf, MPI_Count count,
                       MPI_Datatype dt, MPI_Op op, MPI_Comm comm, int exclusive)
{
    int err = fm_check_scan(call, sbuf, rbuf, count, dt, op, comm, exclusive);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, FM_HANG_NONE, FM_HANG_NONE, comm->name, count);
    int rc = exclusive ? fm_coll_exscan(sbuf, rbuf, count, dt, op, comm)
                       : fm_coll_scan(sbuf, rbuf, count, dt, op, comm);
    FINISH(call, comm, rc);
}

#pragma weak MPI_Scan = PMPI_Scan
int PMPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    FM_API_LOCK();
    return scan_common("MPI_Scan", sbuf, rbuf, count, dt, op, comm, 0);
}

#pragma weak MPI_Scan_c = PMPI_Scan_c
int PMPI_Scan_c(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                MPI_Comm comm)
{
    FM_API_LOCK();
    return scan_common("MPI_Scan_c", sbuf, rbuf, count, dt, op, comm, 0);
}

#pragma weak MPI_Exscan = PMPI_Exscan
int PMPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    FM_API_LOCK();
    return scan_common("MPI_Exscan", sbuf, rbuf, count, dt, op, comm, 1);
}

#pragma weak MPI_Exscan_c = PMPI_Exscan_c
int PMPI_Exscan_c(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                  MPI_Comm comm)
{
    FM_API_LOCK();
    return scan_common("MPI_Exscan_c", sbuf, rbuf, count, dt, op, comm, 1);
}

static int alltoallw(const char *call, const void *sbuf, fm_iarr scounts, fm_iarr sdispls,
                     const MPI_Datatype sdts[], void *rbuf, fm_iarr rcounts, fm_iarr rdispls,
                     const MPI_Datatype rdts[], MPI_Comm comm)
{
    int err = fm_check_alltoallw(call, sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls, rdts,
                                 comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, FM_HANG_NONE, FM_HANG_NONE, comm->name, -1);
    int rc = fm_coll_alltoallw(sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls, rdts, comm);
    FINISH(call, comm, rc);
}

#pragma weak MPI_Alltoallw = PMPI_Alltoallw
int PMPI_Alltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                   const MPI_Datatype sdts[], void *rbuf, const int rcounts[], const int rdispls[],
                   const MPI_Datatype rdts[], MPI_Comm comm)
{
    FM_API_LOCK();
    return alltoallw("MPI_Alltoallw", sbuf, fm_iarr_int(scounts), fm_iarr_int(sdispls), sdts, rbuf,
                     fm_iarr_int(rcounts), fm_iarr_int(rdispls), rdts, comm);
}

#pragma weak MPI_Alltoallw_c = PMPI_Alltoallw_c
int PMPI_Alltoallw_c(const void *sbuf, const MPI_Count scounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sdts[], void *rbuf, const MPI_Count rcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype rdts[], MPI_Comm comm)
{
    FM_API_LOCK();
    return alltoallw("MPI_Alltoallw_c", sbuf, fm_iarr_wide(scounts), fm_iarr_wide(sdispls), sdts,
                     rbuf, fm_iarr_wide(rcounts), fm_iarr_wide(rdispls), rdts, comm);
}
