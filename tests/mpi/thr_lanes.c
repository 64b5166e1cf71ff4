/* thr_lanes: point-to-point on communicators with VCIs of their own
 * (FABMPI_VCIS > 1: "lanes", src/core/vci.h) from several threads at
 * MPI_THREAD_MULTIPLE (FM_TEST_THREADS per rank, default 4).
 *   1. Each thread exchanges with its partner rank (rank ^ 1; the last
 *      rank of an odd count with itself) on its own duplicate of
 *      MPI_COMM_WORLD: every size from 0 B to 1 MiB (eager and rendezvous)
 *      by Isend/Irecv/Waitall, Send/Recv, Ssend, Test loops, Probe,
 *      Mprobe/Mrecv, MPI_ANY_SOURCE, a derived datatype, persistent
 *      requests, and a cancelled receive; payloads checked exactly.
 *   2. Errors on a lane: MPI_ERRORS_RETURN gives MPI_ERR_RANK and
 *      MPI_ERR_TRUNCATE; a handler of the program's that calls MPI runs.
 *   3. Attentiveness: on rank 0, thread 1 posts a 1 MiB receive (on
 *      MPI_COMM_WORLD, then on its duplicate) and stops calling MPI, while
 *      thread 0 blocks in MPI_Recv on its own duplicate for a message rank
 *      1 sends only once its 1 MiB send has completed, which needs rank 0
 *      to pull it: thread 0's wait must progress the other VCIs.
 *      (Skipped by a rank alone.)
 *   4. MPI_T: the counter vci_lane_messages grew (FM_LANES_EXPECT=on),
 *      by MPI_COMM_WORLD's point-to-point messages too, or stayed 0 (off).
 * First (bias), each thread makes thousands of calls on its duplicate
 * while thread 0 also calls on MPI_COMM_WORLD (a lane's biased lock taken
 * back, src/core/lanes.c). */
#include <pthread.h>
#include <string.h>

#include "testutil.h"

#define MAXT 16
#define BIG (1 << 20)
#define TAG_ATTEND 900

static int nthreads, rank, size;
static MPI_Comm dups[MAXT];
static pthread_barrier_t bar;
static int handler_calls;

static void fill(unsigned char *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(seed * 31 + i * 7 + (i >> 9));
}

static void check_fill(const unsigned char *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != (unsigned char)(seed * 31 + i * 7 + (i >> 9)))
            CHECKF(0, "byte %zu of a %zu-byte message (seed %d) is %u", i, n, seed, b[i]);
}

static int partner(void) { return (rank ^ 1) < size ? rank ^ 1 : rank; }

