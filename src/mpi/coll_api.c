/* coll_api.c — MPI blocking collective entry points: the argument checks
 * (coll_check.c), then the algorithms in src/coll. */
#include "boot/hang.h"
#include "coll/coll.h"
#include "coll/rma/coll_rma.h"
#include "mpi/api.h"
#include "mpi/coll_check.h"

#define FINISH(call, comm, rc) \
    return (rc) == FM_OK ? MPI_SUCCESS : fm_raise_status(comm, call, rc)

#pragma weak MPI_Barrier = PMPI_Barrier
int PMPI_Barrier(MPI_Comm comm)
{
    static const char call[] = "MPI_Barrier";
    int err = fm_check_barrier(call, comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, FM_HANG_NONE, FM_HANG_NONE, comm->name, -1);
    int rc = fm_coll_sel_barrier(comm);
    FINISH(call, comm, rc);
}

#pragma weak MPI_Bcast = PMPI_Bcast
int PMPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    static const char call[] = "MPI_Bcast";
    int err = fm_check_bcast(call, buf, count, dt, root, comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, root, FM_HANG_NONE, comm->name, count);
    int rc = fm_coll_sel_bcast(buf, count, dt, root, comm);
    FINISH(call, comm, rc);
}

#pragma weak MPI_Reduce = PMPI_Reduce
int PMPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
               MPI_Comm comm)
{
    static const char call[] = "MPI_Reduce";
    int err = fm_check_reduce(call, sbuf, rbuf, count, dt, op, root, comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, root, FM_HANG_NONE, comm->name, count);
    int rc = fm_coll_sel_reduce(sbuf, rbuf, count, dt, op, root, comm);
    FINISH(call, comm, rc);
}

#pragma weak MPI_Allreduce = PMPI_Allreduce
int PMPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                  MPI_Comm comm)
{
    static const char call[] = "MPI_Allreduce";
    int err = fm_check_allreduce(call, sbuf, rbuf, count, dt, op, comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, FM_HANG_NONE, FM_HANG_NONE, comm->name, count);
    int rc = fm_coll_sel_allreduce(sbuf, rbuf, count, dt, op, comm);
    FINISH(call, comm, rc);
}

#pragma weak MPI_Gather = PMPI_Gather
int PMPI_Gather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
               MPI_Datatype rdt, int root, MPI_Comm comm)
{
    static const char call[] = "MPI_Gather";
    int err = fm_check_gather(call, sbuf, scount, sdt, rbuf, rcount, rdt, root, comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, root, FM_HANG_NONE, comm->name, scount);
    int rc = fm_coll_gather(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm);
    FINISH(call, comm, rc);
}

#pragma weak MPI_Gatherv = PMPI_Gatherv
int PMPI_Gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, const int rcounts[],
                const int displs[], MPI_Datatype rdt, int root, MPI_Comm comm)
{
    static const char call[] = "MPI_Gatherv";
    int err = fm_check_gatherv(call, sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, root, FM_HANG_NONE, comm->name, scount);
    int rc = fm_coll_gatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm);
    FINISH(call, comm, rc);
}

#pragma weak MPI_Scatter = PMPI_Scatter
int PMPI_Scatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                MPI_Datatype rdt, int root, MPI_Comm comm)
{
    static const char call[] = "MPI_Scatter";
    int err = fm_check_scatter(call, sbuf, scount, sdt, rbuf, rcount, rdt, root, comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, root, FM_HANG_NONE, comm->name, scount);
    int rc = fm_coll_scatter(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm);
    FINISH(call, comm, rc);
}

#pragma weak MPI_Scatterv = PMPI_Scatterv
int PMPI_Scatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype sdt,
                 void *rbuf, int rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    static const char call[] = "MPI_Scatterv";
    int err = fm_check_scatterv(call, sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root, comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, root, FM_HANG_NONE, comm->name, rcount);
    int rc = fm_coll_scatterv(sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root, comm);
    FINISH(call, comm, rc);
}

