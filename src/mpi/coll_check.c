/* coll_check.c — the argument checks of the collectives, shared by the
 * blocking (coll_api.c), nonblocking and persistent (icoll_api.c) forms:
 * each returns MPI_SUCCESS or what fm_raise returned.
 *
 * Arguments the standard calls "significant only at root" (or ignored
 * with MPI_IN_PLACE) are checked only where they are significant, since
 * programs legitimately pass NULL or MPI_DATATYPE_NULL elsewhere. */
#include "mpi/coll_check.h"

#include "coll/op.h"
#include "dtype/dtype.h"
#include "mpi/api.h"

#define CHECK_COMM(call, comm)     \
    do {                           \
        FM_CHECK_INIT(call);       \
        FM_CHECK_COMM(call, comm); \
    } while (0)

/* Intercommunicators (MPI-3.1 5.2.2): the root passes MPI_ROOT, the rest
 * of its group MPI_PROC_NULL (nothing of theirs is significant), the other
 * group the root's rank there; per-rank arrays cover the remote group
 * (remote_size, which is size on an intracommunicator); MPI_IN_PLACE is
 * not allowed. */
#define INTER(comm) fm_comm_is_inter(comm)
#define IS_ROOT(comm, root) (INTER(comm) ? (root) == MPI_ROOT : (comm)->rank == (root))
#define CHECK_ROOT(call, comm, root)                                                        \
    do {                                                                                    \
        if (!INTER(comm))                                                                   \
            FM_CHECK_ROOT(call, comm, root);                                             \
        else if ((root) != MPI_ROOT && (root) != MPI_PROC_NULL &&                           \
                 ((root) < 0 || (root) >= (comm)->remote_size))                             \
            return fm_raise(comm, call, MPI_ERR_ROOT,                                       \
                            "root=%d is not MPI_ROOT, MPI_PROC_NULL or a rank of the "     \
                            "remote group of %s (size %d)", (int)(root),                    \
                            fm_comm_label(comm), (comm)->remote_size);                      \
        if (INTER(comm) && (root) == MPI_PROC_NULL)                                         \
            return MPI_SUCCESS;                                                             \
    } while (0)
