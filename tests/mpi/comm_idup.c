/* comm_idup.c — MPI_Comm_idup is nonblocking:
 *   - overlapping duplicates (each rank idups a communicator it shares with
 *     its left neighbour and one it shares with its right, then waits for
 *     both), which deadlocks if idup blocks;
 *   - twenty outstanding on one communicator, with blocking Comm_dup and
 *     Comm_split of halves made while they run (the context ids must still
 *     agree), completed in reverse order;
 *   - two communicators duplicated in opposite orders by even and odd
 *     ranks, three times;
 *   - intercommunicators, two at once, leaders starting last;
 *   - attributes copied, the new communicators isolated from each other. */
#include "testutil.h"

static int rank, size;

/* The communicator works and is its own: a sum over it, and a message on
 * it that a receive on `other` (same tag) must not take. */
static void check_comm(MPI_Comm c, int expect_size)
{
    int n, sum = 0, one = 1;
    CHECK_MPI(MPI_Comm_size(c, &n));
    CHECK_EQ(n, expect_size);
    CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK_EQ(sum, expect_size);
}

static void test_overlap(void)
{
    if (size < 2)
        return;
    MPI_Comm left_pair = MPI_COMM_NULL, right_pair = MPI_COMM_NULL, tmp;
    /* Pair i = {i, i+1 mod size}: I am the first of pair `rank` and the
     * second of pair `rank - 1`. */
    for (int i = 0; i < size; i++) {
        int first = i, second = (i + 1) % size;
        int in = rank == first || rank == second;
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, in ? 0 : MPI_UNDEFINED,
                                 rank == first ? 0 : 1, &tmp));
        if (rank == first)
            right_pair = tmp;
        else if (rank == second)
            left_pair = tmp;
    }
    MPI_Comm dups[2];
    MPI_Request rq[2];
    CHECK_MPI(MPI_Comm_idup(right_pair, &dups[0], &rq[0]));
    CHECK_MPI(MPI_Comm_idup(left_pair, &dups[1], &rq[1]));
    CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    /* Use them pair by pair in pair order (pair rank-1, then pair rank;
     * rank 0: pair 0, then pair size-1), so the blocking checks chain. */
    for (int j = 0; j < 2; j++) {
        int k = rank == 0 ? j : 1 - j;
        check_comm(dups[k], 2);
        int cmp;
        CHECK_MPI(MPI_Comm_compare(dups[k], k ? left_pair : right_pair, &cmp));
        CHECK_EQ(cmp, MPI_CONGRUENT);
        CHECK_MPI(MPI_Comm_free(&dups[k]));
    }
    CHECK_MPI(MPI_Comm_free(&left_pair));
    CHECK_MPI(MPI_Comm_free(&right_pair));
}

static int copies;
static int copy_fn(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)key, (void)extra;
    copies++;
    *(void **)out = (char *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static void test_many(void)
{
    enum { K = 20 };
    static char base[4];
    int key;
    CHECK_MPI(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, key, base));
    MPI_Comm d[K];
    MPI_Request rq[K];
    copies = 0;
    for (int k = 0; k < K; k++) {
        CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &d[k], &rq[k]));
        if (k == K / 2) {
            /* Created while the idups run, on fewer ranks: they must not
             * take an id the idups are agreeing on at some members only. */
            MPI_Comm half, hdup;
            CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
            CHECK_MPI(MPI_Comm_dup(half, &hdup));
            check_comm(hdup, (size + 1 - rank % 2) / 2);
            CHECK_MPI(MPI_Comm_free(&hdup));
            CHECK_MPI(MPI_Comm_free(&half));
        }
    }
    for (int k = K - 1; k >= 0; k--)
        CHECK_MPI(MPI_Wait(&rq[k], MPI_STATUS_IGNORE));
    CHECK_EQ(copies, K);
    /* Every duplicate is its own context: a message sent on d[k] is
     * received on d[k] only, even when all use the same tag and are
     * received in the opposite order. */
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    int got[K];
    MPI_Request sr[2 * K];
    for (int k = 0; k < K; k++) {
        got[k] = -1;
        CHECK_MPI(MPI_Irecv(&got[k], 1, MPI_INT, left, 5, d[K - 1 - k], &sr[k]));
    }
    int msg[K];
    for (int k = 0; k < K; k++) {
        msg[k] = k;
        CHECK_MPI(MPI_Isend(&msg[k], 1, MPI_INT, right, 5, d[k], &sr[K + k]));
    }
    CHECK_MPI(MPI_Waitall(2 * K, sr, MPI_STATUSES_IGNORE));
    for (int k = 0; k < K; k++) {
        CHECK_EQ(got[k], K - 1 - k);
        void *v;
        int flag;
        CHECK_MPI(MPI_Comm_get_attr(d[k], key, &v, &flag));
        CHECK(flag && v == base + 1);
        check_comm(d[k], size);
        CHECK_MPI(MPI_Comm_free(&d[k]));
    }
    CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, key));
    CHECK_MPI(MPI_Comm_free_keyval(&key));
}

