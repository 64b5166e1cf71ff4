/* ofi.h — internals of the libfabric transport (software-matching engine).
 *
 * One RDM endpoint with one completion queue and one address vector.  Every
 * message travels as an untagged FI_MSG: an 8-byte wire prefix naming the
 * sender's world rank, then the fm_hdr and payload the point-to-point layer
 * gave send().  The prefix keeps delivery independent of the address vector
 * (a receiver need not have inserted the sender) and of remote CQ data.
 *
 * Files: select.c chooses the provider, ofi.c opens the objects and
 * exchanges addresses, xfer.c moves messages (send, poll, buffers). */
#ifndef FM_NET_OFI_OFI_H
#define FM_NET_OFI_OFI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include "net/net_rma.h"
#include "net/ofi/wire.h"

/* FM_OFI_OP_TAGGED: an operation of the provider-matching engine
 * (src/pt2pt/ofi_engine*), whose completions go to its callbacks. */
enum { FM_OFI_OP_TX = 1, FM_OFI_OP_RX = 2, FM_OFI_OP_TAGGED = 3 };

/* A bounce (tx) or receive (rx) buffer.  The fi_context comes first so the
 * op_context of a completion is the buffer's address: that maps every
 * completion back to its owner without a lookup. */
typedef struct fm_ofi_buf {
    struct fi_context ctx;
    struct fm_ofi_buf *next; /* tx free list / rx repost list */
    int kind;                /* FM_OFI_OP_* */
    char *data;              /* buf_size bytes inside the registered slab */
    struct fm_ofi_ctx *owner; /* the context whose buffer it is */
} fm_ofi_buf;

/* A transmit/receive context: where messages leave and arrive.  Context 0
 * is the transport's endpoint; with FABMPI_OFI_THREAD_GROUPING=1 more open
 * on demand, one per communicator up to FABMPI_OFI_CONTEXTS (groups.c):
 * a scalable endpoint's tx/rx context pair where the provider has them,
 * else an endpoint of their own, each with its own buffers, so traffic on
 * one never queues behind another's in the provider.  They all complete
 * into context 0's completion queue (groups.c says why). */
typedef struct fm_ofi_ctx {
    struct fid_ep *tx;    /* sends go here */
    struct fid_ep *rx;    /* receives are posted here (== tx unless scalable) */
    struct fid_cq *cq;    /* context 0's; NULL in the others */
    struct fid_mr *mr;
    void *desc;           /* local descriptor of the slab, or NULL */
    char *slab;           /* all buffers, one allocation, one registration */
    fm_ofi_buf *bufs;     /* ntx tx buffers, then nrx rx buffers */
    fm_ofi_buf *tx_free;  /* bounce buffers not in flight */
    fm_ofi_buf *rx_repost;/* rx buffers whose repost met -FI_EAGAIN */
    int tx_busy;
    int users;            /* communicators sending on it (groups.c) */
    char *stage;          /* inject staging, inject_size bytes */
    /* Per world rank: the remote contexts this one sent to (bit k: the
     * peer's context k), which finalize flushes behind. */
    uint32_t *sent;
} fm_ofi_ctx;

#define FM_OFI_CTX_MAX 32 /* contexts per process (bits of fm_ofi_ctx.sent) */

/* One instance of the transport: fm_ofi (the main one, fm_net_ofi), or a
 * lane's (lanes.c), each with its own fabric, domain, address vector,
 * endpoint, completion queue and buffers, so the lanes' threads never
 * touch a provider object another thread may be using (FI_THREAD_DOMAIN).
 * Only the main one has thread grouping, rendezvous reads and windows. */
typedef struct fm_ofi_state {
    int lane;             /* 0: fm_ofi; else the lane (core/vci.h) it serves */
    fm_net *net;          /* its instance (counters: net->pv) */
    char addr_key[24];    /* the bootstrap key its endpoint's name is under */
    struct fi_info *info; /* the chosen provider (our own copy) */
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_ep *sep;   /* the scalable endpoint contexts belong to, or NULL */
    int rx_ctx_bits;      /* of the address vector, when sep */
    fm_ofi_ctx c0;        /* context 0: every message not routed to another */
    fm_ofi_ctx *ctx[FM_OFI_CTX_MAX]; /* ctx[0] == &c0; then opened on demand */
    int nctx, max_ctx;
    /* Per world rank: its context 0's address (FI_ADDR_NOTAVAIL until
     * inserted); raddr[k * world size + rank]: its context k's. */
    fi_addr_t *addr;
    fi_addr_t *raddr;
    /* Grouping (groups.c): context-id pair -> the communicator's route, or
     * NULL (context 0).  NULL while FABMPI_OFI_THREAD_GROUPING=0. */
    struct fm_ofi_route **routes;
    size_t inject_size;   /* whole wire messages up to this go by fi_inject */
    size_t buf_size;      /* bytes of each buffer = largest wire message */
    size_t eager_cap;     /* largest eager payload the provider keeps in order */
    int ntx, nrx;         /* buffers per context */
    struct fi_cq_tagged_entry *events; /* OFI_PROGRESS_EVENT_CNT entries */
    int nevents;
    int polling;          /* poll() is not re-entrant: callbacks may send only */
    int repost;           /* some context has rx buffers to post again */
    /* Set by the provider-matching engine: completions (and error
     * completions) of FM_OFI_OP_TAGGED contexts. */
    void (*tagged_event)(const struct fi_cq_tagged_entry *e);
    void (*tagged_error)(const struct fi_cq_err_entry *e);
    int up;
} fm_ofi_state;

