/* rma_shared: MPI_Win_allocate_shared — memory contiguous across ranks,
 * Win_shared_query for each rank and MPI_PROC_NULL, one rank writing with
 * plain stores and the others reading with plain loads after
 * Win_sync + barrier, ranks of size 0, and Put/Get/Accumulate on it. */
#include "testutil.h"

static int rank, size;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* rank r holds r+1 doubles; rank 1 (if any) holds none */
    int mine = rank == 1 ? 0 : rank + 1;
    double *base;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate_shared((MPI_Aint)mine * (MPI_Aint)sizeof(double), sizeof(double),
                                      MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    double *prev_end = NULL;
    for (int r = 0; r < size; r++) {
        MPI_Aint sz;
        int du;
        double *p;
        CHECK_MPI(MPI_Win_shared_query(win, r, &sz, &du, &p));
        int n = r == 1 ? 0 : r + 1;
        CHECK_EQ(sz, n * (int)sizeof(double));
        CHECK_EQ(du, (int)sizeof(double));
        if (prev_end)
            CHECK(p == prev_end); /* contiguous across ranks */
        prev_end = p + n;
        if (r == rank)
            CHECK(p == base);
    }
    MPI_Aint sz;
    int du;
    double *p0;
    CHECK_MPI(MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &p0));
    CHECK_EQ(sz, (int)sizeof(double)); /* rank 0 has memory */

    CHECK_MPI(MPI_Win_lock_all(0, win));
    for (int i = 0; i < mine; i++)
        base[i] = rank * 10.0 + i;
    CHECK_MPI(MPI_Win_sync(win));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_sync(win));
    /* read everyone's part with plain loads */
    for (int r = 0; r < size; r++) {
        double *p;
        CHECK_MPI(MPI_Win_shared_query(win, r, &sz, &du, &p));
        for (int i = 0; i < (r == 1 ? 0 : r + 1); i++)
            CHECK(p[i] == r * 10.0 + i);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* RMA on the same memory: everyone adds 1 to rank 0's first double */
    double one = 1.0;
    CHECK_MPI(MPI_Accumulate(&one, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, MPI_SUM, win));
    CHECK_MPI(MPI_Win_flush_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_sync(win));
    double v;
    CHECK_MPI(MPI_Get(&v, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    CHECK(v == (double)size);
    CHECK(p0[0] == (double)size);
    CHECK_MPI(MPI_Win_unlock_all(win));
    CHECK_MPI(MPI_Win_free(&win));
    MPI_Finalize();
    return 0;
}
