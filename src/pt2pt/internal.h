/* internal.h — point-to-point internals shared by send/recv/deliver/pending. */
#ifndef FM_PT2PT_INTERNAL_H
#define FM_PT2PT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/comm.h"
#include "core/request.h"
#include "core/vci.h"
#include "core/world.h"
#include "net/net.h"

/* Unexpected-message record; doubles as the MPI_Message of Mprobe.  Small
 * eager payloads live inline so an unexpected 8-byte message costs no
 * malloc (records come from a free list). */
#define FM_UNEXP_INLINE 192
#define FM_MAGIC_MSG 0x4d534721u

/* The unexpected-message record an fm_match_entry is embedded in. */
#define MSG_OF(entry) ((struct fm_message *)((char *)(entry) - offsetof(struct fm_message, me)))

struct fm_message {
    fm_match_entry me;
    uint32_t magic;
    int peer;           /* world rank of the sender */
    fm_hdr_rndv h;      /* EAGER: only h.h valid (+ sreq for EAGER_SYNC) */
    void *data;         /* eager payload (inline_data or malloc'd), or NULL */
    int data_class;     /* data's size class (recv.c), -1: its own malloc */
    struct fm_message *next_free;
    struct fm_vci *vci; /* whose records it came from (core/vci.h) */
    MPI_Comm comm;      /* Mprobe: communicator it was probed on */
    unsigned char inline_data[FM_UNEXP_INLINE];
};

/* Bytes [offset, offset + len) of a non-contiguous message, packed
 * straight into a transport's buffer (fm_net_send_fill). */
struct fm_pack_src {
    const void *buf;
    MPI_Count count;
    MPI_Datatype dt;
    size_t offset;
};
void fm_pack_fill(void *arg, void *dst, size_t len);

/* A record from v's free list (malloc'd when empty); back to its own. */
struct fm_message *fm_msg_alloc(struct fm_vci *v, size_t payload);
void fm_msg_free(struct fm_message *m);
/* Free v's kept message objects (MPI_Finalize). */
void fm_msg_pool_release(struct fm_vci *v);

/* The VCI a request belongs to, and the one a communicator's point-to-point
 * (coll 0) or collective (coll 1) traffic travels on. */
static inline struct fm_vci *fm_req_vci(const struct fm_request *r) { return fm_vci_at(r->vci); }
/* By a branch on coll, not a table indexed by it: coll comes in on the stack
 * (fm_sw_irecv's seventh argument), and an address computed from it makes
 * the VCI's pool wait for that load on every message (8 B msgrate, fast
 * state: 25.3 -> 26.4 Mmsg/s; bench/RESULTS.md, "VCIs, continued"). */
static inline struct fm_vci *fm_comm_vci(MPI_Comm comm, int coll)
{
    return coll ? &fm_vci0 : comm->vci;
}

/* Send a message on VCI v now, or park it behind earlier parked messages
 * to the same peer.  `req` (may be NULL) is told through fm_on_sent() once
 * the message has left.  The payload must stay valid until then. */
int fm_send_or_park(struct fm_vci *v, int peer, const void *hdr, size_t hlen, const void *payload,
                    size_t plen, struct fm_request *req);
/* 1 if messages to `peer` are parked on v (a new one must queue behind
 * them).  Inline: every send asks, and a call costs more than the load. */
static inline int fm_pending_to(const struct fm_vci *v, int peer) { return v->pend_head[peer] != NULL; }
/* Take back the parked (not yet sent) message of `req` to `peer`, for a
 * cancel; 1 if there was one.  A streaming rendezvous is never taken back
 * (its receiver matched it). */
int fm_pending_withdraw(struct fm_vci *v, int peer, const struct fm_request *req);
/* Retry v's parked messages; returns how many left. */
int fm_pending_drain(struct fm_vci *v);
/* Parked-send queues of v for world_size peers, and their teardown. */
int fm_pending_setup(struct fm_vci *v, int world_size);
void fm_pending_teardown(struct fm_vci *v);
/* Queue a pipelined-rendezvous sender to stream its DATA chunks. */
void fm_stream_start(struct fm_request *sreq);

