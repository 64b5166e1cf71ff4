/* coll_api.c — MPI blocking collective entry points: argument checks, then
 * the algorithms in src/coll.
 *
 * Arguments the standard calls "significant only at root" (or ignored
 * with MPI_IN_PLACE) are checked only where they are significant, since
 * programs legitimately pass NULL or MPI_DATATYPE_NULL elsewhere. */
#include "coll/coll.h"
#include "coll/op.h"
#include "coll/rma/coll_rma.h"
#include "boot/hang.h"
#include "dtype/dtype.h"
#include "mpi/api.h"

#define CHECK_COMM(call, comm)     \
    do {                           \
        FM_CHECK_INIT(call);       \
        FM_CHECK_COMM(call, comm); \
    } while (0)

#define CHECK_BUF_ARGS(call, comm, count, dt)  \
    do {                                       \
        FM_CHECK_COUNT(call, comm, count);     \
        FM_CHECK_TYPE(call, comm, dt);         \
    } while (0)

/* The op is valid, meant for collectives, and defined for dt. */
#define CHECK_OP_FOR(call, comm, op, dt)                                                    \
    do {                                                                                    \
        FM_CHECK_OP(call, comm, op);                                                        \
        if (fm_op_is_rma_only(op))                                                          \
            return fm_raise(comm, call, MPI_ERR_OP,                                         \
                            "op=%s is only valid in RMA accumulate operations", (op)->name); \
        if (fm_op_check(op, dt) != FM_OK)                                                   \
            return fm_raise(comm, call, MPI_ERR_OP, "op %s is not defined for datatype %s", \
                            (op)->name, (dt)->name);                                        \
    } while (0)

/* Send and receive buffers of a reduction must not overlap; the standard's
 * way to reuse one buffer is MPI_IN_PLACE. */
#define CHECK_NO_ALIAS(call, comm, sbuf, rbuf, count)                                       \
    do {                                                                                    \
        if ((count) > 0 && (sbuf) == (rbuf) && (sbuf) != NULL && (sbuf) != MPI_IN_PLACE)    \
            return fm_raise(comm, call, MPI_ERR_BUFFER,                                     \
                            "sendbuf and recvbuf are the same buffer; use MPI_IN_PLACE");  \
    } while (0)

#define CHECK_NOT_IN_PLACE(call, comm, buf, what)                                           \
    do {                                                                                    \
        if ((buf) == MPI_IN_PLACE)                                                          \
            return fm_raise(comm, call, MPI_ERR_BUFFER,                                     \
                            "%s=MPI_IN_PLACE is not allowed here", what);                   \
    } while (0)

/* Per-rank arrays: present, and counts >= 0. */
#define CHECK_ARRAY(call, comm, arr, what)                                                  \
    do {                                                                                    \
        if (!(arr))                                                                         \
            return fm_raise(comm, call, MPI_ERR_ARG, "%s array is NULL", what);             \
    } while (0)
#define CHECK_COUNTS(call, comm, counts, what)                                              \
    do {                                                                                    \
        CHECK_ARRAY(call, comm, counts, what);                                              \
        for (int i_ = 0; i_ < (comm)->size; i_++)                                           \
            if ((counts)[i_] < 0)                                                           \
                return fm_raise(comm, call, MPI_ERR_COUNT, "%s[%d]=%d must be >= 0", what,  \
                                i_, (counts)[i_]);                                          \
    } while (0)

/* A buffer that holds data must not be NULL (FM_CHECK_BUF); `count` is
 * the whole buffer's, e.g. size * rcount at a gather's root. */
#define CHECK_DATA(call, comm, buf, count, dt, what) FM_CHECK_BUF(call, comm, buf, count, dt, what)

static MPI_Count total_of(const int counts[], int n)
{
    MPI_Count t = 0;
    for (int i = 0; i < n; i++)
        t += counts[i];
    return t;
}

#define FINISH(call, comm, rc) \
    return (rc) == FM_OK ? MPI_SUCCESS : fm_raise_status(comm, call, rc)

