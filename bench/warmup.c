/* warmup — how fast the first messages go: the message rate of the first
 * 10^3, 10^4 and 10^5 messages right after MPI_Init and again on a
 * communicator just made by MPI_Comm_dup, then the steady rate after them.
 *
 * The pattern is the OSU Micro-Benchmarks' osu_mbw_mr with its defaults
 * (what users run first): per window an MPI_Barrier, then rank 0 posts 64
 * 8-byte MPI_Isend and MPI_Waitall, rank 1 64 MPI_Irecv, MPI_Waitall and a
 * 4-byte ack; only the window after the barrier is timed.  Unlike the other
 * benchmarks there is no warm-up and no calibration: the cold start is what
 * is measured.  One run measures one start, so run it several times.
 *
 * Output: '#' comment lines, then 'phase messages value' lines:
 *   world 1000 <Mmsg/s>   the first 1000 messages after MPI_Init
 *   world 10000 ...       the first 10^4 (cumulative)
 *   world 100000 ...      the first 10^5
 *   world steady ...      the 10^5 after those
 *   dup ...               the same on a fresh MPI_Comm_dup of MPI_COMM_WORLD
 * Options: --trace (also print the rate per block of 1000 messages). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 64
#define SIZE 8
#define FIRST 100000L     /* messages measured from the start */
#define STEADY 100000L    /* then this many more, the steady state */

static double run_windows(MPI_Comm comm, int rank, long windows, double *per_window)
{
    static char buf[SIZE * WINDOW], ack[4];
    MPI_Request req[WINDOW];
    MPI_Status st[WINDOW];
    double sum = 0;
    for (long i = 0; i < windows; i++) {
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        if (rank == 0) {
            for (int w = 0; w < WINDOW; w++)
                MPI_Isend(buf + w * SIZE, SIZE, MPI_CHAR, 1, 100, comm, &req[w]);
            MPI_Waitall(WINDOW, req, st);
            MPI_Recv(ack, 4, MPI_CHAR, 1, 101, comm, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            for (int w = 0; w < WINDOW; w++)
                MPI_Irecv(buf + w * SIZE, SIZE, MPI_CHAR, 0, 100, comm, &req[w]);
            MPI_Waitall(WINDOW, req, st);
            MPI_Send(ack, 4, MPI_CHAR, 0, 101, comm);
        }
        double t = MPI_Wtime() - t0;
        if (per_window)
            per_window[i] = t;
        sum += t;
    }
    return sum;
}

static void phase(MPI_Comm comm, int rank, const char *name, int trace)
{
    long first_windows = (FIRST + WINDOW - 1) / WINDOW;
    double *t = calloc((size_t)first_windows, sizeof *t);
    if (!t)
        MPI_Abort(MPI_COMM_WORLD, 2);
    run_windows(comm, rank, first_windows, t);
    double steady = run_windows(comm, rank, (STEADY + WINDOW - 1) / WINDOW, NULL);
    if (rank == 0) {
        static const long marks[] = {1000, 10000, FIRST};
        double sum = 0;
        long w = 0;
        for (int m = 0; m < 3; m++) {
            for (; w * WINDOW < marks[m]; w++)
                sum += t[w];
            printf("%s %ld %.3f\n", name, marks[m], (double)w * WINDOW / sum / 1e6);
        }
        printf("%s steady %.3f\n", name,
               (double)((STEADY + WINDOW - 1) / WINDOW) * WINDOW / steady / 1e6);
        if (trace) {
            long per_block = (1000 + WINDOW - 1) / WINDOW;
            for (long b = 0; b + per_block <= first_windows; b += per_block) {
                double s = 0;
                for (long i = b; i < b + per_block; i++)
                    s += t[i];
                printf("# %s trace %ld %.3f\n", name, b * WINDOW,
                       (double)per_block * WINDOW / s / 1e6);
            }
        }
        fflush(stdout);
    }
    free(t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, trace = argc > 1 && !strcmp(argv[1], "--trace");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "warmup: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank == 0)
        printf("# warmup: %d-byte messages, windows of %d after a barrier (osu_mbw_mr's pattern)\n"
               "# phase messages Mmsg/s\n", SIZE, WINDOW);
    phase(MPI_COMM_WORLD, rank, "world", trace);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    phase(dup, rank, "dup", trace);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
