/* rma_pieces: one-sided operations larger than one message, target layouts
 * with thousands of blocks, pair types with gaps, and contended exclusive
 * locks; checked exactly.  Over a network peer whose window goes by active
 * messages (FABMPI_OFI_RMA=am, or anything not contiguous) these travel in
 * pieces of at most fab_am_max_medium() bytes, and a layout too large to
 * send beside its data goes run by run; on one node they take the mapped
 * paths, which must give the same bytes.
 *
 * Every rank works on the next rank's window (its own at 1 rank), in
 * fence epochs:
 *   A. Put and Get of 1 MiB + 5 bytes at an odd offset;
 *   B. Put and Get through a vector target of 300000 ints at stride 2
 *      (the gaps keep their fill);
 *   C. Put, Get and Accumulate(SUM) through an indexed target of 5000
 *      blocks of 1-3 ints at stride 5 ints;
 *   D. Get_accumulate(SUM) of 200000 ints: old values back, new in place;
 *   E. Put, Get and Accumulate(MAXLOC) of 20000 MPI_SHORT_INT (6 bytes of
 *      data in 8);
 *   F. every rank, ROUNDS times: lock rank 0 exclusively, read a counter,
 *      write it back plus one; the counter ends at size * ROUNDS. */
#include "testutil.h"

#define WIN_BYTES (4u << 20)
#define FILL 0xee
#define ROUNDS 50

static int rank, size, next, prev;
static MPI_Win win;
static unsigned char *mem;

static int val(int origin, long i) { return origin * 1000003 + (int)i * 7 + 1; }

/* Our window refilled, everyone's epoch open. */
static void reset(void)
{
    CHECK_MPI(MPI_Win_fence(0, win));
    memset(mem, FILL, WIN_BYTES);
    CHECK_MPI(MPI_Win_fence(0, win));
}

static int filled_int(void)
{
    int f;
    memset(&f, FILL, sizeof f);
    return f;
}

