/* acc_latency — osu_acc_latency pattern: MPI_Accumulate(MPI_SUM) of n / 4
 * MPI_INTs then MPI_Win_flush, 4 B .. 64 KiB (MPI_SUM is not defined on
 * MPI_CHAR, so ints rather than OSU's chars).  Value: microseconds per
 * accumulate + flush, median over repetitions.  See osc.h. */
#include "osc.h"

static void ops(void *vc, long iters)
{
    osc_ctx *c = vc;
    if (c->rank != 0)
        return;
    int n = (int)(c->n / 4);
    for (long i = 0; i < iters; i++) {
        MPI_Accumulate(c->buf, n, MPI_INT, 1, 0, n, MPI_INT, MPI_SUM, c->win);
        MPI_Win_flush(1, c->win);
    }
}

int main(int argc, char **argv)
{
    osc_run(&argc, &argv, "acc_latency", "us", 4, 64L << 10, ops, osc_us);
    return 0;
}
