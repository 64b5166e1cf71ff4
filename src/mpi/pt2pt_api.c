/* pt2pt_api.c — MPI point-to-point entry points: argument checks, then the
 * internal engine (src/pt2pt).
 *
 * Each call's MPI-4.0 large-count variant (MPI_Send_c: MPI_Count counts)
 * follows it: the same checks (the macros take either width) and the same
 * bodies, which take MPI_Count as the engine does.  The int calls compile
 * to exactly what they were before the variants came (compared
 * instruction by instruction): where an int call's helper is out of line,
 * it keeps its int parameter and wraps the shared body (start_send_req,
 * blocking_send), since passing the count widened made MPI_Isend hold it
 * in one more register. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "dtype/dtype.h"
#include "boot/hang.h"
#include "coll/sched.h"
#include "mpi/api.h"
#include "mpi/lane.h"
#include "mpi/request_api.h"
#include "pt2pt/internal.h"
#include "pt2pt/pt2pt.h"

#define CHECK_SEND_ARGS(call, buf, count, dt, dest, tag, comm) \
    FM_CHECK_INIT(call);                                       \
    FM_CHECK_COMM(call, comm);                                 \
    FM_CHECK_COUNT(call, comm, count);                         \
    FM_CHECK_TYPE(call, comm, dt);                             \
    FM_CHECK_BUF(call, comm, buf, count, dt, "buf");           \
    FM_CHECK_RANK(call, comm, dest, "dest", 0);                \
    FM_CHECK_TAG(call, comm, tag, 0)

#define CHECK_RECV_ARGS(call, buf, count, dt, src, tag, comm) \
    FM_CHECK_INIT(call);                                      \
    FM_CHECK_COMM(call, comm);                                \
    FM_CHECK_COUNT(call, comm, count);                        \
    FM_CHECK_TYPE(call, comm, dt);                            \
    FM_CHECK_BUF(call, comm, buf, count, dt, "buf");          \
    FM_CHECK_RANK(call, comm, src, "source", 1);              \
    FM_CHECK_TAG(call, comm, tag, 1)

static inline int send_wait(const char *call, const void *buf, MPI_Count count, MPI_Datatype dt,
                            int dest, int tag, MPI_Comm comm, int mode)
{
    FM_HANG_SCOPE(call, dest, tag, comm->name, count);
    struct fm_request *r;
    int rc = fm_isend(buf, count, dt, dest, tag, comm, 0, mode, &r);
    if (rc != FM_OK)
        return fm_raise_status(comm, call, rc);
    fm_request_progress_until_done(r);
    return fm_request_finish(call, &r, MPI_STATUS_IGNORE);
}

/* The int calls' (their count stays an int until the engine: see
 * start_send_req), out of line as it always was; the _c ones call
 * send_wait. */
__attribute__((noinline)) static int blocking_send(const char *call, const void *buf, int count,
                                                  MPI_Datatype dt, int dest, int tag,
                                                  MPI_Comm comm, int mode)
{
    return send_wait(call, buf, count, dt, dest, tag, comm, mode);
}

/* MPI_Send's body (core/cs.h: FM_API_TWIN). */
static inline __attribute__((always_inline)) int send_body(const void *buf, int count, MPI_Datatype dt,
                                                         int dest, int tag, MPI_Comm comm)
{
    CHECK_SEND_ARGS("MPI_Send", buf, count, dt, dest, tag, comm);
    if (fm_send_eager_now(buf, count, dt, dest, tag, comm) == FM_OK)
        return MPI_SUCCESS;
    return blocking_send("MPI_Send", buf, count, dt, dest, tag, comm, FM_SEND_STD);
}

FM_API_LANE_TWIN(send_body, fm_lane_for(comm, dt), (const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm),
                   (buf, count, dt, dest, tag, comm))

#pragma weak MPI_Send = PMPI_Send
int PMPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    FM_API_TWIN(send_body, buf, count, dt, dest, tag, comm);
}