static void exchange(int t)
{
    MPI_Comm c = dups[t];
    int p = partner();
    static const size_t sizes[] = {0, 8, 100, 4096, 65536, BIG};
    unsigned char *out = malloc(BIG), *in = malloc(BIG);
    CHECK(out && in);
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t n = sizes[k];
        int seed = t * 100 + (int)k * 10 + rank, pseed = t * 100 + (int)k * 10 + p;
        fill(out, n, seed);
        /* Isend/Irecv/Waitall */
        memset(in, 0, n);
        MPI_Request r[2];
        MPI_Status st[2];
        CHECK_MPI(MPI_Irecv(in, (int)n, MPI_BYTE, p, (int)k, c, &r[0]));
        CHECK_MPI(MPI_Isend(out, (int)n, MPI_BYTE, p, (int)k, c, &r[1]));
        CHECK_MPI(MPI_Waitall(2, r, st));
        CHECK_EQ(st[0].MPI_SOURCE, p);
        int cnt = -1;
        MPI_Get_count(&st[0], MPI_BYTE, &cnt);
        CHECK_EQ(cnt, (int)n);
        check_fill(in, n, pseed);
        /* Ssend against a receive posted with MPI_ANY_SOURCE, then a Test loop */
        memset(in, 0, n);
        CHECK_MPI(MPI_Irecv(in, (int)n, MPI_BYTE, MPI_ANY_SOURCE, 50 + (int)k, c, &r[0]));
        if (rank < p || p == rank) {
            CHECK_MPI(MPI_Ssend(out, (int)n, MPI_BYTE, p, 50 + (int)k, c));
            int flag = 0;
            while (!flag)
                CHECK_MPI(MPI_Test(&r[0], &flag, &st[0]));
        } else {
            CHECK_MPI(MPI_Wait(&r[0], &st[0]));
            CHECK_MPI(MPI_Ssend(out, (int)n, MPI_BYTE, p, 50 + (int)k, c));
        }
        CHECK_EQ(st[0].MPI_SOURCE, p);
        check_fill(in, n, pseed);
        /* Probe, then Recv; Mprobe, then Mrecv */
        CHECK_MPI(MPI_Isend(out, (int)n, MPI_BYTE, p, 60, c, &r[1]));
        CHECK_MPI(MPI_Probe(p, 60, c, &st[0]));
        MPI_Get_count(&st[0], MPI_BYTE, &cnt);
        CHECK_EQ(cnt, (int)n);
        memset(in, 0, n);
        CHECK_MPI(MPI_Recv(in, (int)n, MPI_BYTE, p, 60, c, MPI_STATUS_IGNORE));
        check_fill(in, n, pseed);
        CHECK_MPI(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Isend(out, (int)n, MPI_BYTE, p, 61, c, &r[1]));
        MPI_Message m;
        CHECK_MPI(MPI_Mprobe(p, 61, c, &m, &st[0]));
        memset(in, 0, n);
        CHECK_MPI(MPI_Mrecv(in, (int)n, MPI_BYTE, &m, MPI_STATUS_IGNORE));
        check_fill(in, n, pseed);
        CHECK_MPI(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
        /* Blocking Send/Recv, ordered by rank (with itself: Sendrecv) */
        memset(in, 0, n);
        if (rank < p) {
            CHECK_MPI(MPI_Send(out, (int)n, MPI_BYTE, p, 70, c));
            CHECK_MPI(MPI_Recv(in, (int)n, MPI_BYTE, p, 70, c, MPI_STATUS_IGNORE));
        } else if (rank > p) {
            CHECK_MPI(MPI_Recv(in, (int)n, MPI_BYTE, p, 70, c, MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Send(out, (int)n, MPI_BYTE, p, 70, c));
        } else {
            CHECK_MPI(MPI_Sendrecv(out, (int)n, MPI_BYTE, p, 70, in, (int)n, MPI_BYTE, p, 70, c,
                                   MPI_STATUS_IGNORE));
        }
        check_fill(in, n, pseed);
    }
    /* A derived datatype (every other int of 2 x 5000) */
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(5000, 1, 2, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    int *vout = malloc(10000 * sizeof(int)), *vin = calloc(10000, sizeof(int));
    for (int i = 0; i < 10000; i++)
        vout[i] = rank * 100000 + t * 10000 + i;
    MPI_Request r[2];
    CHECK_MPI(MPI_Irecv(vin, 1, vec, p, 80, c, &r[0]));
    CHECK_MPI(MPI_Isend(vout, 1, vec, p, 80, c, &r[1]));
    CHECK_MPI(MPI_Type_free(&vec)); /* the requests keep it */
    CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 10000; i++)
        CHECK_EQ(vin[i], i % 2 ? 0 : p * 100000 + t * 10000 + i);
    free(vout);
    free(vin);
    /* Persistent requests, started three times */
    int pv = -1, sv;
    CHECK_MPI(MPI_Recv_init(&pv, 1, MPI_INT, p, 81, c, &r[0]));
    CHECK_MPI(MPI_Send_init(&sv, 1, MPI_INT, p, 81, c, &r[1]));
    for (int i = 0; i < 3; i++) {
        sv = rank * 10 + i;
        CHECK_MPI(MPI_Startall(2, r));
        CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        CHECK_EQ(pv, p * 10 + i);
    }
    CHECK_MPI(MPI_Request_free(&r[0]));
    CHECK_MPI(MPI_Request_free(&r[1]));
    /* A receive nobody sends to, cancelled */
    int never;
    MPI_Status cs;
    int cancelled = 0;
    CHECK_MPI(MPI_Irecv(&never, 1, MPI_INT, p, 82, c, &r[0]));
    CHECK_MPI(MPI_Cancel(&r[0]));
    CHECK_MPI(MPI_Wait(&r[0], &cs));
    MPI_Test_cancelled(&cs, &cancelled);
    CHECK_EQ(cancelled, 1);
    free(out);
    free(in);
}

static void on_error(MPI_Comm *c, int *code, ...)
{
    int r = -1;
    MPI_Comm_rank(*c, &r); /* MPI from inside the handler */
    CHECK_EQ(r, rank);
    int cls = -1;
    MPI_Error_class(*code, &cls);
    CHECK_EQ(cls, MPI_ERR_RANK);
    __atomic_add_fetch(&handler_calls, 1, __ATOMIC_RELAXED);
}

static void errors(int t)
{
    MPI_Comm c = dups[t];
    CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    int v = 1, cls = -1;
    int rc = MPI_Send(&v, 1, MPI_INT, size + 3, 0, c);
    MPI_Error_class(rc, &cls);
    CHECK_EQ(cls, MPI_ERR_RANK);
    /* Truncation: 2 ints into a buffer of 1 */
    int two[2] = {7, 8}, one = -1, p = partner();
    MPI_Request r[2];
    CHECK_MPI(MPI_Irecv(&one, 1, MPI_INT, p, 90, c, &r[0]));
    CHECK_MPI(MPI_Isend(two, 2, MPI_INT, p, 90, c, &r[1]));
    rc = MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    MPI_Error_class(rc, &cls);
    CHECK_EQ(cls, MPI_ERR_TRUNCATE);
    CHECK_MPI(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
    MPI_Errhandler eh;
    CHECK_MPI(MPI_Comm_create_errhandler(on_error, &eh));
    CHECK_MPI(MPI_Comm_set_errhandler(c, eh));
    CHECK_MPI(MPI_Errhandler_free(&eh));
    MPI_Send(&v, 1, MPI_INT, -7, 0, c);
    CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_ARE_FATAL));
}

