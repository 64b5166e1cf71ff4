/* fabmpi/crt.h — the "common run-time" condition between MPI and a thread
 * or task runtime (OpenMP), after the MPI/OpenMP interface proposal: a
 * task that makes a blocking MPI call waits on a condition, and the library
 * signals it when the call's communication completes.
 *
 * A condition is on or off; it starts on.  crt_wait(c) finds it on, turns
 * it off and blocks its caller (a thread, or only a task under a task
 * runtime) until crt_signal(c) turns it on again.  Calls on one condition
 * alternate, starting with crt_wait; two waits or two signals in a row, or
 * a first signal, are undefined.
 *
 * fabmpi's own implementation blocks threads on a futex.  A runtime that
 * can block a task instead installs its own with crt_install() before
 * MPI_Init_thread; then MPI_Init_thread(MPIX_TASK_MULTIPLE) provides that
 * level.  Without one, fabmpi installs its adapter for LLVM's OpenMP
 * runtime (libomp) when the program runs on it; under GNU libgomp, whose
 * taskyield never runs another task, it provides MPI_THREAD_MULTIPLE
 * (docs/THREADS.md, "Tasks").
 *
 * An installed wait must turn the state off (CRT_OFF) before it blocks:
 * the library reads the state and signals only a condition whose wait has
 * begun, so a signal never comes before its wait. */
#ifndef FABMPI_CRT_H
#define FABMPI_CRT_H

#ifdef __cplusplus
extern "C" {
#endif

enum { CRT_OFF = 0, CRT_ON = 1 };

typedef struct crt_cond {
    int state;   /* CRT_ON / CRT_OFF; read and written atomically */
    void *owner; /* for an installed runtime (its task); fabmpi's leaves it NULL */
} crt_cond_t;

#define CRT_COND_INITIALIZER {CRT_ON, 0}

void crt_wait(crt_cond_t *cond);
void crt_signal(crt_cond_t *cond);

/* A runtime's implementation.  wait and signal as above; blocks_task: 1
 * when wait blocks only the calling task (the thread runs other tasks),
 * 0 when it blocks the thread. */
typedef struct crt_runtime {
    const char *name;
    void (*wait)(crt_cond_t *cond);
    void (*signal)(crt_cond_t *cond);
    int blocks_task;
} crt_runtime_t;

/* Install rt (copied; NULL: fabmpi's own again), before MPI_Init_thread
 * asks for MPIX_TASK_MULTIPLE.  Returns 0, or -1 (and changes nothing)
 * once the task level is provided or when rt lacks wait or signal. */
int crt_install(const crt_runtime_t *rt);
/* The implementation in use: its name ("futex", "libomp", or the
 * installed one's). */
const char *crt_runtime_name(void);

#ifdef __cplusplus
}
#endif

#endif
