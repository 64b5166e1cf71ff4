/* net.h — the transport contract, and the header every message starts with.
 *
 * A transport moves whole messages between processes (peers are world
 * ranks).  It knows nothing about matching, requests or datatypes; the
 * point-to-point layer (src/pt2pt/) builds eager, rendezvous and synchronous
 * protocols from send(), pull() and poll().  Messages between one pair of
 * processes are delivered in the order they were sent. */
#ifndef FM_NET_NET_H
#define FM_NET_NET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "net/net_rma.h"
#include "util/status.h"

/* Protocol of a message (fm_hdr.proto). */
enum fm_proto {
    FM_PROTO_EAGER = 1,  /* fm_hdr + payload of hdr.len bytes */
    FM_PROTO_EAGER_SYNC, /* fm_hdr_rndv + payload; receiver sends ACK(sreq) on match */
    FM_PROTO_RTS,        /* fm_hdr_rndv: hdr.len bytes wait at addr in the sender
                          * (with FM_HDRF_STREAM: answer CTS, do not pull) */
    FM_PROTO_CTS,        /* fm_hdr_rndv: receiver matched (sreq, rreq); sender pushes DATA */
    FM_PROTO_DATA,       /* fm_hdr_rndv + chunk: bytes [offset, offset+chunk) for rreq */
    FM_PROTO_FIN,        /* fm_hdr_rndv: receiver pulled everything for sreq */
    FM_PROTO_ACK,        /* fm_hdr_rndv: sync-send sreq was matched */
    FM_PROTO_SPLIT,      /* fm_hdr_rndv: receiver pulls [0, offset); sender, please
                          * push h.len bytes from offset to addr, then WDONE(rreq) */
    FM_PROTO_WDONE,      /* fm_hdr_rndv: sender pushed its share for rreq */
    FM_PROTO_EAGER_SHORT, /* fm_hdr_short + payload: EAGER whose length is the
                           * message's (transports that deliver exact lengths) */
    FM_PROTO_CANCEL,     /* fm_hdr_rndv: sender cancels sreq (an RTS or EAGER_SYNC with
                          * ctx, src, tag): drop it if it still waits unmatched */
    FM_PROTO_CANCELLED,  /* fm_hdr_rndv: receiver dropped sreq's message (no answer
                          * when it had matched: the transfer completes as usual) */
    /* Protocols from here on are delivered to handlers registered at run
     * time (fm_deliver_register: active messages); below it, fm_deliver
     * matches (EAGER*, RTS) or dispatches to its own handlers. */
    FM_PROTO_HANDLER_FIRST = 16,
    FM_PROTO_MAX = 32,
};

/* Bytes of a comm_card() (fm_net_ops). */
#define FM_NET_CARD_LEN 128

/* Context ids a message can carry: every communicator owns two (even: its
 * point-to-point traffic, odd: its collectives), so FM_MAX_CONTEXTS / 2
 * communicators live at most. */
#define FM_MAX_CONTEXTS (1u << 18)

/* Matching envelope: 24 bytes, first in every message. */
typedef struct fm_hdr {
    uint8_t proto;
    uint8_t flags;
    uint16_t reserved;
    uint32_t ctx;  /* communicator context id (collectives: ctx + 1), < FM_MAX_CONTEXTS */
    int32_t src;   /* sender's rank in that communicator */
    int32_t tag;
    uint64_t len;  /* EAGER: payload bytes; RTS: whole message bytes */
} fm_hdr;

/* The envelope without len, for eager messages of at most
 * FM_HDR_SHORT_MAX bytes over a transport whose deliver() length is exact
 * (shm): such a message then fills half a 64-byte ring line (8-byte record
 * word + 16 + 8), so a burst of them costs the receiver one cache-line
 * transfer per two.  Larger payloads keep the 24-byte envelope, which
 * leaves them 32-byte aligned in the ring (8 mod 32 cost 4 KiB messages a
 * fifth of their bandwidth). */
#define FM_HDR_SHORT_MAX 8
typedef struct fm_hdr_short {
    uint8_t proto;
    uint8_t flags;
    uint16_t reserved;
    uint32_t ctx;
    int32_t src;
    int32_t tag;
} fm_hdr_short;

/* fm_hdr.flags */
enum {
    FM_HDRF_STREAM = 1, /* RTS: the data is non-contiguous in the sender (addr is
                         * meaningless); the receiver answers CTS and the sender
                         * packs DATA chunks straight into the transport */
};

/* Rendezvous / control header. */
typedef struct fm_hdr_rndv {
    fm_hdr h;
    uint64_t sreq;   /* sender's request, echoed in CTS/FIN/ACK */
    uint64_t rreq;   /* receiver's request (CTS, DATA) */
    uint64_t addr;   /* RTS: sender's buffer address (for pull) */
    uint64_t offset; /* DATA: offset of this chunk */
} fm_hdr_rndv;

