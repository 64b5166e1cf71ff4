/* thr_progress: with FABMPI_PROGRESS_THREAD=on, communication that needs
 * the other side to act completes while that side computes without calling
 * MPI.  Ranks >= 1 post a large receive and a nonblocking allreduce, then
 * compute (spin, no MPI calls) for COMPUTE_S seconds.  Meanwhile rank 0
 * locks each of their windows and puts, gets and accumulates (over active
 * messages when FABMPI_OFI_RMA=am), sends each the large message
 * (rendezvous: the receiver must pull it) and completes its own part of the
 * allreduce (the others' rounds must run).  All ranks are on one node, so
 * CLOCK_MONOTONIC is one clock: rank 0 must be done before every other rank
 * stopped computing.  Without a progress thread rank 0 stalls until they
 * call MPI again, and the check says so.  With FM_TEST_MPIX_SWITCH=1 the
 * program starts the thread itself (MPIX_Progress_thread) for that phase
 * only, and checks the call's errors.  Run with 2 or more ranks. */
#include <time.h>

#include "testutil.h"

#define BIG (4 << 20) /* bytes: past every eager limit */
#define NOPS 20
#define COMPUTE_S 3.0

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2);

    int *mem;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(sizeof(int) * (1 + NOPS), sizeof(int), MPI_INFO_NULL,
                               MPI_COMM_WORLD, &mem, &win));
    for (int i = 0; i <= NOPS; i++)
        mem[i] = 0;
    char *big = malloc(BIG);
    CHECK(big);
    long long mine = rank + 1, sum = -1;
    MPI_Request reqs[2];
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    const char *sw = getenv("FM_TEST_MPIX_SWITCH");
    int switched = sw && atoi(sw) == 1;
    if (switched) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int cls = -1;
        MPI_Error_class(MPIX_Progress_thread(2), &cls);
        CHECK_EQ(cls, MPI_ERR_ARG);
        CHECK_MPI(MPIX_Progress_thread(1));
        CHECK_MPI(MPIX_Progress_thread(1)); /* running already: nothing */
    }

    double compute_end = 0, steps_end = 0;
    if (rank != 0) {
        memset(big, 0, BIG);
        CHECK_MPI(MPI_Irecv(big, BIG, MPI_CHAR, 0, 7, MPI_COMM_WORLD, &reqs[0]));
        CHECK_MPI(MPI_Iallreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD,
                                 &reqs[1]));
        /* Compute: no MPI call for COMPUTE_S seconds. */
        double t0 = now();
        volatile double x = 1;
        while (now() - t0 < COMPUTE_S)
            x = x * 1.0000001 + 1e-9;
        compute_end = now();
        CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
        for (int i = 0; i < BIG; i++)
            if (big[i] != (char)(i * 7 + rank)) {
                CHECKF(0, "large message byte %d: %d != %d", i, big[i], (char)(i * 7 + rank));
            }
        CHECK_EQ(sum, (long long)size * (size + 1) / 2);
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
        for (int i = 1; i <= NOPS; i++)
            CHECK_EQ(mem[i], i * 10 + rank + 1); /* put i*10, then accumulated +rank+1 */
        CHECK_MPI(MPI_Win_unlock(rank, win));
    } else {
        double t0 = now();
        for (int r = 1; r < size; r++) {
            CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, r, 0, win));
            for (int i = 1; i <= NOPS; i++) {
                int v = i * 10, add = r + 1, got = -1;
                CHECK_MPI(MPI_Put(&v, 1, MPI_INT, r, i, 1, MPI_INT, win));
                CHECK_MPI(MPI_Win_flush(r, win));
                CHECK_MPI(MPI_Get(&got, 1, MPI_INT, r, i, 1, MPI_INT, win));
                CHECK_MPI(MPI_Win_flush(r, win));
                CHECK_EQ(got, v);
                CHECK_MPI(MPI_Accumulate(&add, 1, MPI_INT, r, i, 1, MPI_INT, MPI_SUM, win));
            }
            CHECK_MPI(MPI_Win_unlock(r, win));
            for (int i = 0; i < BIG; i++)
                big[i] = (char)(i * 7 + r);
            CHECK_MPI(MPI_Send(big, BIG, MPI_CHAR, r, 7, MPI_COMM_WORLD));
        }
        CHECK_MPI(MPI_Iallreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD,
                                 &reqs[1]));
        CHECK_MPI(MPI_Wait(&reqs[1], MPI_STATUS_IGNORE));
        CHECK_EQ(sum, (long long)size * (size + 1) / 2);
        steps_end = now();
        printf("rank 0: all steps done in %.3f s\n", steps_end - t0);
    }
    /* The earliest end of computing against the end of rank 0's steps. */
    double first_end = 0;
    if (rank == 0)
        compute_end = 1e300;
    CHECK_MPI(MPI_Allreduce(&compute_end, &first_end, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Bcast(&steps_end, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    CHECKF(steps_end < first_end,
           "no_progress: rank 0 finished %.3f s after the first rank stopped computing (it "
           "stalled: no progress without MPI calls)",
           steps_end - first_end);
    if (switched) {
        CHECK_MPI(MPIX_Progress_thread(0));
        CHECK_MPI(MPIX_Progress_thread(0)); /* none runs: nothing */
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* the library works on without it */
    }
    free(big);
    CHECK_MPI(MPI_Win_free(&win));
    CHECK_MPI(MPI_Finalize());
    return 0;
}
