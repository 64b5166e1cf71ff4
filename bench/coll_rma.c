/* coll_rma — MPI_Bcast (root 0, bytes) and MPI_Allreduce (MPI_SUM of
 * doubles) over MPI_COMM_WORLD, 8 B .. 512 KiB, then MPI_Barrier.  Value:
 * microseconds per call on the slowest rank, median over repetitions.
 * Meant to be run twice under fabmpi, FABMPI_COLL_RMA=on and =off, to see
 * where the one-sided collectives (src/coll/rma) beat the two-sided ones;
 * standard MPI only, so it also runs under Open MPI and MPICH.  Results are
 * checked once per size. */
#include "bench.h"

#define MIN_SIZE 8L
#define MAX_SIZE (512L * 1024)

struct ctx {
    int count;
    double *in, *out;
    char *buf;
};

static void bcast(void *vc, long iters)
{
    struct ctx *c = vc;
    for (long i = 0; i < iters; i++)
        MPI_Bcast(c->buf, c->count, MPI_BYTE, 0, MPI_COMM_WORLD);
}

static void allreduce(void *vc, long iters)
{
    struct ctx *c = vc;
    for (long i = 0; i < iters; i++)
        MPI_Allreduce(c->in, c->out, c->count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

static void barrier(void *vc, long iters)
{
    (void)vc;
    for (long i = 0; i < iters; i++)
        MPI_Barrier(MPI_COMM_WORLD);
}

static void check_bcast(const bench_opts *o, struct ctx *c)
{
    for (int i = 0; i < c->count; i++)
        c->buf[i] = o->rank == 0 ? (char)(i * 7 + 1) : 0;
    bcast(c, 1);
    for (int i = 0; i < c->count; i++)
        if (c->buf[i] != (char)(i * 7 + 1)) {
            fprintf(stderr, "coll_rma: bcast wrong at %d (size %d)\n", i, c->count);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
}

static void check_allreduce(const bench_opts *o, struct ctx *c)
{
    allreduce(c, 1);
    double base = (double)o->size * (o->size + 1) / 2;
    for (int i = 0; i < c->count; i++)
        if (c->out[i] != base + (double)o->size * (i % 7)) {
            fprintf(stderr, "coll_rma: allreduce wrong at %d (count %d): %g\n", i, c->count,
                    c->out[i]);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
}

int main(int argc, char **argv)
{
    bench_opts o;
    bench_init(&argc, &argv, &o, 2);
    long max = bench_max(&o, MAX_SIZE);
    struct ctx c;
    c.buf = bench_alloc((size_t)max);
    c.in = bench_alloc((size_t)max);
    c.out = bench_alloc((size_t)max);
    for (long i = 0; i < max / 8; i++)
        c.in[i] = (double)(o.rank + 1) + (double)(i % 7);

    bench_header(&o, "coll_rma bcast", "us");
    for (long s = MIN_SIZE; s <= max; s = bench_next_size(&o, s, max)) {
        c.count = (int)s;
        check_bcast(&o, &c);
        long iters = bench_calibrate(&o, bcast, &c, 3, 1000000);
        bench_line(&o, s, bench_time(&o, bcast, &c, iters) * 1e6);
    }
    bench_header(&o, "coll_rma allreduce", "us");
    for (long s = MIN_SIZE; s <= max; s = bench_next_size(&o, s, max)) {
        c.count = (int)(s / 8);
        check_allreduce(&o, &c);
        long iters = bench_calibrate(&o, allreduce, &c, 3, 1000000);
        bench_line(&o, s, bench_time(&o, allreduce, &c, iters) * 1e6);
    }
    bench_header(&o, "coll_rma barrier", "us");
    long iters = bench_calibrate(&o, barrier, &c, 3, 1000000);
    bench_line(&o, 0, bench_time(&o, barrier, &c, iters) * 1e6);

    free(c.buf);
    free(c.in);
    free(c.out);
    MPI_Finalize();
    return 0;
}
