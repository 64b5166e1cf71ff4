/* coll_replay_kinds: the nonblocking collectives with fixed counts —
 * MPI_Ibcast, Ireduce, Igather, Iscatter, Iallgather, Ialltoall,
 * Ireduce_scatter_block, Iscan, Iexscan — called again with the same
 * arguments replay the schedule recorded the time before (coll/sched.h,
 * "Replay").  Each is called 5 times in a row on the same buffers with new
 * contents, every root in turn for the rooted ones (each root is a new
 * recording), and every result is checked exactly; with
 * FM_TEST_EXPECT_REPLAY=1 (fabmpi) MPI_T's coll_sched_replayed must count
 * 4 replays per argument set.
 *
 * Then a reduce whose op is freed and a new one created, likely at the
 * freed one's address: first a non-commutative op (the rank-ordered tree),
 * then a commutative one (another tree, root 1) on the same arguments.  A
 * rank whose steps never use the op (a leaf) must not replay the first
 * one's tree. */
#include "testutil.h"

static int rank, size;

enum { N = 300, CALLS = 5 };

static unsigned val(int who, int i, int call) { return (unsigned)(who * 7919 + i * 31 + call * 101 + 1); }

static void check_eq(const unsigned *got, const unsigned *want, int n, const char *what, int call)
{
    for (int i = 0; i < n; i++)
        if (got[i] != want[i])
            tu_fail(__FILE__, __LINE__, "%s, call %d: [%d] = %u, want %u", what, call, i, got[i],
                    want[i]);
}

static void wait1(MPI_Request *rq) { CHECK_MPI(MPI_Wait(rq, MPI_STATUS_IGNORE)); }

/* The element-wise sum over ranks lo..hi-1 of val(p, i, call). */
static unsigned sum_of(int lo, int hi, int i, int call)
{
    unsigned s = 0;
    for (int p = lo; p < hi; p++)
        s += val(p, i, call);
    return s;
}

static int sets; /* argument sets run, for the replay count */

static void run_bcast(unsigned *a, unsigned *w)
{
    for (int root = 0; root < size; root++, sets++)
        for (int c = 0; c < CALLS; c++) {
            for (int i = 0; i < N; i++)
                a[i] = rank == root ? val(root, i, c) : 0, w[i] = val(root, i, c);
            MPI_Request rq;
            CHECK_MPI(MPI_Ibcast(a, N, MPI_UNSIGNED, root, MPI_COMM_WORLD, &rq));
            wait1(&rq);
            check_eq(a, w, N, "MPI_Ibcast", c);
        }
}

static void run_reduce(unsigned *a, unsigned *b, unsigned *w)
{
    for (int root = 0; root < size; root++, sets++)
        for (int c = 0; c < CALLS; c++) {
            for (int i = 0; i < N; i++)
                a[i] = val(rank, i, c), b[i] = 0, w[i] = sum_of(0, size, i, c);
            MPI_Request rq;
            CHECK_MPI(MPI_Ireduce(a, b, N, MPI_UNSIGNED, MPI_SUM, root, MPI_COMM_WORLD, &rq));
            wait1(&rq);
            if (rank == root)
                check_eq(b, w, N, "MPI_Ireduce", c);
        }
}

static void run_gather_scatter(unsigned *a, unsigned *b, unsigned *w)
{
    for (int root = 0; root < size; root++, sets += 2)
        for (int c = 0; c < CALLS; c++) {
            MPI_Request rq;
            for (int i = 0; i < N; i++)
                a[i] = val(rank, i, c);
            for (int i = 0; i < N * size; i++)
                b[i] = 0, w[i] = val(i / N, i % N, c);
            CHECK_MPI(MPI_Igather(a, N, MPI_UNSIGNED, b, N, MPI_UNSIGNED, root, MPI_COMM_WORLD, &rq));
            wait1(&rq);
            if (rank == root)
                check_eq(b, w, N * size, "MPI_Igather", c);
            for (int i = 0; i < N * size; i++)
                b[i] = rank == root ? val(i / N, i % N, c + 50) : 0;
            for (int i = 0; i < N; i++)
                a[i] = 0, w[i] = val(rank, i, c + 50);
            CHECK_MPI(MPI_Iscatter(b, N, MPI_UNSIGNED, a, N, MPI_UNSIGNED, root, MPI_COMM_WORLD, &rq));
            wait1(&rq);
            check_eq(a, w, N, "MPI_Iscatter", c);
        }
}

