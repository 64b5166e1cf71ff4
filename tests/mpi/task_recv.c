/* task_recv: MPIX_TASK_MULTIPLE under an OpenMP runtime.
 *
 * FM_TASK_EXPECT says which level this runtime must get: "task" (LLVM's
 * libomp: the program is linked with it) or "thread" (GNU libgomp, whose
 * taskyield runs no other task: fabmpi must not claim the task level).
 *
 * At the task level, on 2 threads: K = 6 untied tasks each block receiving
 * from the previous rank (MPI_Recv, which parks on its request's condition;
 * MPI_Probe then MPI_Recv, and MPI_Irecv then MPI_Waitany, whose waits
 * loop and yield to other tasks), and only once all 6 have started does
 * the producer create the 6 tasks that send to the next rank.  With a
 * blocking call blocking its thread, at most one receive could start (the
 * producer spins, the other thread holds the first receive) and the job
 * would hang; at the task level every receive starts, the sends follow, and
 * each receive gets exactly its message (tag k carries k, rank). */
#include <omp.h>
#include <sched.h>
#include <stdatomic.h>

#include "testutil.h"

#define K 6

int main(int argc, char **argv)
{
    int provided;
    CHECK_MPI(MPI_Init_thread(&argc, &argv, MPIX_TASK_MULTIPLE, &provided));
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *expect = getenv("FM_TASK_EXPECT");
    CHECK(expect != NULL);
    int want = strcmp(expect, "task") == 0 ? MPIX_TASK_MULTIPLE : MPI_THREAD_MULTIPLE;
    CHECKF(provided == want, "provided %d under %s, want %d", provided, expect, want);
    int query;
    CHECK_MPI(MPI_Query_thread(&query));
    CHECK_EQ(query, provided);
    if (provided != MPIX_TASK_MULTIPLE) {
        if (rank == 0)
            printf("task_recv: %d ranks: MPI_THREAD_MULTIPLE provided, as expected here\n", size);
        CHECK_MPI(MPI_Finalize());
        return 0;
    }

    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    atomic_int started = 0;
    int got[K][2];
    memset(got, -1, sizeof got);
#pragma omp parallel num_threads(2)
#pragma omp single
    {
        for (int k = 0; k < K; k++) {
#pragma omp task untied firstprivate(k) shared(got, started)
            {
                atomic_fetch_add(&started, 1);
                if (k % 3 == 0) { /* parks on its request's condition */
                    CHECK_MPI(MPI_Recv(got[k], 2, MPI_INT, prev, k, MPI_COMM_WORLD,
                                       MPI_STATUS_IGNORE));
                } else if (k % 3 == 1) { /* loops, yielding to other tasks */
                    MPI_Status st;
                    CHECK_MPI(MPI_Probe(prev, k, MPI_COMM_WORLD, &st));
                    CHECK_MPI(MPI_Recv(got[k], 2, MPI_INT, prev, k, MPI_COMM_WORLD,
                                       MPI_STATUS_IGNORE));
                } else {
                    MPI_Request rq;
                    int idx = -1;
                    CHECK_MPI(MPI_Irecv(got[k], 2, MPI_INT, prev, k, MPI_COMM_WORLD, &rq));
                    CHECK_MPI(MPI_Waitany(1, &rq, &idx, MPI_STATUS_IGNORE));
                    CHECK_EQ(idx, 0);
                }
            }
        }
        /* Not a task scheduling point: this thread runs no receive. */
        while (atomic_load(&started) < K)
            sched_yield();
        for (int k = 0; k < K; k++) {
#pragma omp task untied firstprivate(k)
            {
                int msg[2] = {k, rank};
                CHECK_MPI(MPI_Send(msg, 2, MPI_INT, next, k, MPI_COMM_WORLD));
            }
        }
    }
    for (int k = 0; k < K; k++)
        CHECKF(got[k][0] == k && got[k][1] == prev, "receive %d got (%d, %d), want (%d, %d)", k,
               got[k][0], got[k][1], k, prev);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("task_recv: %d ranks: %d receives blocked at once on 2 threads, all matched "
               "(MPIX_TASK_MULTIPLE)\n", size, K);
    CHECK_MPI(MPI_Finalize());
    return 0;
}
