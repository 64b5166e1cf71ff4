/* coll_replay: MPI_Iallreduce, MPI_Ibarrier and MPI_Ibcast called again
 * with the same arguments replay the schedule recorded the time before
 * (coll/sched.h, "Replay"; the other nonblocking collectives with fixed
 * counts too: coll_replay_kinds).  What must hold whether a call replays or
 * records:
 *   - exact results while the buffers' contents change from call to call,
 *     with the calls alternating between buffer pairs and sizes (each
 *     change of arguments records anew), a two-sided nonblocking
 *     collective and point-to-point traffic in between (tags stay in step
 *     on every member), and two calls on the same arguments in flight at
 *     once, completed in reverse order;
 *   - a communicator freed while its schedule is parked drops it: a new
 *     one (the pool may hand out the same address) gets a fresh recording
 *     (ASan/valgrind see the rest);
 *   - after FABMPI_COLL_RMA is written through MPI_T nothing recorded
 *     before is replayed: with it off, the next call runs two-sided; and
 *     a blocking MPI_Allreduce repeated across the write does not keep
 *     the algorithm chosen for it before (select.c remembers the last
 *     choice): off, it runs two-sided; back on, one-sided again where it
 *     ran so before (FM_TEST_EXPECT_REPLAY=1).
 * With FM_TEST_EXPECT_REPLAY=1 (shared memory, where these calls run
 * flat) the replays themselves are counted (MPI_T's coll_sched_replayed):
 * in the first loop every call but the first of each argument set
 * replays. */
#include "testutil.h"

static int rank, size;

/* MPI_T counters: flat allreduces and replays, read as changes since the
 * last look. */
enum { C_FLAT, C_REPLAY, C_TWO_SIDED, NC };
static tu_counters ctr;
static long long d[NC];

static void look(void) { tu_counters_deltas(&ctr, d); }

/* Iallreduce of n longs from in to out on comm, value base + rank + i. */
static void one(MPI_Comm comm, long *in, long *out, int n, long base)
{
    int csize;
    MPI_Comm_size(comm, &csize);
    for (int i = 0; i < n; i++)
        in[i] = base + rank + i;
    MPI_Request rq;
    CHECK_MPI(MPI_Iallreduce(in, out, n, MPI_LONG, MPI_SUM, comm, &rq));
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int i = 0; i < n; i++) {
        long want = (long)csize * (base + i) + (long)csize * (csize - 1) / 2;
        CHECKF(out[i] == want, "base %ld element %d: %ld, want %ld", base, i, out[i], want);
    }
}