#pragma weak MPI_Send_c = PMPI_Send_c
int PMPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                MPI_Comm comm)
{
    FM_API_LOCK();
    CHECK_SEND_ARGS("MPI_Send_c", buf, count, dt, dest, tag, comm);
    if (fm_send_eager_now(buf, count, dt, dest, tag, comm) == FM_OK)
        return MPI_SUCCESS;
    return send_wait("MPI_Send_c", buf, count, dt, dest, tag, comm, FM_SEND_STD);
}

#pragma weak MPI_Ssend = PMPI_Ssend
int PMPI_Ssend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    FM_API_LOCK();
    CHECK_SEND_ARGS("MPI_Ssend", buf, count, dt, dest, tag, comm);
    return blocking_send("MPI_Ssend", buf, count, dt, dest, tag, comm, FM_SEND_SYNC);
}

#pragma weak MPI_Ssend_c = PMPI_Ssend_c
int PMPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                MPI_Comm comm)
{
    FM_API_LOCK();
    CHECK_SEND_ARGS("MPI_Ssend_c", buf, count, dt, dest, tag, comm);
    return send_wait("MPI_Ssend_c", buf, count, dt, dest, tag, comm, FM_SEND_SYNC);
}

#pragma weak MPI_Rsend = PMPI_Rsend
int PMPI_Rsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    FM_API_LOCK();
    CHECK_SEND_ARGS("MPI_Rsend", buf, count, dt, dest, tag, comm);
    return blocking_send("MPI_Rsend", buf, count, dt, dest, tag, comm, FM_SEND_READY);
}

#pragma weak MPI_Rsend_c = PMPI_Rsend_c
int PMPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                MPI_Comm comm)
{
    FM_API_LOCK();
    CHECK_SEND_ARGS("MPI_Rsend_c", buf, count, dt, dest, tag, comm);
    return send_wait("MPI_Rsend_c", buf, count, dt, dest, tag, comm, FM_SEND_READY);
}

/* A send with a request of its own: start_send's general path, and the
 * whole of a large-count one (no eager record holds INT_MAX elements). */
static inline int send_req(const char *call, const void *buf, MPI_Count count, MPI_Datatype dt,
                           int dest, int tag, MPI_Comm comm, int mode, MPI_Request *request)
{
    struct fm_request *r;
    int rc = fm_isend(buf, count, dt, dest, tag, comm, 0, mode, &r);
    if (rc != FM_OK)
        return fm_raise_status(comm, call, rc);
    *request = r;
    return MPI_SUCCESS;
}

/* Kept out of line so start_send stays small enough to inline into its
 * callers; it takes the int, as start_send does: holding the count
 * widened across the eager attempt costs MPI_Isend a register. */
__attribute__((noinline)) static int start_send_req(const char *call, const void *buf,
                                                   int count, MPI_Datatype dt, int dest, int tag,
                                                   MPI_Comm comm, int mode, MPI_Request *request)
{
    return send_req(call, buf, count, dt, dest, tag, comm, mode, request);
}

static int start_send(const char *call, const void *buf, int count, MPI_Datatype dt, int dest,
                      int tag, MPI_Comm comm, int mode, MPI_Request *request)
{
    /* A small contiguous send that the transport takes at once needs no
     * request of its own. */
    if (mode != FM_SEND_SYNC && dest != MPI_PROC_NULL &&
        fm_isend_eager_now(buf, count, dt, dest, tag, comm) == FM_OK) {
        *request = &fm_req_sent;
        return MPI_SUCCESS;
    }
    return start_send_req(call, buf, count, dt, dest, tag, comm, mode, request);
}

/* The large-count nonblocking sends: a count that fits an int takes the
 * int calls' path, a larger one goes straight to a request. */
static int start_send_c(const char *call, const void *buf, MPI_Count count, MPI_Datatype dt,
                        int dest, int tag, MPI_Comm comm, int mode, MPI_Request *request)
{
    if (count <= INT_MAX)
        return start_send(call, buf, (int)count, dt, dest, tag, comm, mode, request);
    return send_req(call, buf, count, dt, dest, tag, comm, mode, request);
}

