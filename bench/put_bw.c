/* put_bw — osu_put_bw pattern: a window of 64 MPI_Put of n bytes (to the
 * same target location, as OSU does) then one MPI_Win_flush, 1 B .. 1 MiB.
 * Value: MB/s (10^6 bytes per second) moved by the origin, median over
 * repetitions.  See osc.h. */
#include "osc.h"

#define WINDOW 64

static void ops(void *vc, long iters)
{
    osc_ctx *c = vc;
    if (c->rank != 0)
        return;
    for (long i = 0; i < iters; i++) {
        for (int k = 0; k < WINDOW; k++)
            MPI_Put(c->buf, (int)c->n, MPI_CHAR, 1, 0, (int)c->n, MPI_CHAR, c->win);
        MPI_Win_flush(1, c->win);
    }
}

static double mbs(double t, long bytes)
{
    return t > 0 ? (double)bytes * WINDOW / t / 1e6 : 0;
}

int main(int argc, char **argv)
{
    osc_run(&argc, &argv, "put_bw", "MB/s", 1, 1L << 20, ops, mbs);
    return 0;
}