/* A message for `req` has left the process (eager sent, DATA chunk sent). */
void fm_on_sent(struct fm_request *req, const void *hdr);

/* Deliver a matched message into receive request r (eager copy, pull or
 * CTS), completing r when all data is in.  `payload` is the eager data. */
void fm_recv_matched(struct fm_request *r, int peer, const fm_hdr_rndv *h, const void *payload);

/* A receive request for (buf, count, dt) from src/tag on comm, not yet
 * posted anywhere; already complete (empty PROC_NULL status) when src is
 * MPI_PROC_NULL.  Shared by both engines. */
int fm_recv_request_new(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag,
                        MPI_Comm comm, int coll, struct fm_request **out);

/* The software engine's halves of the pt2pt.h calls (fm_pt2pt_sw). */
int fm_sw_isend(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                MPI_Comm comm, int coll, int mode, struct fm_request **req);
int fm_sw_irecv(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                int coll, struct fm_request **req);
int fm_sw_coll_recv_now(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag,
                        MPI_Comm comm, long long *got);
int fm_sw_coll_send_now(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                        MPI_Comm comm);
int fm_sw_send_now(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                   MPI_Comm comm);
int fm_sw_iprobe(int src, int tag, MPI_Comm comm, int *found, MPI_Status *status,
                 struct fm_message **msg);
int fm_sw_imrecv(void *buf, MPI_Count count, MPI_Datatype dt, struct fm_message *msg,
                 struct fm_request **req);
/* cancel.c: MPI_Cancel of a receive or a send (software matching), and the
 * two control messages of a send's cancel. */
int fm_sw_cancel(struct fm_request *r);
void fm_on_cancel(int peer, const void *msg, size_t len);
void fm_on_cancelled(int peer, const void *msg, size_t len);
/* A control message (fm_hdr_rndv with only these fields set) on VCI v,
 * parked behind earlier messages to `peer` if need be. */
void fm_send_ctrl(struct fm_vci *v, int peer, int proto, uint64_t sreq, uint64_t rreq,
                  uint64_t len);

/* Transport callback for every arriving message: fm_vci0's transports',
 * and lane i's (fm_deliver_lanes[i], i >= 1). */
void fm_deliver(int peer, const void *msg, size_t len);
extern fm_net_deliver_fn *const fm_deliver_lanes[FM_VCI_MAX] __attribute__((visibility("hidden")));

/* Largest eager payload to `peer` (set at init, pt2pt/init.c).  Inline for
 * the same reason as fm_pending_to. */
extern size_t *fm_eager_lim __attribute__((visibility("hidden")));
static inline size_t fm_eager_limit(int peer) { return fm_eager_lim[peer]; }

/* Per world rank, in each VCI (rndv_out): our rendezvous sends the peer
 * pulls and has not finished (RTS sent, FIN not back).  While it has some,
 * its core is busy copying from us, so a split copy (recv.c) that waits for
 * its push would wait for that work first: osu_bibw at 64 KiB ran at 14.8
 * GB/s split, 21.8 not. */
static inline void fm_rndv_out_done(struct fm_request *s, int peer)
{
    if (s->flags & FM_REQF_PULLED) {
        s->flags &= (uint16_t)~FM_REQF_PULLED;
        fm_req_vci(s)->rndv_out[peer]--;
    }
}

/* Pack (buf,count,dt) of `bytes` bytes: returns a pointer to contiguous data
 * — the user buffer itself when dt is contiguous, else *tmp (allocated). */
const void *fm_contig_source(const void *buf, MPI_Count count, MPI_Datatype dt, size_t bytes,
                             void **tmp);

/* Fill the status of a completed receive. */
static inline void fm_set_recv_status(struct fm_request *r, int src, int tag, uint64_t bytes, int err)
{
    r->status.MPI_SOURCE = src;
    r->status.MPI_TAG = tag;
    r->status.MPI_ERROR = err;
    r->status.fm_count = (MPI_Count)bytes;
}

#endif