int MPI_Barrier(MPI_Comm comm)
{
    CHECK_COMM("MPI_Barrier", comm);
    FM_HANG_SCOPE("MPI_Barrier", FM_HANG_NONE, FM_HANG_NONE, comm->name, -1);
    int rc = fm_coll_sel_barrier(comm);
    FINISH("MPI_Barrier", comm, rc);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    CHECK_COMM("MPI_Bcast", comm);
    FM_HANG_SCOPE("MPI_Bcast", root, FM_HANG_NONE, comm->name, count);
    CHECK_BUF_ARGS("MPI_Bcast", comm, count, dt);
    FM_CHECK_ROOT("MPI_Bcast", comm, root);
    CHECK_DATA("MPI_Bcast", comm, buf, count, dt, "buffer");
    int rc = fm_coll_sel_bcast(buf, count, dt, root, comm);
    FINISH("MPI_Bcast", comm, rc);
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
               MPI_Comm comm)
{
    static const char call[] = "MPI_Reduce";
    CHECK_COMM(call, comm);
    FM_HANG_SCOPE(call, root, FM_HANG_NONE, comm->name, count);
    CHECK_BUF_ARGS(call, comm, count, dt);
    FM_CHECK_ROOT(call, comm, root);
    CHECK_OP_FOR(call, comm, op, dt);
    if (comm->rank == root) {
        CHECK_NO_ALIAS(call, comm, sbuf, rbuf, count);
        CHECK_DATA(call, comm, rbuf, count, dt, "recvbuf");
    } else {
        CHECK_NOT_IN_PLACE(call, comm, sbuf, "sendbuf at a non-root rank");
    }
    if (sbuf != MPI_IN_PLACE)
        CHECK_DATA(call, comm, sbuf, count, dt, "sendbuf");
    int rc = fm_coll_sel_reduce(sbuf, rbuf, count, dt, op, root, comm);
    FINISH(call, comm, rc);
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                  MPI_Comm comm)
{
    static const char call[] = "MPI_Allreduce";
    CHECK_COMM(call, comm);
    FM_HANG_SCOPE(call, FM_HANG_NONE, FM_HANG_NONE, comm->name, count);
    CHECK_BUF_ARGS(call, comm, count, dt);
    CHECK_OP_FOR(call, comm, op, dt);
    CHECK_NO_ALIAS(call, comm, sbuf, rbuf, count);
    CHECK_NOT_IN_PLACE(call, comm, rbuf, "recvbuf");
    if (sbuf != MPI_IN_PLACE)
        CHECK_DATA(call, comm, sbuf, count, dt, "sendbuf");
    CHECK_DATA(call, comm, rbuf, count, dt, "recvbuf");
    int rc = fm_coll_sel_allreduce(sbuf, rbuf, count, dt, op, comm);
    FINISH(call, comm, rc);
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
               MPI_Datatype rdt, int root, MPI_Comm comm)
{
    static const char call[] = "MPI_Gather";
    CHECK_COMM(call, comm);
    FM_HANG_SCOPE(call, root, FM_HANG_NONE, comm->name, scount);
    FM_CHECK_ROOT(call, comm, root);
    if (comm->rank == root) {
        CHECK_BUF_ARGS(call, comm, rcount, rdt);
        CHECK_NOT_IN_PLACE(call, comm, rbuf, "recvbuf");
        CHECK_DATA(call, comm, rbuf, (MPI_Count)rcount * comm->size, rdt, "recvbuf");
    } else {
        CHECK_NOT_IN_PLACE(call, comm, sbuf, "sendbuf at a non-root rank");
    }
    if (sbuf != MPI_IN_PLACE) {
        CHECK_BUF_ARGS(call, comm, scount, sdt);
        CHECK_DATA(call, comm, sbuf, scount, sdt, "sendbuf");
    }
    int rc = fm_coll_gather(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm);
    FINISH(call, comm, rc);
}

int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, const int rcounts[],
                const int displs[], MPI_Datatype rdt, int root, MPI_Comm comm)
{
    static const char call[] = "MPI_Gatherv";
    CHECK_COMM(call, comm);
    FM_HANG_SCOPE(call, root, FM_HANG_NONE, comm->name, scount);
    FM_CHECK_ROOT(call, comm, root);
    if (comm->rank == root) {
        FM_CHECK_TYPE(call, comm, rdt);
        CHECK_COUNTS(call, comm, rcounts, "recvcounts");
        CHECK_ARRAY(call, comm, displs, "displs");
        CHECK_NOT_IN_PLACE(call, comm, rbuf, "recvbuf");
        CHECK_DATA(call, comm, rbuf, total_of(rcounts, comm->size), rdt, "recvbuf");
    } else {
        CHECK_NOT_IN_PLACE(call, comm, sbuf, "sendbuf at a non-root rank");
    }
    if (sbuf != MPI_IN_PLACE) {
        CHECK_BUF_ARGS(call, comm, scount, sdt);
        CHECK_DATA(call, comm, sbuf, scount, sdt, "sendbuf");
    }
    int rc = fm_coll_gatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm);
    FINISH(call, comm, rc);
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                MPI_Datatype rdt, int root, MPI_Comm comm)
{
    static const char call[] = "MPI_Scatter";
    CHECK_COMM(call, comm);
    FM_HANG_SCOPE(call, root, FM_HANG_NONE, comm->name, scount);
    FM_CHECK_ROOT(call, comm, root);
    if (comm->rank == root) {
        CHECK_BUF_ARGS(call, comm, scount, sdt);
        CHECK_NOT_IN_PLACE(call, comm, sbuf, "sendbuf");
        CHECK_DATA(call, comm, sbuf, (MPI_Count)scount * comm->size, sdt, "sendbuf");
    } else {
        CHECK_NOT_IN_PLACE(call, comm, rbuf, "recvbuf at a non-root rank");
    }
    if (rbuf != MPI_IN_PLACE) {
        CHECK_BUF_ARGS(call, comm, rcount, rdt);
        CHECK_DATA(call, comm, rbuf, rcount, rdt, "recvbuf");
    }
    int rc = fm_coll_scatter(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm);
    FINISH(call, comm, rc);
}

