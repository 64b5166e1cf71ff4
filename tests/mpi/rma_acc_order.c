/* rma_acc_order: the accumulate_ordering window hint.
 *
 * Info: a window created with accumulate_ordering=none (and same_size=true)
 * hands both back from MPI_Win_get_info exactly as set; MPI_Win_set_info
 * with another key keeps them, and (fabmpi) changing the hint to "rar,war"
 * and back is reported as set.  A window created with a value that is not a valid
 * ordering still reports it (hints are kept as given; fabmpi ignores it
 * with a warning and keeps the default ordering).
 *
 * Results with ordering none (accumulates to one target may be applied in
 * any order; over OFI provider atomics they are issued without waiting for
 * the earlier ones): under lock_all every rank, with no flush in between,
 *   - does ROUNDS Fetch_and_op(SUM, +1) on a counter at window rank 0:
 *     afterwards the fetched values of all ranks together are exactly
 *     0 .. size*ROUNDS-1, each once (an atomic lost or applied twice breaks
 *     that), and the counter is size*ROUNDS;
 *   - does ROUNDS Accumulate(SUM) of a row of N ints into the next rank's
 *     array (+rank+1 each), and ROUNDS Accumulate(BXOR) of one bit each
 *     into a word at the rank after it;
 *   - a CAS loop incrementing a second counter at the last rank.
 * After the flush every element is exact.  The same run on a window with
 * the partial ordering "raw,waw" and on one with the default ordering. */
#include "testutil.h"

#define ROUNDS 40
#define N 300

static int rank, size;

static void expect_info(MPI_Win win, const char *key, const char *want)
{
    MPI_Info used;
    char val[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    CHECK_MPI(MPI_Win_get_info(win, &used));
    CHECK_MPI(MPI_Info_get(used, key, MPI_MAX_INFO_VAL, val, &flag));
    CHECKF(flag, "Win_get_info: key %s missing (want \"%s\")", key, want);
    CHECKF(strcmp(val, want) == 0, "Win_get_info: %s=\"%s\", want \"%s\"", key, val, want);
    CHECK_MPI(MPI_Info_free(&used));
}

/* Window layout in ints: [0] counter, [1] CAS counter, [2] xor word,
 * [3 .. 3+N) the accumulated row. */
#define W_CTR 0
#define W_CAS 1
#define W_XOR 2
#define W_ROW 3
#define W_LEN (W_ROW + N)

static void run(MPI_Win win, int *a, const char *what)
{
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    memset(a, 0, W_LEN * sizeof *a);
    CHECK_MPI(MPI_Win_unlock(rank, win));
    MPI_Barrier(MPI_COMM_WORLD);

    int next = (rank + 1) % size, after = (rank + 2) % size, last = size - 1;
    int row[N], fetched[ROUNDS], one = 1, bit = 1 << (rank % 31);
    for (int i = 0; i < N; i++)
        row[i] = rank + 1;
    CHECK_MPI(MPI_Win_lock_all(0, win));
    for (int r = 0; r < ROUNDS; r++) {
        CHECK_MPI(MPI_Fetch_and_op(&one, &fetched[r], MPI_INT, 0, W_CTR, MPI_SUM, win));
        CHECK_MPI(MPI_Accumulate(row, N, MPI_INT, next, W_ROW, N, MPI_INT, MPI_SUM, win));
        CHECK_MPI(MPI_Accumulate(&bit, 1, MPI_INT, after, W_XOR, 1, MPI_INT, MPI_BXOR, win));
    }
    /* CAS loop: read, try old -> old + 1 until it sticks */
    for (int r = 0; r < ROUNDS / 4; r++) {
        int old = 0, cur;
        for (;;) {
            int want = old + 1;
            CHECK_MPI(MPI_Compare_and_swap(&want, &old, &cur, MPI_INT, last, W_CAS, win));
            CHECK_MPI(MPI_Win_flush(last, win));
            if (cur == old)
                break;
            old = cur;
        }
    }
    CHECK_MPI(MPI_Win_flush_all(win));
    CHECK_MPI(MPI_Win_unlock_all(win));

    /* every fetched counter value exactly once across the ranks */
    int total = size * ROUNDS;
    int *all = tu_malloc((size_t)total * sizeof *all);
    CHECK_MPI(MPI_Allgather(fetched, ROUNDS, MPI_INT, all, ROUNDS, MPI_INT, MPI_COMM_WORLD));
    char *seen = calloc((size_t)total, 1);
    CHECK(seen != NULL);
    for (int i = 0; i < total; i++) {
        CHECKF(all[i] >= 0 && all[i] < total, "%s: fetched counter value %d of %d", what, all[i],
               total);
        CHECKF(!seen[all[i]], "%s: counter value %d fetched twice", what, all[i]);
        seen[all[i]] = 1;
    }
    free(seen);
    free(all);
    MPI_Barrier(MPI_COMM_WORLD);

    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    int prev = (rank - 1 + size) % size;
    if (rank == 0)
        CHECKF(a[W_CTR] == total, "%s: counter %d, want %d", what, a[W_CTR], total);
    if (rank == last)
        CHECKF(a[W_CAS] == size * (ROUNDS / 4), "%s: CAS counter %d, want %d", what, a[W_CAS],
               size * (ROUNDS / 4));
    /* ROUNDS (even) xors of one bit per origin cancel; one lost leaves it */
    CHECKF(a[W_XOR] == 0, "%s: xor word 0x%x, want 0", what, (unsigned)a[W_XOR]);
    int want = ROUNDS * (prev + 1);
    for (int i = 0; i < N; i++)
        CHECKF(a[W_ROW + i] == want, "%s: row[%d] = %d, want %d", what, i, a[W_ROW + i], want);
    CHECK_MPI(MPI_Win_unlock(rank, win));
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Info info;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "accumulate_ordering", "none"));
    CHECK_MPI(MPI_Info_set(info, "same_size", "true"));
    MPI_Win win;
    int *a;
    CHECK_MPI(MPI_Win_allocate(W_LEN * sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &a, &win));
    expect_info(win, "accumulate_ordering", "none");
    expect_info(win, "same_size", "true");
    run(win, a, "allocate, ordering none");

    /* set_info with another key keeps the earlier ones */
    MPI_Info other;
    CHECK_MPI(MPI_Info_create(&other));
    CHECK_MPI(MPI_Info_set(other, "no_locks", "false"));
    CHECK_MPI(MPI_Win_set_info(win, other));
    expect_info(win, "accumulate_ordering", "none");
    expect_info(win, "same_size", "true");
    expect_info(win, "no_locks", "false");
    /* changing the hint: fabmpi honours it (it only decides whether an
     * origin waits) and reports it as set; another MPI may ignore a changed
     * hint (Open MPI 4.1 then drops the key), so only the values count there */
    CHECK_MPI(MPI_Info_set(other, "accumulate_ordering", "rar,war"));
    CHECK_MPI(MPI_Win_set_info(win, other));