static void part_a(void)
{
    size_t n = (1u << 20) + 5, at = 3;
    unsigned char *src = tu_malloc(n), *back = tu_malloc(n);
    tu_fill(src, n, (unsigned)rank);
    reset();
    CHECK_MPI(MPI_Put(src, (int)n, MPI_BYTE, next, (MPI_Aint)at, (int)n, MPI_BYTE, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    long bad = tu_verify(mem + at, n, (unsigned)prev);
    CHECKF(bad < 0, "A: put of %zu bytes from rank %d: byte %ld differs", n, prev, bad);
    CHECK(mem[at - 1] == FILL && mem[at + n] == FILL);
    CHECK_MPI(MPI_Get(back, (int)n, MPI_BYTE, next, (MPI_Aint)at, (int)n, MPI_BYTE, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    bad = tu_verify(back, n, (unsigned)rank);
    CHECKF(bad < 0, "A: get of %zu bytes: byte %ld differs", n, bad);
    free(src);
    free(back);
}

static void part_b(void)
{
    int m = 300000;
    int *src = tu_malloc((size_t)m * sizeof *src), *back = tu_malloc((size_t)m * sizeof *back);
    for (int i = 0; i < m; i++)
        src[i] = val(rank, i);
    MPI_Datatype every2;
    CHECK_MPI(MPI_Type_vector(m, 1, 2, MPI_INT, &every2));
    CHECK_MPI(MPI_Type_commit(&every2));
    reset();
    CHECK_MPI(MPI_Put(src, m, MPI_INT, next, 0, 1, every2, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    const int *t = (const int *)mem;
    for (int i = 0; i < m; i++) {
        CHECKF(t[2 * i] == val(prev, i), "B: vector put: int %d is %d, want %d", 2 * i, t[2 * i],
               val(prev, i));
        CHECKF(t[2 * i + 1] == filled_int(), "B: vector put wrote the gap at int %d", 2 * i + 1);
    }
    memset(back, 0, (size_t)m * sizeof *back);
    CHECK_MPI(MPI_Get(back, m, MPI_INT, next, 0, 1, every2, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < m; i++)
        CHECKF(back[i] == val(rank, i), "B: vector get: int %d is %d, want %d", i, back[i],
               val(rank, i));
    CHECK_MPI(MPI_Type_free(&every2));
    free(src);
    free(back);
}

static void part_c(void)
{
    enum { K = 5000 };
    int *len = tu_malloc(K * sizeof *len), *disp = tu_malloc(K * sizeof *disp), total = 0;
    for (int k = 0; k < K; k++) {
        len[k] = k % 3 + 1;
        disp[k] = 5 * k;
        total += len[k];
    }
    MPI_Datatype idx;
    CHECK_MPI(MPI_Type_indexed(K, len, disp, MPI_INT, &idx));
    CHECK_MPI(MPI_Type_commit(&idx));
    int *src = tu_malloc((size_t)total * sizeof *src), *back = tu_malloc((size_t)total * sizeof *back);
    int *ones = tu_malloc((size_t)total * sizeof *ones);
    for (int i = 0; i < total; i++) {
        src[i] = val(rank, i);
        ones[i] = rank + 1;
    }
    reset();
    CHECK_MPI(MPI_Put(src, total, MPI_INT, next, 0, 1, idx, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Accumulate(ones, total, MPI_INT, next, 0, 1, idx, MPI_SUM, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    const int *t = (const int *)mem;
    int i = 0;
    for (int k = 0; k < K; k++)
        for (int j = 0; j < 5; j++) {
            int want = j < len[k] ? val(prev, i + j) + prev + 1 : filled_int();
            CHECKF(t[5 * k + j] == want, "C: indexed put+acc: block %d int %d is %d, want %d", k,
                   j, t[5 * k + j], want);
            if (j == 4)
                i += len[k];
        }
    CHECK_MPI(MPI_Get(back, total, MPI_INT, next, 0, 1, idx, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (i = 0; i < total; i++)
        CHECKF(back[i] == val(rank, i) + rank + 1, "C: indexed get: int %d is %d, want %d", i,
               back[i], val(rank, i) + rank + 1);
    CHECK_MPI(MPI_Type_free(&idx));
    free(len);
    free(disp);
    free(src);
    free(back);
    free(ones);
}

static void part_d(void)
{
    int m = 200000;
    int *inc = tu_malloc((size_t)m * sizeof *inc), *old = tu_malloc((size_t)m * sizeof *old);
    reset();
    int *t = (int *)mem;
    for (int i = 0; i < m; i++) {
        t[i] = val(rank, i); /* ours, before anyone adds */
        inc[i] = i % 11 - 5;
    }
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Get_accumulate(inc, m, MPI_INT, old, m, MPI_INT, next, 0, m, MPI_INT, MPI_SUM,
                                 win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < m; i++) {
        CHECKF(old[i] == val(next, i), "D: fetched int %d is %d, want %d", i, old[i], val(next, i));
        CHECKF(t[i] == val(rank, i) + i % 11 - 5, "D: int %d is %d after the add", i, t[i]);
    }
    free(inc);
    free(old);
}

typedef struct {
    short s;
    int i;
} short_int;

static void part_e(void)
{
    int m = 20000;
    short_int *src = tu_malloc((size_t)m * sizeof *src), *back = tu_malloc((size_t)m * sizeof *back);
    for (int i = 0; i < m; i++)
        src[i] = (short_int){(short)(i % 30000), val(rank, i)};
    reset();
    CHECK_MPI(MPI_Put(src, m, MPI_SHORT_INT, next, 0, m, MPI_SHORT_INT, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    short_int *t = (short_int *)mem;
    for (int i = 0; i < m; i++)
        CHECKF(t[i].s == (short)(i % 30000) && t[i].i == val(prev, i),
               "E: short_int put: element %d is (%d, %d)", i, t[i].s, t[i].i);
    memset(back, 0, (size_t)m * sizeof *back);
    CHECK_MPI(MPI_Get(back, m, MPI_SHORT_INT, next, 0, m, MPI_SHORT_INT, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < m; i++)
        CHECKF(back[i].s == (short)(i % 30000) && back[i].i == val(rank, i),
               "E: short_int get: element %d is (%d, %d)", i, back[i].s, back[i].i);
    /* MAXLOC: odd elements get a larger value, even ones a smaller. */
    for (int i = 0; i < m; i++)
        src[i].s = (short)(i % 30000 + (i % 2 ? 1 : -1));
    CHECK_MPI(MPI_Accumulate(src, m, MPI_SHORT_INT, next, 0, m, MPI_SHORT_INT, MPI_MAXLOC, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < m; i++) {
        short ws = (short)(i % 30000 + (i % 2 ? 1 : 0));
        CHECKF(t[i].s == ws, "E: maxloc: element %d value %d, want %d", i, t[i].s, ws);
        if (i % 2)
            CHECKF(t[i].i == val(prev, i), "E: maxloc: element %d index %d", i, t[i].i);
    }
    free(src);
    free(back);
}

static void part_f(void)
{
    reset();
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    long *counter = (long *)mem;
    if (rank == 0)
        *counter = 0;
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    for (int r = 0; r < ROUNDS; r++) {
        long c = -1;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        CHECK_MPI(MPI_Get(&c, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win));
        CHECK_MPI(MPI_Win_flush(0, win));
        c++;
        CHECK_MPI(MPI_Put(&c, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win));
        CHECK_MPI(MPI_Win_unlock(0, win));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        long c = *counter;
        CHECK_MPI(MPI_Win_unlock(0, win));
        CHECKF(c == (long)size * ROUNDS, "F: counter %ld under exclusive locks, want %ld", c,
               (long)size * ROUNDS);
    }
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    CHECK_MPI(MPI_Win_allocate(WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    CHECK_MPI(MPI_Win_fence(0, win));
    part_a();
    part_b();
    part_c();
    part_d();
    part_e();
    part_f();
    CHECK_MPI(MPI_Win_free(&win));
    if (rank == 0)
        printf("rma_pieces: %d ranks: ok\n", size);
    CHECK_MPI(MPI_Finalize());
    return 0;
}