/* Called by poll() for each message: `msg` (len bytes, starting with an
 * fm_hdr) is valid only during the call.  The callback may call send() of
 * any transport, including the one polling. */
typedef void fm_net_deliver_fn(int peer, const void *msg, size_t len);

/* What a transport offers; layers above test these bits, never which
 * transport it is. */
enum {
    FM_NET_CAP_PULL = 1,      /* pull() works for this transport's peers */
    FM_NET_CAP_EXACT_LEN = 2, /* deliver() gets a message's exact length, so
                               * FM_PROTO_EAGER_SHORT (no len) may be sent */
    FM_NET_CAP_MAPPED = 4,    /* its peers' memory can be mapped (same node):
                               * one-sided layers may use loads and stores */
    FM_NET_CAP_REMOTE = 8,    /* its peers may be on other nodes: memory is
                               * reached only by the network (OFI RMA) */
};

/* What a transport does: one const table per transport, shared by its
 * instances.  Every operation gets the instance it acts for as its last
 * argument, so the others arrive in the registers a transport passes on
 * (first, the shm send would shuffle five of them: 6 instructions a
 * message). */
typedef struct fm_net_ops {
    const char *name;
    /* Set up after the bootstrap is up; may use fm_boot_put/fence/get
     * (every transport's init runs on every rank, so fences match).  Sets
     * the instance's caps, max_msg and eager_limit.  Returns FM_OK, or an
     * error after logging why. */
    int (*init)(fm_net *n);
    /* 1 if this transport can reach world rank `peer`. */
    int (*reaches)(int peer, const fm_net *n);
    /* Send one message: `hdr` (hlen bytes) followed by `payload` (plen
     * bytes; may be NULL when plen is 0).  Never blocks.  FM_OK: sent, both
     * buffers reusable.  FM_ERR_AGAIN: nothing sent (no room); the caller
     * parks the message and retries from progress. */
    int (*send)(int peer, const void *hdr, size_t hlen, const void *payload, size_t plen,
                fm_net *n);
    /* Optional (NULL if absent): like send(), but the payload is written in
     * place by fill(arg, dst, plen), so non-contiguous data is packed
     * straight into the transport's buffer instead of a staging copy. */
    int (*send_fill)(int peer, const void *hdr, size_t hlen,
                     void (*fill)(void *arg, void *dst, size_t len), void *arg, size_t plen,
                     fm_net *n);
    /* Optional (NULL if absent), with FM_NET_CAP_PULL: the reverse of
     * pull(), writing len bytes of local into peer's memory at remote_addr. */
    int (*push)(int peer, uint64_t remote_addr, const void *local, size_t len, fm_net *n);
    /* Copy len bytes at remote_addr in peer's address space into local.
     * Blocks until done.  Only with FM_NET_CAP_PULL. */
    int (*pull)(int peer, void *local, uint64_t remote_addr, size_t len, fm_net *n);
    /* Deliver arrived messages through cb; returns how many. */
    int (*poll)(fm_net_deliver_fn *cb, fm_net *n);
    /* Tear down; no message is sent or delivered afterwards.  Leaves no
     * file behind. */
    void (*finalize)(fm_net *n);
    /* One-sided operations (net_rma.h), or NULL when it has none. */
    const fm_net_rma_ops *rma;
    /* Optional: take the knobs that may change while running (its eager
     * limit, written through MPI_T) into the instance again. */
    void (*retune)(fm_net *n);
    /* Optional (NULL if absent): communicators with transport contexts of
     * their own (FABMPI_OFI_THREAD_GROUPING).  comm_card() picks this
     * process's context for a new communicator and describes it in `len`
     * (FM_NET_CARD_LEN) bytes, or returns 0 when communicators get none
     * (the same on every rank).  The members' cards, in communicator rank
     * order with their world ranks, go to comm_join(); comm_abandon() gives
     * a card back when the creation fails first; comm_leave() when the
     * communicator of context id ctx is destroyed.  Messages that match
     * on ctx or ctx + 1 then travel on its contexts. */
    size_t (*comm_card)(void *card, size_t len, fm_net *n);
    int (*comm_join)(uint32_t ctx, int nmembers, const int *world, const void *cards,
                     size_t len, fm_net *n);
    void (*comm_abandon)(const void *card, fm_net *n);
    void (*comm_leave)(uint32_t ctx, fm_net *n);
} fm_net_ops;

/* An instance of a transport: its operations and what its init found.
 * Each transport has a main one, and one per lane of core/vci.h. */
