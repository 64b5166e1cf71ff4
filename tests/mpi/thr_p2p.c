/* thr_p2p: point-to-point from several threads at MPI_THREAD_MULTIPLE.
 * FM_TEST_THREADS threads per rank (default 4) each run, in turn:
 *   1. a ring exchange on MPI_COMM_WORLD, one tag per thread (exact payloads,
 *      order per thread kept: the standard's non-overtaking rule holds per
 *      thread because each thread's sends are ordered);
 *   2. the same ring on a per-thread duplicate of MPI_COMM_WORLD;
 *   3. racing receives: on every rank, half the threads post MPI_ANY_SOURCE
 *      receives and half specific-source ones for the same tag, until every
 *      message has arrived; each message is received exactly once;
 *   4. MPI_Mprobe/MPI_Mrecv from every thread for one tag: each message is
 *      matched by exactly one thread;
 *   5. a receiver blocked in MPI_Recv (thread 0) whose message is sent only
 *      after the other threads' traffic has finished.
 * First of all, before any other thread has called MPI, the main thread
 * blocks in MPI_Recv for a message a second thread sends to it: the first
 * call of a second thread while the thread that initialized MPI waits
 * inside a call (core/cs.h: the lock's bias must pass while it waits).
 * Needs MPI_THREAD_MULTIPLE; fails if it is not provided. */
#include <pthread.h>
#include <time.h>

#include "testutil.h"

#define MAXT 16
#define RING_MSGS 200
#define RACE_MSGS 100 /* per sender, to each receiver */
#define TAG_RACE 1000
#define TAG_MPROBE 1001
#define TAG_LATE 1002

static int nthreads, rank, size;
static MPI_Comm dups[MAXT];
static pthread_barrier_t bar;

/* Racing receives: messages are numbered by sender, each seen once. */
static unsigned char *seen;
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static int race_left;
static int rings_done; /* threads past their last ring (phase 5) */

static void mark_seen(int src, int seq, int n_per_src)
{
    pthread_mutex_lock(&seen_lock);
    CHECKF(src >= 0 && src < size && seq >= 0 && seq < n_per_src, "bad message %d/%d", src, seq);
    CHECKF(!seen[src * n_per_src + seq], "message %d/%d received twice", src, seq);
    seen[src * n_per_src + seq] = 1;
    pthread_mutex_unlock(&seen_lock);
}

static void ring(MPI_Comm comm, int t)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < RING_MSGS; i++) {
        int out[4] = {rank, t, i, 12345}, in[4] = {-1, -1, -1, -1};
        MPI_Request r;
        MPI_Status st;
        CHECK_MPI(MPI_Irecv(in, 4, MPI_INT, left, t, comm, &r));
        if (i % 3 == 0)
            CHECK_MPI(MPI_Ssend(out, 4, MPI_INT, right, t, comm));
        else
            CHECK_MPI(MPI_Send(out, 4, MPI_INT, right, t, comm));
        CHECK_MPI(MPI_Wait(&r, &st));
        CHECKF(in[0] == left && in[1] == t && in[2] == i && in[3] == 12345,
               "thread %d ring message %d: got {%d,%d,%d,%d}", t, i, in[0], in[1], in[2], in[3]);
        CHECK_EQ(st.MPI_SOURCE, left);
        CHECK_EQ(st.MPI_TAG, t);
    }
}

/* Every rank sends RACE_MSGS numbered messages to every other rank (from
 * thread 0, alternating Isend/Send), while each rank's threads receive:
 * even threads with MPI_ANY_SOURCE, odd ones from a fixed source. */
static void race(int t)
{
    int total = (size - 1) * RACE_MSGS;
    if (t == 0) {
        for (int i = 0; i < RACE_MSGS; i++)
            for (int d = 1; d < size; d++) {
                int to = (rank + d) % size, msg[2] = {rank, i};
                CHECK_MPI(MPI_Send(msg, 2, MPI_INT, to, TAG_RACE, MPI_COMM_WORLD));
            }
    }
    if (size == 1)
        return;
    int src = (t % 2 == 0) ? MPI_ANY_SOURCE : (rank + 1 + t / 2 % (size - 1)) % size;
    if (src == rank)
        src = MPI_ANY_SOURCE;
    for (;;) {
        int msg[2] = {-1, -1}, flag = 0;
        MPI_Request r;
        MPI_Status st;
        CHECK_MPI(MPI_Irecv(msg, 2, MPI_INT, src, TAG_RACE, MPI_COMM_WORLD, &r));
        for (;;) {
            CHECK_MPI(MPI_Test(&r, &flag, &st));
            if (flag)
                break;
            pthread_mutex_lock(&seen_lock);
            int left = race_left;
            pthread_mutex_unlock(&seen_lock);
            if (left == 0) { /* all arrived: withdraw this receive */
                CHECK_MPI(MPI_Cancel(&r));
                CHECK_MPI(MPI_Wait(&r, &st));
                int cancelled = 0;
                CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
                CHECKF(cancelled, "thread %d: a receive matched after all %d arrived", t, total);
                return;
            }
        }
        CHECK_EQ(msg[0], st.MPI_SOURCE);
        if (src != MPI_ANY_SOURCE)
            CHECK_EQ(st.MPI_SOURCE, src);
        mark_seen(msg[0], msg[1], RACE_MSGS);
        pthread_mutex_lock(&seen_lock);
        race_left--;
        pthread_mutex_unlock(&seen_lock);
    }
}

