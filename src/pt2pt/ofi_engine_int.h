/* ofi_engine_int.h — internals of the provider-matching engine shared by
 * ofi_engine.c (bring-up, limits), ofi_engine_xfer.c (sends, receives,
 * completions, the parked-post queue) and ofi_engine_probe.c (probe,
 * matched receive, cancel, and the drain of unexpected messages while
 * receives are held).  Built only with libfabric. */
#ifndef FM_PT2PT_OFI_ENGINE_INT_H
#define FM_PT2PT_OFI_ENGINE_INT_H

#include <rdma/fi_tagged.h>

#include "net/ofi/tagged.h"
#include "net/ofi/tag.h"
#include "pt2pt/ofi_engine.h"

enum fm_ofi_op_type {
    FM_OFI_T_SEND = 1, /* fi_tsend of a request's data */
    FM_OFI_T_RECV,     /* fi_trecv into a request's buffer (FI_CLAIM after Mprobe) */
    FM_OFI_T_ACK_RECV, /* a synchronous send waits here for the receiver's ack */
    FM_OFI_T_ACK_SEND, /* the receiver's ack (fi_tinject, no request) */
    FM_OFI_T_PEEK,     /* Probe / Mprobe (FI_PEEK, FI_CLAIM) */
    FM_OFI_T_DRAIN,    /* peek for any user message while receives are held */
    FM_OFI_T_UNEXP,    /* a drained message claimed into a buffer of its own:
                        * an entry of the software unexpected queue */
};

enum fm_ofi_op_state { FM_OFI_S_IDLE, FM_OFI_S_PARKED, FM_OFI_S_POSTED };

/* One libfabric operation.  `base` comes first and has kind
 * FM_OFI_OP_TAGGED: the transport's CQ reader (net/ofi/xfer.c) tells our
 * completions from its own buffers by that and hands them to the engine's
 * callbacks (fm_ofi_set_tagged_handlers). */
typedef struct fm_ofi_op {
    fm_ofi_buf base;
    int type, state;
    int cancelling;             /* fi_cancel issued */
    struct fm_ofi_op *prev, *next; /* shadow list of posted receives, or parked queue */
    struct fm_ofi_op *uprev, *unext; /* software unexpected queue (FM_OFI_T_UNEXP) */
    struct fm_request *req;
    /* What to post (kept for a retry after -FI_EAGAIN). */
    void *buf;
    size_t len;
    fi_addr_t addr;
    uint64_t tag, ignore, data, flags; /* flags: FI_PEEK, FI_CLAIM; FM_OFI_F_* */
    int peer_world;
    void *tmp;                  /* receive staging for a non-contiguous datatype */
    /* Probe result. */
    int peek_done, peek_found;
    size_t peek_len;
    uint64_t peek_tag, peek_data;
    /* FM_OFI_T_UNEXP: the claimed data is in (got bytes of msg_len, err). */
    int arrived, err;
    size_t got, msg_len;
    struct fm_ofi_op *pool_next;
} fm_ofi_op;

/* Remote CQ data of a send: the sender's comm rank in the low 32 bits
 * (full mode), and this flag for a synchronous send when the provider
 * carries 8 bytes. */
#define FM_OFI_DATA_SYNC (1ULL << 32)

/* Our own flag bits in op->flags, above libfabric's. */
#define FM_OFI_F_INJECT (1ULL << 62) /* send by fi_tinject: no completion */

/* A receive of a collective (the communicator's second context). */
#define FM_OFI_F_COLL (1ULL << 61)

/* Parked-post queues.  Q_RECV also holds user receives beyond posted_max:
 * the software list of receives that wait, in posting order, for a slot in
 * the provider.  Library-internal receives (sync-send acks, collectives)
 * and Mrecv's claimed receives have their own queue: none can take a
 * message a user receive waits for, so they need not wait behind user
 * receives (a barrier after many pre-posted receives would deadlock), and
 * they use the slots posted_max leaves free. */
enum { FM_OFI_Q_SEND, FM_OFI_Q_RECV, FM_OFI_Q_ACK, FM_OFI_NQUEUES };

typedef struct fm_ofi_engine {
    fm_ofi_tag_layout lay;
    int full;                   /* source in CQ data, receives directed */
    int use_data;               /* sends carry remote CQ data (fi_tsenddata) */
    int sync_in_data;           /* the sync flag rides in CQ data, not the tag */
    size_t inject;              /* largest fi_tinject */
    size_t max_msg;
    /* Posts that met -FI_EAGAIN, in order, per FM_OFI_Q_* */
    fm_ofi_op *parked[FM_OFI_NQUEUES], *parked_tail[FM_OFI_NQUEUES];
    fm_ofi_op *posted;          /* shadow list of receives the provider holds */
    int nposted;                /* receives (FM_OFI_T_RECV) in that list */
    int posted_max;             /* ... at most; later ones wait in Q_RECV */
    fm_ofi_op *pool;            /* free ops */
    /* While user receives are held (Q_RECV not empty) the engine drains the
     * provider's unexpected user messages itself, one peek at a time
     * (ofi_engine_probe.c): into the first held receive that matches, else
     * into the software unexpected queue, which later receives and probes
     * search first, in arrival order. */
    fm_ofi_op *drain;           /* the drain peek in flight, or NULL */
    /* The provider stalls a connection behind an unexpected message (net):
     * drain also when progress has seen no completion for a while, and
     * keep going while that finds messages. */
    int drain_idle, drain_burst;
    unsigned events, events_seen, idle_polls;
    unsigned drain_empty;       /* drain peeks that found nothing, ever */
    uint64_t drain_tag, drain_ignore; /* every user message, nothing else */
    fm_ofi_op *unexp, *unexp_tail; /* software unexpected queue, arrival order */
    /* libfabric 1.17's tcp provider (under tcp;ofi_rxm) drops the
     * connection when an eager message is truncated (ofiwg/libfabric
     * #8274): every later message from that peer is lost.  So user receives
     * there get a second iov, this scratch area, which takes whatever does
     * not fit; the engine then reports MPI_ERR_TRUNCATE itself.  Messages
     * beyond buffer + spill go by rxm's rendezvous, which truncates
     * cleanly.  Many receives may spill into it at once: nobody reads it. */
    void *spill;
    size_t spill_len;
} fm_ofi_engine;