/* A grouped communicator's route: its context here and, per world rank,
 * the context of that member (or 0 for a non-member). */
typedef struct fm_ofi_route {
    fm_ofi_ctx *c;
    uint8_t ridx[];
} fm_ofi_route;

extern fm_ofi_state fm_ofi;

/* --- select.c --- */
/* Ask libfabric for every provider fitting the transport (RDM endpoint,
 * FI_MSG|FI_TAGGED|FI_RMA, send-after-send order).  Returns the fi_getinfo
 * status; *out is NULL when nothing fits. */
int fm_ofi_getinfo(struct fi_info **out);
/* 1 if provider name `prov` (e.g. "tcp;ofi_rxm") is named by the comma list:
 * an entry matches the whole name or one of its ;-separated parts. */
int fm_ofi_name_listed(const char *prov, const char *list);
/* Pick the best entry of `list` under the include/exclude/domain knobs;
 * single_node says every rank is on this node (loopback is then preferred
 * and the shm provider allowed).  NULL when nothing fits: `why` then holds
 * the one message for the user (asked, offered, knob). */
struct fi_info *fm_ofi_choose(struct fi_info *list, const char *include, const char *exclude,
                              const char *domain, int single_node, char *why, size_t whylen);
/* Comma list of the distinct provider names in `list`; usable_only: not
 * those fabmpi refuses (FM_OFI_QUIRK_UNRELIABLE), for a message that
 * suggests picking one of them. */
void fm_ofi_provider_names(struct fi_info *list, int usable_only, char *buf, size_t len);
/* 1 if i is list's first entry for its provider (fi_getinfo lists one per
 * fabric and domain). */
int fm_ofi_provider_first(const struct fi_info *list, const struct fi_info *i);

/* --- xfer.c --- */
int fm_ofi_bufs_setup(fm_ofi_state *s, fm_ofi_ctx *c); /* slab, registration, rx posting */
void fm_ofi_bufs_teardown(fm_ofi_ctx *c);
/* Insert world rank `peer`'s address into s's AV (first use). */
int fm_ofi_connect_at(fm_ofi_state *s, int peer);
/* s last, as in the transport contract (net.h): the others stay in the
 * registers the instance's send() received them in. */
int fm_ofi_send_at(int peer, const void *hdr, size_t hlen, const void *payload, size_t plen,
                   fm_ofi_state *s);
int fm_ofi_poll_at(fm_ofi_state *s, void (*cb)(int, const void *, size_t));
/* Finalize: push out what injects left queued in the provider. */
void fm_ofi_flush_at(fm_ofi_state *s);
/* The same on the main instance. */
static inline int fm_ofi_connect(int peer) { return fm_ofi_connect_at(&fm_ofi, peer); }
static inline int fm_ofi_poll(void (*cb)(int, const void *, size_t))
{
    return fm_ofi_poll_at(&fm_ofi, cb);
}

/* --- ofi.c: what the main instance and the lanes' share --- */
/* Open s's fabric, domain, AV and context 0 for s->info; close them all. */
int fm_ofi_open_endpoint(fm_ofi_state *s);
void fm_ofi_close_state(fm_ofi_state *s);
/* Finalize's first half for an instance: flush what it sent, stop using it
 * and fence with every rank, so no endpoint closes under a peer's flush. */
void fm_ofi_quiesce(fm_ofi_state *s);
/* s's buffers and limits from the knobs (after s->info is set). */
int fm_ofi_size_state(fm_ofi_state *s);
/* FABMPI_OFI_EAGER_LIMIT, kept within s->eager_cap. */
size_t fm_ofi_eager_limit(const fm_ofi_state *s);
/* Publish s's endpoint name under s->addr_key (an empty one when rc says
 * it failed), fence, and insert every peer now if connections are static. */
int fm_ofi_publish(fm_ofi_state *s, int rc);

/* --- groups.c: contexts per communicator (FABMPI_OFI_THREAD_GROUPING) --- */
/* Open context 0 (and the scalable endpoint, when grouping on a provider
 * that has one) after the AV; close every context. */
