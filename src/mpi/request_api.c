/* request_api.c — MPI_Wait/Test families, Request_free, Request_get_status,
 * Cancel.  Generalized requests go through the same calls; where they
 * differ (their callbacks) grequest.c does the work. */
#include <stdlib.h>

#include "dtype/dtype.h"
#include "boot/hang.h"
#include "coll/sched.h"
#include "core/task.h"
#include "mpi/api.h"
#include "mpi/lane.h"
#include "mpi/request_api.h"
#include "pt2pt/pt2pt.h"

static int req_valid(MPI_Request r) { return r->magic == FM_MAGIC_REQ; }

#define CHECK_REQ(call, r)                                                            \
    do {                                                                              \
        if (!req_valid(r))                                                            \
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_REQUEST,                     \
                            "request=%p is not an active request (already completed " \
                            "or freed?)", (void *)(r));                               \
    } while (0)

#define CHECK_REQ_ARRAY(call, n, reqs)                                                \
    do {                                                                              \
        if ((n) < 0)                                                                  \
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_COUNT, "count=%d must be >= 0", n); \
        for (int i_ = 0; i_ < (n); i_++)                                              \
            if ((reqs)[i_] && !req_valid((reqs)[i_]))                                 \
                return fm_raise(MPI_COMM_NULL, call, MPI_ERR_REQUEST,                 \
                                "array_of_requests[%d]=%p is not a valid request", i_, \
                                (void *)(reqs)[i_]);                                  \
    } while (0)

void fm_request_progress_until_done(struct fm_request *r) { fm_request_block(r); }

/* The wait of MPI_Wait and MPI_Waitall: a collective's schedule may wait
 * its own way (coll/sched.h). */
static inline void wait_request(struct fm_request *r)
{
    if (__builtin_expect(r->kind == FM_REQ_COLL, 0))
        fm_sched_wait(r);
    else
        fm_request_block(r);
}

/* Raise a completed request's error through its communicator, while the
 * request (and so its communicator reference) is still alive. */
static int raise_request_error(const char *call, const struct fm_request *r)
{
    int err = r->status.MPI_ERROR;
    if (r->kind == FM_REQ_COLL || r->kind == FM_REQ_SENDRECV) /* its own status says more */
        return fm_raise_status(r->comm, call, r->coll_status);
    if (err == MPI_ERR_TRUNCATE)
        return fm_raise(r->comm, call, MPI_ERR_TRUNCATE,
                        "message of %llu bytes from rank %d (tag %d) does not fit the "
                        "receive buffer of %llu bytes", (unsigned long long)r->msg_bytes,
                        r->status.MPI_SOURCE, r->status.MPI_TAG, (unsigned long long)r->bytes);
    return fm_raise(r->comm, call, err, "request failed");
}

/* Copy out the status of a completed request and release it; a persistent
 * request instead goes back to inactive (handle kept; a later Wait returns
 * an empty status at once).  Returns the request's error class. */
/* A generalized request: query_fn makes the status, then free_fn runs
 * (MPI-3.1 12.2).  Out of line so the common case stays inlined into the
 * wait and test loops. */
static __attribute__((noinline)) int take_greq_result(MPI_Request *handle, MPI_Status *status)
{
    struct fm_request *r = *handle;
    int err = fm_greq_query(r, status);
    int ferr = fm_greq_release(r);
    *handle = MPI_REQUEST_NULL;
    return err != MPI_SUCCESS ? err : ferr;
}

static inline int take_result(MPI_Request *handle, MPI_Status *status)
{
    struct fm_request *r = *handle;
    if (__builtin_expect(r->kind == FM_REQ_GREQ, 0))
        return take_greq_result(handle, status);
    int err = r->status.MPI_ERROR;
    if (status) {
        /* Completion leaves the program's MPI_ERROR field alone (MPI-3.1
         * 3.2.5); the array calls set it themselves. */
        int keep = status->MPI_ERROR;
        if (r->kind == FM_REQ_SEND && r->status.MPI_SOURCE != MPI_PROC_NULL) {
            fm_empty_status(status);
            status->fm_cancelled = r->status.fm_cancelled;
        } else {
            *status = r->status;
        }
        status->MPI_ERROR = keep;
    }
    if (r->flags & FM_REQF_PERSISTENT) {
        r->flags &= (uint16_t)~FM_REQF_ACTIVE;
        fm_empty_status(&r->status);
    } else {
        fm_req_free(r);
        *handle = MPI_REQUEST_NULL;
    }
    return err;
}

