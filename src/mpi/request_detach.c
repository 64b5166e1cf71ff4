/* request_detach.c — MPIX_Request_detach: hand a nonblocking request over
 * to the library, which completes and frees it and then fulfils an OpenMP
 * 5.0 detach event (omp_fulfill_event), so
 *     #pragma omp task detach(ev)
 *     { MPI_Irecv(..., &r); MPIX_Request_detach(&r, (uintptr_t)ev); }
 * finishes its task when the receive completes, and tasks depending on it
 * run only then.
 *
 * Detached requests complete by progress like any other: any MPI call on
 * any thread, or the progress thread (FABMPI_PROGRESS_THREAD=on), which a
 * program whose threads wait only in OpenMP (taskwait, barriers) needs.
 * A progress hook looks at them only while there are any, so programs that
 * never detach pay nothing.  omp_fulfill_event is looked up in the process
 * at the first detach (libgomp and LLVM's libomp both have it). */
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/cs.h"
#include "core/progress.h"
#include "mpi/api.h"
#include "mpi/request_api.h"

struct detached {
    MPI_Request req;
    uintptr_t event;
    struct detached *next;
};

static struct detached *pending; /* under the library lock, as all state is */
static void (*fulfill)(uintptr_t event);
static int in_hook;

/* Release a completed request and fulfil its event.  An error the request
 * ended with goes to its communicator's handler, as MPI_Wait would report
 * it (fatal by default). */
static void finish(struct detached *d)
{
    fm_request_finish("MPIX_Request_detach", &d->req, MPI_STATUS_IGNORE);
    fulfill(d->event);
    free(d);
}

static int detach_hook(void)
{
    if (in_hook) /* an error handler's MPI call */
        return 0;
    in_hook = 1;
    int n = 0;
    for (struct detached **p = &pending; *p;) {
        struct detached *d = *p;
        if (!d->req->done) {
            p = &d->next;
            continue;
        }
        *p = d->next;
        finish(d);
        n++;
    }
    if (!pending)
        fm_progress_remove(detach_hook);
    in_hook = 0;
    return n;
}

#pragma weak MPIX_Request_detach = PMPIX_Request_detach
int PMPIX_Request_detach(MPI_Request *request, uintptr_t event)
{
    FM_API_LOCK();
    static const char call[] = "MPIX_Request_detach";
    FM_CHECK_INIT(call);
    if (!request || *request == MPI_REQUEST_NULL)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_REQUEST, "request=MPI_REQUEST_NULL");
    struct fm_request *r = *request;
    if (r->magic != FM_MAGIC_REQ)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_REQUEST,
                        "request=%p is not an active request (already completed or freed?)",
                        (void *)r);
    if (r->flags & FM_REQF_PERSISTENT)
        return fm_raise(r->comm ? r->comm : MPI_COMM_NULL, call, MPI_ERR_REQUEST,
                        "request is persistent; only nonblocking requests can be detached "
                        "(each MPI_Start makes a new operation the event cannot follow)");
    if (!fulfill) {
        *(void **)&fulfill = dlsym(RTLD_DEFAULT, "omp_fulfill_event");
        if (!fulfill)
            return fm_raise(r->comm ? r->comm : MPI_COMM_NULL, call, MPI_ERR_OTHER,
                            "no OpenMP 5.0 runtime is loaded (omp_fulfill_event not found): "
                            "build the program with -fopenmp");
    }
    struct detached *d = malloc(sizeof *d);
    if (!d)
        return fm_raise(r->comm ? r->comm : MPI_COMM_NULL, call, MPI_ERR_NO_MEM,
                        "out of memory");
    d->req = r;
    d->event = event;
    *request = MPI_REQUEST_NULL;
    if (r->done) { /* complete already: nothing to wait for */
        finish(d);
        return MPI_SUCCESS;
    }
    if (fm_progress_add(detach_hook) != FM_OK) {
        *request = r;
        free(d);
        return fm_raise(r->comm ? r->comm : MPI_COMM_NULL, call, MPI_ERR_INTERN,
                        "no room for another progress hook");
    }
    d->next = pending;
    pending = d;
    return MPI_SUCCESS;
}

void fm_detach_finalize(void)
{
    /* MPI_Finalize waits for detached requests, as the program would have
     * had to wait for them itself. */
    fm_wait_until(!pending);
}
