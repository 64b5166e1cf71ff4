/* pingpong8.c - the C twin of pingpong8.f90 (bench/run-fortran): 8-byte
 * ping-pong, median one-way latency in microseconds over 21 repetitions. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { REPS = 21, ITERS = 20000 };

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int rank;
    double buf = 1, t[REPS];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int r = 0; r <= REPS; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < ITERS; i++) {
            if (rank == 0) {
                MPI_Send(&buf, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(&buf, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(&buf, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(&buf, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
            }
        }
        if (r > 0) /* repetition 0 warms up */
            t[r - 1] = (MPI_Wtime() - t0) / ITERS / 2 * 1e6;
    }
    qsort(t, REPS, sizeof *t, cmp);
    if (rank == 0)
        printf("%8.3f\n", t[REPS / 2]);
    MPI_Finalize();
    return 0;
}
