/* task_crt: the crt condition (include/fabmpi/crt.h) and a runtime
 * installed with crt_install.
 *
 * Before MPI_Init_thread:
 *   - fabmpi's own condition (futex): a thread's crt_wait returns only
 *     after another's crt_signal, and the state reads off while it waits
 *     and on after; crt_install refuses a runtime without wait or signal;
 * then a runtime is installed whose wait counts its calls, turns the state
 * off and blocks its thread on a futex of its own (a stand-in for a task
 * runtime; it says blocks_task = 1), whose signal checks it never comes
 * before its wait, and MPI_Init_thread(MPIX_TASK_MULTIPLE)
 * must provide the task level under its name.  Then:
 *   - NT threads each block in MPI_Recv (from the previous rank, tag t)
 *     before any send is made: each such receive must go through the
 *     installed wait, be signalled exactly once, and get its message; the
 *     progress thread (started for a runtime whose wait does not poll)
 *     completes them while every thread of the rank is parked;
 *   - crt_install after MPI_Init_thread returns -1, and MPIX_Progress_thread(0)
 *     fails with MPI_ERR_OTHER (errors return). */
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fabmpi/crt.h>

#include "testutil.h"

#define NT 4

static atomic_int waits, signals, parked;
static int rank, size;

/* The installed runtime: a futex of its own, counting. */
static void count_wait(crt_cond_t *c)
{
    atomic_fetch_add(&waits, 1);
    atomic_fetch_add(&parked, 1);
    __atomic_store_n(&c->state, CRT_OFF, __ATOMIC_SEQ_CST); /* first, as crt.h asks */
    while (__atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == CRT_OFF)
        syscall(SYS_futex, &c->state, FUTEX_WAIT_PRIVATE, CRT_OFF, NULL, NULL, 0);
    atomic_fetch_sub(&parked, 1);
}

static void count_signal(crt_cond_t *c)
{
    CHECK_EQ(__atomic_load_n(&c->state, __ATOMIC_ACQUIRE), CRT_OFF); /* never before its wait */
    atomic_fetch_add(&signals, 1);
    __atomic_store_n(&c->state, CRT_ON, __ATOMIC_RELEASE);
    syscall(SYS_futex, &c->state, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static crt_cond_t cond = CRT_COND_INITIALIZER;
static atomic_int after_wait;

static void *waiter(void *arg)
{
    (void)arg;
    crt_wait(&cond);
    atomic_store(&after_wait, 1);
    return NULL;
}

/* fabmpi's own condition, before MPI exists. */
static void own_condition(void)
{
    CHECK(strcmp(crt_runtime_name(), "futex") == 0);
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, waiter, NULL), 0);
    while (__atomic_load_n(&cond.state, __ATOMIC_ACQUIRE) != CRT_OFF)
        usleep(100);
    usleep(20000);
    CHECK_EQ(atomic_load(&after_wait), 0); /* off: still blocked */
    crt_signal(&cond);
    CHECK_EQ(pthread_join(t, NULL), 0);
    CHECK_EQ(atomic_load(&after_wait), 1);
    CHECK_EQ(cond.state, CRT_ON);
    crt_runtime_t bad = {"bad", NULL, crt_signal, 1};
    CHECK_EQ(crt_install(&bad), -1);
    CHECK(strcmp(crt_runtime_name(), "futex") == 0);
}

static void *receiver(void *arg)
{
    int t = (int)(intptr_t)arg, got[2] = {-1, -1};
    int prev = (rank + size - 1) % size;
    CHECK_MPI(MPI_Recv(got, 2, MPI_INT, prev, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECKF(got[0] == t && got[1] == prev, "thread %d got (%d, %d)", t, got[0], got[1]);
    return NULL;
}

int main(int argc, char **argv)
{
    own_condition();
    crt_runtime_t rt = {"counting", count_wait, count_signal, 1};
    CHECK_EQ(crt_install(&rt), 0);
    CHECK(strcmp(crt_runtime_name(), "counting") == 0);
    int provided;
    CHECK_MPI(MPI_Init_thread(&argc, &argv, MPIX_TASK_MULTIPLE, &provided));
    CHECK_EQ(provided, MPIX_TASK_MULTIPLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_EQ(crt_install(NULL), -1);

    pthread_t th[NT];
    for (int t = 0; t < NT; t++)
        CHECK_EQ(pthread_create(&th[t], NULL, receiver, (void *)(intptr_t)t), 0);
    /* Every receiver parked in the runtime's wait, on every rank. */
    while (atomic_load(&parked) < NT)
        usleep(1000);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    int next = (rank + 1) % size;
    for (int t = 0; t < NT; t++) {
        int msg[2] = {t, rank};
        CHECK_MPI(MPI_Send(msg, 2, MPI_INT, next, t, MPI_COMM_WORLD));
    }
    for (int t = 0; t < NT; t++)
        CHECK_EQ(pthread_join(th[t], NULL), 0);
    CHECKF(atomic_load(&waits) >= NT, "%d waits for %d blocked receives", atomic_load(&waits), NT);
    CHECK_EQ(atomic_load(&signals), atomic_load(&waits));

    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_ERR(MPIX_Progress_thread(0), MPI_ERR_OTHER);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("task_crt: %d ranks: %d receives parked in an installed runtime, each signalled once\n",
               size, NT);
    CHECK_MPI(MPI_Finalize());
    return 0;
}