/* MPI_Isend's body (core/cs.h: FM_API_TWIN). */
static inline __attribute__((always_inline)) int isend_body(const void *buf, int count, MPI_Datatype dt,
                                                          int dest, int tag, MPI_Comm comm,
                                                          MPI_Request *request)
{
    CHECK_SEND_ARGS("MPI_Isend", buf, count, dt, dest, tag, comm);
    return start_send("MPI_Isend", buf, count, dt, dest, tag, comm, FM_SEND_STD, request);
}

FM_API_LANE_TWIN(isend_body, fm_lane_for(comm, dt), (const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request),
                   (buf, count, dt, dest, tag, comm, request))

#pragma weak MPI_Isend = PMPI_Isend
int PMPI_Isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    FM_API_TWIN(isend_body, buf, count, dt, dest, tag, comm, request);
}

#pragma weak MPI_Isend_c = PMPI_Isend_c
int PMPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    CHECK_SEND_ARGS("MPI_Isend_c", buf, count, dt, dest, tag, comm);
    return start_send_c("MPI_Isend_c", buf, count, dt, dest, tag, comm, FM_SEND_STD, request);
}

#pragma weak MPI_Issend = PMPI_Issend
int PMPI_Issend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    FM_API_LOCK();
    CHECK_SEND_ARGS("MPI_Issend", buf, count, dt, dest, tag, comm);
    return start_send("MPI_Issend", buf, count, dt, dest, tag, comm, FM_SEND_SYNC, request);
}

#pragma weak MPI_Issend_c = PMPI_Issend_c
int PMPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    CHECK_SEND_ARGS("MPI_Issend_c", buf, count, dt, dest, tag, comm);
    return start_send_c("MPI_Issend_c", buf, count, dt, dest, tag, comm, FM_SEND_SYNC, request);
}

#pragma weak MPI_Irsend = PMPI_Irsend
int PMPI_Irsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    FM_API_LOCK();
    CHECK_SEND_ARGS("MPI_Irsend", buf, count, dt, dest, tag, comm);
    return start_send("MPI_Irsend", buf, count, dt, dest, tag, comm, FM_SEND_READY, request);
}

#pragma weak MPI_Irsend_c = PMPI_Irsend_c
int PMPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    CHECK_SEND_ARGS("MPI_Irsend_c", buf, count, dt, dest, tag, comm);
    return start_send_c("MPI_Irsend_c", buf, count, dt, dest, tag, comm, FM_SEND_READY, request);
}

/* A receive after its checks, for MPI_Recv and MPI_Recv_c. */
static inline int recv_wait(const char *call, void *buf, MPI_Count count, MPI_Datatype dt,
                            int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    FM_HANG_SCOPE(call, source, tag, comm->name, count);
    struct fm_request *r;
    int rc = fm_irecv(buf, count, dt, source, tag, comm, 0, &r);
    if (rc != FM_OK)
        return fm_raise_status(comm, call, rc);
    fm_request_progress_until_done(r);
    return fm_request_finish(call, &r, status);
}

/* MPI_Recv's body (core/cs.h: FM_API_TWIN). */
static inline __attribute__((always_inline)) int recv_body(void *buf, int count, MPI_Datatype dt, int source,
                                                         int tag, MPI_Comm comm, MPI_Status *status)
{
    CHECK_RECV_ARGS("MPI_Recv", buf, count, dt, source, tag, comm);
    return recv_wait("MPI_Recv", buf, count, dt, source, tag, comm, status);
}

FM_API_LANE_TWIN(recv_body, fm_lane_for(comm, dt), (void *buf, int count, MPI_Datatype dt, int source, int tag,
                    MPI_Comm comm, MPI_Status *status),
                   (buf, count, dt, source, tag, comm, status))

#pragma weak MPI_Recv = PMPI_Recv
int PMPI_Recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
              MPI_Status *status)
{
    FM_API_TWIN(recv_body, buf, count, dt, source, tag, comm, status);
}

#pragma weak MPI_Recv_c = PMPI_Recv_c
int PMPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                MPI_Status *status)
{
    FM_API_LOCK();
    CHECK_RECV_ARGS("MPI_Recv_c", buf, count, dt, source, tag, comm);
    return recv_wait("MPI_Recv_c", buf, count, dt, source, tag, comm, status);
}

