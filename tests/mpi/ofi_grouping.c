/* ofi_grouping — FABMPI_OFI_THREAD_GROUPING: each communicator made by a
 * blocking creation call gets its own OFI context, read through the MPI_T
 * counters ofi_contexts_opened and ofi_grouped_sent.
 *
 * FM_TEST_THREADS threads (default 4) each own a duplicate of
 * MPI_COMM_WORLD and run a ring on it (FM_MSGS small messages with exact
 * payloads, one 64 KiB rendezvous message, one MPI_Ssend) and an
 * allreduce, all at once.  Then: ANY_SOURCE receives on a duplicate, its
 * free and a second round of duplicates (which must reuse the contexts),
 * a split communicator, an intercommunicator and the one merged from it,
 * MPI_Comm_idup's result, and traffic on MPI_COMM_WORLD: the
 * intercommunicator, the idup'd one and MPI_COMM_WORLD stay on context 0.
 * Every message a communicator matches on its own context is counted
 * once: the counts are checked exactly.
 * FM_GROUPING_EXPECT=on|off; FM_CONTEXTS_MAX: the FABMPI_OFI_CONTEXTS of
 * the row (default 16). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define MAXT 16
#define BIG (64 * 1024)

enum { SENT, RECEIVED, OPENED, NCOUNTERS };
static const char *const counter[NCOUNTERS] = {"ofi_grouped_sent", "ofi_grouped_received",
                                              "ofi_contexts_opened"};
static tu_counters counters;

static int rank, size, nthreads, msgs, on, max_ctx;
static MPI_Comm dups[MAXT];

/* Counter changes since the last call. */
static void deltas(long long d[NCOUNTERS]) { tu_counters_deltas(&counters, d); }

/* Messages sent from and received on communicators' contexts (-1: any
 * number), contexts opened. */
static void expect3(const char *what, long long sent, long long received, long long opened)
{
    /* Ranks run the steps apart: a barrier on MPI_COMM_WORLD (context 0)
     * before reading, so every rank's messages of the step have come, and
     * one after, so none of the next step's come before the reading. */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    long long d[NCOUNTERS];
    deltas(d);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (!on)
        sent = received = opened = 0;
    CHECKF(sent < 0 || d[SENT] == sent, "%s: %lld messages sent from communicators' contexts, "
           "want %lld", what, d[SENT], sent);
    CHECKF(received < 0 || d[RECEIVED] == received, "%s: %lld messages arrived on "
           "communicators' contexts, want %lld", what, d[RECEIVED], received);
    CHECKF(d[OPENED] == opened, "%s: %lld contexts opened, want %lld", what, d[OPENED], opened);
}

/* The same, when this rank receives nothing on them. */
static void expect(const char *what, long long sent, long long opened)
{
    expect3(what, sent, 0, opened);
}

/* Thread t's ring on comm: msgs small messages, one rendezvous, one Ssend;
 * then an allreduce.  Sends this rank makes: msgs + 2. */
