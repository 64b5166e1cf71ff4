/* task.h — the task level, MPIX_TASK_MULTIPLE (task.c; the crt condition
 * of include/fabmpi/crt.h). */
#ifndef FM_CORE_TASK_H
#define FM_CORE_TASK_H

#include "core/progress.h"
#include "core/request.h"

/* 1 once MPI_Init_thread provided MPIX_TASK_MULTIPLE. */
extern int fm_task_level;

/* At MPI_Init_thread(MPIX_TASK_MULTIPLE), with the lock on: choose the crt
 * implementation (installed, or libomp's adapter) and hook its signals into
 * progress.  FM_OK, or an error with *why saying why the level is not
 * provided (the caller provides MPI_THREAD_MULTIPLE then). */
int fm_task_init(const char **why);
/* An installed runtime's wait does not progress MPI: someone must. */
int fm_task_needs_progress_thread(void);

/* Block the calling task until r is done (the lock held once; r not done):
 * its thread runs other tasks meanwhile. */
void fm_task_wait(struct fm_request *r);

/* From a wait that loops on something other than one request (probe,
 * waitany, window synchronisation): under a runtime that can, run other
 * ready tasks of this thread once, with the lock given up. */
void fm_task_yield(void);

/* Every blocking wait for one request: spins (progressing) below the task
 * level, parks the task at it.  Costs nothing more when r is done. */
static inline void fm_request_block(struct fm_request *r)
{
    if (r->done)
        return;
    if (fm_task_level) {
        fm_task_wait(r);
        return;
    }
    if (__builtin_expect(r->vci, 0)) { /* a lane's request (core/vci.h) */
        fm_request_wait_lane(r);
        return;
    }
    fm_wait_until(r->done);
}

#endif
