/* request_api.h — helpers shared by the request-completing entry points. */
#ifndef FM_MPI_REQUEST_API_H
#define FM_MPI_REQUEST_API_H

#include "core/request.h"

static inline void fm_empty_status(MPI_Status *s)
{
    if (!s)
        return;
    s->MPI_SOURCE = MPI_ANY_SOURCE;
    s->MPI_TAG = MPI_ANY_TAG;
    s->MPI_ERROR = MPI_SUCCESS;
    s->fm_count = 0;
    s->fm_cancelled = 0;
}

/* A persistent request that was not started: Waitany & co. skip it like a
 * null request. */
static inline int fm_req_inactive(const struct fm_request *r)
{
    return (r->flags & (FM_REQF_PERSISTENT | FM_REQF_ACTIVE)) == FM_REQF_PERSISTENT;
}

/* Finish a completed request: copy its status, release it, null the handle.
 * Returns the request's error class (MPI_SUCCESS or e.g. MPI_ERR_TRUNCATE),
 * raised through its communicator's handler with a detailed message. */
int fm_request_finish(const char *call, MPI_Request *handle, MPI_Status *status);

/* Generalized requests (grequest.c): run the program's query_fn into
 * *status (NULL: a scratch status) / free_fn, then release r / cancel_fn;
 * each returns the callback's error code. */
int fm_greq_query(struct fm_request *r, MPI_Status *status);
int fm_greq_release(struct fm_request *r);
int fm_greq_cancel(struct fm_request *r);

/* Block until r is complete. */
void fm_request_progress_until_done(struct fm_request *r);

/* MPI_Finalize: wait until every request given to MPIX_Request_detach
 * has completed and its event is fulfilled (request_detach.c). */
void fm_detach_finalize(void);

#endif