static void *ring(void *arg)
{
    int t = (int)(long)arg;
    MPI_Comm c = dups[t];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < msgs; i++) {
        long out[2] = {rank * 1000000L + t * 10000L + i, t}, in[2];
        MPI_Request r;
        CHECK_MPI(MPI_Isend(out, 2, MPI_LONG, right, i % 7, c, &r));
        CHECK_MPI(MPI_Recv(in, 2, MPI_LONG, left, i % 7, c, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECKF(in[0] == left * 1000000L + t * 10000L + i && in[1] == t,
               "thread %d message %d: got %ld/%ld", t, i, in[0], in[1]);
    }
    char *big = tu_malloc(BIG), *got = tu_malloc(BIG);
    tu_fill(big, BIG, (unsigned)(rank * 31 + t));
    MPI_Request r;
    CHECK_MPI(MPI_Irecv(got, BIG, MPI_BYTE, left, 99, c, &r));
    CHECK_MPI(MPI_Send(big, BIG, MPI_BYTE, right, 99, c));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_PATTERN(got, BIG, (unsigned)(left * 31 + t));
    int s = rank + t, sum;
    CHECK_MPI(MPI_Irecv(&sum, 1, MPI_INT, left, 98, c, &r));
    CHECK_MPI(MPI_Ssend(&s, 1, MPI_INT, right, 98, c));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECKF(sum == left + t, "thread %d: Ssend brought %d, want %d", t, sum, left + t);
    free(big);
    free(got);
    return NULL;
}

/* Thread t's collectives on its duplicate (how many messages they take
 * depends on the algorithm: not counted). */
static void *colls(void *arg)
{
    int t = (int)(long)arg;
    int s = rank + t, sum;
    CHECK_MPI(MPI_Allreduce(&s, &sum, 1, MPI_INT, MPI_SUM, dups[t]));
    CHECKF(sum == size * (size - 1) / 2 + size * t, "thread %d: allreduce %d", t, sum);
    long b = rank == t % size ? 4242L + t : -1;
    CHECK_MPI(MPI_Bcast(&b, 1, MPI_LONG, t % size, dups[t]));
    CHECKF(b == 4242L + t, "thread %d: bcast %ld", t, b);
    CHECK_MPI(MPI_Barrier(dups[t]));
    return NULL;
}

/* Every thread runs fn at once, then the sends of the ring are checked. */
static void threads(void *(*fn)(void *), const char *what)
{
    pthread_t th[MAXT];
    for (int t = 0; t < nthreads; t++)
        CHECK(pthread_create(&th[t], NULL, fn, (void *)(long)t) == 0);
    for (int t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
    long long n = (long long)nthreads * (msgs + 2);
    if (fn == ring)
        expect3(what, n, n, 0);
    else
        expect3(what, -1, -1, 0);
}

/* Only rank-0-to-everyone traffic on MPI_COMM_WORLD: context 0. */
static void world_traffic(void)
{
    for (int i = 0; i < msgs; i++) {
        int v = i;
        if (rank == 0)
            for (int p = 1; p < size; p++)
                CHECK_MPI(MPI_Send(&v, 1, MPI_INT, p, 5, MPI_COMM_WORLD));
        else {
            CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECKF(v == i, "world message %d brought %d", i, v);
        }
    }
}

int main(int argc, char **argv)
{
    int provided;
    CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *e = getenv("FM_GROUPING_EXPECT");
    on = e && !strcmp(e, "on");
    nthreads = getenv("FM_TEST_THREADS") ? atoi(getenv("FM_TEST_THREADS")) : 4;
    msgs = getenv("FM_MSGS") ? atoi(getenv("FM_MSGS")) : 200;
    max_ctx = getenv("FM_CONTEXTS_MAX") ? atoi(getenv("FM_CONTEXTS_MAX")) : 16;
    CHECK(nthreads >= 1 && nthreads <= MAXT && size >= 2);
    int extra = nthreads < max_ctx - 1 ? nthreads : max_ctx - 1;

    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
    tu_counters_start(&counters, NCOUNTERS, counter);
    long long d[NCOUNTERS];
    deltas(d);

    world_traffic();
    expect("MPI_COMM_WORLD", 0, 0);

    for (int t = 0; t < nthreads; t++)
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dups[t]));
    expect("the duplicates' creation", 0, extra);
    threads(ring, "rings");
    threads(colls, "collectives");

    /* ANY_SOURCE on a duplicate: every other rank sends rank 0 one. */
    if (rank == 0) {
        int seen = 0;
        for (int i = 1; i < size; i++) {
            int v;
            MPI_Status st;
            CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 7, dups[0], &st));
            CHECKF(v == st.MPI_SOURCE * 3, "ANY_SOURCE from %d brought %d", st.MPI_SOURCE, v);
            seen |= 1 << st.MPI_SOURCE;
        }
        CHECKF(seen == (1 << size) - 2, "ANY_SOURCE senders 0x%x", seen);
        expect3("ANY_SOURCE (receiver)", 0, size - 1, 0);
    } else {
        int v = rank * 3;
        CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 7, dups[0]));
        expect("ANY_SOURCE (sender)", 1, 0);
    }

    /* Free them and make new ones: the contexts are reused.  (Freeing a
     * communicator whose collectives set up a one-sided cache takes a
     * barrier on it: not counted.) */
    for (int t = 0; t < nthreads; t++)
        CHECK_MPI(MPI_Comm_free(&dups[t]));
    expect3("frees", -1, -1, 0);
    for (int t = 0; t < nthreads; t++)
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dups[t]));
    expect("duplicates made again", 0, 0);
    threads(ring, "rings again");
    for (int t = 0; t < nthreads; t++)
        CHECK_MPI(MPI_Comm_free(&dups[t]));
    expect3("frees", -1, -1, 0);

    /* A split: odd and even ranks (a member alone gets no context). */
    MPI_Comm half;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
    int hr, hs;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    if (hs > 1) {
        int v = rank, got;
        CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, (hr + 1) % hs, 3, &got, 1, MPI_INT,
                               (hr + hs - 1) % hs, 3, half, MPI_STATUS_IGNORE));
        CHECKF(got == ((hr + hs - 1) % hs) * 2 + rank % 2, "split: got %d", got);
        expect3("split", 1, 1, 0);
    } else {
        expect("split alone", 0, 0);
    }
    /* An intercommunicator between the halves stays on context 0; the
     * intracommunicator merged from it gets a context (a freed one). */
    MPI_Comm inter, merged;
    CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 77, &inter));
    expect3("intercommunicator's creation (on the halves)", -1, -1, 0);
    int v = rank, got;
    CHECK_MPI(MPI_Barrier(inter));
    expect("intercommunicator", 0, 0);
    CHECK_MPI(MPI_Intercomm_merge(inter, rank % 2, &merged));
    int mr;
    MPI_Comm_rank(merged, &mr);
    CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, (mr + 1) % size, 4, &got, 1, MPI_INT,
                           (mr + size - 1) % size, 4, merged, MPI_STATUS_IGNORE));
    expect3("merged", 1, 1, 0);
    CHECK_MPI(MPI_Comm_free(&merged));
    CHECK_MPI(MPI_Comm_free(&inter));
    CHECK_MPI(MPI_Comm_free(&half));

    /* MPI_Comm_idup's result stays on context 0. */
    MPI_Comm id;
    MPI_Request rq;
    CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &id, &rq));
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, 4, &got, 1, MPI_INT,
                           (rank + size - 1) % size, 4, id, MPI_STATUS_IGNORE));
    CHECKF(got == (rank + size - 1) % size, "idup: got %d", got);
    expect("idup", 0, 0);
    CHECK_MPI(MPI_Comm_free(&id));

    world_traffic();
    expect("MPI_COMM_WORLD again", 0, 0);
    tu_counters_stop(&counters);
    CHECK_MPI(MPI_T_finalize());
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("ofi_grouping: %d ranks, %d threads, grouping %s, %d contexts opened: ok\n", size,
               nthreads, on ? "on" : "off", on ? extra : 0);
    CHECK_MPI(MPI_Finalize());
    return 0;
}
