/* allreduce — MPI_Allreduce(MPI_SUM) of doubles over MPI_COMM_WORLD (run
 * with 4 ranks), 8 B .. 1 MiB.  Value: microseconds per call on the slowest
 * rank, median over repetitions.  The sum is checked once per size. */
#include "bench.h"

#define MIN_SIZE 8L
#define MAX_SIZE (1L << 20)

struct ctx {
    int count;
    double *in, *out;
};

static void reduce(void *vc, long iters)
{
    struct ctx *c = vc;
    for (long i = 0; i < iters; i++)
        MPI_Allreduce(c->in, c->out, c->count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    bench_opts o;
    bench_init(&argc, &argv, &o, 1);
    long max = bench_max(&o, MAX_SIZE);
    struct ctx c;
    c.in = bench_alloc((size_t)max);
    c.out = bench_alloc((size_t)max);
    for (long i = 0; i < max / 8; i++)
        c.in[i] = (double)(o.rank + 1) + (double)(i % 7);
    bench_header(&o, "allreduce", "us");
    for (long s = MIN_SIZE; s <= max; s = bench_next_size(&o, s, max)) {
        c.count = (int)(s / 8);
        /* Check: sum over ranks of (rank + 1 + i % 7). */
        reduce(&c, 1);
        double base = (double)o.size * (o.size + 1) / 2;
        for (int i = 0; i < c.count; i++)
            if (c.out[i] != base + (double)o.size * (i % 7)) {
                fprintf(stderr, "allreduce: wrong sum at %d (size %ld): %g\n", i, s, c.out[i]);
                MPI_Abort(MPI_COMM_WORLD, 3);
            }
        long iters = bench_calibrate(&o, reduce, &c, 3, 1000000);
        double t = bench_time(&o, reduce, &c, iters);
        bench_line(&o, s, t * 1e6);
    }
    free(c.in);
    free(c.out);
    MPI_Finalize();
    return 0;
}
