/* coll_flat: small Allreduce and Barrier on an oversubscribed node, where
 * fabmpi runs them "flat" (src/coll/rma/flat.c: every member publishes its
 * contribution in its own shared segment and reduces everyone's itself).
 *
 * Values: MPI_SUM on ints and a non-commutative user op (2x2 matrix
 * product) at counts inside the inline flag line, just past it, at the
 * flat limit (1 KiB) and just past it, in place and not; doubles whose sum
 * depends on the order of additions, which must come out bitwise equal on
 * every rank; 100 back-to-back calls (more than the 32 flag sets, so
 * every lane is reused); a barrier that nobody leaves before its late
 * member entered it (checked against that member's CLOCK_MONOTONIC entry
 * time, a clock shared by the node).
 *
 * Nonblocking and persistent forms (once a blocking collective has set up
 * the communicator's cache): several MPI_Iallreduce and an MPI_Ibarrier
 * outstanding at once with blocking calls started in between (lanes are
 * reused while earlier calls may still be reading them), completed in
 * reverse order or by MPI_Waitany; the same with calls of more than 2 KiB
 * and blocking ones of that size between them; one of 4 KiB left unread
 * by rank 0 while 80 blocking ones go on; MPI_Allreduce_init (8 and 4000
 * bytes) and MPI_Barrier_init started 60 times, alternating with blocking
 * calls; MPI_Iallreduce one at
 * a time of 4 B to just past 4 KiB.  At 2 members on a node with a core
 * each, the nonblocking and persistent calls run flat too, pushed (each
 * member writes into the other's lane; above 2 KiB into its cache, as the
 * blocking pair).
 *
 * Algorithms: with FABMPI_COLL_VERBOSE=1, world rank 0 checks the line
 * the library printed for each call: "flat" where it must run
 * (FABMPI_YIELD=always makes fabmpi treat the node as oversubscribed, so
 * any rank count takes it), never "flat" with FABMPI_YIELD=never, past the
 * size limit or for a non-contiguous type, except "pushed" for nonblocking
 * and persistent calls at 2 ranks with FABMPI_YIELD=never.  Without FABMPI_COLL_VERBOSE
 * (or under another MPI) only values are checked. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <time.h>

#include "verbose_log.h"

static int rank, size;
static int want_flat;  /* 1: flat must run where it fits; 0: must not run; -1: unknown */
static int want_push;  /* nonblocking and persistent calls must run flat, pushed, where they fit */

/* Check the verbose line of the last `call`: "flat" when flat must run and
 * the message fits; no "flat" when it must not run or does not fit. */
static void expect_call(const char *call, int fits, const char *what)
{
    if (want_flat < 0)
        vl_check(call, call, 0, what); /* the line is there */
    else
        vl_check(call, "flat", !(want_flat && fits), what);
}

/* A blocking Allreduce of `bytes`: with two members and a core each
 * (want_push) it runs flat, pushed, up to 2 KiB of a contiguous type
 * (select.c, push_flat), else as expect_call says, up to 1 KiB. */
static void expect_allreduce(int bytes, int contig, const char *what)
{
    if (want_push)
        vl_check("MPI_Allreduce", "pushed", !(contig && bytes <= 2048), what);
    else
        expect_call("MPI_Allreduce", contig && bytes <= 1024, what);
}

/* The same for a nonblocking or persistent call's line; pushed (2 members
 * with a core each) fits up to a lane's 4 KiB. */
static void expect_sched(int bytes, const char *what)
{
    if (want_push)
        vl_check("nonblocking or persistent", "pushed", bytes > 4096, what);
    else
        expect_call("nonblocking or persistent", bytes <= 1024, what);
}

static unsigned val(int r, long i, unsigned salt)
{
    return (unsigned)(r * 2654435761u) ^ (unsigned)(i * 40503u) ^ (salt * 7919u);
}

