/* get_latency — osu_get_latency pattern: MPI_Get of n bytes then
 * MPI_Win_flush, 1 B .. 64 KiB.  Value: microseconds per get + flush,
 * median over repetitions.  See osc.h. */
#include "osc.h"

static void ops(void *vc, long iters)
{
    osc_ctx *c = vc;
    if (c->rank != 0)
        return;
    for (long i = 0; i < iters; i++) {
        MPI_Get(c->buf, (int)c->n, MPI_CHAR, 1, 0, (int)c->n, MPI_CHAR, c->win);
        MPI_Win_flush(1, c->win);
    }
}

int main(int argc, char **argv)
{
    osc_run(&argc, &argv, "get_latency", "us", 1, 64L << 10, ops, osc_us);
    return 0;
}
