/* remote_int.h — what remote.c (fi_write/fi_read, active messages,
 * flushes) and remote_atomic.c (accumulates by provider atomics) share:
 * the per-target bookkeeping of a window's OFI peers and the in-flight
 * operation records.  Private to src/rma. */
#ifndef FM_RMA_REMOTE_INT_H
#define FM_RMA_REMOTE_INT_H

#include <stdint.h>

#include "core/progress.h"
#include "rma/rma.h"
#ifdef FM_HAVE_OFI
#include "net/ofi/ofi.h"
#endif

typedef struct pend {
    struct fm_request *r;
    void *buf; /* freed when r completes */
} pend;

typedef struct tgt {
    pend *v;
    int n, cap;
    long inflight; /* fi_write / fi_read / fi_*atomic not yet completed */
    long reads;    /* of which atomics whose old values the caller wants */
    long writes;   /* of which atomics changing the target (ordering: hw_order) */
    int wrote;     /* fi_write since the last flush (fm_ofi_rma_flush_by_read) */
    int parked;    /* of the in-flight ones, refused by the provider for now and
                    * waiting in the deferred queue; later ones wait behind them */
    uint64_t last_off; /* where the last one wrote */
} tgt;

struct fm_rma_remote {
    tgt *t;                    /* [size] */
    int next_tag;              /* replies: 2 .. 2^30 */
    int err;                   /* first failure of an fi operation */
    void *mr;                  /* our registration (struct fid_mr *) */
    struct fm_win *next;       /* windows served by the progress hook */
};

/* Origin data as one packed stream: the buffer itself when contiguous,
 * else *heap (caller frees). */
const void *fm_rma_packed(const void *obuf, MPI_Count ocount, MPI_Datatype odt, size_t bytes,
                          void **heap);

#ifdef FM_HAVE_OFI
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
    fm_ofi_rma_op op;
    struct fm_win *w;
    int trank;
    int atomic;    /* XOP_READS | XOP_WRITES, 0 for fi_write / fi_read */
    xgrp *g;
    /* The operation's arguments (fm_rma_xop_post), kept so that one the
     * provider cannot take yet waits in the deferred queue and is posted
     * again from progress. */
    fm_deferred parked;
    int kind;      /* XOP_WRITE, XOP_READ, or XOP_ATOMIC + FM_OFI_ATOMIC_* */
    const void *buf, *cmp;
    void *res;
    size_t count;  /* bytes (write, read) or elements (atomics) */
    uint64_t raddr;
    enum fi_datatype fdt;
    enum fi_op fop;
    /* Small atomic operands travel from here, so the caller's buffers are
     * free on return (providers may read them only when they run the op). */
    _Alignas(16) unsigned char inl[3][32];
} xop;
#define HW_INLINE 32
enum { XOP_READS = 1, XOP_WRITES = 2 };
enum { XOP_WRITE = 0, XOP_READ = 1, XOP_ATOMIC = 2 };

/* A group owning tmp/heap (NULL when both are NULL); with odt, tmp is
 * unpacked into obuf when the last piece completes. */
xgrp *fm_rma_grp_new(void *tmp, void *heap, void *obuf, MPI_Count ocount, MPI_Datatype odt);
/* Drop a piece's reference (status: its outcome); the last frees. */
void fm_rma_grp_put(xgrp *g, int status);
/* An operation record counted against target trank when issued. */
xop *fm_rma_xop_new(struct fm_win *w, int trank, int atomic, xgrp *g);
/* Forget a record whose operation the provider refused (never issued). */
void fm_rma_xop_drop(xop *x);
/* Post x (kind and arguments filled in) to its target: FM_OK when posted
 * or, if the provider cannot take it yet or earlier ones to the target
 * wait, parked behind them (completing later like any other); else the
 * provider's error, x not issued. */
int fm_rma_xop_post(xop *x);
#endif

#endif
