/* thr_comm: communicators, collectives and one-sided calls from several
 * threads at MPI_THREAD_MULTIPLE (FM_TEST_THREADS per rank, default 4).
 *   1. Comm_dup/Comm_free storm: each thread duplicates its own
 *      communicator again and again (context-id agreements of several
 *      threads in flight at once, started in different orders on different
 *      ranks), checks the copy with an allreduce and a split, frees it;
 *      every communicator alive at once has its own context (traffic on one
 *      never reaches another).
 *   2. Collectives on different communicators from different threads:
 *      bcast, allreduce, alltoall, and a nonblocking allreduce completed by
 *      a thread other than the one that started it.
 *   3. One window, every thread of every rank accumulating into it under a
 *      shared lock (MPI_Win_lock_all), fetch-and-op counters, and puts into
 *      slots of its own; totals checked exactly.  Allocated shared memory,
 *      or with FM_TEST_WIN=create private memory (CMA and handoffs).
 *   4. MPI_Comm_free racing with traffic: half the threads free their
 *      communicators while the other half keep sending on theirs. */
#include <pthread.h>

#include "testutil.h"

#define MAXT 16
#define STORM 40

static int nthreads, rank, size;
static MPI_Comm base[MAXT];
static pthread_barrier_t bar;
static MPI_Win win;
static long long *winbuf; /* [0]: counter, [1..]: per (rank, thread) slots */
static MPI_Request handed; /* started by thread 0, completed by thread 1 */
static long long handed_in, handed_out;

static void storm(int t)
{
    for (int i = 0; i < STORM; i++) {
        MPI_Comm c, s;
        CHECK_MPI(MPI_Comm_dup(base[t], &c));
        int v = rank + t * 1000 + i, sum = -1;
        CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c));
        CHECK_EQ(sum, size * (size - 1) / 2 + size * (t * 1000 + i));
        CHECK_MPI(MPI_Comm_split(c, rank % 2, -rank, &s));
        int sr = -1, ss = -1;
        MPI_Comm_rank(s, &sr);
        MPI_Comm_size(s, &ss);
        CHECK_EQ(ss, (size + 1 - rank % 2) / 2);
        CHECK_EQ(sr, ss - 1 - rank / 2); /* key -rank: reversed */
        /* A message on the copy is not seen on the base communicator. */
        int x = t, y = -1, flag = 1;
        MPI_Status st;
        CHECK_MPI(MPI_Sendrecv(&x, 1, MPI_INT, (rank + 1) % size, 5, &y, 1, MPI_INT,
                               (rank + size - 1) % size, 5, c, &st));
        CHECK_EQ(y, t);
        CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, base[t], &flag, &st));
        CHECK_EQ(flag, 0);
        CHECK_MPI(MPI_Comm_free(&s));
        CHECK_MPI(MPI_Comm_free(&c));
        CHECK(c == MPI_COMM_NULL);
    }
}

static void collectives(int t)
{
    MPI_Comm c = base[t];
    for (int i = 0; i < 20; i++) {
        long long b = rank == i % size ? 1000LL * t + i : -1;
        CHECK_MPI(MPI_Bcast(&b, 1, MPI_LONG_LONG, i % size, c));
        CHECK_EQ(b, 1000LL * t + i);
        int *out = malloc(sizeof(int) * (size_t)size), *in = malloc(sizeof(int) * (size_t)size);
        for (int p = 0; p < size; p++)
            out[p] = rank * 100 + p + t;
        CHECK_MPI(MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, c));
        for (int p = 0; p < size; p++)
            CHECK_EQ(in[p], p * 100 + rank + t);
        free(out);
        free(in);
    }
    /* Thread 0 starts a nonblocking allreduce; thread 1 completes it. */
    if (t == 0) {
        handed_in = rank + 1;
        CHECK_MPI(MPI_Iallreduce(&handed_in, &handed_out, 1, MPI_LONG_LONG, MPI_SUM, base[0],
                                 &handed));
    }
    pthread_barrier_wait(&bar);
    if (t == 1) {
        CHECK_MPI(MPI_Wait(&handed, MPI_STATUS_IGNORE));
        CHECK_EQ(handed_out, (long long)size * (size + 1) / 2);
    }
}