int fm_ofi_ctx_open_first(fm_ofi_state *s);
void fm_ofi_ctx_close_all(fm_ofi_state *s);
/* The net ops of communicator contexts (net.h). */
size_t fm_ofi_comm_card(void *card, size_t len);
int fm_ofi_comm_join(uint32_t ctx, int n, const int *world, const void *cards, size_t card_len);
void fm_ofi_comm_abandon(const void *card);
void fm_ofi_comm_leave(uint32_t ctx);
/* Before the address vector opens: how many contexts, and whether on a
 * scalable endpoint (rx_ctx_bits > 0); a lane's instance has one. */
int fm_ofi_ctx_plan(fm_ofi_state *s);
/* Address of world rank `peer`'s context k (inserted at join). */
static inline fi_addr_t fm_ofi_dest(int k, int peer, int world_size)
{
    return fm_ofi.raddr[(size_t)k * (size_t)world_size + (size_t)peer];
}

/* --- rma.c: the endpoint for one-sided windows --- */
/* Its operations in the one-sided contract (net/net_rma.h): the table
 * fm_net_ofi's ops name.  rndv.c calls the functions below directly. */
extern const fm_net_rma_ops fm_ofi_rma_ops;
typedef fm_net_rma_op fm_ofi_rma_op;
/* Open on first use (FM_OK), or FM_ERR_* when windows must use active
 * messages (no provider with FI_RMA under our MR modes, FABMPI_OFI_RMA=am). */
int fm_ofi_rma_open(void);
void fm_ofi_rma_close(void);
size_t fm_ofi_rma_name(void *buf, size_t len); /* 0 when not open */
int fm_ofi_rma_insert(int world, const void *name, size_t len);
/* Register [base, base+len) for remote read/write; *raddr is what peers add
 * displacements to (the address, or 0 for offset-addressed providers). */
int fm_ofi_rma_reg(void *base, size_t len, struct fid_mr **mr, uint64_t *key, uint64_t *raddr);
void fm_ofi_rma_dereg(struct fid_mr *mr);
size_t fm_ofi_rma_max(void); /* bytes one operation may move */
/* FM_ERR_AGAIN: progress and retry. */
int fm_ofi_rma_xfer(int write, int world, void *buf, size_t len, uint64_t raddr, uint64_t key,
                    fm_ofi_rma_op *op);
/* Completions of this endpoint's operations (and, for manual-progress
 * providers, incoming RMA). */
int fm_ofi_rma_poll(void);
/* Atomics (fi_atomic / fi_fetch_atomic / fi_compare_atomic) of a contract
 * form (FM_NET_ATOMIC_*) on contract types and operators: the element count
 * the provider takes, 0 when not valid (check before use: the net provider
 * advertises FI_ATOMIC but completes no atomic). */
size_t fm_ofi_rma_atomic_count(int form, int type, int aop);
/* FM_ERR_AGAIN: progress and retry. */
int fm_ofi_rma_atomic(int form, int world, const void *buf, size_t count, const void *cmp,
                      void *res, uint64_t raddr, uint64_t key, int type, int aop,
                      fm_ofi_rma_op *o);

/* --- rndv.c: rendezvous by fi_read (software-matching engine) --- */
/* Wire kind of an RTS with a key: FM_OFI_MSG_RTS_KEY (wire.h). */
typedef struct fm_ofi_rndv_state {
    int on;   /* the RMA endpoint is open: RTS carry keys, pull() works */
    int nout; /* registrations waiting for FIN/CTS: poll serves RMA */
} fm_ofi_rndv_state;
extern fm_ofi_rndv_state fm_ofi_rndv;
/* At init, before the address fence, on every rank: open the RMA endpoint
 * (FABMPI_OFI_RNDV=read) and publish its address.  1 if reads are on. */
int fm_ofi_rndv_init(void);
void fm_ofi_rndv_teardown(void);
/* send() of an RTS: the header to put on the wire (copy, when changed),
 * its wire kind in *kind, and a registration in *reg to settle with
 * fm_ofi_rndv_sent(reg, posted) once the post's outcome is known. */
struct fm_hdr_rndv;
const struct fm_hdr_rndv *fm_ofi_rndv_stamp(int peer, const struct fm_hdr_rndv *h,
                                            struct fm_hdr_rndv *copy, uint32_t *kind,
                                            void **reg);
void fm_ofi_rndv_sent(void *reg, int ok);
/* FIN or CTS for sreq arrived from peer: close its registration. */
void fm_ofi_rndv_release(int peer, uint64_t sreq);
/* A keyed RTS arrived: record the key; h->addr becomes the pull handle. */
void fm_ofi_rndv_arrived(int peer, struct fm_hdr_rndv *h);
/* We answer peer's keyed RTS sreq with CTS: forget the key. */
void fm_ofi_rndv_answered(int peer, uint64_t sreq);
/* pull() with a handle from fm_ofi_rndv_arrived; blocks until read. */
int fm_ofi_rndv_pull(int peer, void *local, uint64_t handle, size_t len);

#endif