int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype sdt,
                 void *rbuf, int rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    static const char call[] = "MPI_Scatterv";
    CHECK_COMM(call, comm);
    FM_HANG_SCOPE(call, root, FM_HANG_NONE, comm->name, rcount);
    FM_CHECK_ROOT(call, comm, root);
    if (comm->rank == root) {
        FM_CHECK_TYPE(call, comm, sdt);
        CHECK_COUNTS(call, comm, scounts, "sendcounts");
        CHECK_ARRAY(call, comm, displs, "displs");
        CHECK_NOT_IN_PLACE(call, comm, sbuf, "sendbuf");
        CHECK_DATA(call, comm, sbuf, total_of(scounts, comm->size), sdt, "sendbuf");
    } else {
        CHECK_NOT_IN_PLACE(call, comm, rbuf, "recvbuf at a non-root rank");
    }
    if (rbuf != MPI_IN_PLACE) {
        CHECK_BUF_ARGS(call, comm, rcount, rdt);
        CHECK_DATA(call, comm, rbuf, rcount, rdt, "recvbuf");
    }
    int rc = fm_coll_scatterv(sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root, comm);
    FINISH(call, comm, rc);
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                  MPI_Datatype rdt, MPI_Comm comm)
{
    static const char call[] = "MPI_Allgather";
    CHECK_COMM(call, comm);
    FM_HANG_SCOPE(call, FM_HANG_NONE, FM_HANG_NONE, comm->name, scount);
    CHECK_BUF_ARGS(call, comm, rcount, rdt);
    CHECK_NOT_IN_PLACE(call, comm, rbuf, "recvbuf");
    CHECK_DATA(call, comm, rbuf, (MPI_Count)rcount * comm->size, rdt, "recvbuf");
    if (sbuf != MPI_IN_PLACE) {
        CHECK_BUF_ARGS(call, comm, scount, sdt);
        CHECK_DATA(call, comm, sbuf, scount, sdt, "sendbuf");
    }
    int rc = fm_coll_allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
    FINISH(call, comm, rc);
}

int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                   const int rcounts[], const int displs[], MPI_Datatype rdt, MPI_Comm comm)
{
    static const char call[] = "MPI_Allgatherv";
    CHECK_COMM(call, comm);
    FM_HANG_SCOPE(call, FM_HANG_NONE, FM_HANG_NONE, comm->name, scount);
    FM_CHECK_TYPE(call, comm, rdt);
    CHECK_COUNTS(call, comm, rcounts, "recvcounts");
    CHECK_ARRAY(call, comm, displs, "displs");
    CHECK_NOT_IN_PLACE(call, comm, rbuf, "recvbuf");
    CHECK_DATA(call, comm, rbuf, total_of(rcounts, comm->size), rdt, "recvbuf");
    if (sbuf != MPI_IN_PLACE) {
        CHECK_BUF_ARGS(call, comm, scount, sdt);
        CHECK_DATA(call, comm, sbuf, scount, sdt, "sendbuf");
    }
    int rc = fm_coll_allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm);
    FINISH(call, comm, rc);
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                 MPI_Datatype rdt, MPI_Comm comm)
{
    static const char call[] = "MPI_Alltoall";
    CHECK_COMM(call, comm);
    FM_HANG_SCOPE(call, FM_HANG_NONE, FM_HANG_NONE, comm->name, scount);
    CHECK_BUF_ARGS(call, comm, rcount, rdt);
    CHECK_NOT_IN_PLACE(call, comm, rbuf, "recvbuf");
    CHECK_DATA(call, comm, rbuf, (MPI_Count)rcount * comm->size, rdt, "recvbuf");
    if (sbuf != MPI_IN_PLACE) {
        CHECK_BUF_ARGS(call, comm, scount, sdt);
        CHECK_DATA(call, comm, sbuf, (MPI_Count)scount * comm->size, sdt, "sendbuf");
    }
    int rc = fm_coll_alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
    FINISH(call, comm, rc);
}