/* Phase 3 on ranks 0 and 1, threads 0 and 1. */
static void attend(int t, MPI_Comm other)
{
    if (size < 2) /* it takes a second rank */
        return;
    unsigned char *big = malloc(BIG);
    CHECK(big);
    int small = -1;
    if (rank == 0 && t == 1) {
        MPI_Request r;
        CHECK_MPI(MPI_Irecv(big, BIG, MPI_BYTE, 1, TAG_ATTEND, other, &r));
        pthread_barrier_wait(&bar); /* posted */
        pthread_barrier_wait(&bar); /* thread 0 has its message: no MPI until then */
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        check_fill(big, BIG, 77);
    } else if (rank == 0 && t == 0) {
        pthread_barrier_wait(&bar);
        CHECK_MPI(MPI_Recv(&small, 1, MPI_INT, 1, TAG_ATTEND, dups[0], MPI_STATUS_IGNORE));
        CHECK_EQ(small, 4321);
        pthread_barrier_wait(&bar);
    } else if (rank == 1 && t == 1) {
        fill(big, BIG, 77);
        pthread_barrier_wait(&bar);
        CHECK_MPI(MPI_Send(big, BIG, MPI_BYTE, 0, TAG_ATTEND, other)); /* needs rank 0's pull */
        pthread_barrier_wait(&bar);
    } else if (rank == 1 && t == 0) {
        pthread_barrier_wait(&bar);
        pthread_barrier_wait(&bar); /* the big send has completed */
        small = 4321;
        CHECK_MPI(MPI_Send(&small, 1, MPI_INT, 0, TAG_ATTEND, dups[0]));
    } else {
        pthread_barrier_wait(&bar);
        pthread_barrier_wait(&bar);
    }
    free(big);
}

/* Phase 5: thousands of calls in a row on each lane (its lock becomes
 * biased to the thread making them), while thread 0 keeps calling on
 * MPI_COMM_WORLD (the library lock takes every lane's, revoking the bias,
 * sometimes while the owner waits inside). */
static void bias(int t)
{
    MPI_Comm c = dups[t];
    int p = partner();
    for (int i = 0; i < 3000; i++) {
        int out = rank * 1000000 + t * 10000 + i, in = -1, flag = -1;
        MPI_Request r[2];
        CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, p, 95, c, &r[0]));
        CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, p, 95, c, &r[1]));
        CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        CHECK_EQ(in, p * 1000000 + t * 10000 + i);
        if (t == 0 && i % 50 == 0)
            CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 96, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    }
}

static void *thread_main(void *arg)
{
    int t = (int)(intptr_t)arg;
    bias(t);
    pthread_barrier_wait(&bar);
    exchange(t);
    pthread_barrier_wait(&bar);
    errors(t);
    pthread_barrier_wait(&bar);
    attend(t, MPI_COMM_WORLD);
    pthread_barrier_wait(&bar);
    attend(t, dups[1]);
    return NULL;
}

int main(int argc, char **argv)
{
    nthreads = tu_init_multiple(&argc, &argv, &rank, &size, 2, MAXT);
    const char *expect = getenv("FM_LANES_EXPECT");
    int provided = -1;
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
    static const char *const names[] = {"vci_lane_messages"};
    tu_counters ctr;
    tu_counters_start(&ctr, 1, names);
    /* MPI_COMM_WORLD's point-to-point travels on a lane too. */
    long long d;
    for (int i = 0; i < 100; i++) {
        int out = rank * 1000 + i, in = -1;
        CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, partner(), 97, &in, 1, MPI_INT, partner(), 97,
                               MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_EQ(in, partner() * 1000 + i);
    }
    tu_counters_deltas(&ctr, &d);
    if (expect && strcmp(expect, "on") == 0)
        CHECKF(d >= 100, "MPI_COMM_WORLD's messages not on a lane (vci_lane_messages %lld)", d);
    for (int t = 0; t < nthreads; t++)
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dups[t]));
    CHECK(pthread_barrier_init(&bar, NULL, (unsigned)nthreads) == 0);
    pthread_t th[MAXT];
    for (int t = 0; t < nthreads; t++)
        CHECK(pthread_create(&th[t], NULL, thread_main, (void *)(intptr_t)t) == 0);
    for (int t = 0; t < nthreads; t++)
        CHECK(pthread_join(th[t], NULL) == 0);
    CHECK_EQ(handler_calls, nthreads);
    tu_counters_deltas(&ctr, &d);
    if (expect && strcmp(expect, "on") == 0)
        CHECKF(d > 0, "no message arrived on a lane (vci_lane_messages %lld)", d);
    else if (expect && strcmp(expect, "off") == 0)
        CHECKF(d == 0, "vci_lane_messages is %lld without lanes", d);
    tu_counters_stop(&ctr);
    CHECK_MPI(MPI_T_finalize());
    for (int t = 0; t < nthreads; t++)
        CHECK_MPI(MPI_Comm_free(&dups[t]));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("thr_lanes: %d threads per rank, %d ranks: ok\n", nthreads, size);
    MPI_Finalize();
    return 0;
}
