/* rma_handoff: accumulates on Win_create and dynamic windows of this node
 * handed to the target while it polls (src/rma/handoff.c), and taken back
 * when it does not.
 *
 * 1. Polling targets: every rank, under a shared lock on every other rank,
 *    does OPS rounds of Fetch_and_op(SUM, +1) on its own slot of each
 *    target, Get_accumulate(SUM) of a 3-element row (+r each, old values
 *    checked as what this rank itself left there) and Accumulate(SUM) of a
 *    4 KiB row, while the targets poll in the next call; Get_accumulate with
 *    MPI_NO_OP and MPI_REPLACE too, and a Compare_and_swap loop
 *    incrementing one counter from every origin.  Every value is checked
 *    exactly.  Each
 *    operation counts once, in rma_handoff or rma_cma; with
 *    FABMPI_RMA_HANDOFF=0 none in rma_handoff.  At 2 ranks (a core each) at
 *    least some are handed off.
 * 2. A target that computes: rank 1 spins 1 s without MPI calls while rank
 *    0 does 2000 Fetch_and_op on it.  They must finish long before rank 1
 *    calls MPI again (taken back and done by CMA, rma_handoff_withdrawn
 *    counts it), and the counter ends at exactly 2000: a request rank 1
 *    finds later, already taken back, is not applied a second time.
 * 3. The same as 1 (shorter) on a dynamic window. */
#include "testutil.h"

#define OPS 300
#define ROW 512 /* long longs: 4 KiB */

static int rank, size, handoff_on;
static int patient; /* FABMPI_RMA_HANDOFF_WAIT long enough for a pick-up (default 20 us) */
static tu_counters ctr; /* rma_handoff, rma_cma, rma_handoff_withdrawn */

struct mem {
    long long slot[64];  /* [origin]: Fetch_and_op counters */
    long long trio[64][3];
    long long row[ROW];
    long long swap[64];
    long long cas;       /* incremented by every origin's compare-and-swap loop */
    long long solo;      /* part 2's counter */
};

/* Counter changes since the last call (zeros under another MPI). */
static void deltas(long long *d)
{
    d[0] = d[1] = d[2] = 0;
    if (handoff_on >= 0)
        tu_counters_deltas(&ctr, d);
}

static void check_counts(long long ops, int want_handoff)
{
    long long d[3];
    deltas(d);
    if (handoff_on < 0) /* not fabmpi */
        return;
    CHECKF(d[0] + d[1] == ops, "rma_handoff %lld + rma_cma %lld != %lld operations", d[0], d[1], ops);
    if (!handoff_on)
        CHECKF(d[0] == 0, "FABMPI_RMA_HANDOFF=0 but %lld handed off", d[0]);
    if (getenv("RMA_HANDOFF_SHOW"))
        fprintf(stderr, "rank %d: %lld handed off, %lld by CMA, %lld taken back\n", rank, d[0], d[1], d[2]);
    if (handoff_on && want_handoff)
        CHECKF(d[0] > 0, "no operation handed off to polling targets (%lld by CMA, %lld taken back)", d[1], d[2]);
}

/* Part 1 / 3 on window win over m (dynamic: disp is the address of m at
 * each target, exchanged). */
