/* pt2pt.h — internal point-to-point: eager, rendezvous (pull + FIN or
 * pipelined CTS/DATA), synchronous sends, probe, cancel.  Used by the
 * MPI_* entry points and by the collectives (with coll = 1, which matches on
 * the communicator's collective context so user traffic never interferes).
 * Arguments are assumed valid: checking is the API layer's job. */
#ifndef FM_PT2PT_PT2PT_H
#define FM_PT2PT_PT2PT_H

#include <mpi.h>

#include "core/comm.h"
#include "core/progress.h"
#include "core/request.h"
#include "core/vci.h"
#include "match/match.h"
#include "net/net.h"

enum { FM_SEND_STD = 0, FM_SEND_SYNC = 1, FM_SEND_READY = 2 };

/* A matching engine: who matches messages to receives and moves them.  Two
 * exist — software matching over the transports' messages (send.c, recv.c,
 * probe.c: fm_pt2pt_sw) and provider matching over libfabric's tagged
 * interface (ofi_engine*.c: fm_pt2pt_ofi) — chosen once at init, the same
 * on every rank; the calls below go to the one in charge through this
 * table, so neither has a branch on the other. */
typedef struct fm_pt2pt_engine {
    const char *name;
    int (*isend)(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                 MPI_Comm comm, int coll, int mode, struct fm_request **req);
    int (*irecv)(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                 int coll, struct fm_request **req);
    /* The request-less fast path of a blocking send (send_now) and of a
     * nonblocking one (isend_now): FM_OK when the message left at once. */
    int (*send_now)(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                    MPI_Comm comm);
    int (*isend_now)(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                     MPI_Comm comm);
    /* The same on the communicator's collective context, for the sends of
     * collectives (their buffers stay untouched until the collective
     * completes, so a send the transport has taken needs no request). */
    int (*coll_send_now)(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                         MPI_Comm comm);
    /* And the receives of blocking collectives: FM_OK or FM_ERR_TRUNCATE
     * (*got: the bytes that landed) when the message was already here and
     * is now in buf; FM_ERR_AGAIN when the caller must post a request. */
    int (*coll_recv_now)(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag,
                         MPI_Comm comm, long long *got);
    int (*iprobe)(int src, int tag, MPI_Comm comm, int *found, MPI_Status *status,
                  struct fm_message **msg);
    int (*imrecv)(void *buf, MPI_Count count, MPI_Datatype dt, struct fm_message *msg,
                  struct fm_request **req);
    int (*cancel)(struct fm_request *r);
    /* Registered as a progress hook while the engine is in charge (NULL:
     * none; the software engine is driven by the transports' poll). */
    int (*progress)(void);
} fm_pt2pt_engine;

/* The engine in charge (fm_pt2pt_sw until init chooses). */
extern const fm_pt2pt_engine *fm_pt2pt;

/* Start a send / receive; *req is the new request.  dest/src are comm
 * ranks; MPI_PROC_NULL gives a request that is already complete. */
static inline int fm_isend(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                           MPI_Comm comm, int coll, int mode, struct fm_request **req)
{
    return fm_pt2pt->isend(buf, count, dt, dest, tag, comm, coll, mode, req);
}
static inline int fm_irecv(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag,
                           MPI_Comm comm, int coll, struct fm_request **req)
{
    return fm_pt2pt->irecv(buf, count, dt, src, tag, comm, coll, req);
}

/* Blocking standard send, fast path: a contiguous message that fits one
 * eager record goes straight to the transport with no request.  Returns
 * FM_OK when sent, FM_ERR_AGAIN when the caller must take the general path
 * (too large, non-contiguous, or the peer's queue is busy). */
static inline int fm_send_eager_now(const void *buf, MPI_Count count, MPI_Datatype dt, int dest,
                                    int tag, MPI_Comm comm)
{
    return fm_pt2pt->send_now(buf, count, dt, dest, tag, comm);
}
/* The same for a nonblocking standard or ready send (dest not
 * MPI_PROC_NULL): FM_OK means it needs no request of its own. */
static inline int fm_isend_eager_now(const void *buf, MPI_Count count, MPI_Datatype dt, int dest,
                                     int tag, MPI_Comm comm)
{
    return fm_pt2pt->isend_now(buf, count, dt, dest, tag, comm);
}
/* The same for a collective's send (coll = 1 in fm_isend's terms). */
static inline int fm_coll_send_now(const void *buf, MPI_Count count, MPI_Datatype dt, int dest,
                                   int tag, MPI_Comm comm)
{
    return fm_pt2pt->coll_send_now(buf, count, dt, dest, tag, comm);
}

/* The same for a blocking collective's receive (coll_recv_now above); a
 * load when nothing waits unexpected on the collective context (always,
 * under the provider's matching). */
static inline int fm_coll_recv_now(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag,
                                   MPI_Comm comm, long long *got)
{
    if (!fm_match_any_unexpected(comm->mq_coll))
        return FM_ERR_AGAIN;
    return fm_pt2pt->coll_recv_now(buf, count, dt, src, tag, comm, got);
}

