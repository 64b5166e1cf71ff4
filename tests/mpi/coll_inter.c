/* coll_inter.c — every collective on an intercommunicator between the
 * even and the odd world ranks (unequal groups at odd rank counts),
 * blocking, nonblocking and (some) persistent, with exact values:
 * rooted ones from a root in each group in turn (MPI_ROOT at the root,
 * MPI_PROC_NULL in the rest of its group, the root's rank in the other);
 * the rest carry each group's data to the other. */
#include "testutil.h"

static int wrank, wsize, lr, ln, rn, even;
static MPI_Comm ic;

/* Value i of world rank w. */
static int val(int w, int i) { return w * 100 + i; }
/* World rank of remote rank j. */
static int rworld(int j) { return 2 * j + (even ? 1 : 0); }
/* Value i summed over the remote group: what a reduction from it gives. */
static int remote_sum(int i)
{
    int e = 0;
    for (int j = 0; j < rn; j++)
        e += val(rworld(j), i);
    return e;
}

/* The root's group is `rg` (0 even, 1 odd), its local rank 0. */
static int root_arg(int rg)
{
    if (even == (rg == 0))
        return lr == 0 ? MPI_ROOT : MPI_PROC_NULL;
    return 0;
}

static void test_rooted(int mode, int rg)
{
    int root = root_arg(rg), receiving = root >= 0; /* the other group */
    int buf[5], *big = tu_malloc(sizeof(int) * 5 * (rn + 1));
    /* bcast */
    for (int i = 0; i < 5; i++)
        buf[i] = root == MPI_ROOT ? val(wrank, i) : -1;
    RUN_FORMS(mode, MPI_Bcast(buf, 5, MPI_INT, root, ic), MPI_Ibcast(buf, 5, MPI_INT, root, ic, &rq_),
        MPI_Bcast_init(buf, 5, MPI_INT, root, ic, MPI_INFO_NULL, &rq_));
    for (int i = 0; i < 5 && receiving; i++)
        CHECK_EQ(buf[i], val(rworld(0), i));
    /* reduce: the root gets the sum over the other group */
    int mine[5], sum[5] = {0};
    for (int i = 0; i < 5; i++)
        mine[i] = val(wrank, i);
    RUN_FORMS(mode, MPI_Reduce(mine, sum, 5, MPI_INT, MPI_SUM, root, ic),
        MPI_Ireduce(mine, sum, 5, MPI_INT, MPI_SUM, root, ic, &rq_),
        MPI_Reduce_init(mine, sum, 5, MPI_INT, MPI_SUM, root, ic, MPI_INFO_NULL, &rq_));
    if (root == MPI_ROOT)
        for (int i = 0; i < 5; i++)
            CHECK_EQ(sum[i], remote_sum(i));
    /* gather (3 each) and gatherv (j % 2 + 1 from remote j) */
    int *counts = tu_malloc(sizeof(int) * (rn + 1)), *displs = tu_malloc(sizeof(int) * (rn + 1));
    for (int j = 0; j < rn; j++) {
        counts[j] = j % 2 + 1;
        displs[j] = 5 * j;
    }
    memset(big, 0xff, sizeof(int) * 5 * (rn + 1));
    RUN_FORMS(mode, MPI_Gather(mine, 3, MPI_INT, big, 3, MPI_INT, root, ic),
        MPI_Igather(mine, 3, MPI_INT, big, 3, MPI_INT, root, ic, &rq_),
        MPI_Gather_init(mine, 3, MPI_INT, big, 3, MPI_INT, root, ic, MPI_INFO_NULL, &rq_));
    if (root == MPI_ROOT)
        for (int j = 0; j < rn; j++)
            for (int i = 0; i < 3; i++)
                CHECK_EQ(big[3 * j + i], val(rworld(j), i));
    /* The counts and displacements mean something at the root only: NULL
     * elsewhere, where a member's rank may equal `root` (a rank of the
     * other group). */
    int *rcs = root == MPI_ROOT ? counts : NULL, *rds = root == MPI_ROOT ? displs : NULL;
    RUN_FORMS(mode, MPI_Gatherv(mine, lr % 2 + 1, MPI_INT, big, rcs, rds, MPI_INT, root, ic),
        MPI_Igatherv(mine, lr % 2 + 1, MPI_INT, big, rcs, rds, MPI_INT, root, ic, &rq_),
        MPI_Gatherv_init(mine, lr % 2 + 1, MPI_INT, big, rcs, rds, MPI_INT, root, ic,
                         MPI_INFO_NULL, &rq_));
    if (root == MPI_ROOT)
        for (int j = 0; j < rn; j++)
            for (int i = 0; i < counts[j]; i++)
                CHECK_EQ(big[5 * j + i], val(rworld(j), i));
    /* scatter (2 each) and scatterv (counts as above) */
    for (int i = 0; i < 5 * rn; i++)
        big[i] = val(wrank, i);
    memset(buf, 0xff, sizeof buf);
    RUN_FORMS(mode, MPI_Scatter(big, 2, MPI_INT, buf, 2, MPI_INT, root, ic),
        MPI_Iscatter(big, 2, MPI_INT, buf, 2, MPI_INT, root, ic, &rq_),
        MPI_Scatter_init(big, 2, MPI_INT, buf, 2, MPI_INT, root, ic, MPI_INFO_NULL, &rq_));
    if (receiving)
        for (int i = 0; i < 2; i++)
            CHECK_EQ(buf[i], val(rworld(0), 2 * lr + i));
    RUN_FORMS(mode, MPI_Scatterv(big, rcs, rds, MPI_INT, buf, lr % 2 + 1, MPI_INT, root, ic),
        MPI_Iscatterv(big, rcs, rds, MPI_INT, buf, lr % 2 + 1, MPI_INT, root, ic, &rq_),
        MPI_Scatterv_init(big, rcs, rds, MPI_INT, buf, lr % 2 + 1, MPI_INT, root, ic,
                          MPI_INFO_NULL, &rq_));
    if (receiving)
        for (int i = 0; i < lr % 2 + 1; i++)
            CHECK_EQ(buf[i], val(rworld(0), 5 * lr + i));
    free(big);
    free(counts);
    free(displs);
}