#define CHECK_INTER_NOT_IN_PLACE(call, comm, buf, what)                                     \
    do {                                                                                    \
        if (INTER(comm) && (buf) == MPI_IN_PLACE)                                           \
            return fm_raise(comm, call, MPI_ERR_BUFFER,                                     \
                            "%s=MPI_IN_PLACE is not allowed on an intercommunicator", what); \
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

/* Send and receive buffers must not overlap (MPI-4.0 2.3: no aliasing of
 * an output argument); the standard's way to reuse one buffer is
 * MPI_IN_PLACE.  Each side is the byte range its elements cover, taken
 * from contiguous datatypes only: two non-contiguous layouts may
 * interleave legally in one region, so for them only the same start
 * address counts as overlap.  An empty side never overlaps. */
struct span {
    uintptr_t lo, hi;
};

static struct span side(const void *buf, MPI_Aint off, MPI_Count count, MPI_Datatype dt)
{
    if (count <= 0 || buf == MPI_IN_PLACE)
        return (struct span){0, 0};
    uintptr_t at = (uintptr_t)buf + (uintptr_t)off;
    if (!fm_dt_is_contig(dt))
        return (struct span){at, at + 1};
    at += (uintptr_t)dt->true_lb;
    return (struct span){at, at + (uintptr_t)(count * dt->size)};
}

static int overlap(struct span a, struct span b)
{
    return a.lo < a.hi && b.lo < b.hi && a.lo < b.hi && b.lo < a.hi;
}

/* Piece i of a v-form side: counts[i] elements at displs[i] extents. */
static struct span piece(const void *buf, fm_iarr counts, fm_iarr displs, MPI_Datatype dt,
                         int i)
{
    return side(buf, (MPI_Aint)fm_iarr_at(displs, i) * dt->extent, fm_iarr_at(counts, i), dt);
}

int fm_overlap_v(const void *one, MPI_Count count, MPI_Datatype dt, const void *buf,
                 fm_iarr counts, fm_iarr displs, MPI_Datatype vdt, int n)
{
    struct span s = side(one, 0, count, dt);
    for (int i = 0; i < n && s.lo < s.hi && buf != MPI_IN_PLACE; i++)
        if (overlap(s, piece(buf, counts, displs, vdt, i)))
            return 1;
    return 0;
}

int fm_overlap_vv(const void *sbuf, fm_iarr scounts, fm_iarr sdispls, MPI_Datatype sdt,
                  const void *rbuf, fm_iarr rcounts, fm_iarr rdispls, MPI_Datatype rdt, int n)
{
    /* With MPI_IN_PLACE the send counts and displacements are ignored: maybe NULL. */
    for (int i = 0; i < n && sbuf != MPI_IN_PLACE; i++)
        if (overlap(piece(sbuf, scounts, sdispls, sdt, i), piece(rbuf, rcounts, rdispls, rdt, i)))
            return 1;
    return 0;
}

#define CHECK_NO_OVERLAP(call, comm, sside, rside) \
    CHECK_DISJOINT(call, comm, overlap(sside, rside))
#define CHECK_DISJOINT(call, comm, overlapping)                                             \
    do {                                                                                    \
        if (overlapping)                                                                    \
            return fm_raise(comm, call, MPI_ERR_BUFFER,                                     \
                            "sendbuf and recvbuf overlap; MPI_IN_PLACE is the way to "     \
                            "use one buffer for both");                                     \
    } while (0)
/* Both sides count elements of dt (reductions): they overlap when their
 * starts are closer than the bytes one side covers.  A few instructions
 * on the path of every MPI_Allreduce, where side() twice took 36. */
static inline int overlap_same(const void *sbuf, const void *rbuf, MPI_Count count,
                               MPI_Datatype dt)
{
    if (count <= 0 || sbuf == MPI_IN_PLACE || rbuf == MPI_IN_PLACE)
        return 0;
    if (!fm_dt_is_contig(dt))
        return sbuf == rbuf;
    uintptr_t s = (uintptr_t)sbuf, r = (uintptr_t)rbuf;
    return (s > r ? s - r : r - s) < (uintptr_t)(count * dt->size);
}
#define CHECK_NO_ALIAS(call, comm, sbuf, rbuf, count, dt) \
    CHECK_DISJOINT(call, comm, overlap_same(sbuf, rbuf, count, dt))

int fm_buffers_overlap(const void *a, MPI_Aint aoff, MPI_Count acount, MPI_Datatype adt,
                       const void *b, MPI_Aint boff, MPI_Count bcount, MPI_Datatype bdt)
{
    return overlap(side(a, aoff, acount, adt), side(b, boff, bcount, bdt));
}

int fm_check_no_alias(const char *call, const void *sbuf, void *rbuf, MPI_Count count,
                      MPI_Datatype dt)
{
    CHECK_NO_ALIAS(call, MPI_COMM_NULL, sbuf, rbuf, count, dt);
    return MPI_SUCCESS;
}

#define CHECK_NOT_IN_PLACE(call, comm, buf, what)                                           \
    do {                                                                                    \
        if ((buf) == MPI_IN_PLACE)                                                          \
            return fm_raise(comm, call, MPI_ERR_BUFFER,                                     \
                            "%s=MPI_IN_PLACE is not allowed here", what);                   \
    } while (0)

/* Per-rank arrays: present, and counts >= 0.  Counts and displacements
 * are fm_iarr (int, or the _c calls' MPI_Count and MPI_Aint). */
#define CHECK_ARRAY(call, comm, arr, what)                                                  \
    do {                                                                                    \
        if (!(arr))                                                                         \
            return fm_raise(comm, call, MPI_ERR_ARG, "%s array is NULL", what);             \
    } while (0)
#define CHECK_IARR(call, comm, arr, what) CHECK_ARRAY(call, comm, (arr).p, what)
#define CHECK_COUNTS(call, comm, counts, what) CHECK_COUNTS_N(call, comm, counts, what, (comm)->remote_size)
#define CHECK_COUNTS_N(call, comm, counts, what, n)                                         \
    do {                                                                                    \
        CHECK_IARR(call, comm, counts, what);                                               \
        for (int i_ = 0; i_ < (n); i_++)                                                    \
            if (fm_iarr_at(counts, i_) < 0)                                                 \
                return fm_raise(comm, call, MPI_ERR_COUNT, "%s[%d]=%lld must be >= 0", what, \
                                i_, fm_iarr_at(counts, i_));                                \
    } while (0)

/* A buffer that holds data must not be NULL (FM_CHECK_BUF); `count` is
 * the whole buffer's, e.g. size * rcount at a gather's root. */
#define CHECK_DATA(call, comm, buf, count, dt, what) FM_CHECK_BUF(call, comm, buf, count, dt, what)

static MPI_Count total_of(fm_iarr counts, int n)
{
    MPI_Count t = 0;
    for (int i = 0; i < n; i++)
        t += fm_iarr_at(counts, i);
    return t;
}

int fm_check_barrier(const char *call, MPI_Comm comm)
{
    CHECK_COMM(call, comm);
    return MPI_SUCCESS;
}

int fm_check_bcast(const char *call, void *buf, MPI_Count count, MPI_Datatype dt, int root,
                   MPI_Comm comm)
{
    CHECK_COMM(call, comm);
    CHECK_BUF_ARGS(call, comm, count, dt);
    CHECK_ROOT(call, comm, root);
    CHECK_DATA(call, comm, buf, count, dt, "buffer");
    return MPI_SUCCESS;
}

int fm_check_reduce(const char *call, const void *sbuf, void *rbuf, MPI_Count count,
                    MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm)
{
    CHECK_COMM(call, comm);
    CHECK_BUF_ARGS(call, comm, count, dt);
    CHECK_ROOT(call, comm, root);
    CHECK_OP_FOR(call, comm, op, dt);
    if (IS_ROOT(comm, root)) {
        CHECK_INTER_NOT_IN_PLACE(call, comm, rbuf, "recvbuf");
        CHECK_DATA(call, comm, rbuf, count, dt, "recvbuf");
    } else {
        CHECK_NOT_IN_PLACE(call, comm, sbuf, "sendbuf at a non-root rank");
    }
    if (sbuf != MPI_IN_PLACE && !(INTER(comm) && root == MPI_ROOT))
        CHECK_DATA(call, comm, sbuf, count, dt, "sendbuf");
    if (IS_ROOT(comm, root) && !INTER(comm))
        CHECK_NO_ALIAS(call, comm, sbuf, rbuf, count, dt);
    return MPI_SUCCESS;
}

int fm_check_allreduce(const char *call, const void *sbuf, void *rbuf, MPI_Count count,
                       MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    CHECK_COMM(call, comm);
    CHECK_INTER_NOT_IN_PLACE(call, comm, sbuf, "sendbuf");
    CHECK_BUF_ARGS(call, comm, count, dt);
    CHECK_OP_FOR(call, comm, op, dt);
    CHECK_NOT_IN_PLACE(call, comm, rbuf, "recvbuf");
    if (sbuf != MPI_IN_PLACE)
        CHECK_DATA(call, comm, sbuf, count, dt, "sendbuf");
    CHECK_DATA(call, comm, rbuf, count, dt, "recvbuf");
    CHECK_NO_ALIAS(call, comm, sbuf, rbuf, count, dt);
    return MPI_SUCCESS;
}

/* A rooted collective's own buffer at a member (gather's sendbuf,
 * scatter's recvbuf): ignored under MPI_IN_PLACE and at an
 * intercommunicator's root, which has none. */
static int check_member_buf(const char *call, MPI_Comm comm, const void *buf, MPI_Count count,
                            MPI_Datatype dt, int root, const char *what)
{
    if (buf != MPI_IN_PLACE && !(INTER(comm) && root == MPI_ROOT)) {
        CHECK_BUF_ARGS(call, comm, count, dt);
        CHECK_DATA(call, comm, buf, count, dt, what);
    }
    return MPI_SUCCESS;
}

int fm_check_gather(const char *call, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                    void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    CHECK_COMM(call, comm);
    CHECK_ROOT(call, comm, root);
    if (IS_ROOT(comm, root)) {
        CHECK_BUF_ARGS(call, comm, rcount, rdt);
        CHECK_NOT_IN_PLACE(call, comm, rbuf, "recvbuf");
        CHECK_DATA(call, comm, rbuf, (MPI_Count)rcount * comm->remote_size, rdt, "recvbuf");
    } else {
        CHECK_NOT_IN_PLACE(call, comm, sbuf, "sendbuf at a non-root rank");
    }
    int err = check_member_buf(call, comm, sbuf, scount, sdt, root, "sendbuf");
    if (err == MPI_SUCCESS && IS_ROOT(comm, root) && !INTER(comm))
        CHECK_NO_OVERLAP(call, comm, side(sbuf, 0, scount, sdt),
                         side(rbuf, 0, (MPI_Count)rcount * comm->size, rdt));
    return err;
}

int fm_check_gatherv(const char *call, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                     void *rbuf, fm_iarr rcounts, fm_iarr displs, MPI_Datatype rdt, int root,
                     MPI_Comm comm)
{
    CHECK_COMM(call, comm);
    CHECK_ROOT(call, comm, root);
    if (IS_ROOT(comm, root)) {
        FM_CHECK_TYPE(call, comm, rdt);
        CHECK_COUNTS(call, comm, rcounts, "recvcounts");
        CHECK_IARR(call, comm, displs, "displs");
        CHECK_NOT_IN_PLACE(call, comm, rbuf, "recvbuf");
        CHECK_DATA(call, comm, rbuf, total_of(rcounts, comm->remote_size), rdt, "recvbuf");
    } else {
        CHECK_NOT_IN_PLACE(call, comm, sbuf, "sendbuf at a non-root rank");
    }
    int err = check_member_buf(call, comm, sbuf, scount, sdt, root, "sendbuf");
    if (err == MPI_SUCCESS && IS_ROOT(comm, root) && !INTER(comm))
        CHECK_DISJOINT(call, comm,
                       fm_overlap_v(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm->size));
    return err;
}

int fm_check_scatter(const char *call, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                     void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    CHECK_COMM(call, comm);
    CHECK_ROOT(call, comm, root);
    if (IS_ROOT(comm, root)) {
        CHECK_BUF_ARGS(call, comm, scount, sdt);
        CHECK_NOT_IN_PLACE(call, comm, sbuf, "sendbuf");
        CHECK_DATA(call, comm, sbuf, (MPI_Count)scount * comm->remote_size, sdt, "sendbuf");
    } else {
        CHECK_NOT_IN_PLACE(call, comm, rbuf, "recvbuf at a non-root rank");
    }
    int err = check_member_buf(call, comm, rbuf, rcount, rdt, root, "recvbuf");
    if (err == MPI_SUCCESS && IS_ROOT(comm, root) && !INTER(comm))
        CHECK_NO_OVERLAP(call, comm, side(sbuf, 0, (MPI_Count)scount * comm->size, sdt),
                         side(rbuf, 0, rcount, rdt));
    return err;
}

int fm_check_scatterv(const char *call, const void *sbuf, fm_iarr scounts, fm_iarr displs,
                      MPI_Datatype sdt, void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int root,
                      MPI_Comm comm)
{
    CHECK_COMM(call, comm);
    CHECK_ROOT(call, comm, root);
    if (IS_ROOT(comm, root)) {
        FM_CHECK_TYPE(call, comm, sdt);
        CHECK_COUNTS(call, comm, scounts, "sendcounts");
        CHECK_IARR(call, comm, displs, "displs");
        CHECK_NOT_IN_PLACE(call, comm, sbuf, "sendbuf");
        CHECK_DATA(call, comm, sbuf, total_of(scounts, comm->remote_size), sdt, "sendbuf");
    } else {
        CHECK_NOT_IN_PLACE(call, comm, rbuf, "recvbuf at a non-root rank");
    }
    int err = check_member_buf(call, comm, rbuf, rcount, rdt, root, "recvbuf");
    if (err == MPI_SUCCESS && IS_ROOT(comm, root) && !INTER(comm))
        CHECK_DISJOINT(call, comm,
                       fm_overlap_v(rbuf, rcount, rdt, sbuf, scounts, displs, sdt, comm->size));
    return err;
}

int fm_check_allgather(const char *call, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                       void *rbuf, MPI_Count rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    CHECK_COMM(call, comm);
    CHECK_INTER_NOT_IN_PLACE(call, comm, sbuf, "sendbuf");
    CHECK_BUF_ARGS(call, comm, rcount, rdt);
    CHECK_NOT_IN_PLACE(call, comm, rbuf, "recvbuf");
    CHECK_DATA(call, comm, rbuf, (MPI_Count)rcount * comm->remote_size, rdt, "recvbuf");
    if (sbuf != MPI_IN_PLACE) {
        CHECK_BUF_ARGS(call, comm, scount, sdt);
        CHECK_DATA(call, comm, sbuf, scount, sdt, "sendbuf");
    }
    CHECK_NO_OVERLAP(call, comm, side(sbuf, 0, scount, sdt),
                     side(rbuf, 0, (MPI_Count)rcount * comm->remote_size, rdt));
    return MPI_SUCCESS;
}

int fm_check_allgatherv(const char *call, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                        void *rbuf, fm_iarr rcounts, fm_iarr displs, MPI_Datatype rdt,
                        MPI_Comm comm)
{
    CHECK_COMM(call, comm);
    CHECK_INTER_NOT_IN_PLACE(call, comm, sbuf, "sendbuf");
    FM_CHECK_TYPE(call, comm, rdt);
    CHECK_COUNTS(call, comm, rcounts, "recvcounts");
    CHECK_IARR(call, comm, displs, "displs");
    CHECK_NOT_IN_PLACE(call, comm, rbuf, "recvbuf");
    CHECK_DATA(call, comm, rbuf, total_of(rcounts, comm->remote_size), rdt, "recvbuf");
    if (sbuf != MPI_IN_PLACE) {
        CHECK_BUF_ARGS(call, comm, scount, sdt);
        CHECK_DATA(call, comm, sbuf, scount, sdt, "sendbuf");
    }
    CHECK_DISJOINT(call, comm, fm_overlap_v(sbuf, scount, sdt, rbuf, rcounts, displs, rdt,
                                            comm->remote_size));
    return MPI_SUCCESS;
}

int fm_check_alltoall(const char *call, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                      void *rbuf, MPI_Count rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    CHECK_COMM(call, comm);
    CHECK_INTER_NOT_IN_PLACE(call, comm, sbuf, "sendbuf");
    CHECK_BUF_ARGS(call, comm, rcount, rdt);
    CHECK_NOT_IN_PLACE(call, comm, rbuf, "recvbuf");
    CHECK_DATA(call, comm, rbuf, (MPI_Count)rcount * comm->remote_size, rdt, "recvbuf");
    if (sbuf != MPI_IN_PLACE) {
        CHECK_BUF_ARGS(call, comm, scount, sdt);
        CHECK_DATA(call, comm, sbuf, (MPI_Count)scount * comm->remote_size, sdt, "sendbuf");
    }
    CHECK_NO_OVERLAP(call, comm, side(sbuf, 0, (MPI_Count)scount * comm->remote_size, sdt),
                     side(rbuf, 0, (MPI_Count)rcount * comm->remote_size, rdt));
    return MPI_SUCCESS;
}

int fm_check_alltoallv(const char *call, const void *sbuf, fm_iarr scounts, fm_iarr sdispls,
                       MPI_Datatype sdt, void *rbuf, fm_iarr rcounts, fm_iarr rdispls,
                       MPI_Datatype rdt, MPI_Comm comm)
{
    CHECK_COMM(call, comm);
    CHECK_INTER_NOT_IN_PLACE(call, comm, sbuf, "sendbuf");
    FM_CHECK_TYPE(call, comm, rdt);
    CHECK_COUNTS(call, comm, rcounts, "recvcounts");
    CHECK_IARR(call, comm, rdispls, "rdispls");
    CHECK_NOT_IN_PLACE(call, comm, rbuf, "recvbuf");
    if (sbuf != MPI_IN_PLACE) {
        FM_CHECK_TYPE(call, comm, sdt);
        CHECK_COUNTS(call, comm, scounts, "sendcounts");
        CHECK_IARR(call, comm, sdispls, "sdispls");
        CHECK_DATA(call, comm, sbuf, total_of(scounts, comm->remote_size), sdt, "sendbuf");
    }
    CHECK_DATA(call, comm, rbuf, total_of(rcounts, comm->remote_size), rdt, "recvbuf");
    CHECK_DISJOINT(call, comm, fm_overlap_vv(sbuf, scounts, sdispls, sdt, rbuf, rcounts,
                                             rdispls, rdt, comm->remote_size));
    return MPI_SUCCESS;
}

int fm_check_reduce_scatter(const char *call, const void *sbuf, void *rbuf, fm_iarr rcounts,
                            MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    CHECK_COMM(call, comm);
    CHECK_INTER_NOT_IN_PLACE(call, comm, sbuf, "sendbuf");
    FM_CHECK_TYPE(call, comm, dt);
    CHECK_COUNTS_N(call, comm, rcounts, "recvcounts", comm->size);
    CHECK_OP_FOR(call, comm, op, dt);
    CHECK_NOT_IN_PLACE(call, comm, rbuf, "recvbuf");
    if (sbuf != MPI_IN_PLACE)
        CHECK_DATA(call, comm, sbuf, total_of(rcounts, comm->size), dt, "sendbuf");
    CHECK_DATA(call, comm, rbuf,
               sbuf == MPI_IN_PLACE ? total_of(rcounts, comm->size)
                                    : fm_iarr_at(rcounts, comm->rank),
               dt, "recvbuf");
    CHECK_NO_OVERLAP(call, comm, side(sbuf, 0, total_of(rcounts, comm->size), dt),
                     side(rbuf, 0, fm_iarr_at(rcounts, comm->rank), dt));
    return MPI_SUCCESS;
}

int fm_check_reduce_scatter_block(const char *call, const void *sbuf, void *rbuf, MPI_Count rcount,
                                  MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    CHECK_COMM(call, comm);
    CHECK_INTER_NOT_IN_PLACE(call, comm, sbuf, "sendbuf");
    CHECK_BUF_ARGS(call, comm, rcount, dt);
    CHECK_OP_FOR(call, comm, op, dt);
    CHECK_NOT_IN_PLACE(call, comm, rbuf, "recvbuf");
    if (sbuf != MPI_IN_PLACE)
        CHECK_DATA(call, comm, sbuf, (MPI_Count)rcount * comm->size, dt, "sendbuf");
    CHECK_DATA(call, comm, rbuf, rcount, dt, "recvbuf");
    CHECK_NO_OVERLAP(call, comm, side(sbuf, 0, (MPI_Count)rcount * comm->size, dt),
                     side(rbuf, 0, rcount, dt));
    return MPI_SUCCESS;
}

int fm_check_scan(const char *call, const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt,
                  MPI_Op op, MPI_Comm comm, int exclusive)
{
    CHECK_COMM(call, comm);
    FM_CHECK_INTRA(call, comm);
    CHECK_BUF_ARGS(call, comm, count, dt);
    CHECK_OP_FOR(call, comm, op, dt);
    CHECK_NOT_IN_PLACE(call, comm, rbuf, "recvbuf");
    if (sbuf != MPI_IN_PLACE)
        CHECK_DATA(call, comm, sbuf, count, dt, "sendbuf");
    if (!exclusive || comm->rank > 0) /* exscan leaves rank 0's recvbuf alone */
        CHECK_DATA(call, comm, rbuf, count, dt, "recvbuf");
    CHECK_NO_ALIAS(call, comm, sbuf, rbuf, count, dt);
    return MPI_SUCCESS;
}

/* Alltoallw: a datatype per peer on each side, displacements in bytes. */
static int check_w_side(const char *call, MPI_Comm comm, const void *buf, fm_iarr counts,
                        fm_iarr displs, const MPI_Datatype dts[], const char *cname,
                        const char *dname, const char *tname, const char *bname)
{
    CHECK_COUNTS(call, comm, counts, cname);
    CHECK_IARR(call, comm, displs, dname);
    CHECK_ARRAY(call, comm, dts, tname);
    for (int i = 0; i < comm->remote_size; i++) {
        if (fm_iarr_at(counts, i) == 0)
            continue;
        FM_CHECK_TYPE(call, comm, dts[i]);
        CHECK_DATA(call, comm, buf, fm_iarr_at(counts, i), dts[i], bname);
    }
    return MPI_SUCCESS;
}

int fm_check_alltoallw(const char *call, const void *sbuf, fm_iarr scounts,
                       fm_iarr sdispls, const MPI_Datatype sdts[], void *rbuf,
                       fm_iarr rcounts, fm_iarr rdispls, const MPI_Datatype rdts[],
                       MPI_Comm comm)
{
    CHECK_COMM(call, comm);
    CHECK_INTER_NOT_IN_PLACE(call, comm, sbuf, "sendbuf");
    CHECK_NOT_IN_PLACE(call, comm, rbuf, "recvbuf");
    int err = check_w_side(call, comm, rbuf, rcounts, rdispls, rdts, "recvcounts", "rdispls",
                           "recvtypes", "recvbuf");
    if (err == MPI_SUCCESS && sbuf != MPI_IN_PLACE)
        err = check_w_side(call, comm, sbuf, scounts, sdispls, sdts, "sendcounts", "sdispls",
                           "sendtypes", "sendbuf");
    for (int i = 0; err == MPI_SUCCESS && sbuf != MPI_IN_PLACE && i < comm->remote_size; i++)
        if (fm_iarr_at(scounts, i) > 0 && fm_iarr_at(rcounts, i) > 0)
            CHECK_NO_OVERLAP(call, comm,
                             side(sbuf, (MPI_Aint)fm_iarr_at(sdispls, i), fm_iarr_at(scounts, i),
                                  sdts[i]),
                             side(rbuf, (MPI_Aint)fm_iarr_at(rdispls, i), fm_iarr_at(rcounts, i),
                                  rdts[i]));
    return err;
}