int fm_request_finish(const char *call, MPI_Request *handle, MPI_Status *status)
{
    struct fm_request *r = *handle;
    if (r->kind == FM_REQ_GREQ) {
        /* Its error is known only once the callbacks ran, and is the
         * program's own code: raised as is, on no communicator. */
        (void)call;
        int code = take_result(handle, status);
        return code == MPI_SUCCESS ? code : fm_call_errhandler(MPI_COMM_NULL, code);
    }
    if (r->status.MPI_ERROR != MPI_SUCCESS) {
        int code = raise_request_error(call, r); /* returns only under ERRORS_RETURN */
        take_result(handle, status);
        return code;
    }
    return take_result(handle, status);
}

/* MPI_Wait's body (core/cs.h: FM_API_TWIN). */
static inline __attribute__((always_inline)) int wait_body(MPI_Request *request, MPI_Status *status)
{
    FM_CHECK_INIT("MPI_Wait");
    if (!request)
        return fm_raise(MPI_COMM_NULL, "MPI_Wait", MPI_ERR_ARG, "request=NULL");
    if (*request == MPI_REQUEST_NULL) {
        fm_empty_status(status);
        return MPI_SUCCESS;
    }
    CHECK_REQ("MPI_Wait", *request);
    if (!(*request)->done) { /* only a wait that blocks is one a hang report names */
        FM_HANG_SCOPE("MPI_Wait", (*request)->peer, (*request)->tag,
                      (*request)->comm ? (*request)->comm->name : "", (*request)->count);
        wait_request(*request);
    }
    return fm_request_finish("MPI_Wait", request, status);
}

FM_API_LANE_TWIN(wait_body, request ? fm_lane_of_req(*request) : NULL, (MPI_Request *request, MPI_Status *status), (request, status))

#pragma weak MPI_Wait = PMPI_Wait
int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    FM_API_TWIN(wait_body, request, status);
}

/* MPI_Test's body (core/cs.h: FM_API_TWIN). */
static inline __attribute__((always_inline)) int test_body(MPI_Request *request, int *flag, MPI_Status *status)
{
    FM_CHECK_INIT("MPI_Test");
    if (*request == MPI_REQUEST_NULL) {
        *flag = 1;
        fm_empty_status(status);
        return MPI_SUCCESS;
    }
    CHECK_REQ("MPI_Test", *request);
    if (!(*request)->done)
        fm_progress_request(*request);
    *flag = (*request)->done;
    if (!*flag)
        return MPI_SUCCESS;
    return fm_request_finish("MPI_Test", request, status);
}

FM_API_LANE_TWIN(test_body, request ? fm_lane_of_req(*request) : NULL, (MPI_Request *request, int *flag, MPI_Status *status), (request, flag, status))

#pragma weak MPI_Test = PMPI_Test
int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    FM_API_TWIN(test_body, request, flag, status);
}

/* Finish request i of an array call: its error goes into its status
 * (reported once, as MPI_ERR_IN_STATUS, by the caller). */
static void finish_in_array(MPI_Request reqs[], int i, MPI_Status *out, int *any_error)
{
    int rc = take_result(&reqs[i], out);
    if (rc != MPI_SUCCESS)
        *any_error = 1;
    if (out)
        out->MPI_ERROR = rc;
}

/* Communicator to report an array call's error on: the first request's,
 * held across the call since finishing requests drops their references. */
static MPI_Comm hold_comm(int count, MPI_Request reqs[])
{
    for (int i = 0; i < count; i++)
        if (reqs[i] && reqs[i]->comm) {
            reqs[i]->comm->refcount++;
            return reqs[i]->comm;
        }
    return MPI_COMM_NULL;
}

static int report_in_status(const char *call, MPI_Comm comm, int any_error)
{
    int rc = MPI_SUCCESS;
    if (any_error)
        rc = fm_raise(comm, call, MPI_ERR_IN_STATUS,
                      "one or more requests failed; see array_of_statuses[i].MPI_ERROR");
    if (comm)
        fm_comm_release(comm);
    return rc;
}