static void test_all(int mode)
{
    RUN_FORMS(mode, MPI_Barrier(ic), MPI_Ibarrier(ic, &rq_), MPI_Barrier_init(ic, MPI_INFO_NULL, &rq_));
    int mine[4], sum[4];
    for (int i = 0; i < 4; i++)
        mine[i] = val(wrank, i);
    RUN_FORMS(mode, MPI_Allreduce(mine, sum, 4, MPI_INT, MPI_SUM, ic),
        MPI_Iallreduce(mine, sum, 4, MPI_INT, MPI_SUM, ic, &rq_),
        MPI_Allreduce_init(mine, sum, 4, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &rq_));
    for (int i = 0; i < 4; i++)
        CHECK_EQ(sum[i], remote_sum(i));
    size_t most = sizeof(int) * (size_t)(4 * (rn + ln + 1) + rn * ln);
    int *big = tu_malloc(most), *out = tu_malloc(most);
    int *sc = tu_malloc(sizeof(int) * (rn + ln)), *sd = tu_malloc(sizeof(int) * (rn + ln));
    int *rc = tu_malloc(sizeof(int) * (rn + ln)), *rd = tu_malloc(sizeof(int) * (rn + ln));
    /* allgather: 2 from each remote member */
    RUN_FORMS(mode, MPI_Allgather(mine, 2, MPI_INT, out, 2, MPI_INT, ic),
        MPI_Iallgather(mine, 2, MPI_INT, out, 2, MPI_INT, ic, &rq_),
        MPI_Allgather_init(mine, 2, MPI_INT, out, 2, MPI_INT, ic, MPI_INFO_NULL, &rq_));
    for (int j = 0; j < rn; j++)
        for (int i = 0; i < 2; i++)
            CHECK_EQ(out[2 * j + i], val(rworld(j), i));
    /* allgatherv: remote j gives j % 3; the arrays hold exactly the remote
     * group's rn entries (ASan sees a read past them) */
    int *agc = tu_malloc(sizeof(int) * rn), *agd = tu_malloc(sizeof(int) * rn);
    for (int j = 0; j < rn; j++) {
        agc[j] = j % 3;
        agd[j] = 4 * j;
    }
    RUN_FORMS(mode, MPI_Allgatherv(mine, lr % 3, MPI_INT, out, agc, agd, MPI_INT, ic),
        MPI_Iallgatherv(mine, lr % 3, MPI_INT, out, agc, agd, MPI_INT, ic, &rq_),
        MPI_Allgatherv_init(mine, lr % 3, MPI_INT, out, agc, agd, MPI_INT, ic, MPI_INFO_NULL,
                            &rq_));
    free(agc), free(agd);
    for (int j = 0; j < rn; j++)
        for (int i = 0; i < j % 3; i++)
            CHECK_EQ(out[4 * j + i], val(rworld(j), i));
    /* alltoall: block j (2 ints) to remote j */
    for (int j = 0; j < rn; j++)
        for (int i = 0; i < 2; i++)
            big[2 * j + i] = val(wrank, 10 * j + i);
    RUN_FORMS(mode, MPI_Alltoall(big, 2, MPI_INT, out, 2, MPI_INT, ic),
        MPI_Ialltoall(big, 2, MPI_INT, out, 2, MPI_INT, ic, &rq_),
        MPI_Alltoall_init(big, 2, MPI_INT, out, 2, MPI_INT, ic, MPI_INFO_NULL, &rq_));
    for (int j = 0; j < rn; j++)
        for (int i = 0; i < 2; i++)
            CHECK_EQ(out[2 * j + i], val(rworld(j), 10 * lr + i));
    /* alltoallv: (lr + j) % 3 to remote j */
    for (int j = 0; j < rn; j++) {
        sc[j] = (lr + j) % 3;
        rc[j] = (j + lr) % 3;
        sd[j] = rd[j] = 4 * j;
        for (int i = 0; i < 4; i++)
            big[4 * j + i] = val(wrank, 10 * j + i);
    }
    RUN_FORMS(mode, MPI_Alltoallv(big, sc, sd, MPI_INT, out, rc, rd, MPI_INT, ic),
        MPI_Ialltoallv(big, sc, sd, MPI_INT, out, rc, rd, MPI_INT, ic, &rq_),
        MPI_Alltoallv_init(big, sc, sd, MPI_INT, out, rc, rd, MPI_INT, ic, MPI_INFO_NULL, &rq_));
    for (int j = 0; j < rn; j++)
        for (int i = 0; i < rc[j]; i++)
            CHECK_EQ(out[4 * j + i], val(rworld(j), 10 * lr + i));
    /* reduce_scatter_block: each group's vectors (rcount * local size
     * long, equal across groups with rcount = the remote size) go to the
     * other group, rcount each */
    int rcount = rn;
    for (int i = 0; i < rcount * ln; i++)
        big[i] = val(wrank, i);
    RUN_FORMS(mode, MPI_Reduce_scatter_block(big, out, rcount, MPI_INT, MPI_SUM, ic),
        MPI_Ireduce_scatter_block(big, out, rcount, MPI_INT, MPI_SUM, ic, &rq_),
        MPI_Reduce_scatter_block_init(big, out, rcount, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL,
                                      &rq_));
    for (int i = 0; i < rcount; i++)
        CHECK_EQ(out[i], remote_sum(lr * rcount + i));
    /* reduce_scatter: the same vectors, rn to each member */
    for (int k = 0; k < ln; k++)
        rc[k] = rn;
    RUN_FORMS(mode, MPI_Reduce_scatter(big, out, rc, MPI_INT, MPI_SUM, ic),
        MPI_Ireduce_scatter(big, out, rc, MPI_INT, MPI_SUM, ic, &rq_),
        MPI_Reduce_scatter_init(big, out, rc, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &rq_));
    for (int i = 0; i < rn; i++)
        CHECK_EQ(out[i], remote_sum(lr * rn + i));
    free(big), free(out), free(sc), free(sd), free(rc), free(rd);
}

