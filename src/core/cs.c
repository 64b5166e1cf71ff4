/* cs.c — the MPI_THREAD_MULTIPLE critical section (cs.h). */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "core/cs.h"

int fm_cs_on;

static pthread_mutex_t cs_mutex = PTHREAD_MUTEX_INITIALIZER;
/* Times this thread holds the lock (0: not held). */
static __thread unsigned cs_depth __attribute__((tls_model("initial-exec")));
/* Threads blocked taking the lock, and how many times a blocked thread got
 * it: a yielding holder waits for the count to move, so the lock really
 * changes hands (a plain unlock-lock would take it straight back). */
static atomic_uint cs_waiters;
static atomic_ulong cs_handoffs;

static void take(void)
{
    if (pthread_mutex_trylock(&cs_mutex) == 0)
        return;
    atomic_fetch_add_explicit(&cs_waiters, 1, memory_order_relaxed);
    pthread_mutex_lock(&cs_mutex);
    atomic_fetch_sub_explicit(&cs_waiters, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&cs_handoffs, 1, memory_order_relaxed);
}

void fm_cs_enter(void)
{
    if (cs_depth++ == 0)
        take();
}

void fm_cs_exit(void)
{
    if (--cs_depth == 0)
        pthread_mutex_unlock(&cs_mutex);
}

/* How long a yielding holder lets a waiter run before taking the lock
 * back (sched_yield rounds): bounded, so a waiter that went away does not
 * stall the holder. */
#define FM_CS_HANDOFF_ROUNDS 64

void fm_cs_yield_slow(void)
{
    if (cs_depth != 1 || fm_progress_in_hooks ||
        atomic_load_explicit(&cs_waiters, memory_order_relaxed) == 0)
        return;
    unsigned long seen = atomic_load_explicit(&cs_handoffs, memory_order_relaxed);
    pthread_mutex_unlock(&cs_mutex);
    for (int i = 0; i < FM_CS_HANDOFF_ROUNDS &&
                    atomic_load_explicit(&cs_handoffs, memory_order_relaxed) == seen &&
                    atomic_load_explicit(&cs_waiters, memory_order_relaxed) != 0;
         i++)
        sched_yield();
    take();
}

unsigned fm_cs_suspend(void)
{
    if (cs_depth != 1 || fm_progress_in_hooks) /* held by an outer call, or a hook: keep it */
        return 0;
    cs_depth = 0;
    pthread_mutex_unlock(&cs_mutex);
    return 1;
}

void fm_cs_resume(unsigned depth)
{
    if (depth) {
        take();
        cs_depth = depth;
    }
}