struct fm_net {
    const fm_net_ops *ops;
    unsigned caps;      /* FM_NET_CAP_* */
    size_t max_msg;     /* largest message (header included) send() takes */
    size_t ordered_max; /* largest message whose order with the others to
                         * the same peer is kept (tcp;ofi_rxm hands larger
                         * ones to its own rendezvous, which may complete
                         * after later small ones) */
    size_t eager_limit; /* largest payload point-to-point sends eagerly (its
                         * knob, bounded by max_msg) */
    size_t buffered;    /* bytes of messages to one peer it holds before that
                         * peer takes them in (a ring's size), 0 if unknown */
    /* Set by ops->rma->open(). */
    unsigned rma_caps;  /* FM_NET_RMA_* */
    size_t rma_max;     /* bytes one xfer() may move */
    const char *rma_distrust; /* why its atomics must not be used although it
                               * validates them (a provider quirk), or NULL */
    /* The counters its work goes to (util/pvar.h): the block of the VCI
     * that polls it, set by core/transports.c; fm_pv until then. */
    struct fm_pv *pv;
};

/* Instances a transport may have beyond its first, one per lane (the VCIs
 * of core/vci.h beyond the first). */
#define FM_NET_LANES_MAX 16

extern fm_net fm_net_self; /* this process */
extern fm_net fm_net_shm;  /* other processes on this node */
extern fm_net fm_net_ofi;  /* libfabric: other nodes (and this one with FABMPI_NET=ofi) */
/* The lanes' instances, [1 .. lanes] of FM_NET_LANES_MAX: their own rings
 * and self queues, and their own OFI endpoints (net/ofi/lanes.c).
 * fm_shm_lanes() says how many lanes the shm setup made (0 unless
 * FABMPI_VCIS > 1 and shared memory carries messages to some peer). */
extern fm_net fm_net_shm_lanes[];
extern fm_net fm_net_self_lanes[];
extern fm_net fm_net_ofi_lanes[];
int fm_shm_lanes(void);

static inline int fm_net_init(fm_net *n) { return n->ops->init(n); }
static inline int fm_net_reaches(const fm_net *n, int peer) { return n->ops->reaches(peer, n); }
static inline int fm_net_send(fm_net *n, int peer, const void *hdr, size_t hlen,
                              const void *payload, size_t plen)
{
    return n->ops->send(peer, hdr, hlen, payload, plen, n);
}
static inline int fm_net_can_fill(const fm_net *n) { return n->ops->send_fill != NULL; }
static inline int fm_net_send_fill(fm_net *n, int peer, const void *hdr, size_t hlen,
                                   void (*fill)(void *arg, void *dst, size_t len), void *arg,
                                   size_t plen)
{
    return n->ops->send_fill(peer, hdr, hlen, fill, arg, plen, n);
}
static inline int fm_net_can_push(const fm_net *n) { return n->ops->push != NULL; }
static inline int fm_net_push(fm_net *n, int peer, uint64_t remote_addr, const void *local,
                              size_t len)
{
    return n->ops->push(peer, remote_addr, local, len, n);
}
static inline int fm_net_pull(fm_net *n, int peer, void *local, uint64_t remote_addr, size_t len)
{
    return n->ops->pull(peer, local, remote_addr, len, n);
}
static inline int fm_net_poll(fm_net *n, fm_net_deliver_fn *cb) { return n->ops->poll(cb, n); }
static inline void fm_net_finalize(fm_net *n) { n->ops->finalize(n); }

/* One-sided half: fm_net_rma_open() first (FM_ERR_UNSUPPORTED when the
 * transport has none), the others only after it succeeded. */
static inline int fm_net_rma_open(fm_net *n)
{
    return n->ops->rma ? n->ops->rma->open(n) : FM_ERR_UNSUPPORTED;
}
static inline size_t fm_net_rma_name(fm_net *n, void *buf, size_t len)
{
    return n->ops->rma->name(buf, len, n);
}
static inline int fm_net_rma_insert(fm_net *n, int peer, const void *name, size_t len)
{
    return n->ops->rma->insert(peer, name, len, n);
}
static inline int fm_net_rma_reg(fm_net *n, void *base, size_t len, fm_net_mr **mr,
                                 uint64_t *key, uint64_t *raddr)
{
    return n->ops->rma->reg(base, len, mr, key, raddr, n);
}
static inline void fm_net_rma_dereg(fm_net *n, fm_net_mr *mr) { n->ops->rma->dereg(mr, n); }
static inline int fm_net_rma_xfer(fm_net *n, int write, int peer, void *buf, size_t len,
                                  uint64_t raddr, uint64_t key, fm_net_rma_op *op)
{
    return n->ops->rma->xfer(write, peer, buf, len, raddr, key, op, n);
}
static inline size_t fm_net_rma_atomic_count(fm_net *n, int form, int type, int aop)
{
    return n->ops->rma->atomic_count(form, type, aop, n);
}
static inline int fm_net_rma_atomic(fm_net *n, int form, int peer, const void *buf, size_t count,
                                    const void *cmp, void *res, uint64_t raddr, uint64_t key,
                                    int type, int aop, fm_net_rma_op *op)
{
    return n->ops->rma->atomic(form, peer, buf, count, cmp, res, raddr, key, type, aop, op, n);
}
static inline int fm_net_rma_poll(fm_net *n) { return n->ops->rma->poll(n); }

#endif