static void rma(int t)
{
    long long one = 1, old = -1;
    for (int i = 0; i < 50; i++) {
        int target = (rank + i + t) % size;
        CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG_LONG, target, 0, 1, MPI_LONG_LONG, MPI_SUM,
                                 win));
        CHECK_MPI(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, (target + 1) % size, 0, MPI_SUM,
                                   win));
        CHECK_MPI(MPI_Win_flush(target, win));
        CHECK_MPI(MPI_Win_flush((target + 1) % size, win)); /* old is valid after it */
        CHECK(old >= 0 && old < 2LL * 50 * MAXT * size);
    }
    long long me = 1000000LL * rank + t;
    for (int p = 0; p < size; p++)
        CHECK_MPI(MPI_Put(&me, 1, MPI_LONG_LONG, p, 1 + rank * nthreads + t, 1, MPI_LONG_LONG,
                          win));
    CHECK_MPI(MPI_Win_flush_all(win));
}

static void free_race(int t)
{
    if (t % 2 == 0) {
        CHECK_MPI(MPI_Comm_free(&base[t]));
        return;
    }
    for (int i = 0; i < 100; i++) {
        int x = i, y = -1;
        CHECK_MPI(MPI_Sendrecv(&x, 1, MPI_INT, (rank + 1) % size, i, &y, 1, MPI_INT,
                               (rank + size - 1) % size, i, base[t], MPI_STATUS_IGNORE));
        CHECK_EQ(y, i);
    }
    CHECK_MPI(MPI_Comm_free(&base[t]));
}

static void *thread_main(void *arg)
{
    int t = (int)(intptr_t)arg;
    storm(t);
    pthread_barrier_wait(&bar);
    collectives(t);
    pthread_barrier_wait(&bar);
    rma(t);
    pthread_barrier_wait(&bar);
    pthread_barrier_wait(&bar); /* main checks the window */
    free_race(t);
    return NULL;
}

int main(int argc, char **argv)
{
    nthreads = tu_init_multiple(&argc, &argv, &rank, &size, 2, MAXT);
    for (int t = 0; t < nthreads; t++)
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &base[t]));
    MPI_Aint bytes = (MPI_Aint)sizeof(long long) * (1 + (MPI_Aint)size * nthreads);
    /* FM_TEST_WIN=create: the window over private memory (reached by CMA,
     * or handed to the target while it polls) instead of allocated shared
     * memory. */
    const char *kind = getenv("FM_TEST_WIN");
    int created = kind && strcmp(kind, "create") == 0;
    if (created) {
        winbuf = tu_malloc((size_t)bytes);
        CHECK_MPI(MPI_Win_create(winbuf, bytes, sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD,
                                 &win));
    } else {
        CHECK_MPI(MPI_Win_allocate(bytes, sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD,
                                   &winbuf, &win));
    }
    memset(winbuf, 0, (size_t)bytes);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Win_lock_all(0, win));

    pthread_barrier_init(&bar, NULL, (unsigned)nthreads + 1);
    pthread_t th[MAXT];
    for (int t = 0; t < nthreads; t++)
        CHECK(pthread_create(&th[t], NULL, thread_main, (void *)(intptr_t)t) == 0);
    pthread_barrier_wait(&bar); /* storm */
    pthread_barrier_wait(&bar); /* the handed-over request */
    pthread_barrier_wait(&bar); /* collectives */
    pthread_barrier_wait(&bar); /* rma */
    CHECK_MPI(MPI_Win_unlock_all(win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    /* Each rank's counter got 50 accumulates and 50 fetch-and-ops from
     * every thread of every rank, spread evenly over the targets only when
     * size divides 50; count them exactly instead. */
    long long expect = 0;
    for (int r = 0; r < size; r++)
        for (int t = 0; t < nthreads; t++)
            for (int i = 0; i < 50; i++) {
                int target = (r + i + t) % size;
                expect += (target == rank) + ((target + 1) % size == rank);
            }
    CHECK_EQ(winbuf[0], expect);
    for (int r = 0; r < size; r++)
        for (int t = 0; t < nthreads; t++)
            CHECK_EQ(winbuf[1 + r * nthreads + t], 1000000LL * r + t);
    CHECK_MPI(MPI_Win_unlock(rank, win));
    pthread_barrier_wait(&bar);
    for (int t = 0; t < nthreads; t++)
        CHECK(pthread_join(th[t], NULL) == 0);
    CHECK_MPI(MPI_Win_free(&win));
    if (created)
        free(winbuf);
    CHECK_MPI(MPI_Finalize());
    return 0;
}