static void check_sum(int n, int in_place, unsigned salt)
{
    unsigned *s = tu_malloc((size_t)n * sizeof *s + 1), *r = tu_malloc((size_t)n * sizeof *r + 1);
    for (int i = 0; i < n; i++)
        s[i] = val(rank, i, salt);
    if (in_place)
        memcpy(r, s, (size_t)n * sizeof *s);
    CHECK_MPI(MPI_Allreduce(in_place ? MPI_IN_PLACE : s, r, n, MPI_UNSIGNED, MPI_SUM,
                            MPI_COMM_WORLD));
    for (int i = 0; i < n; i++) {
        unsigned want = 0;
        for (int p = 0; p < size; p++)
            want += val(p, i, salt);
        if (r[i] != want)
            tu_fail(__FILE__, __LINE__, "sum of %d (in place %d): [%d] = %u, want %u", n,
                    in_place, i, r[i], want);
    }
    char what[64];
    snprintf(what, sizeof what, "MPI_SUM of %d unsigned", n);
    expect_allreduce(n * 4, 1, what);
    free(s);
    free(r);
}

static void check_matrix(int n, MPI_Datatype mat, MPI_Op op)
{
    unsigned *s = tu_malloc((size_t)n * 16 + 1), *r = tu_malloc((size_t)n * 16 + 1);
    for (int i = 0; i < 4 * n; i++)
        s[i] = val(rank, i, 5) | 1;
    CHECK_MPI(MPI_Allreduce(s, r, n, mat, op, MPI_COMM_WORLD));
    for (int e = 0; e < n; e++) {
        unsigned want[4], m[4];
        for (int k = 0; k < 4; k++)
            want[k] = val(0, 4 * e + k, 5) | 1;
        for (int p = 1; p < size; p++) { /* rank order: m0 * m1 * ... */
            for (int k = 0; k < 4; k++)
                m[k] = val(p, 4 * e + k, 5) | 1;
            tu_mat_mul(want, m, want);
        }
        if (memcmp(want, r + 4 * e, sizeof want) != 0)
            tu_fail(__FILE__, __LINE__, "matrix product of %d, element %d: %u %u %u %u, want "
                    "%u %u %u %u", n, e, r[4 * e], r[4 * e + 1], r[4 * e + 2], r[4 * e + 3],
                    want[0], want[1], want[2], want[3]);
    }
    char what[64];
    snprintf(what, sizeof what, "non-commutative op on %d matrices", n);
    expect_allreduce(n * 16, 1, what);
    free(s);
    free(r);
}

/* Sums whose rounding depends on the order of additions: every rank must
 * still get the same bits. */