/* Vectors of 80 KB: past every size at which an intracommunicator's
 * collectives choose by size (one-sided windows, pieces), which must not
 * look at an intercommunicator's members as if they were one group (a
 * Reduce read past the remote group's ranks where the local one is
 * larger: MPICH's coll/icreduce at 5 ranks). */
static void test_large(int mode, int rg)
{
    enum { N = 20000 };
    int root = root_arg(rg);
    int *a = tu_malloc(sizeof(int) * N), *b = tu_malloc(sizeof(int) * N);
    for (int i = 0; i < N; i++)
        a[i] = val(wrank, i), b[i] = -1;
    RUN_FORMS(mode, MPI_Reduce(a, b, N, MPI_INT, MPI_SUM, root, ic),
        MPI_Ireduce(a, b, N, MPI_INT, MPI_SUM, root, ic, &rq_),
        MPI_Reduce_init(a, b, N, MPI_INT, MPI_SUM, root, ic, MPI_INFO_NULL, &rq_));
    for (int i = 0; i < N && root == MPI_ROOT; i++)
        CHECK_EQ(b[i], remote_sum(i));
    int *buf = root == MPI_ROOT ? a : b;
    RUN_FORMS(mode, MPI_Bcast(buf, N, MPI_INT, root, ic),
        MPI_Ibcast(buf, N, MPI_INT, root, ic, &rq_),
        MPI_Bcast_init(buf, N, MPI_INT, root, ic, MPI_INFO_NULL, &rq_));
    for (int i = 0; i < N && root >= 0; i++)
        CHECK_EQ(b[i], val(rworld(0), i));
    RUN_FORMS(mode, MPI_Allreduce(a, b, N, MPI_INT, MPI_SUM, ic),
        MPI_Iallreduce(a, b, N, MPI_INT, MPI_SUM, ic, &rq_),
        MPI_Allreduce_init(a, b, N, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &rq_));
    for (int i = 0; i < N; i++)
        CHECK_EQ(b[i], remote_sum(i));
    free(a), free(b);
}

static void test_errors(void)
{
    CHECK_MPI(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
    int x = 0, y;
    CHECK_ERR(MPI_Bcast(&x, 1, MPI_INT, rn, ic), MPI_ERR_ROOT);
    CHECK_ERR(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, ic), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, ic), MPI_ERR_COMM);
    CHECK_ERR(MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, ic), MPI_ERR_COMM);
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
    if (wsize > 1) {
        MPI_Comm half;
        even = wrank % 2 == 0;
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &half));
        CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, even ? 1 : 0, 7, &ic));
        CHECK_MPI(MPI_Comm_rank(ic, &lr));
        CHECK_MPI(MPI_Comm_size(ic, &ln));
        CHECK_MPI(MPI_Comm_remote_size(ic, &rn));
        for (int mode = 0; mode < 3; mode++) {
            test_rooted(mode, 0);
            test_rooted(mode, 1);
            test_all(mode);
            test_large(mode, 0);
            test_large(mode, 1);
        }
        test_errors();
        CHECK_MPI(MPI_Comm_free(&ic));
        CHECK_MPI(MPI_Comm_free(&half));
    }
    CHECK_MPI(MPI_Finalize());
    return 0;
}
