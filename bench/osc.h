/* osc.h — the one-sided benchmarks' common part, in the OSU pattern
 * (osu_put_latency, osu_get_latency, osu_acc_latency, osu_put_bw):
 * rank 0 is the origin, rank 1 the target of an MPI_Win_allocate window;
 * rank 0 opens one MPI_Win_lock_all epoch for the whole run and each timed
 * iteration ends with MPI_Win_flush(1), so what is measured is the
 * operation until it is complete at the target.  Ranks other than 0 and 1
 * take no part.  Standard MPI only (builds with mpicc.openmpi /
 * mpicc.mpich).  Method and options: bench.h; --quick takes the sizes
 * 1, 8, 64, 512, 4 KiB, 64 KiB and the maximum, so the ratio table's
 * 8 B and 64 KiB points are always measured. */
#ifndef FABMPI_BENCH_OSC_H
#define FABMPI_BENCH_OSC_H

#include "bench.h"

typedef struct osc_ctx {
    int rank;
    long n;        /* bytes of the current size */
    char *buf;     /* origin buffer, max bytes */
    char *check;   /* second origin buffer for the correctness check */
    void *base;    /* this rank's window memory */
    MPI_Win win;
} osc_ctx;

static inline long osc_next(const bench_opts *o, long s, long max)
{
    if (!o->quick)
        return s * 2;
    static const long quick[] = {1, 8, 64, 512, 4096, 65536};
    for (size_t i = 0; i < sizeof quick / sizeof *quick; i++)
        if (quick[i] > s)
            return quick[i] < max ? quick[i] : max > s ? max : s * 2;
    return s < max ? max : s * 2;
}

/* Put a size-dependent pattern, read it back with Get: both must agree,
 * so a benchmark never reports the speed of a wrong answer. */
static inline void osc_check(osc_ctx *c)
{
    if (c->rank != 0)
        return;
    for (long i = 0; i < c->n; i++)
        c->buf[i] = (char)(i * 7 + c->n);
    MPI_Put(c->buf, (int)c->n, MPI_CHAR, 1, 0, (int)c->n, MPI_CHAR, c->win);
    MPI_Win_flush(1, c->win);
    memset(c->check, 0, (size_t)c->n);
    MPI_Get(c->check, (int)c->n, MPI_CHAR, 1, 0, (int)c->n, MPI_CHAR, c->win);
    MPI_Win_flush(1, c->win);
    if (memcmp(c->buf, c->check, (size_t)c->n)) {
        fprintf(stderr, "bench: put/get check failed at %ld bytes\n", c->n);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

/* The sweep: min .. max bytes, value = per(seconds per iteration, bytes). */
static inline void osc_run(int *argc, char ***argv, const char *name, const char *unit, long min,
                           long max_default, bench_fn fn, double (*per)(double, long))
{
    bench_opts o;
    bench_init(argc, argv, &o, 2);
    long max = bench_max(&o, max_default);
    osc_ctx c = {o.rank, 0, bench_alloc((size_t)max), bench_alloc((size_t)max), NULL, MPI_WIN_NULL};
    MPI_Win_allocate((MPI_Aint)max, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &c.base, &c.win);
    memset(c.base, 0, (size_t)max);
    MPI_Barrier(MPI_COMM_WORLD);
    bench_header(&o, name, unit);
    if (o.rank == 0)
        MPI_Win_lock_all(0, c.win);
    for (long s = min; s <= max; s = osc_next(&o, s, max)) {
        c.n = s;
        osc_check(&c);
        memset(c.buf, 1, (size_t)s);
        long iters = bench_calibrate(&o, fn, &c, 8, 10000000);
        bench_line(&o, s, per(bench_time(&o, fn, &c, iters), s));
    }
    if (o.rank == 0)
        MPI_Win_unlock_all(c.win);
    MPI_Win_free(&c.win);
    free(c.buf);
    free(c.check);
    MPI_Finalize();
}

static inline double osc_us(double t, long bytes)
{
    (void)bytes;
    return t * 1e6;
}

#endif