static void check_same_bits(void)
{
    double s[6], r[6], r0[6];
    for (int i = 0; i < 6; i++)
        s[i] = (rank % 2 ? 1e16 : 1.0) * (i + 1) + rank * 0.1;
    CHECK_MPI(MPI_Allreduce(s, r, 6, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    expect_allreduce(48, 1, "doubles");
    memcpy(r0, r, sizeof r);
    CHECK_MPI(MPI_Bcast(r0, 6, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    if (memcmp(r0, r, sizeof r) != 0)
        tu_fail(__FILE__, __LINE__, "allreduce of doubles differs from rank 0's: %.17g vs %.17g",
                r[0], r0[0]);
}

static void check_many(void)
{
    for (int it = 0; it < 100; it++) {
        long v = rank * 1000 + it, sum = 0;
        CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
        for (int p = 0; p < size; p++)
            sum += p * 1000 + it;
        if (v != sum)
            tu_fail(__FILE__, __LINE__, "call %d: %ld, want %ld", it, v, sum);
        if (it % 7 == 0) /* interleave barriers: they share the flag lanes */
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    expect_allreduce(8, 1, "100 calls");
}

static void check_vector(void)
{
    /* Non-contiguous: never flat. */
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    int s[3] = {rank, -7, rank * 2}, r[3] = {0, 99, 0};
    CHECK_MPI(MPI_Allreduce(s, r, 1, vec, MPI_SUM, MPI_COMM_WORLD));
    int want = size * (size - 1) / 2;
    if (r[0] != want || r[1] != 99 || r[2] != 2 * want)
        tu_fail(__FILE__, __LINE__, "vector allreduce: %d %d %d, want %d 99 %d", r[0], r[1], r[2],
                want, 2 * want);
    expect_allreduce(8, 0, "vector type");
    MPI_Type_free(&vec);
}

/* One MPI_Iallreduce of n unsigned at a time: inside the lane's inline
 * bytes, just past them, at the size limits and just past. */
static void check_isum(int n, int in_place, unsigned salt)
{
    unsigned *s = tu_malloc((size_t)n * sizeof *s + 1), *r = tu_malloc((size_t)n * sizeof *r + 1);
    for (int i = 0; i < n; i++)
        r[i] = s[i] = val(rank, i, salt);
    MPI_Request rq;
    CHECK_MPI(MPI_Iallreduce(in_place ? MPI_IN_PLACE : s, r, n, MPI_UNSIGNED, MPI_SUM,
                             MPI_COMM_WORLD, &rq));
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int i = 0; i < n; i++) {
        unsigned want = 0;
        for (int p = 0; p < size; p++)
            want += val(p, i, salt);
        if (r[i] != want)
            tu_fail(__FILE__, __LINE__, "MPI_Iallreduce of %d (in place %d): [%d] = %u, want %u",
                    n, in_place, i, r[i], want);
    }
    char what[64];
    snprintf(what, sizeof what, "MPI_Iallreduce of %d unsigned", n);
    expect_sched(n * 4, what);
    free(s);
    free(r);
}

/* Outstanding scheduled calls: 5 allreduces (sum, in place or not, and
 * the non-commutative matrix product), a barrier, blocking calls between
 * the starts; completed in reverse order (by_any 0) or by MPI_Waitany. */
static void check_outstanding(MPI_Datatype mat, MPI_Op op_mat, int by_any)
{
    enum { K = 5, N = 12 };
    unsigned s[K][4 * N], r[K][4 * N];
    MPI_Request rq[K + 1];
    for (int k = 0; k < K; k++) {
        for (int i = 0; i < 4 * N; i++)
            s[k][i] = r[k][i] = val(rank, i, (unsigned)(10 + k)) | 1;
        if (k == 3)
            CHECK_MPI(MPI_Iallreduce(s[k], r[k], N, mat, op_mat, MPI_COMM_WORLD, &rq[k]));
        else
            CHECK_MPI(MPI_Iallreduce(k % 2 ? MPI_IN_PLACE : s[k], r[k], 4 * N, MPI_UNSIGNED,
                                     MPI_SUM, MPI_COMM_WORLD, &rq[k]));
        if (k == 1) {
            long one = 1;
            CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &one, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
            CHECKF(one == size, "blocking allreduce between nonblocking ones: %ld, want %d", one,
                   size);
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        }
    }
    CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &rq[K]));
    expect_sched(0, "MPI_Ibarrier");
    for (int done = 0; done <= K; done++) {
        int idx = K - done;
        if (by_any)
            CHECK_MPI(MPI_Waitany(K + 1, rq, &idx, MPI_STATUS_IGNORE));
        else
            CHECK_MPI(MPI_Wait(&rq[idx], MPI_STATUS_IGNORE));
        if (idx == K)
            continue;
        for (int i = 0; i < 4 * N; i++) {
            unsigned want = 0;
            if (idx == 3) {
                unsigned m[4], w[4];
                int e = i / 4;
                for (int q = 0; q < 4; q++)
                    w[q] = val(0, 4 * e + q, 13) | 1;
                for (int p = 1; p < size; p++) {
                    for (int q = 0; q < 4; q++)
                        m[q] = val(p, 4 * e + q, 13) | 1;
                    tu_mat_mul(w, m, w);
                }
                want = w[i % 4];
            } else {
                for (int p = 0; p < size; p++)
                    want += val(p, i, (unsigned)(10 + idx)) | 1;
            }
            if (r[idx][i] != want)
                tu_fail(__FILE__, __LINE__, "nonblocking allreduce %d (by %s): [%d] = %u, want %u",
                        idx, by_any ? "MPI_Waitany" : "MPI_Wait", i, r[idx][i], want);
        }
    }
}

static void fill(unsigned *v, int n, int who, unsigned salt)
{
    for (int i = 0; i < n; i++)
        v[i] = val(who, i, salt);
}

static void check_summed(const unsigned *r, int n, unsigned salt, const char *what)
{
    for (int i = 0; i < n; i++) {
        unsigned want = 0;
        for (int p = 0; p < size; p++)
            want += val(p, i, salt);
        if (r[i] != want)
            tu_fail(__FILE__, __LINE__, "%s: [%d] = %u, want %u", what, i, r[i], want);
    }
}

/* Outstanding calls of more than 2 KiB (at 2 members with a core each
 * they run as the pair, in the cache's ring regions) with blocking ones
 * of the same size between the starts, so the ring wraps while they are
 * outstanding; completed in reverse order or by MPI_Waitany. */
static void check_outstanding_large(int by_any)
{
    enum { K = 6, N = 700, BLOCKING = 12 };
    unsigned *s = tu_malloc(K * N * sizeof *s), *r = tu_malloc(K * N * sizeof *r);
    unsigned *b = tu_malloc(1024 * sizeof *b);
    MPI_Request rq[K];
    for (int k = 0; k < K; k++) {
        fill(&s[k * N], N, rank, (unsigned)(40 + k));
        fill(&r[k * N], N, rank, (unsigned)(40 + k));
        CHECK_MPI(MPI_Iallreduce(k % 2 ? MPI_IN_PLACE : &s[k * N], &r[k * N], N, MPI_UNSIGNED,
                                 MPI_SUM, MPI_COMM_WORLD, &rq[k]));
        for (int j = 0; j < BLOCKING; j++) {
            fill(b, 1024, rank, (unsigned)(60 + j));
            CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, b, 1024, MPI_UNSIGNED, MPI_SUM, MPI_COMM_WORLD));
            check_summed(b, 1024, (unsigned)(60 + j), "blocking allreduce between nonblocking ones");
        }
    }
    expect_sched(N * 4, "MPI_Iallreduce of 700 unsigned");
    for (int done = 0; done < K; done++) {
        int idx = K - 1 - done;
        if (by_any)
            CHECK_MPI(MPI_Waitany(K, rq, &idx, MPI_STATUS_IGNORE));
        else
            CHECK_MPI(MPI_Wait(&rq[idx], MPI_STATUS_IGNORE));
        char what[80];
        snprintf(what, sizeof what, "outstanding 2800-byte allreduce %d (by %s)", idx,
                 by_any ? "MPI_Waitany" : "MPI_Wait");
        check_summed(&r[idx * N], N, (unsigned)(40 + idx), what);
    }
    free(s);
    free(r);
    free(b);
}

