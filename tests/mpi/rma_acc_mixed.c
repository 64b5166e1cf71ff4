/* rma_acc_mixed: large and small accumulates to overlapping locations at
 * the same time, on Win_allocate and Win_create windows, exact results.
 *
 * Target: the last rank, an array of N long longs.  Under lock_all every
 * rank, for ROUNDS rounds, does
 *   - one MPI_Accumulate(SUM) of N elements (+1 each, large path),
 *   - Fetch_and_op(SUM, +1) on element (round * 7) % N (single element),
 *   - Compare_and_swap increments of element N - 1 (a CAS loop),
 *   - one Accumulate(SUM) of a strided vector (every 3rd element, +2),
 *   - one Get_accumulate(SUM) of a 1000-element run starting mid-array
 *     (+1 each), checking the fetched values are consistent (monotone
 *     counters never go down between two of our own fetches),
 * and at the end the target checks every element exactly.  A lost update
 * anywhere (a bulk read-modify-write overlapping an atomic) changes a count.
 * Then an MPI_REPLACE race: every rank replaces the whole array with its
 * own rank number; afterwards all elements hold one rank's value (no
 * element-level mix within a replace is allowed to tear elements). */
#include "testutil.h"

#define N 20000 /* 160 KB: several stripes, beyond any small-op threshold */
#define ROUNDS 12
#define RUN 1000
#define RUN_OFF 9000

static int rank, size;

static void run(MPI_Win win, long long *a)
{
    const int root = size - 1;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    memset(a, 0, N * sizeof *a);
    CHECK_MPI(MPI_Win_unlock(rank, win));
    MPI_Barrier(MPI_COMM_WORLD);

    long long *ones = tu_malloc(N * sizeof *ones), *twos = tu_malloc(N * sizeof *twos);
    long long *res = tu_malloc(RUN * sizeof *res), *prev = tu_malloc(RUN * sizeof *prev);
    for (int i = 0; i < N; i++) {
        ones[i] = 1;
        twos[i] = 2;
    }
    for (int i = 0; i < RUN; i++)
        prev[i] = -1;
    MPI_Datatype every3;
    CHECK_MPI(MPI_Type_vector(N / 3, 1, 3, MPI_LONG_LONG, &every3));
    CHECK_MPI(MPI_Type_commit(&every3));

    CHECK_MPI(MPI_Win_lock_all(0, win));
    for (int r = 0; r < ROUNDS; r++) {
        CHECK_MPI(MPI_Accumulate(ones, N, MPI_LONG_LONG, root, 0, N, MPI_LONG_LONG, MPI_SUM, win));
        long long one = 1, old;
        CHECK_MPI(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, root, (r * 7) % N, MPI_SUM, win));
        CHECK_MPI(MPI_Accumulate(twos, N / 3, MPI_LONG_LONG, root, 0, 1, every3, MPI_SUM, win));
        CHECK_MPI(MPI_Get_accumulate(ones, RUN, MPI_LONG_LONG, res, RUN, MPI_LONG_LONG, root,
                                     RUN_OFF, RUN, MPI_LONG_LONG, MPI_SUM, win));
        CHECK_MPI(MPI_Win_flush(root, win));
        for (int i = 0; i < RUN; i++) {
            CHECKF(res[i] > prev[i], "round %d: element %d fetched %lld after %lld", r,
                   RUN_OFF + i, res[i], prev[i]);
            prev[i] = res[i];
        }
        long long seen, want, got;
        CHECK_MPI(MPI_Fetch_and_op(NULL, &seen, MPI_LONG_LONG, root, N - 1, MPI_NO_OP, win));
        CHECK_MPI(MPI_Win_flush(root, win));
        for (;;) {
            want = seen + 1;
            CHECK_MPI(MPI_Compare_and_swap(&want, &seen, &got, MPI_LONG_LONG, root, N - 1, win));
            CHECK_MPI(MPI_Win_flush(root, win));
            if (got == seen)
                break;
            seen = got;
        }
    }
    CHECK_MPI(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == root) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
        for (int i = 0; i < N; i++) {
            long long want = (long long)ROUNDS * size; /* bulk +1 */
            if (i % 3 == 0 && i / 3 < N / 3)
                want += 2LL * ROUNDS * size;
            if (i >= RUN_OFF && i < RUN_OFF + RUN)
                want += (long long)ROUNDS * size;
            for (int r = 0; r < ROUNDS; r++)
                if ((r * 7) % N == i)
                    want += size;
            if (i == N - 1)
                want += (long long)ROUNDS * size;
            CHECKF(a[i] == want, "element %d: %lld, want %lld", i, a[i], want);
        }
        CHECK_MPI(MPI_Win_unlock(rank, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* REPLACE race: whole-array replaces from everyone, plus single-element
     * replaces of a value no rank writes in bulk (-1); every element ends
     * as some rank's value or -1, never a torn mix of bytes. */
    for (int i = 0; i < N; i++)
        ones[i] = rank + 1;
    CHECK_MPI(MPI_Win_lock_all(0, win));
    for (int r = 0; r < 4; r++) {
        CHECK_MPI(MPI_Accumulate(ones, N, MPI_LONG_LONG, root, 0, N, MPI_LONG_LONG, MPI_REPLACE, win));
        long long m1 = -1, old;
        CHECK_MPI(MPI_Fetch_and_op(&m1, &old, MPI_LONG_LONG, root, (r * 4099 + rank) % N, MPI_REPLACE, win));
        CHECK_MPI(MPI_Win_flush(root, win));
        CHECK(old == -1 || (old >= 0 && old <= size));
    }
    CHECK_MPI(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == root) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
        for (int i = 0; i < N; i++)
            CHECKF(a[i] == -1 || (a[i] >= 1 && a[i] <= size), "element %d: %lld", i, a[i]);
        CHECK_MPI(MPI_Win_unlock(rank, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Type_free(&every3);
    free(ones);
    free(twos);
    free(res);
    free(prev);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long long *a;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(N * sizeof *a, sizeof *a, MPI_INFO_NULL, MPI_COMM_WORLD, &a, &win));
    run(win, a);
    CHECK_MPI(MPI_Win_free(&win));

    a = tu_malloc(N * sizeof *a);
    CHECK_MPI(MPI_Win_create(a, N * sizeof *a, sizeof *a, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    run(win, a);
    CHECK_MPI(MPI_Win_free(&win));
    free(a);
    MPI_Finalize();
    return 0;
}
