/* rma_pscw: post/start/complete/wait with subsets.
 *   1. ring: each rank exposes to its left neighbour and accesses its
 *      right one, many epochs in a row (counters must not mix epochs);
 *   2. star: rank 0 exposes to all others, who each put one slot; rank 0
 *      polls MPI_Win_test until done;
 *   3. subset: only even ranks take part, odd ranks idle (and free). */
#include "testutil.h"

#define EPOCHS 50

static int rank, size;

static MPI_Group group_of(const int *ranks, int n)
{
    MPI_Group wg, g;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_incl(wg, n, ranks, &g);
    MPI_Group_free(&wg);
    return g;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *mem;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate((MPI_Aint)(size * sizeof(int)), sizeof(int), MPI_INFO_NULL,
                               MPI_COMM_WORLD, &mem, &win));
    for (int i = 0; i < size; i++)
        mem[i] = -1;
    MPI_Barrier(MPI_COMM_WORLD);

    /* 1. ring */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Group gl = group_of(&left, 1), gr = group_of(&right, 1);
    for (int e = 0; e < EPOCHS; e++) {
        CHECK_MPI(MPI_Win_post(gl, 0, win));
        CHECK_MPI(MPI_Win_start(gr, 0, win));
        int v = rank * 100 + e;
        CHECK_MPI(MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win));
        CHECK_MPI(MPI_Win_complete(win));
        CHECK_MPI(MPI_Win_wait(win));
        CHECK_EQ(mem[0], left * 100 + e);
    }
    MPI_Group_free(&gl);
    MPI_Group_free(&gr);

    /* 2. star with Win_test */
    int zero = 0;
    MPI_Group g0 = group_of(&zero, 1);
    int *others = tu_malloc((size_t)size * sizeof(int));
    for (int i = 1; i < size; i++)
        others[i - 1] = i;
    MPI_Group go = group_of(others, size - 1);
    if (rank == 0) {
        CHECK_MPI(MPI_Win_post(go, 0, win));
        int flag = 0;
        while (!flag)
            CHECK_MPI(MPI_Win_test(win, &flag));
        for (int i = 1; i < size; i++)
            CHECK_EQ(mem[i], i * 7);
    } else {
        CHECK_MPI(MPI_Win_start(g0, 0, win));
        int v = rank * 7;
        CHECK_MPI(MPI_Put(&v, 1, MPI_INT, 0, rank, 1, MPI_INT, win));
        CHECK_MPI(MPI_Win_complete(win));
    }
    MPI_Group_free(&g0);
    MPI_Group_free(&go);

    /* 3. even ranks only: each even rank accumulates into every even rank */
    int ne = 0;
    for (int i = 0; i < size; i += 2)
        others[ne++] = i;
    MPI_Group ge = group_of(others, ne);
    MPI_Barrier(MPI_COMM_WORLD);
    mem[0] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank % 2 == 0) {
        for (int e = 0; e < 3; e++) {
            CHECK_MPI(MPI_Win_post(ge, 0, win));
            CHECK_MPI(MPI_Win_start(ge, 0, win));
            int one = 1;
            for (int i = 0; i < ne; i++)
                CHECK_MPI(MPI_Accumulate(&one, 1, MPI_INT, others[i], 0, 1, MPI_INT, MPI_SUM, win));
            CHECK_MPI(MPI_Win_complete(win));
            CHECK_MPI(MPI_Win_wait(win));
        }
        CHECK_EQ(mem[0], 3 * ne);
    } else {
        CHECK_EQ(mem[0], 0);
    }
    MPI_Group_free(&ge);
    free(others);
    CHECK_MPI(MPI_Win_free(&win));
    MPI_Finalize();
    return 0;
}