#ifdef FABMPI
    expect_info(win, "accumulate_ordering", "rar,war");
#endif
    run(win, a, "allocate, ordering rar,war after set_info");
    CHECK_MPI(MPI_Info_set(other, "accumulate_ordering", "none"));
    CHECK_MPI(MPI_Win_set_info(win, other));
#ifdef FABMPI
    expect_info(win, "accumulate_ordering", "none");
#endif
    run(win, a, "allocate, ordering none again");
    CHECK_MPI(MPI_Win_free(&win));

    /* partial ordering at creation, on a Win_create window */
    CHECK_MPI(MPI_Info_set(info, "accumulate_ordering", "raw,waw"));
    int *mem = tu_malloc(W_LEN * sizeof *mem);
    CHECK_MPI(MPI_Win_create(mem, W_LEN * sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &win));
    expect_info(win, "accumulate_ordering", "raw,waw");
    run(win, mem, "create, ordering raw,waw");
    CHECK_MPI(MPI_Win_free(&win));
    free(mem);

    /* a value that is no ordering is still handed back as given */
    CHECK_MPI(MPI_Info_set(info, "accumulate_ordering", "rar,sideways"));
    CHECK_MPI(MPI_Win_allocate(W_LEN * sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &a, &win));
    expect_info(win, "accumulate_ordering", "rar,sideways");
    run(win, a, "allocate, invalid ordering (default kept)");
    CHECK_MPI(MPI_Win_free(&win));

    /* default ordering */
    CHECK_MPI(MPI_Win_allocate(W_LEN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                               &a, &win));
    run(win, a, "allocate, default ordering");
    CHECK_MPI(MPI_Win_free(&win));

    CHECK_MPI(MPI_Info_free(&other));
    CHECK_MPI(MPI_Info_free(&info));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("rma_acc_order: ok (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
