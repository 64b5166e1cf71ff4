/* am_pingpong — fabmpi's active messages against its own MPI, in one run
 * (fabmpi only: the AM layer is ours).  Ranks 0 and 1:
 *   - one-way latency of an AM Short ping-pong (request, reply from the
 *     handler), of an AM Medium of 8 B, and of an 8 B MPI_Send/MPI_Recv
 *     ping-pong;
 *   - rate of AM Medium requests of 8 B and 1 KiB (window of 64, handlers
 *     not replying) against an MPI_Isend/MPI_Irecv window of 64.
 * Each measurement runs R rounds alternating AM and MPI (A B A B ...); the
 * table gives medians over rounds and AM / MPI.
 * SCALE multiplies the iterations (bench/run-ofi-pingpong runs 1 round at
 * 0.2 over the network).
 *   mpiexec -n 2 ./am_pingpong [ROUNDS [SCALE]] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fabmpi/am.h>

#include "bench.h"

enum { H_PING = 1, H_PONG, H_SINK, H_STOP };
enum { WINDOW = 64 };

static int rank;
static volatile long pongs, sunk, stops;
static char mbuf[1024];

static void on_ping(fab_am_token_t t, void *buf, size_t n, const fab_am_arg_t *a, unsigned na)
{
    (void)a, (void)na;
    if (n)
        fab_am_reply_medium(t, H_PONG, buf, n, 0, 0, NULL);
    else
        fab_am_reply_short(t, H_PONG, 0, 0, NULL);
}

static void on_pong(fab_am_token_t t, void *buf, size_t n, const fab_am_arg_t *a, unsigned na)
{
    (void)t, (void)buf, (void)n, (void)a, (void)na;
    pongs++;
}

static void on_sink(fab_am_token_t t, void *buf, size_t n, const fab_am_arg_t *a, unsigned na)
{
    (void)t, (void)buf, (void)n, (void)a, (void)na;
    sunk++;
}

static void on_stop(fab_am_token_t t, void *buf, size_t n, const fab_am_arg_t *a, unsigned na)
{
    (void)t, (void)buf, (void)n, (void)a, (void)na;
    stops++;
}

/* Rank 1 serves by polling until rank 0 says it is done. */
static void serve(void)
{
    long want = stops + 1;
    while (stops < want)
        fab_poll();
}

/* Seconds for iters round trips (rank 0's clock; rank 1 serves). */
static double am_pingpong(long iters, size_t bytes)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (rank == 0) {
        for (long i = 0; i < iters; i++) {
            long want = pongs + 1;
            if (bytes)
                fab_am_request_medium(1, H_PING, mbuf, bytes, 0, 0, NULL);
            else
                fab_am_request_short(1, H_PING, 0, 0, NULL);
            while (pongs < want)
                fab_poll();
        }
    } else {
        serve();
    }
    double t = MPI_Wtime() - t0;
    if (rank == 0)
        fab_am_request_short(1, H_STOP, 0, 0, NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    return t;
}

static double mpi_pingpong(long iters)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        if (rank == 0) {
            MPI_Send(mbuf, 8, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(mbuf, 8, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(mbuf, 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(mbuf, 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - t0;
}

/* Messages per second: windows of WINDOW from rank 0 to rank 1. */
static double am_rate(long windows, size_t bytes)
{
    /* Counted before the barrier: rank 0 may start sending while rank 1 is
     * still inside it, running the handlers. */
    long want = sunk + windows * WINDOW;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (rank == 0) {
        for (long w = 0; w < windows; w++)
            for (int i = 0; i < WINDOW; i++)
                fab_am_request_medium(1, H_SINK, mbuf, bytes, 0, 0, NULL);
    } else {
        while (sunk < want)
            fab_poll();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return (double)(windows * WINDOW) / (MPI_Wtime() - t0);
}

static double mpi_rate(long windows, size_t bytes)
{
    static char rbuf[WINDOW][1024];
    return bench_window_rate(windows, WINDOW, mbuf, bytes, &rbuf[0][0], sizeof rbuf[0]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "am_pingpong: run it on 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rounds = argc > 1 ? atoi(argv[1]) : 7;
    if (rounds < 1 || rounds > 100)
        rounds = 7;
    fab_am_register(H_PING, on_ping, FAB_AM_REQUEST, "ping");
    fab_am_register(H_PONG, on_pong, FAB_AM_REPLY, "pong");
    fab_am_register(H_SINK, on_sink, FAB_AM_REQUEST, "sink");
    fab_am_register(H_STOP, on_stop, FAB_AM_REQUEST, "stop");
    MPI_Barrier(MPI_COMM_WORLD);
    double scale = argc > 2 ? atof(argv[2]) : 1;
    if (!(scale > 0 && scale <= 100))
        scale = 1;
    const long iters = (long)(100000 * scale), windows = (long)(4000 * scale) + 1;
    double am_s[100], am_m[100], mpi_l[100], am_r8[100], mpi_r8[100], am_r1k[100], mpi_r1k[100];
    am_pingpong(iters / 10, 0); /* warm-up */
    mpi_pingpong(iters / 10);
    for (int r = 0; r < rounds; r++) {
        am_s[r] = am_pingpong(iters, 0) / (double)iters / 2 * 1e6;
        mpi_l[r] = mpi_pingpong(iters) / (double)iters / 2 * 1e6;
        am_m[r] = am_pingpong(iters, 8) / (double)iters / 2 * 1e6;
        am_r8[r] = am_rate(windows, 8) / 1e6;
        mpi_r8[r] = mpi_rate(windows, 8) / 1e6;
        am_r1k[r] = am_rate(windows, 1024) / 1e6;
        mpi_r1k[r] = mpi_rate(windows, 1024) / 1e6;
    }
    /* The ratio column is the median of each round's ratio: the machine
     * flips between a fast and a slow cache-line state within a run, and
     * a round's AM and MPI figures are taken next to each other. */
    double r_s[100], r_m[100], r_8[100], r_1k[100];
    for (int r = 0; r < rounds; r++) {
        r_s[r] = am_s[r] / mpi_l[r];
        r_m[r] = am_m[r] / mpi_l[r];
        r_8[r] = am_r8[r] / mpi_r8[r];
        r_1k[r] = am_r1k[r] / mpi_r1k[r];
    }
    if (rank == 0) {
        double s = bench_median(am_s, rounds), m = bench_median(am_m, rounds);
        double l = bench_median(mpi_l, rounds);
        double a8 = bench_median(am_r8, rounds), p8 = bench_median(mpi_r8, rounds);
        double a1 = bench_median(am_r1k, rounds), p1 = bench_median(mpi_r1k, rounds);
        printf("| measure | AM | MPI | AM / MPI |\n|---|---:|---:|---:|\n");
        printf("| latency, Short vs 8 B Send/Recv (us) | %.3f | %.3f | %.2f |\n", s, l,
               bench_median(r_s, rounds));
        printf("| latency, Medium 8 B vs 8 B Send/Recv (us) | %.3f | %.3f | %.2f |\n", m, l,
               bench_median(r_m, rounds));
        printf("| rate, Medium 8 B vs Isend 8 B (M/s) | %.2f | %.2f | %.2f |\n", a8, p8,
               bench_median(r_8, rounds));
        printf("| rate, Medium 1 KiB vs Isend 1 KiB (M/s) | %.2f | %.2f | %.2f |\n", a1, p1,
               bench_median(r_1k, rounds));
        printf("(medians of %d rounds, AM and MPI alternated; AM / MPI: the median of the "
               "rounds' ratios)\n", rounds);
    }
    MPI_Finalize();
    return 0;
}