/* Two duplicates of two communicators, started in opposite orders by
 * even and odd ranks: each waits its turn for context ids instead of the
 * two taking each other's windows until the ids run out. */
static void test_crossed(void)
{
    MPI_Comm a, b, da, db;
    MPI_Request rq[2];
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &b));
    for (int round = 0; round < 3; round++) {
        if (rank % 2 == 0) {
            CHECK_MPI(MPI_Comm_idup(a, &da, &rq[0]));
            CHECK_MPI(MPI_Comm_idup(b, &db, &rq[1]));
        } else {
            CHECK_MPI(MPI_Comm_idup(b, &db, &rq[1]));
            CHECK_MPI(MPI_Comm_idup(a, &da, &rq[0]));
        }
        CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        check_comm(da, size);
        check_comm(db, size);
        CHECK_MPI(MPI_Comm_free(&da));
        CHECK_MPI(MPI_Comm_free(&db));
    }
    CHECK_MPI(MPI_Comm_free(&a));
    CHECK_MPI(MPI_Comm_free(&b));
}

/* Intercommunicator duplicates are nonblocking too: each side's members
 * other than its leader start theirs, then tell their leader (a
 * synchronous send), which only then starts its own; two at once. */
static void test_inter(void)
{
    if (size < 2)
        return;
    MPI_Comm half, ic, d[2];
    MPI_Request rq[2];
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
    CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 3, &ic));
    int lrank, lsize, rsize, token = 1;
    CHECK_MPI(MPI_Comm_rank(ic, &lrank));
    CHECK_MPI(MPI_Comm_size(half, &lsize));
    CHECK_MPI(MPI_Comm_remote_size(ic, &rsize));
    if (lrank != 0) {
        CHECK_MPI(MPI_Comm_idup(ic, &d[0], &rq[0]));
        CHECK_MPI(MPI_Comm_idup(ic, &d[1], &rq[1]));
        CHECK_MPI(MPI_Ssend(&token, 1, MPI_INT, 0, 0, half));
    } else {
        for (int i = 1; i < lsize; i++)
            CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, i, 0, half, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Comm_idup(ic, &d[0], &rq[0]));
        CHECK_MPI(MPI_Comm_idup(ic, &d[1], &rq[1]));
    }
    CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    for (int k = 0; k < 2; k++) {
        int flag, n, sum = 0, one = 1;
        CHECK_MPI(MPI_Comm_test_inter(d[k], &flag));
        CHECK(flag);
        CHECK_MPI(MPI_Comm_remote_size(d[k], &n));
        CHECK_EQ(n, rsize);
        CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, d[k]));
        CHECK_EQ(sum, rsize);
        CHECK_MPI(MPI_Comm_free(&d[k]));
    }
    CHECK_MPI(MPI_Comm_free(&ic));
    CHECK_MPI(MPI_Comm_free(&half));
}

/* The duplicate's request is a collective's: not to be freed. */
static void test_errors(void)
{
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Comm d;
    MPI_Request rq;
    CHECK_ERR(MPI_Comm_idup(MPI_COMM_WORLD, &d, NULL), MPI_ERR_ARG);
    CHECK_ERR(MPI_Comm_idup(MPI_COMM_NULL, &d, &rq), MPI_ERR_COMM);
    CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &d, &rq));
    CHECK_ERR(MPI_Request_free(&rq), MPI_ERR_REQUEST);
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    check_comm(d, size);
    CHECK_MPI(MPI_Comm_free(&d));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    test_overlap();
    test_many();
    test_crossed();
    test_inter();
    test_errors();
    CHECK_MPI(MPI_Finalize());
    return 0;
}
