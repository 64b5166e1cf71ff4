/* bcast_after_barrier — where a rank's time goes in OMB's collective loop:
 * MPI_Barrier, then a timed 1-byte MPI_Bcast from rank 0, repeated.
 *
 * OMB reports the average over ranks of the time inside the Bcast, which
 * depends on the order in which the barrier lets ranks go: a rank that
 * leaves before rank 0 waits inside the Bcast for rank 0 to send (and,
 * when ranks outnumber cores, to be scheduled at all).  This prints, per
 * rank, how long after the first rank it left the barrier, its time inside
 * the Bcast, and when it was done; and the wall time per iteration, which
 * is what a program pays whatever the split.  MPI_Wtime must be one clock
 * for all ranks (fabmpi's is CLOCK_MONOTONIC; Open MPI's may not be, so
 * only its per-rank Bcast times and the wall time compare).
 *
 *   mpiexec -n 4 bcast_after_barrier [iterations]     (default 2000)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define SKIP 200 /* first iterations, not counted */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n = argc > 1 ? atoi(argv[1]) : 2000;
    if (n <= SKIP) {
        if (rank == 0)
            fprintf(stderr, "bcast_after_barrier: iterations must be more than %d, got %s\n",
                    SKIP, argv[1]);
        MPI_Finalize();
        return 2;
    }
    char byte = 0;
    double *left = malloc(sizeof *left * (size_t)n), *done = malloc(sizeof *done * (size_t)n);
    double t0 = 0;
    for (int i = 0; i < n; i++) {
        if (i == SKIP)
            t0 = MPI_Wtime();
        MPI_Barrier(MPI_COMM_WORLD);
        left[i] = MPI_Wtime();
        MPI_Bcast(&byte, 1, MPI_CHAR, 0, MPI_COMM_WORLD);
        done[i] = MPI_Wtime();
    }
    const double wall = (MPI_Wtime() - t0) / (n - SKIP) * 1e6;

    double *all_left = NULL, *all_done = NULL;
    if (rank == 0) {
        all_left = malloc(sizeof *all_left * (size_t)n * (size_t)size);
        all_done = malloc(sizeof *all_done * (size_t)n * (size_t)size);
    }
    MPI_Gather(left, n, MPI_DOUBLE, all_left, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Gather(done, n, MPI_DOUBLE, all_done, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("# %d ranks, %d iterations: wall time per iteration %.2f us\n", size, n - SKIP, wall);
        printf("# rank  left barrier after first (us)  in Bcast (us)  done after first left (us)\n");
        for (int r = 0; r < size; r++) {
            double after = 0, in = 0, fin = 0;
            for (int i = SKIP; i < n; i++) {
                double first = all_left[i];
                for (int q = 1; q < size; q++)
                    if (all_left[(size_t)q * n + i] < first)
                        first = all_left[(size_t)q * n + i];
                const double l = all_left[(size_t)r * n + i], d = all_done[(size_t)r * n + i];
                after += l - first;
                in += d - l;
                fin += d - first;
            }
            const double k = 1e6 / (n - SKIP);
            printf("%6d  %29.2f  %13.2f  %26.2f\n", r, after * k, in * k, fin * k);
        }
        free(all_left);
        free(all_done);
    }
    free(left);
    free(done);
    MPI_Finalize();
    return 0;
}