/* A nonblocking receive after its checks, for MPI_Irecv and MPI_Irecv_c. */
static inline int recv_start(const char *call, void *buf, MPI_Count count, MPI_Datatype dt,
                             int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    struct fm_request *r;
    int rc = fm_irecv(buf, count, dt, source, tag, comm, 0, &r);
    if (rc != FM_OK)
        return fm_raise_status(comm, call, rc);
    *request = r;
    return MPI_SUCCESS;
}

/* MPI_Irecv's body (core/cs.h: FM_API_TWIN). */
static inline __attribute__((always_inline)) int irecv_body(void *buf, int count, MPI_Datatype dt, int source,
                                                          int tag, MPI_Comm comm, MPI_Request *request)
{
    CHECK_RECV_ARGS("MPI_Irecv", buf, count, dt, source, tag, comm);
    return recv_start("MPI_Irecv", buf, count, dt, source, tag, comm, request);
}

FM_API_LANE_TWIN(irecv_body, fm_lane_for(comm, dt), (void *buf, int count, MPI_Datatype dt, int source, int tag,
                    MPI_Comm comm, MPI_Request *request),
                   (buf, count, dt, source, tag, comm, request))

#pragma weak MPI_Irecv = PMPI_Irecv
int PMPI_Irecv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    FM_API_TWIN(irecv_body, buf, count, dt, source, tag, comm, request);
}

#pragma weak MPI_Irecv_c = PMPI_Irecv_c
int PMPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype dt, int source, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    CHECK_RECV_ARGS("MPI_Irecv_c", buf, count, dt, source, tag, comm);
    return recv_start("MPI_Irecv_c", buf, count, dt, source, tag, comm, request);
}

static int sendrecv(const char *call, const void *sendbuf, MPI_Count sendcount,
                    MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                    MPI_Comm comm, MPI_Status *status)
{
    CHECK_SEND_ARGS(call, sendbuf, sendcount, sendtype, dest, sendtag, comm);
    CHECK_RECV_ARGS(call, recvbuf, recvcount, recvtype, source, recvtag, comm);
    FM_HANG_SCOPE(call, source, recvtag, comm->name, recvcount);
    struct fm_request *rr, *sr;
    int rc = fm_irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, 0, &rr);
    if (rc != FM_OK)
        return fm_raise_status(comm, call, rc);
    rc = fm_isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, 0, FM_SEND_STD, &sr);
    if (rc != FM_OK)
        return fm_raise_status(comm, call, rc);
    fm_request_progress_until_done(sr);
    fm_request_finish(call, &sr, MPI_STATUS_IGNORE);
    fm_request_progress_until_done(rr);
    return fm_request_finish(call, &rr, status);
}

#pragma weak MPI_Sendrecv = PMPI_Sendrecv
int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status *status)
{
    FM_API_LOCK();
    return sendrecv("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                    recvcount, recvtype, source, recvtag, comm, status);
}

#pragma weak MPI_Sendrecv_c = PMPI_Sendrecv_c
int PMPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    FM_API_LOCK();
    return sendrecv("MPI_Sendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                    recvcount, recvtype, source, recvtag, comm, status);
}

static int sendrecv_replace(const char *call, void *buf, MPI_Count count, MPI_Datatype dt,
                            int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
                            MPI_Status *status)
{
    CHECK_SEND_ARGS(call, buf, count, dt, dest, sendtag, comm);
    CHECK_RECV_ARGS(call, buf, count, dt, source, recvtag, comm);
    FM_HANG_SCOPE(call, source, recvtag, comm->name, count);
    /* The outgoing data is packed aside so the receive may land in buf. */
    size_t bytes = (size_t)count * (size_t)dt->size;
    void *packed = malloc(bytes ? bytes : 1);
    if (!packed)
        return fm_raise(comm, call, MPI_ERR_NO_MEM, "cannot stage %zu bytes", bytes);
    fm_dt_pack(buf, count, dt, 0, packed, bytes);
    struct fm_request *rr, *sr;
    int rc = fm_irecv(buf, count, dt, source, recvtag, comm, 0, &rr);
    if (rc == FM_OK)
        rc = fm_isend(packed, (MPI_Count)bytes, MPI_BYTE, dest, sendtag, comm, 0, FM_SEND_STD, &sr);
    if (rc != FM_OK) {
        free(packed);
        return fm_raise_status(comm, call, rc);
    }
    fm_request_progress_until_done(sr);
    fm_request_finish(call, &sr, MPI_STATUS_IGNORE);
    free(packed);
    fm_request_progress_until_done(rr);
    return fm_request_finish(call, &rr, status);
}

#pragma weak MPI_Sendrecv_replace = PMPI_Sendrecv_replace
int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int sendtag, int source,
                         int recvtag, MPI_Comm comm, MPI_Status *status)
{
    FM_API_LOCK();
    return sendrecv_replace("MPI_Sendrecv_replace", buf, count, dt, dest, sendtag, source, recvtag,
                            comm, status);
}

