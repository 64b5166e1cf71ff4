/* task.c — the task level (MPIX_TASK_MULTIPLE) and the crt condition of
 * include/fabmpi/crt.h: fabmpi's futex implementation, its adapter for
 * LLVM's OpenMP runtime, one a runtime installs, and the blocking wait that
 * parks a task on its condition instead of spinning its thread.
 *
 * The condition belongs to the blocked call (on its stack: one per task,
 * since a task that blocks is one call deep in MPI) and is recorded with
 * the request it waits for; a progress hook signals it once the request is
 * done and the wait has begun (state off).  Whoever progresses runs the
 * hook: the libomp adapter's own wait loop, which polls when the library
 * lock is free and yields to other tasks in between, or, under an installed
 * runtime whose wait does not poll, the progress thread the task level
 * starts.
 *
 * libgomp is not adapted: its taskyield runs no other task (FACTS), so a
 * task blocked in MPI would hold its thread, and enough of them deadlock.
 * There the program gets MPI_THREAD_MULTIPLE. */
#include <dlfcn.h>
#include <linux/futex.h>
#include <sched.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fabmpi/crt.h>

#include "core/cs.h"
#include "core/progress.h"
#include "core/request.h"
#include "core/task.h"
#include "util/log.h"
#include "util/status.h"

int fm_task_level;

/* ---- fabmpi's implementation: threads on a futex ---- */

static void futex_wait(crt_cond_t *c)
{
    __atomic_store_n(&c->state, CRT_OFF, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == CRT_OFF)
        syscall(SYS_futex, &c->state, FUTEX_WAIT_PRIVATE, CRT_OFF, NULL, NULL, 0);
}

static void futex_signal(crt_cond_t *c)
{
    __atomic_store_n(&c->state, CRT_ON, __ATOMIC_RELEASE);
    /* The waiter may be gone already (it saw ON): a wake of a dead address
     * wakes nobody, or makes another waiter there look again. */
    syscall(SYS_futex, &c->state, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* ---- the adapter for LLVM's OpenMP runtime (libomp) ---- */

/* Its entry points, looked up in the process (the program links libomp;
 * fabmpi does not): the calling thread's id, and a task yield that runs
 * other ready tasks on this thread before it returns. */
static int (*kmp_gtid)(void *loc);
static int (*kmp_taskyield)(void *loc, int gtid, int end_part);

static void libomp_wait(crt_cond_t *c)
{
    __atomic_store_n(&c->state, CRT_OFF, __ATOMIC_SEQ_CST);
    unsigned idle = 0;
    while (__atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == CRT_OFF) {
        /* Progress ourselves when nobody holds the lock: the hook there
         * signals us (and other tasks' conditions). */
        if (fm_cs_try_enter()) {
            fm_progress();
            fm_cs_exit();
        }
        kmp_taskyield(NULL, kmp_gtid(NULL), 0);
        if (++idle % 64 == 0)
            sched_yield(); /* other ranks may share this core */
    }
}

static void libomp_signal(crt_cond_t *c) { __atomic_store_n(&c->state, CRT_ON, __ATOMIC_RELEASE); }

void fm_task_yield(void)
{
    if (!kmp_taskyield || !fm_task_level)
        return; /* an installed runtime: crt has no yield, the wait spins */
    unsigned held = fm_cs_suspend();
    if (held) /* else an outer call keeps the lock: no task may run here */
        kmp_taskyield(NULL, kmp_gtid(NULL), 0);
    fm_cs_resume(held);
}

/* ---- which one ---- */

static crt_runtime_t rt = {"futex", futex_wait, futex_signal, 0};
static int installed; /* rt came from crt_install */

void crt_wait(crt_cond_t *cond) { rt.wait(cond); }
void crt_signal(crt_cond_t *cond) { rt.signal(cond); }
const char *crt_runtime_name(void) { return rt.name ? rt.name : "(installed)"; }

int crt_install(const crt_runtime_t *r)
{
    if (fm_task_level || (r && (!r->wait || !r->signal)))
        return -1;
    if (!r) {
        rt = (crt_runtime_t){"futex", futex_wait, futex_signal, 0};
        installed = 0;
        return 0;
    }
    rt = *r;
    installed = 1;
    return 0;
}

/* ---- waiting on a request ---- */

typedef struct waiter {
    struct fm_request *r;
    crt_cond_t *c;
    struct waiter *next;
} waiter;

static waiter *waiters; /* under the library lock */

static int signal_done(void)
{
    int n = 0;
    for (waiter **pp = &waiters; *pp;) {
        waiter *w = *pp;
        if (!w->r->done || __atomic_load_n(&w->c->state, __ATOMIC_ACQUIRE) != CRT_OFF) {
            pp = &w->next;
            continue;
        }
        *pp = w->next; /* w lives on the waiter's stack: unlinked before it can return */
        rt.signal(w->c);
        n++;
    }
    return n;
}

void fm_task_wait(struct fm_request *r)
{
    if (fm_cs_t.depth != 1 || fm_progress_in_hooks) {
        /* Inside a callback's call or a hook: the lock cannot be given up,
         * so this wait cannot let the thread go.  Spin as at MULTIPLE. */
        fm_wait_until(r->done);
        return;
    }
    crt_cond_t c = CRT_COND_INITIALIZER;
    waiter w = {r, &c, waiters};
    waiters = &w;
    unsigned held = fm_cs_suspend();
    crt_wait(&c);
    fm_cs_resume(held);
}

/* Is libomp the OpenMP runtime of this process? */
static int find_libomp(void)
{
    kmp_gtid = (int (*)(void *))dlsym(RTLD_DEFAULT, "__kmpc_global_thread_num");
    kmp_taskyield = (int (*)(void *, int, int))dlsym(RTLD_DEFAULT, "__kmpc_omp_taskyield");
    return kmp_gtid && kmp_taskyield;
}

int fm_task_init(const char **why)
{
    if (installed && !rt.blocks_task) {
        *why = "the installed crt runtime blocks threads, not tasks";
        return FM_ERR_UNSUPPORTED;
    }
    if (!installed) {
        if (!find_libomp()) {
            *why = "no runtime that can block a task: neither one installed with crt_install nor "
                   "LLVM's libomp in the process (GNU libgomp's taskyield runs no other task)";
            return FM_ERR_UNSUPPORTED;
        }
        rt = (crt_runtime_t){"libomp", libomp_wait, libomp_signal, 1};
    }
    int rc = fm_progress_add(signal_done);
    if (rc != FM_OK) {
        *why = "no room for its progress hook";
        return rc;
    }
    fm_task_level = 1;
    return FM_OK;
}

int fm_task_needs_progress_thread(void) { return fm_task_level && installed; }
