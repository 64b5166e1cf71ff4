/* bench.h — shared helpers for fabmpi's benchmarks (standard MPI only, so the
 * same sources build with fabmpi, Open MPI and MPICH).
 *
 * Method, the same in every benchmark:
 *   - warm-up: a short untimed run at each size;
 *   - iterations adapted to size: trial runs of 1, 2, 4, ... iterations
 *     (timed on the slowest rank, agreed through MPI_Allreduce) give the cost
 *     of one iteration; each timed repetition gets enough iterations to last
 *     about the time budget (default 10 ms, --quick 2 ms);
 *   - repetitions: BENCH_REPS timed repetitions (default 7, --quick 3); the
 *     value printed is the MEDIAN over repetitions.
 * Output: '#' comment lines, then one 'size value' line per size.
 * Options: --quick, --reps N, --budget-ms X, --max-size BYTES. */
#ifndef FABMPI_BENCH_H
#define FABMPI_BENCH_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L   /* posix_memalign under -std=c11 */
#endif

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bench_opts {
    int quick;
    int reps;
    double budget;      /* seconds per timed repetition */
    long max_size;      /* 0: the benchmark's own maximum */
    int rank, size;
} bench_opts;

static inline void bench_die(const char *msg)
{
    fprintf(stderr, "bench: %s\n", msg);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static inline void bench_init(int *argc, char ***argv, bench_opts *o, int need_ranks)
{
    /* --thread-multiple: the same run at MPI_THREAD_MULTIPLE (one thread). */
    int multiple = 0, provided = 0;
    for (int i = 1; i < *argc; i++)
        multiple |= !strcmp((*argv)[i], "--thread-multiple");
    if (multiple) {
        MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
        if (provided != MPI_THREAD_MULTIPLE)
            bench_die("--thread-multiple: MPI_THREAD_MULTIPLE not provided");
    } else {
        MPI_Init(argc, argv);
    }
    memset(o, 0, sizeof *o);
    o->reps = 7;
    o->budget = 0.010;
    MPI_Comm_rank(MPI_COMM_WORLD, &o->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &o->size);
    int reps_set = 0, budget_set = 0;
    for (int i = 1; i < *argc; i++) {
        const char *a = (*argv)[i];
        if (!strcmp(a, "--quick")) {
            o->quick = 1;
        } else if (!strcmp(a, "--thread-multiple")) {
            /* read above */
        } else if (!strcmp(a, "--reps") && i + 1 < *argc) {
            o->reps = atoi((*argv)[++i]);
            reps_set = 1;
        } else if (!strcmp(a, "--budget-ms") && i + 1 < *argc) {
            o->budget = atof((*argv)[++i]) / 1e3;
            budget_set = 1;
        } else if (!strcmp(a, "--max-size") && i + 1 < *argc) {
            o->max_size = atol((*argv)[++i]);
        } else {
            if (o->rank == 0)
                fprintf(stderr, "bench: unknown option '%s' (known: --quick, --reps N, "
                                "--budget-ms X, --max-size BYTES, --thread-multiple)\n", a);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (o->quick) {
        if (!reps_set)
            o->reps = 3;
        if (!budget_set)
            o->budget = 0.002;
    }
    if (o->reps < 1)
        o->reps = 1;
    if (o->reps > 101)
        o->reps = 101;
    if (o->size < need_ranks) {
        if (o->rank == 0)
            fprintf(stderr, "bench: needs at least %d ranks, got %d\n", need_ranks, o->size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* Next size in the sweep: powers of two; --quick takes powers of eight
 * (1, 8, 64, 512, 4 KiB, 32 KiB, 256 KiB) then 1 MiB and the maximum. */
static inline long bench_next_size(const bench_opts *o, long s, long max)
{
    if (!o->quick)
        return s * 2;
    long n = s * 8;
    if (s < (1L << 20) && n > (1L << 20))
        n = 1L << 20;
    if (s < max && n > max)
        n = max;
    return n;
}

static inline long bench_max(const bench_opts *o, long dflt)
{
    return o->max_size > 0 && o->max_size < dflt ? o->max_size : dflt;
}

/* A benchmark's own flag: 1 when argv holds it, which is then taken out
 * (before bench_init, which refuses options it does not know). */
static inline int bench_take_flag(int *argc, char **argv, const char *flag)
{
    for (int i = 1; i < *argc; i++)
        if (!strcmp(argv[i], flag)) {
            for (int j = i; j < *argc - 1; j++)
                argv[j] = argv[j + 1];
            (*argc)--;
            return 1;
        }
    return 0;
}

/* n bytes of data as 8-byte blocks with 8-byte holes (n a multiple of 8):
 * one element of it covers 2n - 8 bytes.  For --vector. */
static inline MPI_Datatype bench_vector_of(long n)
{
    MPI_Datatype t;
    MPI_Type_vector((int)(n / 8), 8, 16, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    return t;
}

static inline void *bench_alloc(size_t n)
{
    void *p = NULL;
    if (n == 0)
        n = 1;
    if (posix_memalign(&p, 4096, n) != 0)
        bench_die("out of memory");
    memset(p, 'a', n);   /* first touch outside the timed region */
    return p;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Messages per second of `windows` windows of `w` (at most 256)
 * MPI_Isend of `bytes` from rank 0 to MPI_Irecv at rank 1, receive i of
 * a window landing at rbuf + i * stride (the yardstick of the AM
 * benchmarks). */
static inline double bench_window_rate(long windows, int w, const char *sbuf, size_t bytes,
                                       char *rbuf, size_t stride)
{
    MPI_Request rq[256];
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long k = 0; k < windows; k++) {
        for (int i = 0; i < w; i++) {
            if (rank == 0)
                MPI_Isend(sbuf, (int)bytes, MPI_CHAR, 1, 2, MPI_COMM_WORLD, &rq[i]);
            else
                MPI_Irecv(rbuf + (size_t)i * stride, (int)bytes, MPI_CHAR, 0, 2, MPI_COMM_WORLD,
                          &rq[i]);
        }
        MPI_Waitall(w, rq, MPI_STATUSES_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return (double)(windows * w) / (MPI_Wtime() - t0);
}

/* The slowest rank's time: what a collective or a pair really took. */
static inline double bench_max_time(double t)
{
    double m = t;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

static inline void bench_header(const bench_opts *o, const char *name, const char *unit)
{
    if (o->rank != 0)
        return;
    printf("# benchmark %s\n# ranks %d\n# unit %s\n# stat median of %d repetitions "
           "(~%.1f ms each)\n# columns: size value\n",
           name, o->size, unit, o->reps, o->budget * 1e3);
    fflush(stdout);
}

static inline void bench_line(const bench_opts *o, long size, double value)
{
    if (o->rank != 0)
        return;
    printf("%ld %.4f\n", size, value);
    fflush(stdout);
}

/* The benchmark body: run n iterations of the measured operation. */
typedef void (*bench_fn)(void *ctx, long n);

/* Warm up, then double a trial count until a trial lasts 1/8 of the budget;
 * returns the iteration count for one timed repetition (lo..hi).  Every rank
 * takes the same decisions (they follow the slowest rank's time). */
static inline long bench_calibrate(const bench_opts *o, bench_fn fn, void *ctx, long lo, long hi)
{
    fn(ctx, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    for (long c = 1;; c *= 2) {
        double t0 = MPI_Wtime();
        fn(ctx, c);
        double t = bench_max_time(MPI_Wtime() - t0);
        if (t >= o->budget / 8 || c >= hi) {
            double n = t > 0 ? o->budget * (double)c / t : (double)hi;
            if (n < (double)lo)
                return lo;
            if (n > (double)hi)
                return hi;
            return (long)n;
        }
    }
}

/* Median over o->reps repetitions of the time per iteration (seconds), each
 * repetition timed on every rank and reduced to the slowest rank's time. */
static inline double bench_time(const bench_opts *o, bench_fn fn, void *ctx, long iters)
{
    double t[101];
    for (int r = 0; r < o->reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        fn(ctx, iters);
        t[r] = bench_max_time(MPI_Wtime() - t0) / (double)iters;
    }
    return bench_median(t, o->reps);
}

#endif