int main(int argc, char **argv)
{
    tu_init_min(&argc, &argv, &rank, &size, 1, "coll_replay");
    int provided;
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    enum { N = 512 };
    long *a_in = tu_malloc(N * sizeof(long)), *a_out = tu_malloc(N * sizeof(long));
    long *b_in = tu_malloc(N * sizeof(long)), *b_out = tu_malloc(N * sizeof(long));
    /* The cache the flat algorithm needs comes with a blocking call. */
    long x = 1, y = 0;
    CHECK_MPI(MPI_Allreduce(&x, &y, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    CHECK_EQ(y, size);

    const int expect = getenv("FM_TEST_EXPECT_REPLAY") && atoi(getenv("FM_TEST_EXPECT_REPLAY"));
    const char *names[NC] = {"coll_allreduce_flat", "coll_sched_replayed",
                             "coll_allreduce_two_sided"};
    tu_counters_start(&ctr, NC, names);
    for (int it = 0; it < 60; it++) {
        one(MPI_COMM_WORLD, a_in, a_out, N, it * 1000);
        if (it % 3 == 1)
            one(MPI_COMM_WORLD, b_in, b_out, N, it * 7);
        if (it % 5 == 2)
            one(MPI_COMM_WORLD, a_in, a_out, 3, it);
        if (it % 4 == 3) { /* two-sided schedule and user traffic in between */
            long v = rank == 0 ? it : -1;
            MPI_Request rq;
            CHECK_MPI(MPI_Ibcast(&v, 1, MPI_LONG, 0, MPI_COMM_WORLD, &rq));
            CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            CHECK_EQ(v, it);
            long s = rank, r = -1;
            CHECK_MPI(MPI_Sendrecv(&s, 1, MPI_LONG, (rank + 1) % size, 5, &r, 1, MPI_LONG,
                                   (rank + size - 1) % size, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK_EQ(r, (rank + size - 1) % size);
        }
        MPI_Request rq;
        CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &rq));
        CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    }
    look();
    if (expect) {
        /* 60 + 20 + 12 allreduces, all flat on 2 members with a core each
         * (3 argument sets), or on a crowded node only the 12 of 24 bytes
         * (4 KiB is past the pulled flat size); 60 barriers; 15 two-sided
         * Ibcasts of the same arguments. */
        long long sets = d[C_FLAT] == 92 ? 3 : d[C_FLAT] == 12 ? 1 : -1;
        CHECKF(sets > 0, "%lld flat allreduces: want 92 (2 members) or 12 (crowded)", d[C_FLAT]);
        CHECKF(d[C_REPLAY] == d[C_FLAT] - sets + 59 + 14,
               "%lld replays for %lld flat allreduces of %lld argument sets, 60 barriers and "
               "15 Ibcasts",
               d[C_REPLAY], d[C_FLAT], sets);
    }

    /* Two on the same arguments at once, completed in reverse order. */
    for (int it = 0; it < 10; it++) {
        long c_out[4], d_out[4], in2[4];
        for (int i = 0; i < 4; i++)
            in2[i] = it + i;
        MPI_Request rq[2];
        CHECK_MPI(MPI_Iallreduce(in2, c_out, 4, MPI_LONG, MPI_MAX, MPI_COMM_WORLD, &rq[0]));
        CHECK_MPI(MPI_Iallreduce(in2, d_out, 4, MPI_LONG, MPI_MAX, MPI_COMM_WORLD, &rq[1]));
        CHECK_MPI(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
        for (int i = 0; i < 4; i++)
            CHECK(c_out[i] == it + i && d_out[i] == it + i);
    }

    /* A freed communicator's parked schedule goes with it. */
    for (int k = 0; k < 4; k++) {
        MPI_Comm dup;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
        CHECK_MPI(MPI_Allreduce(&x, &y, 1, MPI_LONG, MPI_SUM, dup));
        for (int it = 0; it < 3; it++)
            one(dup, a_in, a_out, N, k * 100 + it);
        CHECK_MPI(MPI_Comm_free(&dup));
    }

    /* A knob written: nothing recorded before replays. */
    MPI_T_cvar_handle crma;
    int idx, count;
    CHECK_MPI(MPI_T_cvar_get_index("FABMPI_COLL_RMA", &idx));
    CHECK_MPI(MPI_T_cvar_handle_alloc(idx, NULL, &crma, &count));
    int mode, off = 0;
    CHECK_MPI(MPI_T_cvar_read(crma, &mode));
    one(MPI_COMM_WORLD, a_in, a_out, N, 5);
    for (int k = 0; k < 3; k++) { /* the same blocking call, remembered */
        CHECK_MPI(MPI_Allreduce(&x, &y, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
        CHECK_EQ(y, size);
    }
    look();
    if (expect)
        CHECKF(d[C_TWO_SIDED] == 0, "%lld of 3 blocking allreduces ran two-sided", d[C_TWO_SIDED]);
    CHECK_MPI(MPI_T_cvar_write(crma, &off));
    look();
    one(MPI_COMM_WORLD, a_in, a_out, N, 6);
    CHECK_MPI(MPI_Allreduce(&x, &y, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    CHECK_EQ(y, size);
    look();
    CHECKF(d[C_FLAT] == 0 && d[C_REPLAY] == 0 && d[C_TWO_SIDED] == 1,
           "FABMPI_COLL_RMA=off: %lld flat allreduces, %lld replays, %lld of 1 blocking "
           "allreduce two-sided",
           d[C_FLAT], d[C_REPLAY], d[C_TWO_SIDED]);
    CHECK_MPI(MPI_T_cvar_write(crma, &mode));
    one(MPI_COMM_WORLD, a_in, a_out, N, 7);
    CHECK_MPI(MPI_Allreduce(&x, &y, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    CHECK_EQ(y, size);
    look();
    if (expect)
        CHECKF(d[C_TWO_SIDED] == 0,
               "FABMPI_COLL_RMA back on: the blocking allreduce ran two-sided");
    CHECK_MPI(MPI_T_cvar_handle_free(&crma));
    tu_counters_stop(&ctr);

    free(a_in);
    free(a_out);
    free(b_in);
    free(b_out);
    CHECK_MPI(MPI_T_finalize());
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("coll_replay: ok\n");
    CHECK_MPI(MPI_Finalize());
    return 0;
}