extern fm_ofi_engine fm_ofi_eng;

fm_ofi_op *fm_ofi_op_get(int type);
void fm_ofi_op_put(fm_ofi_op *op);
/* Post op now, or park it behind earlier parked posts of its kind (order
 * matters: a later receive must not reach the provider before an earlier
 * one, nor a later send to a peer before an earlier one).
 * Returns FM_OK or an error after logging it. */
int fm_ofi_post(fm_ofi_op *op);
/* Unlink a parked op (cancel); 1 if it was parked. */
int fm_ofi_unpark(fm_ofi_op *op);
/* Fill and post a receive op for request r (src/tag may be wildcards). */
int fm_ofi_post_recv(fm_ofi_op *op, struct fm_request *r, uint32_t ctx, int src, int tag);
/* Receive completed with `len` bytes (err: MPI error class). */
void fm_ofi_recv_done(fm_ofi_op *op, uint64_t tag, size_t len, uint64_t data, int err,
                      uint64_t msg_len);
/* Status, sync-send ack and completion of receive r whose data (len bytes
 * of msg_len, already in its buffer) came with this tag and CQ data. */
void fm_ofi_recv_finish(struct fm_request *r, uint64_t tag, size_t len, uint64_t data, int err,
                        uint64_t msg_len);
/* Hand op to libfabric once: 0, -FI_EAGAIN or an error (logged at level 3). */
ssize_t fm_ofi_issue(fm_ofi_op *op);
/* Does a message (tag, CQ data) match a receive or probe (rtag, rignore,
 * rsrc: comm rank or MPI_ANY_SOURCE)? */
int fm_ofi_env_matches(uint64_t rtag, uint64_t rignore, int rsrc, uint64_t tag, uint64_t data);
/* Ignore mask of a receive or probe (wildcards per fm_ofi_tag_ignore). */
uint64_t fm_ofi_recv_ignore(int any_src, int any_tag);
/* Source comm rank of a matched tag / CQ data. */
int fm_ofi_src_of(uint64_t tag, uint64_t data);

/* Held receives (ofi_engine_probe.c).  Start a drain peek when receives
 * are held and none is in flight (from progress). */
void fm_ofi_drain_start(void);
/* A drain peek's answer: found (e) or nothing (e == NULL). */
void fm_ofi_drain_found(fm_ofi_op *op, const struct fi_cq_tagged_entry *e);
void fm_ofi_drain_none(fm_ofi_op *op);
/* A receive not yet posted (op filled by fm_ofi_post_recv) takes the
 * earliest matching message of the software unexpected queue: 1 if it
 * did (op is released), 0 if none matches. */
int fm_ofi_unexp_take(fm_ofi_op *op);
/* The claimed data of a software-queue entry arrived. */
void fm_ofi_unexp_arrived(fm_ofi_op *e, size_t len, int err, uint64_t msg_len);

/* Completions whose context is one of ours; installed as the transport's
 * tagged callbacks (fm_ofi_set_tagged_handlers). */
void fm_ofi_tagged_event(const struct fi_cq_tagged_entry *e);
void fm_ofi_tagged_error(const struct fi_cq_err_entry *e);

/* The engine's halves of the pt2pt.h calls (same contracts), the table
 * ofi_engine.c builds from them. */
int fm_ofi_isend(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                 MPI_Comm comm, int coll, int mode, struct fm_request **req);
int fm_ofi_irecv(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                 int coll, struct fm_request **req);
int fm_ofi_coll_recv_now(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag,
                         MPI_Comm comm, long long *got);
int fm_ofi_coll_send_now(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                         MPI_Comm comm);
int fm_ofi_send_now(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                    MPI_Comm comm);
int fm_ofi_iprobe(int src, int tag, MPI_Comm comm, int *found, MPI_Status *status,
                  struct fm_message **msg);
int fm_ofi_imrecv(void *buf, MPI_Count count, MPI_Datatype dt, struct fm_message *msg,
                  struct fm_request **req);
int fm_ofi_cancel(struct fm_request *r);
/* Retry posts that met -FI_EAGAIN; returns how many went out. */
int fm_ofi_engine_progress(void);

#endif
