/* grequest.c — generalized requests (MPI-3.1 12.2): requests whose work
 * the program does, MPI_Grequest_start and MPI_Grequest_complete, and the
 * points where the completion calls (request_api.c) run the program's
 * callbacks.
 *
 * A generalized request is an ordinary request of kind FM_REQ_GREQ, done
 * once MPI_Grequest_complete ran, so Wait/Test and their array forms find
 * it complete like any other.  When a call finishes it, query_fn fills
 * the status and then free_fn runs; MPI_Request_get_status runs query_fn
 * alone; MPI_Request_free runs free_fn alone, at once if the request is
 * complete, else from MPI_Grequest_complete (whichever comes last);
 * MPI_Cancel runs cancel_fn with whether the request is complete.  The
 * error code a callback returns is the error of the call that ran it. */
#include <stdlib.h>

#include "mpi/api.h"
#include "mpi/request_api.h"

struct fm_greq {
    MPI_Grequest_query_function *query_fn;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel_fn;
    void *extra_state;
};

int fm_greq_query(struct fm_request *r, MPI_Status *status)
{
    /* The callback always gets a status, even for MPI_STATUS_IGNORE. */
    MPI_Status st;
    fm_empty_status(&st);
    int rc = r->greq->query_fn(r->greq->extra_state, &st);
    if (status)
        *status = st;
    return rc;
}

int fm_greq_release(struct fm_request *r)
{
    struct fm_greq *g = r->greq;
    int rc = g->free_fn(g->extra_state);
    free(g);
    r->greq = NULL;
    fm_req_free(r);
    return rc;
}

int fm_greq_cancel(struct fm_request *r)
{
    return r->greq->cancel_fn(r->greq->extra_state, r->done != 0);
}

#pragma weak MPI_Grequest_start = PMPI_Grequest_start
int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                        MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request)
{
    FM_API_LOCK();
    static const char call[] = "MPI_Grequest_start";
    FM_CHECK_INIT(call);
    /* The standard has no null callbacks for these: each is called. */
    if (!query_fn || !free_fn || !cancel_fn || !request)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "%s=NULL",
                        !query_fn ? "query_fn" : !free_fn ? "free_fn"
                                               : !cancel_fn ? "cancel_fn" : "request");
    struct fm_greq *g = malloc(sizeof *g);
    struct fm_request *r = g ? fm_req_alloc(FM_REQ_GREQ) : NULL;
    if (!r) {
        free(g);
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_NO_MEM, "no memory for a request");
    }
    *g = (struct fm_greq){query_fn, free_fn, cancel_fn, extra_state};
    r->greq = g;
    r->peer = MPI_PROC_NULL; /* what a hang record shows for it */
    r->tag = MPI_ANY_TAG;
    fm_empty_status(&r->status);
    *request = r;
    return MPI_SUCCESS;
}

#pragma weak MPI_Grequest_complete = PMPI_Grequest_complete
int PMPI_Grequest_complete(MPI_Request request)
{
    FM_API_LOCK();
    static const char call[] = "MPI_Grequest_complete";
    FM_CHECK_INIT(call);
    if (request == MPI_REQUEST_NULL)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_REQUEST, "request=MPI_REQUEST_NULL");
    if (request->magic != FM_MAGIC_REQ || request->kind != FM_REQ_GREQ)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_REQUEST,
                        "request=%p is not a generalized request (from MPI_Grequest_start) "
                        "that is still allocated", (void *)request);
    if (request->done)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_REQUEST,
                        "request=%p was already completed by MPI_Grequest_complete",
                        (void *)request);
    /* Release store: a thread waiting on the request reads done. */
    __atomic_store_n(&request->done, 1, __ATOMIC_RELEASE);
    if (request->flags & FM_REQF_FREED) {
        /* MPI_Request_free came first: free_fn runs now. */
        int rc = fm_greq_release(request);
        if (rc != MPI_SUCCESS)
            return fm_call_errhandler(MPI_COMM_NULL, rc);
    }
    return MPI_SUCCESS;
}
