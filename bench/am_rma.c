/* am_rma — fabmpi's fab_rma_put/get against its own MPI one-sided
 * operations, in one run (fabmpi only: the fab_ layer is ours).  Rank 0
 * reaches rank 1:
 *   - 8 B put latency: fab_rma_put (blocking: landed on return) against
 *     MPI_Put + MPI_Win_flush on an MPI_Win_allocate window in a
 *     lock_all epoch;
 *   - 8 B get latency: fab_rma_get against MPI_Get + MPI_Win_flush;
 *   - put bandwidth at 1 MiB: a window of 16 fab_rma_put_nbi (FAB_FLAG_BULK:
 *     the source untouched until the sync, as MPI_Put's is) + fab_nbi_wait
 *     against 16 MPI_Put + MPI_Win_flush;
 *   - the same at 64 KiB without FAB_FLAG_BULK (the source free on return:
 *     copied into a bounce buffer up to FABMPI_AM_BOUNCE_LIMIT, else waited
 *     for), the measure FABMPI_AM_BOUNCE_LIMIT's default comes from.
 * R rounds alternate fab and MPI (A B A B ...); medians over rounds, and
 * fab / MPI (below 1: fab faster for latency; above 1 for bandwidth).
 * SCALE multiplies the iterations (over the network, 0.02 is plenty).
 *   mpiexec -n 2 ./am_rma [ROUNDS [SCALE]] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fabmpi/am.h>

#include "bench.h"

enum { BIG = 1 << 20, MID = 64 << 10, WINDOW = 16 };

static char *seg1; /* rank 1's segment */
static char *wbase;
static MPI_Win win;
static char *local;

/* Microseconds per operation (latency) or MB/s (bandwidth), rank 0. */
static double fab_put(int iters)
{
    double t = MPI_Wtime();
    for (int i = 0; i < iters; i++)
        fab_rma_put(1, seg1, local, 8, 0);
    return (MPI_Wtime() - t) * 1e6 / iters;
}
static double mpi_put(int iters)
{
    double t = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        MPI_Put(local, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, win);
        MPI_Win_flush(1, win);
    }
    return (MPI_Wtime() - t) * 1e6 / iters;
}
static double fab_get(int iters)
{
    double t = MPI_Wtime();
    for (int i = 0; i < iters; i++)
        fab_rma_get(local, 1, seg1, 8, 0);
    return (MPI_Wtime() - t) * 1e6 / iters;
}
static double mpi_get(int iters)
{
    double t = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        MPI_Get(local, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, win);
        MPI_Win_flush(1, win);
    }
    return (MPI_Wtime() - t) * 1e6 / iters;
}
static double fab_bw(int iters)
{
    double t = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        for (int w = 0; w < WINDOW; w++)
            fab_rma_put_nbi(1, seg1, local, BIG, FAB_FLAG_BULK);
        fab_nbi_wait();
    }
    return (double)BIG * WINDOW * iters / (MPI_Wtime() - t) / 1e6;
}
static double mpi_put_window(int iters, int bytes)
{
    double t = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        for (int w = 0; w < WINDOW; w++)
            MPI_Put(local, bytes, MPI_BYTE, 1, 0, bytes, MPI_BYTE, win);
        MPI_Win_flush(1, win);
    }
    return (double)bytes * WINDOW * iters / (MPI_Wtime() - t) / 1e6;
}
static double mpi_bw(int iters) { return mpi_put_window(iters, BIG); }
static double fab_mid(int iters)
{
    double t = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        for (int w = 0; w < WINDOW; w++)
            fab_rma_put_nbi(1, seg1, local, MID, 0);
        fab_nbi_wait();
    }
    return (double)MID * WINDOW * iters / (MPI_Wtime() - t) / 1e6;
}
static double mpi_mid(int iters) { return mpi_put_window(iters, MID); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 7;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "am_rma: run with 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    void *b;
    size_t sz;
    fab_segment(1, &b, &sz);
    seg1 = b;
    local = malloc(BIG);
    memset(local, 1, BIG);
    MPI_Win_allocate(BIG, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wbase, &win);
    memset(wbase, 0, BIG);
    if (rank == 1) /* touch our segment's first MiB, as the window's was */
        memset(fab_segment(1, &b, &sz) == FAB_OK ? b : local, 0, BIG);
    MPI_Win_lock_all(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    static const char *name[4] = {"put 8 B latency (us)", "get 8 B latency (us)",
                                  "put 1 MiB bandwidth (MB/s)", "put 64 KiB non-bulk (MB/s)"};
    double (*fab[4])(int) = {fab_put, fab_get, fab_bw, fab_mid};
    double (*mpi[4])(int) = {mpi_put, mpi_get, mpi_bw, mpi_mid};
    double scale = argc > 2 ? atof(argv[2]) : 1;
    int iters[4] = {200000, 200000, 20, 200};
    for (int m = 0; m < 4; m++)
        iters[m] = (int)(iters[m] * scale) > 10 ? (int)(iters[m] * scale) : 10;
    if (rank == 0)
        printf("%-28s %10s %10s %8s\n", "measure", "fab", "MPI", "fab/MPI");
    for (int m = 0; m < 4; m++) {
        double *f = malloc(sizeof *f * (size_t)rounds), *p = malloc(sizeof *p * (size_t)rounds);
        if (rank == 0) {
            fab[m](iters[m] / 10); /* warm up both */
            mpi[m](iters[m] / 10);
            for (int r = 0; r < rounds; r++) {
                f[r] = fab[m](iters[m]);
                p[r] = mpi[m](iters[m]);
            }
            double mf = bench_median(f, rounds), mp = bench_median(p, rounds);
            printf("%-28s %10.4f %10.4f %8.2f\n", name[m], mf, mp, mf / mp);
        }
        free(f);
        free(p);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    free(local);
    MPI_Finalize();
    return 0;
}