/* MPI_Waitall's body (core/cs.h: FM_API_TWIN). */
static inline __attribute__((always_inline)) int waitall_body(int count, MPI_Request reqs[], MPI_Status statuses[])
{
    FM_CHECK_INIT("MPI_Waitall");
    CHECK_REQ_ARRAY("MPI_Waitall", count, reqs);
    FM_HANG_SCOPE("MPI_Waitall", FM_HANG_NONE, FM_HANG_NONE, "", count);
    int any_error = 0;
    MPI_Comm comm = MPI_COMM_NULL;
    for (int i = 0; i < count; i++) {
        if (!reqs[i]) {
            if (statuses)
                fm_empty_status(&statuses[i]);
            continue;
        }
        wait_request(reqs[i]);
        if (reqs[i]->status.MPI_ERROR != MPI_SUCCESS && !comm)
            comm = hold_comm(1, &reqs[i]);
        finish_in_array(reqs, i, statuses ? &statuses[i] : NULL, &any_error);
    }
    return any_error ? report_in_status("MPI_Waitall", comm, 1) : MPI_SUCCESS;
}

FM_API_LANE_TWIN(waitall_body, fm_lane_of_reqs(count, reqs), (int count, MPI_Request reqs[], MPI_Status statuses[]), (count, reqs, statuses))

#pragma weak MPI_Waitall = PMPI_Waitall
int PMPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
    FM_API_TWIN(waitall_body, count, reqs, statuses);
}

#pragma weak MPI_Testall = PMPI_Testall
int PMPI_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Testall");
    CHECK_REQ_ARRAY("MPI_Testall", count, reqs);
    fm_progress();
    for (int i = 0; i < count; i++)
        if (reqs[i] && !reqs[i]->done) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    *flag = 1;
    int any_error = 0;
    MPI_Comm comm = hold_comm(count, reqs);
    for (int i = 0; i < count; i++) {
        if (!reqs[i]) {
            if (statuses)
                fm_empty_status(&statuses[i]);
            continue;
        }
        finish_in_array(reqs, i, statuses ? &statuses[i] : NULL, &any_error);
    }
    return report_in_status("MPI_Testall", comm, any_error);
}

/* Index of a completed request, -1 if none, -2 if all are null. */
static int find_done(int count, MPI_Request reqs[])
{
    int active = 0;
    for (int i = 0; i < count; i++) {
        if (!reqs[i] || fm_req_inactive(reqs[i]))
            continue;
        active = 1;
        if (reqs[i]->done)
            return i;
    }
    return active ? -1 : -2;
}

#pragma weak MPI_Waitany = PMPI_Waitany
int PMPI_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Waitany");
    CHECK_REQ_ARRAY("MPI_Waitany", count, reqs);
    FM_HANG_SCOPE("MPI_Waitany", FM_HANG_NONE, FM_HANG_NONE, "", count);
    int i;
    fm_wait_until((i = find_done(count, reqs)) != -1);
    if (i == -2) {
        *index = MPI_UNDEFINED;
        fm_empty_status(status);
        return MPI_SUCCESS;
    }
    *index = i;
    return fm_request_finish("MPI_Waitany", &reqs[i], status);
}

#pragma weak MPI_Testany = PMPI_Testany
int PMPI_Testany(int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Testany");
    CHECK_REQ_ARRAY("MPI_Testany", count, reqs);
    fm_progress();
    int i = find_done(count, reqs);
    if (i == -2) {
        *flag = 1;
        *index = MPI_UNDEFINED;
        fm_empty_status(status);
        return MPI_SUCCESS;
    }
    if (i < 0) {
        *flag = 0;
        *index = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    *flag = 1;
    *index = i;
    return fm_request_finish("MPI_Testany", &reqs[i], status);
}

static int collect_done(const char *call, int count, MPI_Request reqs[], int *outcount,
                        int indices[], MPI_Status statuses[])
{
    int n = 0, any_error = 0;
    MPI_Comm comm = hold_comm(count, reqs);
    for (int i = 0; i < count; i++) {
        if (!reqs[i] || fm_req_inactive(reqs[i]) || !reqs[i]->done)
            continue;
        finish_in_array(reqs, i, statuses ? &statuses[n] : NULL, &any_error);
        indices[n++] = i;
    }
    *outcount = n;
    return report_in_status(call, comm, any_error);
}

#pragma weak MPI_Waitsome = PMPI_Waitsome
int PMPI_Waitsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                 MPI_Status statuses[])
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Waitsome");
    CHECK_REQ_ARRAY("MPI_Waitsome", incount, reqs);
    FM_HANG_SCOPE("MPI_Waitsome", FM_HANG_NONE, FM_HANG_NONE, "", incount);
    int i;
    fm_wait_until((i = find_done(incount, reqs)) != -1);
    if (i == -2) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    return collect_done("MPI_Waitsome", incount, reqs, outcount, indices, statuses);
}

