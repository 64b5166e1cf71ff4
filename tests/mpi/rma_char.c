/* rma_char: accumulates and atomics on MPI_CHAR compute as signed char,
 * like the reductions (coll_char), on every path a window takes: loads and
 * stores into shared memory (MPI_Win_allocate), CMA (MPI_Win_create), and
 * over OFI active messages or provider atomics (TESTLIST runs it with
 * FABMPI_NET=ofi on net and tcp;ofi_rxm).
 *
 * Contributor 0 is a window's initial contents, rank r is contributor r + 1
 * (char_ref.h gives each one's values, which make SUM and PROD overflow).
 * For every integer op (SUM, PROD, MIN, MAX, LAND, LOR, LXOR, BAND, BOR,
 * BXOR):
 *   - MPI_Accumulate from every rank into every rank, between fences, into
 *     a contiguous target and into every other char of a strided one: each
 *     element ends as the op over all contributors;
 *   - MPI_Get_accumulate into the last rank, one rank after another under
 *     an exclusive lock: rank r fetches the op over contributors 0..r;
 *     MPI_Fetch_and_op likewise on the one element Get_accumulate leaves;
 * then MPI_Get_accumulate(MPI_NO_OP) reads the final values back, and
 * MPI_Compare_and_swap on MPI_CHAR swaps only on an equal compare, with
 * negative values. */
#include "char_ref.h"

#define N 48

static int rank, size;

/* Every rank's window set to contributor 0's values; fenced. */
static void reset(MPI_Win win, signed char *mem)
{
    CHECK_MPI(MPI_Win_fence(0, win));
    fill(mem, N, 0);
    CHECK_MPI(MPI_Win_fence(0, win));
}

static void accumulate(MPI_Win win, signed char *mem, const char *kind)
{
    signed char mine[N];
    fill(mine, N, rank + 1);
    char what[96];
    for (int o = 0; o < NOPS; o++) {
        reset(win, mem);
        for (int t = 0; t < size; t++)
            CHECK_MPI(MPI_Accumulate(mine, N, MPI_CHAR, t, 0, N, MPI_CHAR, OPS[o], win));
        CHECK_MPI(MPI_Win_fence(0, win));
        snprintf(what, sizeof what, "MPI_Accumulate (%s)", kind);
        CHECK_CHARS(mem, N, o, 0, size + 1, 0, what);
    }

    /* N/2 packed chars from the origin into every other char of the target */
    MPI_Datatype every_other;
    CHECK_MPI(MPI_Type_vector(N / 2, 1, 2, MPI_CHAR, &every_other));
    CHECK_MPI(MPI_Type_commit(&every_other));
    signed char half[N / 2];
    for (int i = 0; i < N / 2; i++)
        half[i] = val(rank + 1, 2 * i);
    for (int o = 0; o < NOPS; o++) {
        reset(win, mem);
        for (int t = 0; t < size; t++)
            CHECK_MPI(MPI_Accumulate(half, N / 2, MPI_CHAR, t, 0, 1, every_other, OPS[o], win));
        CHECK_MPI(MPI_Win_fence(0, win));
        snprintf(what, sizeof what, "MPI_Accumulate into a strided target (%s)", kind);
        for (int i = 0; i < N; i += 2)
            CHECK_CHARS(mem + i, 1, o, 0, size + 1, i, what);
        for (int i = 1; i < N; i += 2)
            CHECKF(mem[i] == val(0, i), "%s MPI_%s: gap element %d changed to %d", what,
                   op_name[o], i, mem[i]);
    }
    CHECK_MPI(MPI_Type_free(&every_other));
}

/* Rank after rank, so what each fetches is known exactly. */
static void fetching(MPI_Win win, signed char *mem, const char *kind)
{
    const int t = size - 1, one = N - 1; /* Fetch_and_op's element; the rest Get_accumulate's */
    signed char mine[N], got[N], res;
    fill(mine, N, rank + 1);
    char what[96];
    for (int o = 0; o < NOPS; o++) {
        reset(win, mem);
        CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
        for (int r = 0; r < size; r++) {
            if (r == rank) {
                CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
                CHECK_MPI(MPI_Get_accumulate(mine, N - 1, MPI_CHAR, got, N - 1, MPI_CHAR, t, 0,
                                             N - 1, MPI_CHAR, OPS[o], win));
                CHECK_MPI(MPI_Win_unlock(t, win));
                snprintf(what, sizeof what, "MPI_Get_accumulate (%s) fetched", kind);
                CHECK_CHARS(got, N - 1, o, 0, rank + 1, 0, what);
                CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
                CHECK_MPI(MPI_Fetch_and_op(&mine[one], &res, MPI_CHAR, t, one, OPS[o], win));
                CHECK_MPI(MPI_Win_unlock(t, win));
                snprintf(what, sizeof what, "MPI_Fetch_and_op (%s) fetched", kind);
                CHECK_CHARS(&res, 1, o, 0, rank + 1, one, what);
            }
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        }
        /* read back by NO_OP, from every rank */
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
        CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_CHAR, got, N, MPI_CHAR, t, 0, N, MPI_CHAR,
                                     MPI_NO_OP, win));
        CHECK_MPI(MPI_Win_unlock(t, win));
        snprintf(what, sizeof what, "MPI_Get_accumulate (%s) final", kind);
        CHECK_CHARS(got, N, o, 0, size + 1, 0, what);
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* every read done before the next reset */
        CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    }
}

static void cas(MPI_Win win, signed char *mem, const char *kind)
{
    const int t = 0, e = 7;
    reset(win, mem);
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    /* rank r swaps in -128 + 37 r (wrapping), expecting rank r-1's value */
    signed char cur = val(0, e);
    for (int r = 0; r < size; r++) {
        unsigned char b = (unsigned char)(128u + 37u * (unsigned)r);
        signed char mine, res = 0, wrong;
        memcpy(&mine, &b, 1);
        if (r == rank) {
            CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
            wrong = (signed char)(cur ^ 1);
            CHECK_MPI(MPI_Compare_and_swap(&mine, &wrong, &res, MPI_CHAR, t, e, win));
            CHECK_MPI(MPI_Win_flush(t, win));
            CHECKF(res == cur, "MPI_Compare_and_swap (%s): unequal compare fetched %d, want %d",
                   kind, res, cur);
            CHECK_MPI(MPI_Compare_and_swap(&mine, &cur, &res, MPI_CHAR, t, e, win));
            CHECK_MPI(MPI_Win_unlock(t, win));
            CHECKF(res == cur, "MPI_Compare_and_swap (%s): rank %d fetched %d, want %d", kind,
                   rank, res, cur);
        }
        cur = mine;
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    if (rank == t)
        CHECKF(mem[e] == cur, "MPI_Compare_and_swap (%s): final %d, want %d", kind, mem[e], cur);
    CHECK_MPI(MPI_Win_fence(0, win));
}

static void run(MPI_Win win, signed char *mem, const char *kind)
{
    accumulate(win, mem, kind);
    fetching(win, mem, kind);
    cas(win, mem, kind);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    signed char *mem;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(N, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    run(win, mem, "MPI_Win_allocate");
    CHECK_MPI(MPI_Win_free(&win));

    mem = tu_malloc(N);
    CHECK_MPI(MPI_Win_create(mem, N, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    run(win, mem, "MPI_Win_create");
    CHECK_MPI(MPI_Win_free(&win));
    free(mem);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("rma_char: %d ranks OK\n", size);
    MPI_Finalize();
    return 0;
}
