/* progress_thread.c — the optional progress thread (FABMPI_PROGRESS_THREAD).
 *
 * A loop around fm_progress() under the library lock (core/cs.h), so what
 * needs the target or the receiver to act — active messages of passive-
 * target RMA, rendezvous handshakes, nonblocking collectives' rounds —
 * advances while every application thread computes.  After an event it
 * keeps polling for PROGRESS_THREAD_IDLE ns (a burst usually has more
 * coming); then it sleeps 1/PROGRESS_THREAD_RATE s between polls, so an
 * idle job costs a few thousand short wake-ups a second, not a core. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "boot/world.h"
#include "core/cs.h"
#include "core/progress.h"
#include "util/event.h"
#include "util/log.h"
#include "util/param.h"
#include "util/status.h"

static pthread_t thread;
static int running;
static atomic_int stopping;

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *progress_loop(void *arg)
{
    (void)arg;
    fm_event_on_library_thread = 1; /* events told here need thread-safe callbacks */
    /* Ranks outnumber cores: polling on after an event takes the core
     * from a rank that has work (docs/THREADS.md has what it cost). */
    long long idle_ns = fm_oversubscribed ? 0 : fm_param.PROGRESS_THREAD_IDLE;
    struct timespec nap = {0, 1000000000L / fm_param.PROGRESS_THREAD_RATE};
    if (nap.tv_nsec >= 1000000000L)
        nap = (struct timespec){1, 0};
    long long last_event = now_ns();
    while (!atomic_load_explicit(&stopping, memory_order_acquire)) {
        if (!fm_cs_try_enter()) { /* an application thread is in a call: it progresses */
            nanosleep(&nap, NULL);
            continue;
        }
        int n = fm_progress();
        fm_cs_exit();
        if (n) {
            last_event = now_ns();
            continue;
        }
        if (now_ns() - last_event < idle_ns)
            sched_yield(); /* keep polling, but let application threads run */
        else
            nanosleep(&nap, NULL);
    }
    return NULL;
}

int fm_progress_thread_start(void)
{
    if (running)
        return FM_OK;
    fm_cs_on = 1; /* from now on two threads touch library state */
    fm_cs_bias_off();
    atomic_store(&stopping, 0);
    int rc = pthread_create(&thread, NULL, progress_loop, NULL);
    if (rc != 0) {
        fm_error_msg("FABMPI_PROGRESS_THREAD=on: could not start the progress thread (%s)",
                     strerror(rc));
        return FM_ERR_NOMEM;
    }
    if (fm_param.PROGRESS_THREAD_CPU >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET((int)fm_param.PROGRESS_THREAD_CPU, &set);
        rc = pthread_setaffinity_np(thread, sizeof set, &set);
        if (rc != 0)
            fm_warn("FABMPI_PROGRESS_THREAD_CPU=%ld: cannot bind the progress thread there (%s); "
                    "it runs unbound",
                    fm_param.PROGRESS_THREAD_CPU, strerror(rc));
    }
    running = 1;
    fm_log(1, "progress thread started (idle %ld ns, then at most %ld wake-ups/s)",
            fm_param.PROGRESS_THREAD_IDLE, fm_param.PROGRESS_THREAD_RATE);
    return FM_OK;
}

void fm_progress_thread_stop(int keep_lock)
{
    if (!running)
        return;
    atomic_store_explicit(&stopping, 1, memory_order_release);
    /* The caller may hold the lock (MPI_Finalize): let the thread finish
     * its last poll. */
    unsigned held = fm_cs_suspend();
    pthread_join(thread, NULL);
    fm_cs_resume(held);
    running = 0;
    if (!keep_lock)
        fm_cs_on = 0;
    else
        fm_cs_bias_again();
}
