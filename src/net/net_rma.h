/* net_rma.h — the transport contract, one-sided half: registration,
 * writes, reads and atomics on a peer's registered memory, completed
 * without the peer's CPU.
 *
 * A transport that can do this hangs an fm_net_rma_ops table off its
 * fm_net_ops (`rma`); the others leave it NULL.  Operations complete
 * asynchronously: each names an fm_net_rma_op whose done() runs from
 * poll().  Endpoint addresses are not exchanged at init: the layer that
 * needs a peer (a window, a collective cache) trades name()s within its
 * communicator and insert()s them.  Types and operators of atomics are the
 * transport-neutral ones below; the transport maps them to its own. */
#ifndef FM_NET_NET_RMA_H
#define FM_NET_NET_RMA_H

#include <stddef.h>
#include <stdint.h>

typedef struct fm_net fm_net;

/* One operation in flight.  `transport` is the transport's per-operation
 * context and comes first, so a completion leads back to the op without a
 * lookup; done() gets FM_OK or the error. */
typedef struct fm_net_rma_op {
    void *transport[4];
    void (*done)(struct fm_net_rma_op *op, int status);
} fm_net_rma_op;

/* A registration (opaque). */
typedef struct fm_net_mr fm_net_mr;

/* Forms of an atomic. */
enum { FM_NET_ATOMIC_WRITE = 0, FM_NET_ATOMIC_FETCH, FM_NET_ATOMIC_COMPARE };

/* Element types of atomics. */
enum fm_net_atype {
    FM_NET_AT_I8 = 0, FM_NET_AT_U8, FM_NET_AT_I16, FM_NET_AT_U16, FM_NET_AT_I32,
    FM_NET_AT_U32, FM_NET_AT_I64, FM_NET_AT_U64, FM_NET_AT_FLOAT, FM_NET_AT_DOUBLE,
    FM_NET_AT_LDOUBLE, FM_NET_AT_FCOMPLEX, FM_NET_AT_DCOMPLEX, FM_NET_AT_LDCOMPLEX,
    FM_NET_AT_COUNT
};

/* Operators of atomics: MPI's predefined ones, REPLACE (WRITE), NO_OP
 * (READ) and compare-and-swap. */
enum fm_net_aop {
    FM_NET_AOP_SUM = 0, FM_NET_AOP_PROD, FM_NET_AOP_MAX, FM_NET_AOP_MIN, FM_NET_AOP_LAND,
    FM_NET_AOP_LOR, FM_NET_AOP_LXOR, FM_NET_AOP_BAND, FM_NET_AOP_BOR, FM_NET_AOP_BXOR,
    FM_NET_AOP_WRITE, FM_NET_AOP_READ, FM_NET_AOP_CSWAP, FM_NET_AOP_COUNT
};

/* What open() found (fm_net.rma_caps). */
enum {
    FM_NET_RMA_ATOMICS_ORDERED = 1, /* atomics to one peer land in issue order */
    FM_NET_RMA_FLUSH_BY_READ = 2,   /* a completed write may not have landed yet, but
                                     * a read issued behind it completes only after
                                     * it has: flushes end with one small read */
};

typedef struct fm_net_rma_ops {
    /* Open the one-sided endpoint on first use (later calls: its state).
     * Sets the instance's rma_caps, rma_max and rma_distrust.  FM_OK, or
     * an error after logging why (callers then use messages). */
    int (*open)(fm_net *n);
    /* This endpoint's name for peers (0 when not open or longer than len),
     * and taking a peer's (world rank) name in. */
    size_t (*name)(void *buf, size_t len, fm_net *n);
    int (*insert)(int peer, const void *name, size_t len, fm_net *n);
    /* Register [base, base+len) for remote reads and writes; *raddr is what
     * peers add offsets to (the address, or 0 where the transport addresses
     * by offset), *key what they name it by. */
    int (*reg)(void *base, size_t len, fm_net_mr **mr, uint64_t *key, uint64_t *raddr,
               fm_net *n);
    void (*dereg)(fm_net_mr *mr, fm_net *n); /* NULL mr: nothing */
    /* Write (write = 1) or read len <= rma_max bytes at raddr of peer's
     * region `key`.  FM_ERR_AGAIN: not taken for now; the caller parks op
     * and posts it again from progress. */
    int (*xfer)(int write, int peer, void *buf, size_t len, uint64_t raddr, uint64_t key,
                fm_net_rma_op *op, fm_net *n);
    /* Elements of (type, aop) one atomic of `form` takes; 0 when the
     * transport cannot do it. */
    size_t (*atomic_count)(int form, int type, int aop, fm_net *n);
    /* One atomic of `form` on count elements: cmp for COMPARE, res for
     * FETCH and COMPARE.  FM_ERR_AGAIN as for xfer. */
    int (*atomic)(int form, int peer, const void *buf, size_t count, const void *cmp, void *res,
                  uint64_t raddr, uint64_t key, int type, int aop, fm_net_rma_op *op,
                  fm_net *n);
    /* Run done() of completed operations (and, where the transport moves
     * incoming one-sided traffic only when asked, move it); returns how
     * many completed. */
    int (*poll)(fm_net *n);
} fm_net_rma_ops;

#endif