static void polling(MPI_Win win, struct mem *m, const MPI_Aint *base, int rounds)
{
    long long one = 1, got, ll_r = rank, row[ROW], old[3], add[3] = {rank, rank, rank};
    for (int i = 0; i < ROW; i++)
        row[i] = rank + 1;
    MPI_Barrier(MPI_COMM_WORLD);
    long long d[3];
    deltas(d);
    long long ops = 0;
    CHECK_MPI(MPI_Win_lock_all(0, win));
    for (int k = 0; k < rounds; k++)
        for (int t = 0; t < size; t++) {
            if (t == rank)
                continue;
            MPI_Aint b = base[t];
            CHECK_MPI(MPI_Fetch_and_op(&one, &got, MPI_LONG_LONG, t,
                                       b + (MPI_Aint)offsetof(struct mem, slot[rank]), MPI_SUM, win));
            CHECK_MPI(MPI_Win_flush(t, win));
            CHECKF(got == k, "Fetch_and_op on rank %d fetched %lld, want %d", t, got, k);
            CHECK_MPI(MPI_Get_accumulate(add, 3, MPI_LONG_LONG, old, 3, MPI_LONG_LONG, t,
                                         b + (MPI_Aint)offsetof(struct mem, trio[rank]), 3,
                                         MPI_LONG_LONG, MPI_SUM, win));
            CHECK_MPI(MPI_Win_flush(t, win));
            for (int j = 0; j < 3; j++)
                CHECKF(old[j] == (long long)k * rank, "Get_accumulate on rank %d: [%d] = %lld, want %lld",
                       t, j, old[j], (long long)k * rank);
            CHECK_MPI(MPI_Accumulate(row, ROW, MPI_LONG_LONG, t,
                                     b + (MPI_Aint)offsetof(struct mem, row), ROW, MPI_LONG_LONG,
                                     MPI_SUM, win));
            CHECK_MPI(MPI_Get_accumulate(&ll_r, 1, MPI_LONG_LONG, &got, 1, MPI_LONG_LONG, t,
                                         b + (MPI_Aint)offsetof(struct mem, swap[rank]), 1,
                                         MPI_LONG_LONG, MPI_REPLACE, win));
            CHECK_MPI(MPI_Win_flush(t, win));
            CHECKF(got == (k ? rank : -1), "REPLACE on rank %d fetched %lld", t, got);
            CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_LONG_LONG, &got, 1, MPI_LONG_LONG, t,
                                         b + (MPI_Aint)offsetof(struct mem, swap[rank]), 1,
                                         MPI_LONG_LONG, MPI_NO_OP, win));
            CHECK_MPI(MPI_Win_flush(t, win));
            CHECKF(got == rank, "NO_OP on rank %d fetched %lld", t, got);
            /* a compare-and-swap counter every origin increments */
            long long seen = 0, next;
            for (;;) {
                next = seen + 1;
                CHECK_MPI(MPI_Compare_and_swap(&next, &seen, &got, MPI_LONG_LONG, t,
                                               b + (MPI_Aint)offsetof(struct mem, cas), win));
                CHECK_MPI(MPI_Win_flush(t, win));
                ops++;
                if (got == seen)
                    break;
                CHECKF(got > seen, "Compare_and_swap on rank %d fetched %lld after %lld", t, got,
                       seen);
                seen = got;
            }
            ops += 5;
        }
    CHECK_MPI(MPI_Win_unlock_all(win));
    check_counts(ops, size == 2 && patient);
    MPI_Barrier(MPI_COMM_WORLD);
    /* Every other rank added 1 per round to its slot, k*r to its trio,
     * r+1 to every row element, and replaced its swap slot with r. */
    long long rowsum = 0;
    for (int o = 0; o < size; o++)
        if (o != rank)
            rowsum += (long long)rounds * (o + 1);
    for (int o = 0; o < size; o++) {
        if (o == rank)
            continue;
        CHECKF(m->slot[o] == rounds, "slot[%d] = %lld, want %d", o, m->slot[o], rounds);
        for (int j = 0; j < 3; j++)
            CHECKF(m->trio[o][j] == (long long)rounds * o, "trio[%d][%d] = %lld", o, j, m->trio[o][j]);
        CHECKF(m->swap[o] == o, "swap[%d] = %lld", o, m->swap[o]);
    }
    CHECKF(m->cas == (long long)rounds * (size - 1), "CAS counter = %lld, want %lld", m->cas,
           (long long)rounds * (size - 1));
    for (int i = 0; i < ROW; i++)
        CHECKF(m->row[i] == rowsum, "row[%d] = %lld, want %lld", i, m->row[i], rowsum);
}

static void reset(struct mem *m)
{
    memset(m, 0, sizeof *m);
    for (int i = 0; i < 64; i++)
        m->swap[i] = -1;
}