#pragma weak MPI_Sendrecv_replace_c = PMPI_Sendrecv_replace_c
int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype dt, int dest, int sendtag,
                            int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    FM_API_LOCK();
    return sendrecv_replace("MPI_Sendrecv_replace_c", buf, count, dt, dest, sendtag, source,
                            recvtag, comm, status);
}

/* MPI-4.0: both halves as one request, run by the progress engine
 * (coll/sched.h); its status is the receive's.  replace: one buffer for
 * both (Isendrecv_replace). */
static int isendrecv(const char *call, const void *sendbuf, MPI_Count sendcount,
                     MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                     MPI_Comm comm, int replace, MPI_Request *request)
{
    CHECK_SEND_ARGS(call, sendbuf, sendcount, sendtype, dest, sendtag, comm);
    CHECK_RECV_ARGS(call, recvbuf, recvcount, recvtype, source, recvtag, comm);
    if (!request)
        return fm_raise(comm, call, MPI_ERR_ARG, "request=NULL");
    return fm_raise_status(comm, call,
                           fm_sched_sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                                             recvcount, recvtype, source, recvtag, comm, replace,
                                             request));
}

#pragma weak MPI_Isendrecv = PMPI_Isendrecv
int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return isendrecv("MPI_Isendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                     recvcount, recvtype, source, recvtag, comm, 0, request);
}

#pragma weak MPI_Isendrecv_c = PMPI_Isendrecv_c
int PMPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                     int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                     int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return isendrecv("MPI_Isendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                     recvcount, recvtype, source, recvtag, comm, 0, request);
}

#pragma weak MPI_Isendrecv_replace = PMPI_Isendrecv_replace
int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return isendrecv("MPI_Isendrecv_replace", buf, count, dt, dest, sendtag, buf, count, dt,
                     source, recvtag, comm, 1, request);
}

#pragma weak MPI_Isendrecv_replace_c = PMPI_Isendrecv_replace_c
int PMPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype dt, int dest, int sendtag,
                             int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    FM_API_LOCK();
    return isendrecv("MPI_Isendrecv_replace_c", buf, count, dt, dest, sendtag, buf, count, dt,
                     source, recvtag, comm, 1, request);
}

/* ---- probe ------------------------------------------------------------- */

static void proc_null_status(MPI_Status *status)
{
    if (!status)
        return;
    status->MPI_SOURCE = MPI_PROC_NULL;
    status->MPI_TAG = MPI_ANY_TAG;
    status->fm_count = 0;
    status->fm_cancelled = 0;
}

#define CHECK_PROBE_ARGS(call, source, tag, comm) \
    FM_CHECK_INIT(call);                          \
    FM_CHECK_COMM(call, comm);                    \
    FM_CHECK_RANK(call, comm, source, "source", 1); \
    FM_CHECK_TAG(call, comm, tag, 1)

static int probe(int source, int tag, MPI_Comm comm, int blocking, int *flag,
                 MPI_Message *message, MPI_Status *status)
{
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        proc_null_status(status);
        if (message)
            *message = MPI_MESSAGE_NO_PROC;
        return FM_OK;
    }
    int rc;
    if (!blocking) {
        fm_progress();
        return fm_iprobe(source, tag, comm, flag, status, message);
    }
    fm_wait_until((rc = fm_iprobe(source, tag, comm, flag, status, message)) != FM_OK || *flag);
    return rc;
}