/* Matched probes: every thread takes messages with MPI_Mprobe until it gets
 * its share's end marker; a message taken by one thread is never seen by
 * another. */
static void mprobe(int t)
{
    if (t == 0)
        for (int i = 0; i < RACE_MSGS; i++)
            for (int d = 1; d < size; d++) {
                int to = (rank + d) % size, msg[2] = {rank, i};
                CHECK_MPI(MPI_Send(msg, 2, MPI_INT, to, TAG_MPROBE, MPI_COMM_WORLD));
            }
    for (;;) {
        pthread_mutex_lock(&seen_lock);
        int left = race_left;
        if (left > 0)
            race_left--; /* this thread will take one */
        pthread_mutex_unlock(&seen_lock);
        if (left == 0)
            return;
        MPI_Message m;
        MPI_Status st;
        int msg[2] = {-1, -1}, count = -1;
        CHECK_MPI(MPI_Mprobe(MPI_ANY_SOURCE, TAG_MPROBE, MPI_COMM_WORLD, &m, &st));
        CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
        CHECK_EQ(count, 2);
        CHECK_MPI(MPI_Mrecv(msg, 2, MPI_INT, &m, &st));
        CHECK(m == MPI_MESSAGE_NULL);
        CHECK_EQ(msg[0], st.MPI_SOURCE);
        mark_seen(msg[0], msg[1], RACE_MSGS);
    }
}

static void reset_seen(void)
{
    memset(seen, 0, (size_t)size * RACE_MSGS);
    race_left = (size - 1) * RACE_MSGS;
}

static void check_all_seen(const char *what)
{
    for (int s = 0; s < size; s++)
        for (int i = 0; i < RACE_MSGS; i++)
            CHECKF(seen[s * RACE_MSGS + i] == (s != rank), "%s: message %d from %d %s", what, i,
                   s, seen[s * RACE_MSGS + i] ? "unexpected" : "never received");
}

static void *first_other_caller(void *arg)
{
    (void)arg;
    struct timespec pause = {0, 20 * 1000 * 1000}; /* let main block first */
    nanosleep(&pause, NULL);
    int v = 4242;
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, rank, 77, MPI_COMM_WORLD));
    return NULL;
}

static void *thread_main(void *arg)
{
    int t = (int)(intptr_t)arg;
    ring(MPI_COMM_WORLD, t);
    ring(dups[t], t);

    pthread_barrier_wait(&bar);
    if (t == 0)
        reset_seen();
    pthread_barrier_wait(&bar);
    race(t);
    pthread_barrier_wait(&bar);
    if (t == 0) {
        check_all_seen("racing receives");
        reset_seen();
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    pthread_barrier_wait(&bar);
    mprobe(t);
    pthread_barrier_wait(&bar);
    if (t == 0)
        check_all_seen("Mprobe");

    /* Thread 0 blocks in MPI_Recv from its left neighbour; the others keep
     * exchanging on their duplicates, then the last of them releases it. */
    if (t == 0) {
        int v = -1, left = (rank + size - 1) % size;
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, left, TAG_LATE, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_EQ(v, left * 7);
    } else {
        ring(dups[t], t);
        pthread_mutex_lock(&seen_lock);
        rings_done++;
        pthread_mutex_unlock(&seen_lock);
    }
    pthread_barrier_wait(&bar);
    return NULL;
}

int main(int argc, char **argv)
{
    nthreads = tu_init_multiple(&argc, &argv, &rank, &size, 2, MAXT);
    pthread_t first;
    CHECK(pthread_create(&first, NULL, first_other_caller, NULL) == 0);
    int got = -1;
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, rank, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_EQ(got, 4242);
    CHECK(pthread_join(first, NULL) == 0);
    seen = calloc((size_t)size * RACE_MSGS, 1);
    for (int t = 0; t < nthreads; t++)
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dups[t]));
    pthread_barrier_init(&bar, NULL, (unsigned)nthreads + 1);
    pthread_t th[MAXT];
    for (int t = 0; t < nthreads; t++)
        CHECK(pthread_create(&th[t], NULL, thread_main, (void *)(intptr_t)t) == 0);
    for (int k = 0; k < 5; k++) /* the phases' barriers before phase 5 */
        pthread_barrier_wait(&bar);
    /* Once the other threads' last rings are done here, send the message
     * the right neighbour's thread 0 has been blocked for all along. */
    for (;;) {
        pthread_mutex_lock(&seen_lock);
        int done = rings_done;
        pthread_mutex_unlock(&seen_lock);
        if (done == nthreads - 1)
            break;
        struct timespec ms = {0, 1000 * 1000};
        nanosleep(&ms, NULL);
    }
    int v = rank * 7;
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, (rank + 1) % size, TAG_LATE, MPI_COMM_WORLD));
    pthread_barrier_wait(&bar);
    for (int t = 0; t < nthreads; t++)
        CHECK(pthread_join(th[t], NULL) == 0);
    for (int t = 0; t < nthreads; t++)
        CHECK_MPI(MPI_Comm_free(&dups[t]));
    free(seen);
    CHECK_MPI(MPI_Finalize());
    return 0;
}