/* A nonblocking allreduce of 4 KiB left unwaited while 80 blocking ones
 * of the same size run, rank 0 entering each 200 us late: it then finds
 * the other's data there and never polls, so its nonblocking call stays
 * unread until its MPI_Wait.  The other member must not reuse that call's
 * region meanwhile (at 2 members, where it runs as the pair: `done` is a
 * watermark, coll/rma/cache.h). */
static void check_left_unread(void)
{
    enum { N = 1024, BLOCKING = 80 };
    unsigned *s = tu_malloc(N * sizeof *s), *r = tu_malloc(N * sizeof *r);
    unsigned *b = tu_malloc(N * sizeof *b);
    fill(s, N, rank, 70);
    MPI_Request rq;
    CHECK_MPI(MPI_Iallreduce(s, r, N, MPI_UNSIGNED, MPI_SUM, MPI_COMM_WORLD, &rq));
    for (int j = 0; j < BLOCKING; j++) {
        if (rank == 0) {
            struct timespec nap = {0, 200 * 1000};
            nanosleep(&nap, NULL);
        }
        fill(b, N, rank, (unsigned)(71 + j));
        CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, b, N, MPI_UNSIGNED, MPI_SUM, MPI_COMM_WORLD));
        check_summed(b, N, (unsigned)(71 + j), "blocking allreduce after an unwaited one");
    }
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    check_summed(r, N, 70, "nonblocking allreduce waited for after 80 blocking ones");
    free(s);
    free(r);
    free(b);
}

/* Persistent allreduce and barrier, started again and again, with a
 * blocking allreduce between some starts. */