#pragma weak MPI_Allgather = PMPI_Allgather
int PMPI_Allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                  MPI_Datatype rdt, MPI_Comm comm)
{
    static const char call[] = "MPI_Allgather";
    int err = fm_check_allgather(call, sbuf, scount, sdt, rbuf, rcount, rdt, comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, FM_HANG_NONE, FM_HANG_NONE, comm->name, scount);
    int rc = fm_coll_allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
    FINISH(call, comm, rc);
}

#pragma weak MPI_Allgatherv = PMPI_Allgatherv
int PMPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                   const int rcounts[], const int displs[], MPI_Datatype rdt, MPI_Comm comm)
{
    static const char call[] = "MPI_Allgatherv";
    int err = fm_check_allgatherv(call, sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, FM_HANG_NONE, FM_HANG_NONE, comm->name, scount);
    int rc = fm_coll_allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm);
    FINISH(call, comm, rc);
}

#pragma weak MPI_Alltoall = PMPI_Alltoall
int PMPI_Alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                 MPI_Datatype rdt, MPI_Comm comm)
{
    static const char call[] = "MPI_Alltoall";
    int err = fm_check_alltoall(call, sbuf, scount, sdt, rbuf, rcount, rdt, comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, FM_HANG_NONE, FM_HANG_NONE, comm->name, scount);
    int rc = fm_coll_alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
    FINISH(call, comm, rc);
}

#pragma weak MPI_Alltoallv = PMPI_Alltoallv
int PMPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype sdt,
                  void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rdt,
                  MPI_Comm comm)
{
    static const char call[] = "MPI_Alltoallv";
    int err = fm_check_alltoallv(call, sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, FM_HANG_NONE, FM_HANG_NONE, comm->name, -1);
    int rc = fm_coll_alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm);
    FINISH(call, comm, rc);
}

#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter
int PMPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt,
                       MPI_Op op, MPI_Comm comm)
{
    static const char call[] = "MPI_Reduce_scatter";
    int err = fm_check_reduce_scatter(call, sbuf, rbuf, rcounts, dt, op, comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, FM_HANG_NONE, FM_HANG_NONE, comm->name, -1);
    int rc = fm_coll_reduce_scatter(sbuf, rbuf, rcounts, dt, op, comm);
    FINISH(call, comm, rc);
}

#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block
int PMPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt,
                             MPI_Op op, MPI_Comm comm)
{
    static const char call[] = "MPI_Reduce_scatter_block";
    int err = fm_check_reduce_scatter_block(call, sbuf, rbuf, rcount, dt, op, comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, FM_HANG_NONE, FM_HANG_NONE, comm->name, rcount);
    int rc = fm_coll_reduce_scatter_block(sbuf, rbuf, rcount, dt, op, comm);
    FINISH(call, comm, rc);
}

static int scan_common(const char *call, const void *sbuf, void *rbuf, int count,
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
    return scan_common("MPI_Scan", sbuf, rbuf, count, dt, op, comm, 0);
}

#pragma weak MPI_Exscan = PMPI_Exscan
int PMPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
               MPI_Comm comm)
{
    return scan_common("MPI_Exscan", sbuf, rbuf, count, dt, op, comm, 1);
}

#pragma weak MPI_Alltoallw = PMPI_Alltoallw
int PMPI_Alltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                  const MPI_Datatype sdts[], void *rbuf, const int rcounts[], const int rdispls[],
                  const MPI_Datatype rdts[], MPI_Comm comm)
{
    static const char call[] = "MPI_Alltoallw";
    int err = fm_check_alltoallw(call, sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls, rdts,
                                 comm);
    if (err != MPI_SUCCESS)
        return err;
    FM_HANG_SCOPE(call, FM_HANG_NONE, FM_HANG_NONE, comm->name, -1);
    int rc = fm_coll_alltoallw(sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls, rdts, comm);
    FINISH(call, comm, rc);
}
