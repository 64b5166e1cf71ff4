/* remote_int.h — what remote.c (one-sided writes and reads, active
 * messages, flushes) and remote_atomic.c (accumulates by transport
 * atomics) share: the per-target bookkeeping of a window's network peers
 * and the in-flight operation records.  Both reach those peers through the
 * network transport's one-sided contract (net/net_rma.h).  Private to
 * src/rma. */
#ifndef FM_RMA_REMOTE_INT_H
#define FM_RMA_REMOTE_INT_H

#include <stdint.h>

#include "am/xfer.h"
#include "core/progress.h"
#include "net/net.h"
#include "rma/rma.h"

typedef struct tgt {
    long am_out;   /* pieces of active messages (am.c) not answered yet */
    long inflight; /* one-sided writes / reads / atomics not yet completed */
    long reads;    /* of which atomics whose old values the caller wants */
    long writes;   /* of which atomics changing the target (ordering: hw_order) */
    int wrote;     /* a write since the last flush (FM_NET_RMA_FLUSH_BY_READ) */
    uint64_t last_off; /* where the last one wrote */
} tgt;

struct fm_rma_remote {
    tgt *t;                    /* [size] */
    int err;                   /* first failure of a one-sided operation */
    fm_net *net;               /* the transport's one-sided operations, or NULL */
    fm_region region;          /* our window memory, registered */
    struct fm_win *next;       /* windows served by the progress hook */
};

/* The windows with network peers, linked by rm->next (am.c finds the one
 * a request is for). */
struct fm_win *fm_rma_served(void);

/* Origin data as one packed stream: the buffer itself when contiguous,
 * else *heap (caller frees). */
const void *fm_rma_packed(const void *obuf, MPI_Count ocount, MPI_Datatype odt, size_t bytes,
                          void **heap);

/* Buffers shared by the pieces of one operation: freed, and a fetched
 * stream unpacked into the user's layout, when the last piece completed
 * (pieces complete in any order). */
typedef struct xgrp {
    int refs;               /* pieces in flight + 1 while issuing */
    int status;
    void *tmp;              /* bounce buffer of the fetched / read stream, or NULL */
    void *heap;             /* packed origin, or NULL */
    void *obuf;             /* unpack tmp here at the end (odt != NULL) */
    MPI_Count ocount;
    MPI_Datatype odt;
} xgrp;

typedef struct xop {
    fm_xfer x;     /* first: the completion leads here (am/xfer.h posts it) */
    struct fm_win *w;
    int trank;
    int atomic;    /* XOP_READS | XOP_WRITES, 0 for writes and reads */
    xgrp *g;
    /* Small atomic operands travel from here, so the caller's buffers are
     * free on return (transports may read them only when they run the op). */
    _Alignas(16) unsigned char inl[3][32];
} xop;
#define HW_INLINE 32
enum { XOP_READS = 1, XOP_WRITES = 2 };

/* A group owning tmp/heap (NULL when both are NULL); with odt, tmp is
 * unpacked into obuf when the last piece completes. */
xgrp *fm_rma_grp_new(void *tmp, void *heap, void *obuf, MPI_Count ocount, MPI_Datatype odt);
/* Drop a piece's reference (status: its outcome); the last frees. */
void fm_rma_grp_put(xgrp *g, int status);
/* An operation record counted against target trank when issued. */
xop *fm_rma_xop_new(struct fm_win *w, int trank, int atomic, xgrp *g);
/* Forget a record whose operation the transport refused (never issued). */
void fm_rma_xop_drop(xop *x);
/* Post x (x.kind and its arguments filled in; target and key are the
 * window's) through am/xfer.h: FM_OK when posted or parked; else the
 * transport's error, x not issued. */
int fm_rma_xop_post(xop *x);

#endif
