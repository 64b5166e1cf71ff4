/* coll_direct: persistent and nonblocking collectives run by their
 * schedule's direct form (coll/sched.h, fm_sched_set_direct: the flat and
 * pair calls, begun by MPI_Start or the MPI_I* call itself and ended
 * there, in MPI_Wait's own look, or by any other progress).  What must
 * hold whichever way a run ends:
 *   - exact results of MPI_Allreduce_init of 8 bytes and of 3 KiB (at 2
 *     members, the pair) and MPI_Barrier_init, started again and again,
 *     each member in turn arriving late, so that a run ends in MPI_Start
 *     on one member and in MPI_Wait on another;
 *   - the same completed by MPI_Test loops, MPI_Waitall (all three
 *     outstanding at once) and MPI_Waitany;
 *   - nobody leaves a barrier before its late member entered it;
 *   - a persistent allreduce made before the communicator has its cache
 *     runs two-sided until a blocking collective sets the cache up, then
 *     flat, with the same results;
 *   - replayed MPI_Iallreduce: the same, late members included;
 *   - a member passing another count than the others: every member's
 *     MPI_Wait returns an error (MPI_ERRORS_RETURN), none hangs.
 * With FM_TEST_EXPECT_DIRECT=1 (shared memory: 2 members with a core each,
 * or a crowded node, where these calls run flat) MPI_T's coll_sched_direct
 * counts exactly the runs the direct form made: every run of the small
 * calls, and of the 3 KiB one at 2 members (pulled flat stops at 1 KiB). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <time.h>

#include "testutil.h"

static int rank, size;
static tu_counters ctr;

static long long direct_runs(void)
{
    long long d[1];
    tu_counters_deltas(&ctr, d);
    return d[0];
}

static double mono(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Member `late` sleeps 2 ms before it starts: the others wait for it. */
static void arrive(int late)
{
    if (rank == late) {
        struct timespec nap = {0, 2 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
}

enum { NB = 768 }; /* 3 KiB of unsigned */

static void fill(unsigned *v, int n, int it)
{
    for (int i = 0; i < n; i++)
        v[i] = (unsigned)(rank * 1000003 + it * 7919 + i);
}

static void check_sum(const unsigned *v, int n, int it, const char *what)
{
    for (int i = 0; i < n; i++) {
        unsigned want = 0;
        for (int r = 0; r < size; r++)
            want += (unsigned)(r * 1000003 + it * 7919 + i);
        if (v[i] != want)
            tu_fail(__FILE__, __LINE__, "%s, round %d: [%d] = %u, want %u", what, it, i, v[i], want);
    }
}

static long want_long(int it) { return 100L * size * (size - 1) / 2 + (long)it * size; }

/* How each round completes its requests. */
enum { BY_WAIT, BY_TEST, BY_WAITALL, BY_WAITANY, NWAYS };

static void complete(MPI_Request *rq, int n, int way)
{
    if (way == BY_WAIT) {
        for (int i = 0; i < n; i++)
            CHECK_MPI(MPI_Wait(&rq[i], MPI_STATUS_IGNORE));
    } else if (way == BY_TEST) {
        for (int i = n - 1; i >= 0; i--) {
            int flag = 0;
            while (!flag)
                CHECK_MPI(MPI_Test(&rq[i], &flag, MPI_STATUS_IGNORE));
        }
    } else if (way == BY_WAITALL) {
        CHECK_MPI(MPI_Waitall(n, rq, MPI_STATUSES_IGNORE));
    } else {
        for (int k = 0; k < n; k++) {
            int idx = -1;
            CHECK_MPI(MPI_Waitany(n, rq, &idx, MPI_STATUS_IGNORE));
            CHECKF(idx >= 0 && idx < n, "MPI_Waitany index %d", idx);
        }
    }
}

/* Persistent allreduces and a barrier, started `rounds` times; returns the
 * runs started. */
static long long persistent(MPI_Comm comm, int rounds)
{
    long in = 0, out = 0;
    unsigned *bin = tu_malloc(NB * sizeof *bin), *bout = tu_malloc(NB * sizeof *bout);
    MPI_Request rq[3];
    CHECK_MPI(MPI_Allreduce_init(&in, &out, 1, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &rq[0]));
    CHECK_MPI(MPI_Barrier_init(comm, MPI_INFO_NULL, &rq[1]));
    CHECK_MPI(MPI_Allreduce_init(bin, bout, NB, MPI_UNSIGNED, MPI_SUM, comm, MPI_INFO_NULL,
                                 &rq[2]));
    for (int it = 0; it < rounds; it++) {
        const int late = it % (size + 1); /* == size: nobody late */
        const int way = (it / (size + 1)) % NWAYS;
        in = rank * 100 + it;
        out = -1;
        fill(bin, NB, it);
        arrive(late);
        double entered = mono();
        CHECK_MPI(MPI_Startall(3, rq));
        complete(rq, 3, way);
        double left = mono();
        CHECKF(out == want_long(it), "persistent allreduce round %d (late %d, way %d): %ld, want %ld",
               it, late, way, out, want_long(it));
        check_sum(bout, NB, it, "persistent 3 KiB allreduce");
        /* The barrier: nobody left before the late member entered. */
        double e = entered;
        CHECK_MPI(MPI_Bcast(&e, 1, MPI_DOUBLE, late < size ? late : 0, comm));
        CHECKF(late == size || left >= e, "round %d: left the barrier %.6f s before rank %d entered",
               it, e - left, late);
        /* One at a time too, so each may end inside MPI_Start. */
        arrive(size - 1 - late);
        CHECK_MPI(MPI_Start(&rq[0]));
        CHECK_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
        CHECKF(out == want_long(it), "persistent allreduce alone, round %d: %ld", it, out);
    }
    for (int k = 0; k < 3; k++)
        CHECK_MPI(MPI_Request_free(&rq[k]));
    free(bin);
    free(bout);
    return 4LL * rounds;
}

/* Replayed MPI_Iallreduce of 8 bytes, late members in turn. */
static void replayed(MPI_Comm comm, int rounds)
{
    for (int it = 0; it < rounds; it++) {
        long in = rank * 100 + it, out = -1;
        arrive(it % (size + 1));
        MPI_Request rq;
        CHECK_MPI(MPI_Iallreduce(&in, &out, 1, MPI_LONG, MPI_SUM, comm, &rq));
        CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        CHECKF(out == want_long(it), "replayed allreduce round %d: %ld, want %ld", it, out,
               want_long(it));
    }
}

/* A persistent allreduce recorded before the cache is there. */
static void before_cache(void)
{
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    long in = 0, out = 0;
    MPI_Request rq;
    CHECK_MPI(MPI_Allreduce_init(&in, &out, 1, MPI_LONG, MPI_SUM, c, MPI_INFO_NULL, &rq));
    for (int it = 0; it < 6; it++) {
        if (it == 3) { /* sets the cache up */
            long x = 1, y = 0;
            CHECK_MPI(MPI_Allreduce(&x, &y, 1, MPI_LONG, MPI_SUM, c));
            CHECK_EQ(y, size);
        }
        in = rank * 100 + it;
        arrive(it % size);
        CHECK_MPI(MPI_Start(&rq));
        CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        CHECKF(out == want_long(it), "allreduce recorded before the cache, round %d: %ld", it, out);
    }
    CHECK_MPI(MPI_Request_free(&rq));
    CHECK_MPI(MPI_Comm_free(&c));
}

/* Member size - 1 passes half the count of the others. */
static void mismatch(void)
{
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    long x = 1, y = 0;
    CHECK_MPI(MPI_Allreduce(&x, &y, 1, MPI_LONG, MPI_SUM, c));
    int in[4] = {1, 2, 3, 4}, out[4];
    const int n = rank == size - 1 ? 2 : 4;
    MPI_Request rq;
    CHECK_MPI(MPI_Allreduce_init(in, out, n, MPI_INT, MPI_SUM, c, MPI_INFO_NULL, &rq));
    CHECK_MPI(MPI_Start(&rq));
    int rc = MPI_Wait(&rq, MPI_STATUS_IGNORE), cls;
    MPI_Error_class(rc, &cls);
    CHECKF(cls == MPI_ERR_TRUNCATE || cls == MPI_ERR_OTHER,
           "persistent allreduce of count %d here (rank %d passes 2, the others 4): class %d (%s)",
           n, size - 1, cls,
           rc == MPI_SUCCESS ? "a mismatch went unnoticed" : "wrong class");
    CHECK_MPI(MPI_Request_free(&rq));
    CHECK_MPI(MPI_Comm_free(&c));
}

int main(int argc, char **argv)
{
    tu_init_min(&argc, &argv, &rank, &size, 1, "coll_direct");
    int provided;
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    const int expect = getenv("FM_TEST_EXPECT_DIRECT") && atoi(getenv("FM_TEST_EXPECT_DIRECT"));
    /* The cache the flat calls need comes with a blocking call. */
    long x = 1, y = 0;
    CHECK_MPI(MPI_Allreduce(&x, &y, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    CHECK_EQ(y, size);

    const char *names[1] = {"coll_sched_direct"};
    tu_counters_start(&ctr, 1, names);
    const int rounds = 4 * (size + 1) * NWAYS / 2;
    long long runs = persistent(MPI_COMM_WORLD, rounds);
    long long got = direct_runs();
    if (expect) {
        /* 4 runs a round; the 3 KiB one is flat (the pair) at 2 members only. */
        long long want = size == 2 ? runs : runs - rounds;
        CHECKF(got == want, "%lld persistent runs made directly, want %lld of %lld", got, want,
               runs);
    }
    replayed(MPI_COMM_WORLD, 40);
    got = direct_runs();
    if (expect)
        CHECKF(got == 40, "%lld replayed MPI_Iallreduce runs made directly, want 40", got);
    before_cache();
    got = direct_runs();
    if (expect)
        CHECKF(got == 3, "%lld runs made directly by a call recorded before the cache, want 3", got);
    tu_counters_stop(&ctr);
    if (size > 1)
        mismatch();
    MPI_T_finalize();
    if (rank == 0)
        printf("coll_direct: ok (%d members)\n", size);
    MPI_Finalize();
    return 0;
}