/* Block until r completes (progressing, then yielding), copy its status,
 * and free it.  Returns the request's error (FM_OK or FM_ERR_TRUNCATE ...). */
int fm_wait(struct fm_request *r, MPI_Status *status);
int fm_waitall(int n, struct fm_request **reqs);

/* Blocking helpers for collectives (coll = 1 always). */
int fm_coll_send(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm);
int fm_coll_recv(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag, MPI_Comm comm);
int fm_coll_sendrecv(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, int dest,
                     void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int src, int tag,
                     MPI_Comm comm);

/* Probe: *found = 1 and status filled when a matching message waits
 * (msg NULL: leave it queued). */
static inline int fm_iprobe(int src, int tag, MPI_Comm comm, int *found, MPI_Status *status,
                            struct fm_message **msg)
{
    return fm_pt2pt->iprobe(src, tag, comm, found, status, msg);
}
static inline int fm_imrecv(void *buf, MPI_Count count, MPI_Datatype dt, struct fm_message *msg,
                            struct fm_request **req)
{
    return fm_pt2pt->imrecv(buf, count, dt, msg, req);
}
/* Cancel a posted receive (sends cannot be cancelled: returns FM_OK, no effect). */
static inline int fm_cancel(struct fm_request *r) { return fm_pt2pt->cancel(r); }

/* Limits of the running engine: the largest tag (MPI_TAG_UB), and how many
 * communicator ids (each a pair of contexts) the provider engine's tag
 * context field holds (a large number under the software engine); set by
 * ofi_engine.c, which owns the tag layout. */
extern int fm_pt2pt_tag_ub_value; /* read inline by every send/receive check */
static inline int fm_pt2pt_tag_ub(void) { return fm_pt2pt_tag_ub_value; }
int fm_pt2pt_comm_ids(void);
/* When communicator ids ran out because of the tag layout: one sentence
 * naming the mode and FABMPI_OFI_TAG_MODE; NULL under the software engine. */
const char *fm_pt2pt_comm_limit_why(void);

/* For protocols above point-to-point (active messages, src/am/): */
/* Deliver messages of protocol `proto` (FM_PROTO_HANDLER_FIRST <= proto <
 * FM_PROTO_MAX) to handler, called from progress with the whole message
 * (valid during the call).  FM_ERR_ARG when proto is out of that range or
 * has another handler. */
int fm_deliver_register(unsigned proto, fm_net_deliver_fn *handler);
/* Send hdr + payload to peer now, or queue a copy of both behind what waits
 * for that peer: the caller's buffers are free when this returns.  FM_OK,
 * or an error of the transport or FM_ERR_NOMEM.  The first try is inline,
 * as fm_send_or_wait's: an active-message reply pays no call for it;
 * fm_send_park_copy queues the copy. */
int fm_send_park_copy(int peer, const void *hdr, size_t hlen, const void *payload, size_t plen);
static inline int fm_send_or_park_copy(int peer, const void *hdr, size_t hlen,
                                       const void *payload, size_t plen)
{
    if (__builtin_expect(!fm_vci0.pend_head[peer], 1)) {
        int rc = fm_net_send(fm_vci0.peer_net[peer], peer, hdr, hlen, payload, plen);
        if (__builtin_expect(rc != FM_ERR_AGAIN, 1))
            return rc;
    }
    return fm_send_park_copy(peer, hdr, hlen, payload, plen);
}
/* Send hdr + payload to peer, after what waits for that peer, making
 * progress until the transport takes it (for senders that may wait: no
 * copy, and the progress made meanwhile frees the room).  The first try is
 * inline: an active-message request that goes at once (a flood's every
 * one) pays no call for it; fm_send_wait is the rest. */
int fm_send_wait(int peer, const void *hdr, size_t hlen, const void *payload, size_t plen);
static inline int fm_send_or_wait(int peer, const void *hdr, size_t hlen, const void *payload,
                                  size_t plen)
{
    if (__builtin_expect(!fm_vci0.pend_head[peer], 1)) {
        int rc = fm_net_send(fm_vci0.peer_net[peer], peer, hdr, hlen, payload, plen);
        if (__builtin_expect(rc != FM_ERR_AGAIN, 1))
            return rc;
    }
    return fm_send_wait(peer, hdr, hlen, payload, plen);
}
/* Send now, or FM_ERR_AGAIN with nothing sent (the transport full, or
 * messages queued for that peer). */
int fm_send_now(int peer, const void *hdr, size_t hlen, const void *payload, size_t plen);

/* Bring up / tear down transports (called from MPI_Init / MPI_Finalize). */
int fm_pt2pt_init(int world_rank, int world_size);
void fm_pt2pt_finalize(void);
/* A knob point-to-point copies at init changed (MPI_T_cvar_write of an
 * eager limit): take it again.  No-op outside MPI_Init..MPI_Finalize. */
void fm_pt2pt_retune(void);

#endif