int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype sdt,
                  void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rdt,
                  MPI_Comm comm)
{
    static const char call[] = "MPI_Alltoallv";
    CHECK_COMM(call, comm);
    FM_HANG_SCOPE(call, FM_HANG_NONE, FM_HANG_NONE, comm->name, -1);
    FM_CHECK_TYPE(call, comm, rdt);
    CHECK_COUNTS(call, comm, rcounts, "recvcounts");
    CHECK_ARRAY(call, comm, rdispls, "rdispls");
    CHECK_NOT_IN_PLACE(call, comm, rbuf, "recvbuf");
    if (sbuf != MPI_IN_PLACE) {
        FM_CHECK_TYPE(call, comm, sdt);
        CHECK_COUNTS(call, comm, scounts, "sendcounts");
        CHECK_ARRAY(call, comm, sdispls, "sdispls");
        CHECK_DATA(call, comm, sbuf, total_of(scounts, comm->size), sdt, "sendbuf");
    }
    CHECK_DATA(call, comm, rbuf, total_of(rcounts, comm->size), rdt, "recvbuf");
    int rc = fm_coll_alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm);
    FINISH(call, comm, rc);
}

int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt,
                       MPI_Op op, MPI_Comm comm)
{
    static const char call[] = "MPI_Reduce_scatter";
    CHECK_COMM(call, comm);
    FM_HANG_SCOPE(call, FM_HANG_NONE, FM_HANG_NONE, comm->name, -1);
    FM_CHECK_TYPE(call, comm, dt);
    CHECK_COUNTS(call, comm, rcounts, "recvcounts");
    CHECK_OP_FOR(call, comm, op, dt);
    CHECK_NO_ALIAS(call, comm, sbuf, rbuf, rcounts[comm->rank]);
    CHECK_NOT_IN_PLACE(call, comm, rbuf, "recvbuf");
    if (sbuf != MPI_IN_PLACE)
        CHECK_DATA(call, comm, sbuf, total_of(rcounts, comm->size), dt, "sendbuf");
    CHECK_DATA(call, comm, rbuf,
               sbuf == MPI_IN_PLACE ? total_of(rcounts, comm->size) : rcounts[comm->rank], dt,
               "recvbuf");
    int rc = fm_coll_reduce_scatter(sbuf, rbuf, rcounts, dt, op, comm);
    FINISH(call, comm, rc);
}

int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt,
                             MPI_Op op, MPI_Comm comm)
{
    static const char call[] = "MPI_Reduce_scatter_block";
    CHECK_COMM(call, comm);
    FM_HANG_SCOPE(call, FM_HANG_NONE, FM_HANG_NONE, comm->name, rcount);
    CHECK_BUF_ARGS(call, comm, rcount, dt);
    CHECK_OP_FOR(call, comm, op, dt);
    CHECK_NO_ALIAS(call, comm, sbuf, rbuf, rcount);
    CHECK_NOT_IN_PLACE(call, comm, rbuf, "recvbuf");
    if (sbuf != MPI_IN_PLACE)
        CHECK_DATA(call, comm, sbuf, (MPI_Count)rcount * comm->size, dt, "sendbuf");
    CHECK_DATA(call, comm, rbuf, rcount, dt, "recvbuf");
    int rc = fm_coll_reduce_scatter_block(sbuf, rbuf, rcount, dt, op, comm);
    FINISH(call, comm, rc);
}

static int scan_common(const char *call, const void *sbuf, void *rbuf, int count,
                       MPI_Datatype dt, MPI_Op op, MPI_Comm comm, int exclusive)
{
    CHECK_COMM(call, comm);
    FM_HANG_SCOPE(call, FM_HANG_NONE, FM_HANG_NONE, comm->name, count);
    CHECK_BUF_ARGS(call, comm, count, dt);
    CHECK_OP_FOR(call, comm, op, dt);
    CHECK_NO_ALIAS(call, comm, sbuf, rbuf, count);
    CHECK_NOT_IN_PLACE(call, comm, rbuf, "recvbuf");
    if (sbuf != MPI_IN_PLACE)
        CHECK_DATA(call, comm, sbuf, count, dt, "sendbuf");
    if (!exclusive || comm->rank > 0) /* exscan leaves rank 0's recvbuf alone */
        CHECK_DATA(call, comm, rbuf, count, dt, "recvbuf");
    int rc = exclusive ? fm_coll_exscan(sbuf, rbuf, count, dt, op, comm)
                       : fm_coll_scan(sbuf, rbuf, count, dt, op, comm);
    FINISH(call, comm, rc);
}

int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    return scan_common("MPI_Scan", sbuf, rbuf, count, dt, op, comm, 0);
}

int MPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
               MPI_Comm comm)
{
    return scan_common("MPI_Exscan", sbuf, rbuf, count, dt, op, comm, 1);
}
