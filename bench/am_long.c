/* am_long — the rate of active-message Long requests against MPI messages
 * of the same size (fabmpi only: the AM layer is ours).  Rank 0 sends
 * windows of 64 Longs (each to its own slot of rank 1's segment; handlers
 * count, no reply) and, alternated with them, windows of 64 MPI_Isend to
 * rank 1's MPI_Irecv.  Sizes 512 B to 256 KiB; medians of R rounds and
 * Long / MPI.  Used to choose FABMPI_AM_PACKED_LONG_LIMIT (run it with
 * the knob at 0 and at 1g).
 *   mpiexec -n 2 ./am_long [ROUNDS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include <fabmpi/am.h>

#include "bench.h"

enum { H_SINK = 1, WINDOW = 64, MAXB = 256 << 10 };

static int rank;
static volatile long sunk;
static char *seg1, *sbuf, *rbuf;

static void on_sink(fab_am_token_t t, void *buf, size_t n, const fab_am_arg_t *a, unsigned na)
{
    (void)t, (void)buf, (void)n, (void)a, (void)na;
    sunk++;
}

static double am_rate(long windows, size_t bytes)
{
    long want = sunk + windows * WINDOW; /* before the barrier: see am_pingpong.c */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (rank == 0) {
        for (long w = 0; w < windows; w++)
            for (int i = 0; i < WINDOW; i++)
                fab_am_request_long(1, H_SINK, sbuf, bytes, seg1 + (size_t)i * bytes, 0, 0, NULL);
    } else {
        while (sunk < want)
            fab_poll();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return (double)(windows * WINDOW) / (MPI_Wtime() - t0);
}

static double mpi_rate(long windows, size_t bytes)
{
    return bench_window_rate(windows, WINDOW, sbuf, bytes, rbuf, bytes);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size, rounds = argc > 1 ? atoi(argv[1]) : 5;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || rounds < 1 || rounds > 100) {
        if (rank == 0)
            fprintf(stderr, "am_long: 2 ranks, 1..100 rounds\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    void *b;
    size_t segsz;
    fab_segment(1, &b, &segsz);
    seg1 = b;
    sbuf = calloc(1, MAXB);
    rbuf = calloc(WINDOW, MAXB);
    fab_am_register(H_SINK, on_sink, FAB_AM_REQUEST, "sink");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("| bytes | Long (k/s) | MPI (k/s) | Long / MPI |\n|---:|---:|---:|---:|\n");
    for (size_t bytes = 512; bytes <= MAXB; bytes *= 4) {
        long windows = (long)(((size_t)64 << 20) / (bytes * WINDOW)) + 8;
        double a[100], m[100];
        am_rate(windows / 4, bytes); /* warm-up: pages of both sides touched */
        mpi_rate(windows / 4, bytes);
        for (int r = 0; r < rounds; r++) {
            a[r] = am_rate(windows, bytes) / 1e3;
            m[r] = mpi_rate(windows, bytes) / 1e3;
        }
                double ma = bench_median(a, rounds), mm = bench_median(m, rounds);
        if (rank == 0)
            printf("| %zu | %.1f | %.1f | %.2f |\n", bytes, ma, mm, ma / mm);
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