/* Part 2: rank 1 computes while rank 0 updates it. */
static void computing(MPI_Win win, struct mem *m)
{
    const int n = 2000;
    MPI_Barrier(MPI_COMM_WORLD);
    long long d[3];
    deltas(d);
    /* Rank 0 starts once rank 1 is past its last MPI call before computing
     * (a member leaving the barrier still polls, and might take the first
     * update in). */
    if (rank == 1)
        CHECK_MPI(MPI_Send(NULL, 0, MPI_INT, 0, 7, MPI_COMM_WORLD));
    else if (rank == 0)
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    /* Rank 0 makes n updates, then goes on (while rank 1 still computes)
     * until one handoff was taken back: a withdrawal late in part 1 may
     * keep the target quiet (no handoffs) for up to 0.1 s, which n updates
     * may not outlast (under ASan it failed 4 runs in 6, at 87f1222 too). */
    long long done = n;
    if (rank == 0) {
        long long one = 1, got, sum[3] = {0, 0, 0};
        double t0 = MPI_Wtime(), dt = 0;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win));
        for (done = 0; done < n || (handoff_on > 0 && sum[2] == 0 && MPI_Wtime() - t0 < 0.8);
             done++) {
            CHECK_MPI(MPI_Fetch_and_op(&one, &got, MPI_LONG_LONG, 1,
                                       (MPI_Aint)offsetof(struct mem, solo), MPI_SUM, win));
            CHECK_MPI(MPI_Win_flush(1, win));
            CHECKF(got == done, "Fetch_and_op %lld fetched %lld", done, got);
            if (done == n - 1)
                dt = MPI_Wtime() - t0;
            if (done % 100 == 99) {
                deltas(d);
                for (int k = 0; k < 3; k++)
                    sum[k] += d[k];
            }
        }
        CHECK_MPI(MPI_Win_unlock(1, win));
        CHECKF(dt < 0.5, "%d Fetch_and_op on a computing target took %.3f s", n, dt);
        deltas(d);
        for (int k = 0; k < 3; k++)
            sum[k] += d[k];
        if (handoff_on >= 0) {
            CHECKF(sum[0] == 0, "%lld handed off to a target that made no MPI call", sum[0]);
            CHECKF(sum[1] == done, "rma_cma %lld, want %lld", sum[1], done);
            if (handoff_on)
                CHECKF(sum[2] >= 1, "no handoff taken back in %lld updates (rma_handoff_withdrawn 0)",
                       done);
        }
    } else if (rank == 1) {
        double t0 = MPI_Wtime();
        while (MPI_Wtime() - t0 < 1.0)
            ; /* MPI_Wtime is no progress call */
    }
    CHECK_MPI(MPI_Bcast(&done, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD));
    if (rank == 1)
        CHECKF(m->solo == done, "counter = %lld after %lld Fetch_and_op", m->solo, done);
}

int main(int argc, char **argv)
{
    tu_init_min(&argc, &argv, &rank, &size, 2, "rma_handoff");
    CHECK(size <= 64);
    int provided;
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    int idx;
    handoff_on = MPI_T_cvar_get_index("FABMPI_RMA_HANDOFF", &idx) == MPI_SUCCESS
                     ? tu_cvar("FABMPI_RMA_HANDOFF") != 0
                     : -1;
    if (handoff_on >= 0)
        patient = tu_cvar("FABMPI_RMA_HANDOFF_WAIT") >= 20;
    if (handoff_on >= 0) {
        static const char *const names[] = {"rma_handoff", "rma_cma", "rma_handoff_withdrawn"};
        tu_counters_start(&ctr, 3, names);
    }
    struct mem *m = tu_malloc(sizeof *m);
    reset(m);
    MPI_Aint *zero = calloc((size_t)size, sizeof *zero), *addr = tu_malloc(size * sizeof *addr);

    MPI_Win win;
    CHECK_MPI(MPI_Win_create(m, sizeof *m, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    polling(win, m, zero, OPS);
    computing(win, m);
    CHECK_MPI(MPI_Win_free(&win));

    reset(m);
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_attach(win, m, sizeof *m));
    MPI_Aint mine;
    CHECK_MPI(MPI_Get_address(m, &mine));
    CHECK_MPI(MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD));
    polling(win, m, addr, OPS / 3);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_detach(win, m));
    CHECK_MPI(MPI_Win_free(&win));

    if (handoff_on >= 0)
        tu_counters_stop(&ctr);
    CHECK_MPI(MPI_T_finalize());
    free(m);
    free(zero);
    free(addr);
    MPI_Finalize();
    return 0;
}