static void check_persistent(void)
{
    enum { NB = 1000 }; /* 4000 bytes: at 2 members with a core each, the pair */
    long in = 0, out = 0;
    unsigned *bin = tu_malloc(NB * sizeof *bin), *bout = tu_malloc(NB * sizeof *bout);
    MPI_Request rq[3];
    CHECK_MPI(MPI_Allreduce_init(&in, &out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                                 &rq[0]));
    CHECK_MPI(MPI_Allreduce_init(bin, bout, NB, MPI_UNSIGNED, MPI_SUM, MPI_COMM_WORLD,
                                 MPI_INFO_NULL, &rq[2]));
    expect_sched(NB * 4, "MPI_Allreduce_init of 1000 unsigned");
    CHECK_MPI(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &rq[1]));
    for (int it = 0; it < 60; it++) {
        in = rank * 100 + it;
        out = -1;
        fill(bin, NB, rank, (unsigned)(200 + it));
        CHECK_MPI(MPI_Start(&rq[2]));
        if (it % 2)
            CHECK_MPI(MPI_Startall(2, rq));
        else
            CHECK_MPI(MPI_Start(&rq[0]));
        if (it % 3 == 0) {
            long b = it;
            CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &b, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD));
            CHECKF(b == it, "blocking allreduce between starts: %ld, want %d", b, it);
        }
        CHECK_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
        if (it % 2)
            CHECK_MPI(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
        long want = 100L * size * (size - 1) / 2 + (long)it * size;
        if (out != want)
            tu_fail(__FILE__, __LINE__, "persistent allreduce, start %d: %ld, want %ld", it, out,
                    want);
        CHECK_MPI(MPI_Wait(&rq[2], MPI_STATUS_IGNORE));
        check_summed(bout, NB, (unsigned)(200 + it), "persistent 4000-byte allreduce");
    }
    expect_sched(0, "MPI_Barrier_init");
    for (int k = 0; k < 3; k++)
        CHECK_MPI(MPI_Request_free(&rq[k]));
    free(bin);
    free(bout);
}

static double mono(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void check_barrier(void)
{
    const int late = size - 1;
    double entered = 0;
    for (int round = 0; round < 3; round++) {
        if (rank == late) {
            struct timespec nap = {0, 30 * 1000 * 1000};
            nanosleep(&nap, NULL);
            entered = mono();
        }
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        double left = mono(), e = entered;
        expect_call("MPI_Barrier", 1, "barrier");
        CHECK_MPI(MPI_Bcast(&e, 1, MPI_DOUBLE, late, MPI_COMM_WORLD));
        if (left < e)
            tu_fail(__FILE__, __LINE__, "left the barrier %.6f s before rank %d entered it",
                    e - left, late);
    }
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *v = getenv("FABMPI_COLL_VERBOSE"), *y = getenv("FABMPI_YIELD");
    const char *mode = getenv("FABMPI_COLL_RMA");
    want_flat = !y ? -1 : strcmp(y, "always") == 0 ? 1 : strcmp(y, "never") == 0 ? 0 : -1;
    if (mode && strcmp(mode, "off") == 0)
        want_flat = 0;
    if (size < 2)
        want_flat = 0;
    want_push = size == 2 && want_flat == 0 && y && !(mode && strcmp(mode, "off") == 0);
    const int checked = rank == 0 && v && strcmp(v, "1") == 0 && want_flat >= 0;
    vl_start(rank == 0 && v && strcmp(v, "1") == 0);

    MPI_Op op_mat;
    CHECK_MPI(MPI_Op_create(tu_mat_op, 0, &op_mat));
    MPI_Datatype mat;
    CHECK_MPI(MPI_Type_contiguous(4, MPI_UNSIGNED, &mat));
    CHECK_MPI(MPI_Type_commit(&mat));

    check_barrier();
    const int counts[] = {1, 2, 12, 13, 100, 256, 257, 1000};
    for (int k = 0; k < (int)(sizeof counts / sizeof *counts); k++)
        for (int in_place = 0; in_place < 2; in_place++)
            check_sum(counts[k], in_place, (unsigned)k);
    const int mcounts[] = {1, 3, 4, 64, 65};
    for (int k = 0; k < (int)(sizeof mcounts / sizeof *mcounts); k++)
        check_matrix(mcounts[k], mat, op_mat);
    check_same_bits();
    check_many();
    check_vector();
    const int icounts[] = {1, 8, 9, 256, 1024, 1025};
    for (int k = 0; k < (int)(sizeof icounts / sizeof *icounts); k++)
        for (int in_place = 0; in_place < 2; in_place++)
            check_isum(icounts[k], in_place, (unsigned)(20 + k));
    check_barrier();
    for (int by_any = 0; by_any < 2; by_any++) {
        check_outstanding(mat, op_mat, by_any);
        check_outstanding_large(by_any);
    }
    check_left_unread();
    check_persistent();

    MPI_Type_free(&mat);
    MPI_Op_free(&op_mat);
    vl_stop();
    CHECK_MPI(MPI_Finalize());
    if (rank == 0)
        printf("coll_flat: ok (%d ranks%s)\n", size,
               checked ? ", algorithms checked" : "");
    return 0;
}
