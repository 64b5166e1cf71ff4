/* rma_atomic: atomicity and ordering of accumulates, on a Win_allocate
 * window (C11 atomics) and a Win_create window (lock word + CMA):
 *   - a counter every rank increments with Fetch_and_op, and with
 *     Compare_and_swap loops, under lock_all: the final value is exact;
 *   - the same under exclusive locks with Get/Put (no lost updates);
 *   - same-origin ordering on one location: REPLACE, SUM, NO_OP;
 *   - double SUM (CAS loop), long double SUM (lock path), MINLOC on
 *     MPI_2INT, BXOR, PROD, and Get_accumulate fetching old values. */
#include "testutil.h"

#define ITERS 200

static int rank, size;

typedef struct cells {
    long long counter, cas_counter, excl_counter, order;
    double dsum;
    long double ldsum;
    struct { int v, i; } loc;
    unsigned bx;
    long long prod;
} cells;

#define OFF(f) ((MPI_Aint)offsetof(cells, f))

static void run(MPI_Win win, cells *c)
{
    const int root = size - 1;
    /* reset on the root, visible to all after the barrier */
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    memset(c, 0, sizeof *c);
    c->loc.v = 1 << 30;
    c->prod = 1;
    CHECK_MPI(MPI_Win_unlock(rank, win));
    MPI_Barrier(MPI_COMM_WORLD);

    CHECK_MPI(MPI_Win_lock_all(0, win));
    long long one = 1, old;
    for (int i = 0; i < ITERS; i++) {
        CHECK_MPI(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, root, OFF(counter), MPI_SUM, win));
        /* results are defined only after a flush (over OFI they arrive later) */
        CHECK_MPI(MPI_Win_flush(root, win));
        CHECK(old >= 0 && old < (long long)ITERS * size);
        /* CAS loop: read, try old+1 until it sticks */
        long long seen, want, got;
        CHECK_MPI(MPI_Fetch_and_op(NULL, &seen, MPI_LONG_LONG, root, OFF(cas_counter), MPI_NO_OP, win));
        CHECK_MPI(MPI_Win_flush(root, win));
        for (;;) {
            want = seen + 1;
            CHECK_MPI(MPI_Compare_and_swap(&want, &seen, &got, MPI_LONG_LONG, root, OFF(cas_counter), win));
            CHECK_MPI(MPI_Win_flush(root, win));
            if (got == seen)
                break;
            seen = got;
        }
        double d = 0.5;
        CHECK_MPI(MPI_Accumulate(&d, 1, MPI_DOUBLE, root, OFF(dsum), 1, MPI_DOUBLE, MPI_SUM, win));
        /* x87 long double: 10 value bytes in 16.  Static, so the padding is
         * defined (zero) and memcheck sees no uninitialised bytes go out on a
         * socket (a memset before the assignment is optimised away). */
        static long double ld;
        ld = 0.25L;
        CHECK_MPI(MPI_Accumulate(&ld, 1, MPI_LONG_DOUBLE, root, OFF(ldsum), 1, MPI_LONG_DOUBLE, MPI_SUM, win));
        unsigned bit = 1u << (rank % 32);
        CHECK_MPI(MPI_Accumulate(&bit, 1, MPI_UNSIGNED, root, OFF(bx), 1, MPI_UNSIGNED, MPI_BXOR, win));
    }
    struct { int v, i; } mine = {1000 - rank % 3, rank};
    CHECK_MPI(MPI_Accumulate(&mine, 1, MPI_2INT, root, OFF(loc), 1, MPI_2INT, MPI_MINLOC, win));
    long long two = 2;
    CHECK_MPI(MPI_Accumulate(&two, 1, MPI_LONG_LONG, root, OFF(prod), 1, MPI_LONG_LONG, MPI_PROD, win));
    CHECK_MPI(MPI_Win_unlock_all(win));

    /* exclusive lock: non-atomic read-modify-write must lose nothing */
    for (int i = 0; i < ITERS / 4; i++) {
        long long v;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, root, 0, win));
        CHECK_MPI(MPI_Get(&v, 1, MPI_LONG_LONG, root, OFF(excl_counter), 1, MPI_LONG_LONG, win));
        CHECK_MPI(MPI_Win_flush(root, win));
        v++;
        CHECK_MPI(MPI_Put(&v, 1, MPI_LONG_LONG, root, OFF(excl_counter), 1, MPI_LONG_LONG, win));
        CHECK_MPI(MPI_Win_unlock(root, win));
    }

    /* ordering: each rank in turn replaces, adds, reads — sees its own order */
    for (int r = 0; r < size; r++) {
        if (r == rank) {
            CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, root, 0, win));
            long long v = 100 * (rank + 1), add = 7, res = -1, prev = -1;
            CHECK_MPI(MPI_Accumulate(&v, 1, MPI_LONG_LONG, root, OFF(order), 1, MPI_LONG_LONG, MPI_REPLACE, win));
            CHECK_MPI(MPI_Get_accumulate(&add, 1, MPI_LONG_LONG, &prev, 1, MPI_LONG_LONG, root, OFF(order), 1,
                                         MPI_LONG_LONG, MPI_SUM, win));
            CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_DATATYPE_NULL, &res, 1, MPI_LONG_LONG, root,
                                         OFF(order), 1, MPI_LONG_LONG, MPI_NO_OP, win));
            MPI_Request rq;
            long long res2 = -1;
            CHECK_MPI(MPI_Rget_accumulate(&add, 1, MPI_LONG_LONG, &res2, 1, MPI_LONG_LONG, root, OFF(order), 1,
                                          MPI_LONG_LONG, MPI_SUM, win, &rq));
            CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Win_unlock(root, win));
            CHECK_EQ(prev, v);
            CHECK_EQ(res, v + 7);
            CHECK_EQ(res2, v + 7);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == root) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
        CHECK_EQ(c->counter, (long long)ITERS * size);
        CHECK_EQ(c->cas_counter, (long long)ITERS * size);
        CHECK_EQ(c->excl_counter, (long long)(ITERS / 4) * size);
        CHECK(c->dsum == 0.5 * ITERS * size);
        CHECK(c->ldsum == 0.25L * ITERS * size);
        unsigned want = 0;
        for (int r = 0; r < size; r++)
            if (ITERS % 2)
                want ^= 1u << (r % 32);
        CHECK_EQ(c->bx, want);
        int minv = size >= 3 ? 998 : size == 2 ? 999 : 1000;
        int mini = size >= 3 ? 2 : size == 2 ? 1 : 0;
        CHECK_EQ(c->loc.v, minv);
        CHECK_EQ(c->loc.i, mini);
        CHECK_EQ(c->prod, 1LL << size);
        CHECK_EQ(c->order, 100 * size + 14);
        CHECK_MPI(MPI_Win_unlock(rank, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    cells *c;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(sizeof *c, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &c, &win));
    run(win, c);
    CHECK_MPI(MPI_Win_free(&win));

    c = tu_malloc(sizeof *c);
    CHECK_MPI(MPI_Win_create(c, sizeof *c, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    run(win, c);
    CHECK_MPI(MPI_Win_free(&win));
    free(c);
    MPI_Finalize();
    return 0;
}
