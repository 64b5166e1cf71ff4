/* put_latency — one-sided latency, osu_put_latency / osu_get_latency /
 * osu_acc_latency pattern: rank 0 holds a shared lock on rank 1's
 * MPI_Win_allocate window and times MPI_Put (or MPI_Get, or MPI_Accumulate
 * of MPI_SUM on ints) followed by MPI_Win_flush, 1 B .. 64 KiB.
 * Value: microseconds per operation + flush, median over repetitions.
 * Option: --op put|get|acc (default put). */
#include "bench.h"

#define MAX_SIZE (64L << 10)

enum { OP_PUT, OP_GET, OP_ACC };

struct ctx {
    int rank, op, n;
    char *buf;
    MPI_Win win;
};

static void ops(void *vc, long iters)
{
    struct ctx *c = vc;
    if (c->rank != 0)
        return;
    for (long i = 0; i < iters; i++) {
        if (c->op == OP_PUT)
            MPI_Put(c->buf, c->n, MPI_CHAR, 1, 0, c->n, MPI_CHAR, c->win);
        else if (c->op == OP_GET)
            MPI_Get(c->buf, c->n, MPI_CHAR, 1, 0, c->n, MPI_CHAR, c->win);
        else
            MPI_Accumulate(c->buf, c->n / 4, MPI_INT, 1, 0, c->n / 4, MPI_INT, MPI_SUM, c->win);
        MPI_Win_flush(1, c->win);
    }
}

int main(int argc, char **argv)
{
    bench_opts o;
    int op = OP_PUT;
    /* take --op out before bench_init, which rejects options it does not know */
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--op")) {
            op = !strcmp(argv[i + 1], "get") ? OP_GET : !strcmp(argv[i + 1], "acc") ? OP_ACC : OP_PUT;
            for (int j = i; j + 2 <= argc; j++)
                argv[j] = argv[j + 2];
            argc -= 2;
            break;
        }
    bench_init(&argc, &argv, &o, 2);
    long max = bench_max(&o, MAX_SIZE);
    struct ctx c = {o.rank, op, 0, bench_alloc((size_t)max), MPI_WIN_NULL};
    memset(c.buf, 1, (size_t)max);
    void *base;
    MPI_Win_allocate((MPI_Aint)max, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &c.win);
    bench_header(&o, op == OP_PUT ? "put_latency" : op == OP_GET ? "get_latency" : "acc_latency", "us");
    if (o.rank == 0)
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, c.win);
    for (long s = op == OP_ACC ? 4 : 1; s <= max; s = bench_next_size(&o, s, max)) {
        c.n = (int)s;
        long iters = bench_calibrate(&o, ops, &c, 16, 10000000);
        double t = bench_time(&o, ops, &c, iters);
        bench_line(&o, s, t * 1e6);
    }
    if (o.rank == 0)
        MPI_Win_unlock(1, c.win);
    MPI_Win_free(&c.win);
    MPI_Finalize();
    return 0;
}