#pragma weak MPI_Testsome = PMPI_Testsome
int PMPI_Testsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                 MPI_Status statuses[])
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Testsome");
    CHECK_REQ_ARRAY("MPI_Testsome", incount, reqs);
    fm_progress();
    int i = find_done(incount, reqs);
    if (i == -2) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    return collect_done("MPI_Testsome", incount, reqs, outcount, indices, statuses);
}

#pragma weak MPI_Request_free = PMPI_Request_free
int PMPI_Request_free(MPI_Request *request)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Request_free");
    if (!request || *request == MPI_REQUEST_NULL)
        return fm_raise(MPI_COMM_NULL, "MPI_Request_free", MPI_ERR_REQUEST,
                        "request=MPI_REQUEST_NULL");
    CHECK_REQ("MPI_Request_free", *request);
    struct fm_request *r = *request;
    if (r->kind == FM_REQ_COLL) {
        if (!(r->flags & FM_REQF_PERSISTENT))
            return fm_raise(r->comm, "MPI_Request_free", MPI_ERR_REQUEST,
                            "request is a nonblocking collective's; the standard does not let "
                            "it be freed: complete it with MPI_Wait or MPI_Test");
        if (r->flags & FM_REQF_ACTIVE)
            return fm_raise(r->comm, "MPI_Request_free", MPI_ERR_REQUEST,
                            "request is an active persistent collective; complete it with "
                            "MPI_Wait or MPI_Test before freeing it");
        fm_sched_free_persistent(r);
        *request = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    *request = MPI_REQUEST_NULL;
    if (!r->done) {
        r->flags |= FM_REQF_FREED; /* released when it completes */
        return MPI_SUCCESS;
    }
    if (r->kind == FM_REQ_GREQ) {
        int rc = fm_greq_release(r); /* free_fn only: no query (MPI-3.1 12.2) */
        return rc == MPI_SUCCESS ? rc : fm_call_errhandler(MPI_COMM_NULL, rc);
    }
    fm_req_free(r);
    return MPI_SUCCESS;
}

#pragma weak MPI_Request_get_status = PMPI_Request_get_status
int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Request_get_status");
    if (request == MPI_REQUEST_NULL) {
        *flag = 1;
        fm_empty_status(status);
        return MPI_SUCCESS;
    }
    CHECK_REQ("MPI_Request_get_status", request);
    if (!request->done)
        fm_progress();
    *flag = request->done;
    if (*flag && request->kind == FM_REQ_GREQ) {
        int rc = fm_greq_query(request, status); /* the request stays */
        return rc == MPI_SUCCESS ? rc : fm_call_errhandler(MPI_COMM_NULL, rc);
    }
    if (*flag && status) {
        if (request->kind == FM_REQ_SEND && request->status.MPI_SOURCE != MPI_PROC_NULL) {
            fm_empty_status(status);
            status->fm_cancelled = request->status.fm_cancelled;
        } else {
            *status = request->status;
        }
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Cancel = PMPI_Cancel
int PMPI_Cancel(MPI_Request *request)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Cancel");
    if (!request || *request == MPI_REQUEST_NULL)
        return fm_raise(MPI_COMM_NULL, "MPI_Cancel", MPI_ERR_REQUEST, "request=MPI_REQUEST_NULL");
    CHECK_REQ("MPI_Cancel", *request);
    struct fm_request *r = *request;
    if (r->kind == FM_REQ_GREQ) {
        int rc = fm_greq_cancel(r);
        return rc == MPI_SUCCESS ? rc : fm_call_errhandler(MPI_COMM_NULL, rc);
    }
    if (r->kind == FM_REQ_SENDRECV)
        return fm_raise_status(r->comm, "MPI_Cancel", fm_sched_cancel_p2p(r));
    if (r->kind == FM_REQ_COLL)
        return fm_raise(r->comm, "MPI_Cancel", MPI_ERR_REQUEST,
                        "request is a collective's; the standard does not let a collective be "
                        "cancelled");
    if (r->flags & FM_REQF_PERSISTENT) {
        if (!(r->flags & FM_REQF_ACTIVE))
            return fm_raise(r->comm, "MPI_Cancel", MPI_ERR_REQUEST,
                            "request is an inactive persistent request (not started)");
        if (!r->inner)
            return MPI_SUCCESS; /* already complete */
        r = r->inner;
    }
    return fm_raise_status(r->comm, "MPI_Cancel", fm_cancel(r));
}