#pragma weak MPI_Probe = PMPI_Probe
int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    FM_API_LOCK();
    CHECK_PROBE_ARGS("MPI_Probe", source, tag, comm);
    FM_HANG_SCOPE("MPI_Probe", source, tag, comm->name, -1);
    int flag;
    return fm_raise_status(comm, "MPI_Probe", probe(source, tag, comm, 1, &flag, NULL, status));
}

#pragma weak MPI_Iprobe = PMPI_Iprobe
int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    FM_API_LOCK();
    CHECK_PROBE_ARGS("MPI_Iprobe", source, tag, comm);
    return fm_raise_status(comm, "MPI_Iprobe", probe(source, tag, comm, 0, flag, NULL, status));
}

#pragma weak MPI_Mprobe = PMPI_Mprobe
int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    FM_API_LOCK();
    CHECK_PROBE_ARGS("MPI_Mprobe", source, tag, comm);
    FM_HANG_SCOPE("MPI_Mprobe", source, tag, comm->name, -1);
    int flag;
    return fm_raise_status(comm, "MPI_Mprobe", probe(source, tag, comm, 1, &flag, message, status));
}

#pragma weak MPI_Improbe = PMPI_Improbe
int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                MPI_Status *status)
{
    FM_API_LOCK();
    CHECK_PROBE_ARGS("MPI_Improbe", source, tag, comm);
    int rc = probe(source, tag, comm, 0, flag, message, status);
    if (rc == FM_OK && !*flag)
        *message = MPI_MESSAGE_NULL;
    return fm_raise_status(comm, "MPI_Improbe", rc);
}

static int check_message(const char *call, MPI_Message *message)
{
    if (!message || *message == MPI_MESSAGE_NULL ||
        (*message != MPI_MESSAGE_NO_PROC && (*message)->magic != FM_MAGIC_MSG))
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_REQUEST,
                        "message is not a message returned by MPI_Mprobe/MPI_Improbe");
    return MPI_SUCCESS;
}

static int imrecv(const char *call, void *buf, MPI_Count count, MPI_Datatype dt,
                  MPI_Message *message, MPI_Request *request)
{
    FM_CHECK_INIT(call);
    int rc = check_message(call, message);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Comm comm = *message == MPI_MESSAGE_NO_PROC ? MPI_COMM_WORLD : (*message)->comm;
    FM_CHECK_COUNT(call, comm, count);
    FM_CHECK_TYPE(call, comm, dt);
    struct fm_request *r;
    rc = fm_imrecv(buf, count, dt, *message, &r);
    if (rc != FM_OK)
        return fm_raise_status(comm, call, rc);
    *message = MPI_MESSAGE_NULL;
    *request = r;
    return MPI_SUCCESS;
}

#pragma weak MPI_Imrecv = PMPI_Imrecv
int PMPI_Imrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Request *request)
{
    FM_API_LOCK();
    return imrecv("MPI_Imrecv", buf, count, dt, message, request);
}

#pragma weak MPI_Imrecv_c = PMPI_Imrecv_c
int PMPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype dt, MPI_Message *message,
                  MPI_Request *request)
{
    FM_API_LOCK();
    return imrecv("MPI_Imrecv_c", buf, count, dt, message, request);
}

static int mrecv(const char *call, void *buf, MPI_Count count, MPI_Datatype dt,
                 MPI_Message *message, MPI_Status *status)
{
    FM_HANG_SCOPE(call, FM_HANG_NONE, FM_HANG_NONE, "", count);
    MPI_Request r;
    int rc = imrecv(call, buf, count, dt, message, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    fm_request_progress_until_done(r);
    return fm_request_finish(call, &r, status);
}

#pragma weak MPI_Mrecv = PMPI_Mrecv
int PMPI_Mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Status *status)
{
    FM_API_LOCK();
    return mrecv("MPI_Mrecv", buf, count, dt, message, status);
}

#pragma weak MPI_Mrecv_c = PMPI_Mrecv_c
int PMPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype dt, MPI_Message *message,
                 MPI_Status *status)
{
    FM_API_LOCK();
    return mrecv("MPI_Mrecv_c", buf, count, dt, message, status);
}