static void run_all(unsigned *a, unsigned *b, unsigned *w)
{
    MPI_Request rq;
    for (int c = 0; c < CALLS; c++) { /* allgather */
        for (int i = 0; i < N; i++)
            a[i] = val(rank, i, c);
        for (int i = 0; i < N * size; i++)
            b[i] = 0, w[i] = val(i / N, i % N, c);
        CHECK_MPI(MPI_Iallgather(a, N, MPI_UNSIGNED, b, N, MPI_UNSIGNED, MPI_COMM_WORLD, &rq));
        wait1(&rq);
        check_eq(b, w, N * size, "MPI_Iallgather", c);
    }
    for (int c = 0; c < CALLS; c++) { /* alltoall: block p of rank r goes to rank p */
        for (int i = 0; i < N * size; i++)
            a[i] = val(rank * size + i / N, i % N, c), b[i] = 0,
            w[i] = val((i / N) * size + rank, i % N, c);
        CHECK_MPI(MPI_Ialltoall(a, N, MPI_UNSIGNED, b, N, MPI_UNSIGNED, MPI_COMM_WORLD, &rq));
        wait1(&rq);
        check_eq(b, w, N * size, "MPI_Ialltoall", c);
    }
    for (int c = 0; c < CALLS; c++) { /* reduce_scatter_block: block `rank` of the sum */
        for (int i = 0; i < N * size; i++)
            a[i] = val(rank, i, c);
        for (int i = 0; i < N; i++)
            b[i] = 0, w[i] = sum_of(0, size, rank * N + i, c);
        CHECK_MPI(MPI_Ireduce_scatter_block(a, b, N, MPI_UNSIGNED, MPI_SUM, MPI_COMM_WORLD, &rq));
        wait1(&rq);
        check_eq(b, w, N, "MPI_Ireduce_scatter_block", c);
    }
    for (int ex = 0; ex < 2; ex++)
        for (int c = 0; c < CALLS; c++) { /* scan, exscan */
            for (int i = 0; i < N; i++)
                a[i] = val(rank, i, c), b[i] = 0, w[i] = sum_of(0, ex ? rank : rank + 1, i, c);
            if (ex)
                CHECK_MPI(MPI_Iexscan(a, b, N, MPI_UNSIGNED, MPI_SUM, MPI_COMM_WORLD, &rq));
            else
                CHECK_MPI(MPI_Iscan(a, b, N, MPI_UNSIGNED, MPI_SUM, MPI_COMM_WORLD, &rq));
            wait1(&rq);
            if (!ex || rank > 0) /* exscan leaves rank 0's buffer undefined */
                check_eq(b, w, N, ex ? "MPI_Iexscan" : "MPI_Iscan", c);
        }
    sets += 5;
}

/* Element-wise sum of 4-unsigned elements: commutative, on the matrix type. */
static void vec_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    unsigned *x = in, *y = inout;
    for (int i = 0; i < 4 * *len; i++)
        y[i] += x[i];
}

static void run_op_reuse(void)
{
    enum { M = 3 }; /* 2x2 matrices */
    MPI_Datatype mat;
    CHECK_MPI(MPI_Type_contiguous(4, MPI_UNSIGNED, &mat));
    CHECK_MPI(MPI_Type_commit(&mat));
    unsigned s[4 * M], r[4 * M];
    const int root = size > 1; /* not 0: the two ops' trees differ (coll/reduce.c) */
    for (int k = 0; k < 6; k++) {
        const int commute = k % 2;
        MPI_Op op;
        CHECK_MPI(MPI_Op_create(commute ? vec_sum : tu_mat_op, commute, &op));
        for (int i = 0; i < 4 * M; i++)
            s[i] = val(rank, i, 0) % 7 + 1, r[i] = 0;
        MPI_Request rq;
        CHECK_MPI(MPI_Ireduce(s, r, M, mat, op, root, MPI_COMM_WORLD, &rq));
        wait1(&rq);
        if (rank == root)
            for (int e = 0; e < M; e++) {
                unsigned w[4], m[4];
                for (int q = 0; q < 4; q++)
                    w[q] = val(0, 4 * e + q, 0) % 7 + 1;
                for (int p = 1; p < size; p++) {
                    for (int q = 0; q < 4; q++)
                        m[q] = val(p, 4 * e + q, 0) % 7 + 1;
                    if (commute)
                        for (int q = 0; q < 4; q++)
                            w[q] += m[q];
                    else
                        tu_mat_mul(w, m, w);
                }
                check_eq(r + 4 * e, w, 4, commute ? "MPI_Ireduce, commutative op" :
                                                    "MPI_Ireduce, non-commutative op", k);
            }
        CHECK_MPI(MPI_Op_free(&op));
    }
    MPI_Type_free(&mat);
}

int main(int argc, char **argv)
{
    tu_init_min(&argc, &argv, &rank, &size, 1, "coll_replay_kinds");
    int provided;
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    const int expect = getenv("FM_TEST_EXPECT_REPLAY") && atoi(getenv("FM_TEST_EXPECT_REPLAY"));
    tu_counters ctr;
    long long d[1];
    const char *names[1] = {"coll_sched_replayed"};
    if (expect)
        tu_counters_start(&ctr, 1, names);
    unsigned *a = tu_malloc((size_t)N * size * sizeof *a), *b = tu_malloc((size_t)N * size * sizeof *b);
    unsigned *w = tu_malloc((size_t)N * size * sizeof *w);
    run_bcast(a, w);
    run_reduce(a, b, w);
    run_gather_scatter(a, b, w);
    run_all(a, b, w);
    if (expect) {
        tu_counters_deltas(&ctr, d);
        CHECKF(d[0] == (long long)sets * (CALLS - 1), "%lld replays for %d argument sets of %d calls",
               d[0], sets, CALLS);
        tu_counters_stop(&ctr);
    }
    run_op_reuse();
    free(a);
    free(b);
    free(w);
    CHECK_MPI(MPI_T_finalize());
    CHECK_MPI(MPI_Finalize());
    if (rank == 0)
        printf("coll_replay_kinds: ok (%d ranks)\n", size);
    return 0;
}
