/* testutil.h — check macros shared by the MPI test programs.
 *
 * Every failed check prints one line
 *     FAIL <file>:<line> <what> (rank r)
 * to stderr and calls MPI_Abort(MPI_COMM_WORLD, 1).  Only standard MPI calls
 * are used so the same programs run under any MPI implementation. */
#ifndef FM_TEST_TESTUTIL_H
#define FM_TEST_TESTUTIL_H

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline const char *tu_base(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static inline int tu_world_rank(void)
{
    int init = 0, fin = 0, r = -1;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin)
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

static inline void tu_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
static inline void tu_fail(const char *file, int line, const char *fmt, ...)
{
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    fprintf(stderr, "FAIL %s:%d %s (rank %d)\n", tu_base(file), line, what, tu_world_rank());
    fflush(stderr);
    fflush(stdout);
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin)
        MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* CHECK(cond): fail with the condition's text. */
#define CHECK(cond)                                                      \
    do {                                                                 \
        if (!(cond))                                                     \
            tu_fail(__FILE__, __LINE__, "%s", #cond);                    \
    } while (0)

/* CHECKF(cond, fmt, ...): fail with a formatted message. */
#define CHECKF(cond, ...)                                                \
    do {                                                                 \
        if (!(cond))                                                     \
            tu_fail(__FILE__, __LINE__, __VA_ARGS__);                    \
    } while (0)

/* CHECK_EQ(a, b) for integers: print both values on failure. */
#define CHECK_EQ(a, b)                                                   \
    do {                                                                 \
        long long tu_a_ = (long long)(a), tu_b_ = (long long)(b);        \
        if (tu_a_ != tu_b_)                                              \
            tu_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, \
                    tu_a_, tu_b_);                                       \
    } while (0)

/* CHECK_MPI(call): the call must return MPI_SUCCESS. */
#define CHECK_MPI(call)                                                  \
    do {                                                                 \
        int tu_rc_ = (call);                                             \
        if (tu_rc_ != MPI_SUCCESS) {                                     \
            char tu_s_[MPI_MAX_ERROR_STRING] = "";                       \
            int tu_l_ = 0;                                               \
            MPI_Error_string(tu_rc_, tu_s_, &tu_l_);                     \
            tu_fail(__FILE__, __LINE__, "%s returned %d (%s)", #call,    \
                    tu_rc_, tu_s_);                                      \
        }                                                                \
    } while (0)

/* CHECK_ERR(call, cls): the call must fail with error class cls (the
 * communicator involved must have MPI_ERRORS_RETURN set). */
/* An MPI_T procedure returned exactly cls (MPI_T_ERR_* classes are
 * returned as they are, never through an error handler). */
#define CHECK_T(call, cls)                                                        \
    do {                                                                          \
        int rc_ = (call);                                                         \
        CHECKF(rc_ == (cls), "%s returned %d, expected %s = %d", #call, rc_, #cls, \
               (int)(cls));                                                       \
    } while (0)

#define CHECK_ERR(call, cls)                                             \
    do {                                                                 \
        int tu_rc_ = (call), tu_c_ = -1;                                 \
        if (tu_rc_ == MPI_SUCCESS)                                       \
            tu_fail(__FILE__, __LINE__, "%s succeeded, expected %s",     \
                    #call, #cls);                                        \
        MPI_Error_class(tu_rc_, &tu_c_);                                 \
        if (tu_c_ != (cls))                                              \
            tu_fail(__FILE__, __LINE__,                                  \
                    "%s: error class %d (code %d), expected %s = %d",    \
                    #call, tu_c_, tu_rc_, #cls, (int)(cls));             \
    } while (0)

/* Deterministic byte pattern for payload checks. */
static inline unsigned char tu_pat(size_t i, unsigned seed)
{
    return (unsigned char)((i * 131u + (i >> 8) * 7u + seed * 17u + 1u) & 0xffu);
}

static inline void tu_fill(void *buf, size_t n, unsigned seed)
{
    unsigned char *b = (unsigned char *)buf;
    for (size_t i = 0; i < n; i++)
        b[i] = tu_pat(i, seed);
}

/* Index of the first byte that differs from the pattern, or -1. */
static inline long tu_verify(const void *buf, size_t n, unsigned seed)
{
    const unsigned char *b = (const unsigned char *)buf;
    for (size_t i = 0; i < n; i++)
        if (b[i] != tu_pat(i, seed))
            return (long)i;
    return -1;
}

#define CHECK_PATTERN(buf, n, seed)                                      \
    do {                                                                 \
        long tu_i_ = tu_verify((buf), (n), (seed));                      \
        if (tu_i_ >= 0)                                                  \
            tu_fail(__FILE__, __LINE__,                                  \
                    "payload %s (%zu bytes, seed %u) differs at byte %ld", \
                    #buf, (size_t)(n), (unsigned)(seed), tu_i_);         \
    } while (0)

static inline void *tu_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "FAIL out of memory allocating %zu bytes (rank %d)\n", n,
                tu_world_rank());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* The error class of a return code. */
static inline int tu_class_of(int rc)
{
    int cls;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* A duplicate of MPI_COMM_WORLD whose errors return: a case that expects
 * an error runs on its own, since after one a communicator's state is
 * undefined. */
static inline MPI_Comm tu_fresh_comm(void)
{
    MPI_Comm c;
    if (MPI_Comm_dup(MPI_COMM_WORLD, &c) != MPI_SUCCESS ||
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN) != MPI_SUCCESS)
        tu_fail(__FILE__, __LINE__, "MPI_Comm_dup / MPI_Comm_set_errhandler failed");
    return c;
}

/* A control variable's value by name: fabmpi's SIZE knobs are
 * MPI_UNSIGNED_LONG, the others MPI_INT (read at its own width). */
static inline unsigned long tu_cvar(const char *name)
{
    int i, count, verbosity, bind, scope, name_len = 0, desc_len = 0;
    MPI_Datatype dt;
    MPI_T_enum enumtype;
    MPI_T_cvar_handle h;
    CHECK_MPI(MPI_T_cvar_get_index(name, &i));
    CHECK_MPI(MPI_T_cvar_get_info(i, NULL, &name_len, &verbosity, &dt, &enumtype, NULL,
                                  &desc_len, &bind, &scope));
    CHECK_MPI(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
    unsigned long v = 0;
    if (dt == MPI_INT) {
        int x = 0;
        CHECK_MPI(MPI_T_cvar_read(h, &x));
        v = (unsigned long)x;
    } else {
        CHECKF(dt == MPI_UNSIGNED_LONG, "control variable %s: unexpected datatype", name);
        CHECK_MPI(MPI_T_cvar_read(h, &v));
    }
    CHECK_MPI(MPI_T_cvar_handle_free(&h));
    return v;
}

/* Busy-wait with MPI_Wtime for a short time, used to give a peer a chance
 * to do something it must not be able to do (complete a sync send...). */
static inline void tu_spin(double seconds)
{
    double t = MPI_Wtime();
    while (MPI_Wtime() - t < seconds)
        ;
}

/* Other collectives woven into a run of calls under test (the flat tests),
 * one step after each call `it`: an MPI_Allreduce checked exactly (it % 10
 * == 3), an MPI_Barrier (it % 10 == 6), and an MPI_Iallreduce started at
 * it % 25 == 0, left outstanding over the next calls, and waited for and
 * checked at it % 25 == 4.  Start from a zeroed tu_mix with rq NULL. */
typedef struct tu_mix {
    MPI_Request rq;
    unsigned in, out, want;
} tu_mix;
static inline void tu_mix_step(tu_mix *m, int it)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (it % 10 == 3) {
        unsigned a = (unsigned)(rank + it), b = 0, want = 0;
        CHECK_MPI(MPI_Allreduce(&a, &b, 1, MPI_UNSIGNED, MPI_SUM, MPI_COMM_WORLD));
        for (int p = 0; p < size; p++)
            want += (unsigned)(p + it);
        CHECKF(b == want, "allreduce in the run (%d): %u, want %u", it, b, want);
    }
    if (it % 10 == 6)
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (it % 25 == 0) {
        m->in = (unsigned)(rank * 3 + it);
        m->want = 0;
        for (int p = 0; p < size; p++)
            m->want += (unsigned)(p * 3 + it);
        CHECK_MPI(
            MPI_Iallreduce(&m->in, &m->out, 1, MPI_UNSIGNED, MPI_SUM, MPI_COMM_WORLD, &m->rq));
    }
    if (it % 25 == 4) {
        CHECK_MPI(MPI_Wait(&m->rq, MPI_STATUS_IGNORE));
        CHECKF(m->out == m->want, "iallreduce over the run (%d): %u, want %u", it, m->out,
               m->want);
    }
}

/* A non-commutative user op for reductions: the product of 2x2 matrices
 * [a b; c d] stored as 4 unsigned, inout = in x inout element by element. */
static inline void tu_mat_mul(const unsigned *x, const unsigned *y, unsigned *out)
{
    unsigned r[4] = {x[0] * y[0] + x[1] * y[2], x[0] * y[1] + x[1] * y[3],
                     x[2] * y[0] + x[3] * y[2], x[2] * y[1] + x[3] * y[3]};
    memcpy(out, r, sizeof r);
}

static inline void tu_mat_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    unsigned *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        tu_mat_mul(a + 4 * i, b + 4 * i, b + 4 * i);
}

/* Where the standard names no error class: fabmpi's is checked exactly,
 * another MPI's only for being an error. */
#ifdef FABMPI
#define TOPO_ERR(call, cls) CHECK_ERR(call, cls)
#else
#define TOPO_ERR(call, cls)                                                   \
    do {                                                                      \
        int rc_ = (call);                                                     \
        CHECKF(rc_ != MPI_SUCCESS, "%s succeeded, expected an error", #call); \
    } while (0)
#endif

/* A test's start when it needs at least `min` ranks: MPI_Init, this rank
 * and the size, or rank 0 says so and the job aborts with code 2. */
static inline void tu_init_min(int *argc, char ***argv, int *rank, int *size, int min,
                               const char *name)
{
    CHECK_MPI(MPI_Init(argc, argv));
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    if (*size < min) {
        if (*rank == 0)
            fprintf(stderr, "%s: run it on %d or more ranks\n", name, min);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* The 2x2 matrix product on a 4-unsigned type (tu_mat_op): a
 * non-commutative reduction for tests; free both with tu_mat_free. */
static inline void tu_mat_make(MPI_Datatype *type, MPI_Op *op)
{
    CHECK_MPI(MPI_Type_contiguous(4, MPI_UNSIGNED, type));
    CHECK_MPI(MPI_Type_commit(type));
    CHECK_MPI(MPI_Op_create(tu_mat_op, 0, op));
}

static inline void tu_mat_free(MPI_Datatype *type, MPI_Op *op)
{
    MPI_Op_free(op);
    MPI_Type_free(type);
}

/* The threaded tests' start: MPI_Init_thread(MPI_THREAD_MULTIPLE), failing
 * unless it is provided, this rank and the size, and FM_TEST_THREADS
 * threads per rank (default 4; from min to max). */
static inline int tu_init_multiple(int *argc, char ***argv, int *rank, int *size, int min,
                                   int max)
{
    int provided = -1;
    CHECK_MPI(MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK_EQ(provided, MPI_THREAD_MULTIPLE);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    const char *e = getenv("FM_TEST_THREADS");
    int n = e ? atoi(e) : 4;
    CHECKF(n >= min && n <= max, "FM_TEST_THREADS=%d: from %d to %d", n, min, max);
    return n;
}

/* Erroneous programs (counts that differ between members) are run under
 * fabmpi only: MPI leaves their outcome undefined, and Open MPI 4.1 hangs
 * or aborts in them. */
#ifdef FABMPI
#define TU_ERRONEOUS 1
#else
#define TU_ERRONEOUS 0
#endif

/* MPI_T counters (class COUNTER) read as their changes since the last
 * reading: tu_counters_start (after MPI_T_init_thread), then
 * tu_counters_deltas fills d[0..n), then tu_counters_stop. */
#define TU_COUNTERS_MAX 8
typedef struct tu_counters {
    int n;
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle[TU_COUNTERS_MAX];
    unsigned long long last[TU_COUNTERS_MAX];
} tu_counters;

static inline void tu_counters_deltas(tu_counters *c, long long *d)
{
    for (int i = 0; i < c->n; i++) {
        unsigned long long v;
        CHECK_MPI(MPI_T_pvar_read(c->session, c->handle[i], &v));
        d[i] = (long long)(v - c->last[i]);
        c->last[i] = v;
    }
}

static inline void tu_counters_start(tu_counters *c, int n, const char *const *names)
{
    CHECK(n <= TU_COUNTERS_MAX);
    c->n = n;
    CHECK_MPI(MPI_T_pvar_session_create(&c->session));
    for (int i = 0; i < n; i++) {
        int idx, count;
        CHECK_MPI(MPI_T_pvar_get_index(names[i], MPI_T_PVAR_CLASS_COUNTER, &idx));
        CHECK_MPI(MPI_T_pvar_handle_alloc(c->session, idx, NULL, &c->handle[i], &count));
        c->last[i] = 0;
    }
    CHECK_MPI(MPI_T_pvar_start(c->session, MPI_T_PVAR_ALL_HANDLES));
    long long d[TU_COUNTERS_MAX];
    tu_counters_deltas(c, d);
}

static inline void tu_counters_stop(tu_counters *c)
{
    CHECK_MPI(MPI_T_pvar_session_free(&c->session));
}

/* Let the counters' changes so far go uncounted (c NULL: none kept). */
static inline void tu_counters_skip(tu_counters *c)
{
    long long d[TU_COUNTERS_MAX];
    if (c)
        tu_counters_deltas(c, d);
}

/* What fabmpi must do with a small collective on a crowded node, from the
 * environment: 1 run it flat (FABMPI_YIELD=always makes any node count as
 * crowded), 0 not (FABMPI_YIELD=never, FABMPI_COLL_RMA=off, or
 * FABMPI_NET=ofi: the lanes need shared memory), -1 not known (unset, or
 * another MPI). */
static inline int tu_flat_expected(void)
{
#ifdef FABMPI
    const char *y = getenv("FABMPI_YIELD"), *mode = getenv("FABMPI_COLL_RMA");
    const char *net = getenv("FABMPI_NET");
    if ((mode && !strcmp(mode, "off")) || (net && !strcmp(net, "ofi")))
        return 0;
    return !y ? -1 : !strcmp(y, "always") ? 1 : !strcmp(y, "never") ? 0 : -1;
#else
    return -1;
#endif
}

/* One collective in one of three forms: blocking (mode 0), nonblocking
 * then MPI_Wait (1), or persistent, started and waited for twice, then
 * freed (2).  nbcall and pcall name their request rq_. */
#define RUN_FORMS(mode, blocking, nbcall, pcall)                                  \
    do {                                                                    \
        MPI_Request rq_;                                                    \
        if ((mode) == 0) {                                                  \
            CHECK_MPI(blocking);                                            \
        } else if ((mode) == 1) {                                           \
            CHECK_MPI(nbcall);                                              \
            CHECK_MPI(MPI_Wait(&rq_, MPI_STATUS_IGNORE));                   \
        } else {                                                            \
            CHECK_MPI(pcall);                                               \
            for (int k_ = 0; k_ < 2; k_++) {                                \
                CHECK_MPI(MPI_Start(&rq_));                                 \
                CHECK_MPI(MPI_Wait(&rq_, MPI_STATUS_IGNORE));               \
            }                                                               \
            CHECK_MPI(MPI_Request_free(&rq_));                              \
        }                                                                   \
    } while (0)

#endif
