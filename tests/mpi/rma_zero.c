/* rma_zero — one-sided operations that move no bytes (zero counts, or a
 * datatype of size 0) do nothing and succeed, whatever the kinds of the
 * types on each side and with NULL buffers; the window is left as it was. */
#include "testutil.h"

int main(int argc, char **argv)
{
    int rank, size, buf[4] = {7, 7, 7, 7}, res = 5;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype empty;
    MPI_Type_contiguous(0, MPI_INT, &empty);
    MPI_Type_commit(&empty);
    MPI_Win win;
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int target = (rank + 1) % size;
    MPI_Win_fence(0, win);
    CHECK(MPI_Accumulate(NULL, 0, MPI_DOUBLE, target, 0, 0, MPI_INT, MPI_SUM, win) ==
          MPI_SUCCESS);
    CHECK(MPI_Accumulate(NULL, 1, empty, target, 0, 0, MPI_INT, MPI_SUM, win) == MPI_SUCCESS);
    CHECK(MPI_Accumulate(NULL, 2, empty, target, 0, 3, empty, MPI_SUM, win) == MPI_SUCCESS);
    CHECK(MPI_Get_accumulate(NULL, 0, MPI_INT, NULL, 1, empty, target, 0, 0, MPI_DOUBLE,
                             MPI_SUM, win) == MPI_SUCCESS);
    CHECK(MPI_Put(NULL, 1, empty, target, 0, 0, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Get(NULL, 0, MPI_INT, target, 0, 2, empty, win) == MPI_SUCCESS);
    MPI_Win_fence(0, win);
    for (int i = 0; i < 4; i++)
        CHECKF(buf[i] == 7, "buf[%d]=%d changed", i, buf[i]);
    CHECK(res == 5);
    MPI_Win_free(&win);
    MPI_Type_free(&empty);
    MPI_Finalize();
    return 0;
}
