/* xfer.h — the library's one use of the network transport's one-sided
 * operations (net/net_rma.h).  fab_rma (am/rma.c), windows
 * (src/rma/remote*.c) and the one-sided collectives' network caches
 * (src/coll/rma/backend_net.c) all post their writes, reads and atomics
 * here:
 *   - fm_xfer_net() opens the one-sided endpoint on first use;
 *   - while anyone holds it (fm_xfer_hold), one progress hook polls its
 *     completions, which run each operation's op.done;
 *   - fm_xfer_post() posts an operation, or parks it (core/progress.h's
 *     deferred queue) when the transport cannot take it yet or earlier
 *     ones to the same rank wait parked, so operations to one rank leave
 *     in the order they were posted whoever posted them. */
#ifndef FM_AM_XFER_H
#define FM_AM_XFER_H

#include <stddef.h>
#include <stdint.h>

#include "core/progress.h"
#include "net/net.h"

/* What an operation does: a write or read of count bytes (at most the
 * transport's rma_max), or FM_XFER_ATOMIC + FM_NET_ATOMIC_* on count
 * elements of `type`. */
enum { FM_XFER_WRITE = 0, FM_XFER_READ = 1, FM_XFER_ATOMIC = 2 };

typedef struct fm_xfer {
    fm_net_rma_op op;   /* first: a completion leads here; op.done is the poster's */
    fm_deferred parked; /* while the transport cannot take it */
    int kind;
    int world;          /* the target */
    const void *buf;    /* written or read (read: the destination), atomic operand */
    const void *cmp;    /* FM_NET_ATOMIC_COMPARE */
    void *res;          /* FETCH and COMPARE */
    size_t count;
    uint64_t raddr, key;
    int type, aop;      /* atomics: FM_NET_AT_*, FM_NET_AOP_* */
} fm_xfer;

/* The one-sided transport, opened; NULL when there is none, it would not
 * open, or FABMPI_OFI_RMA=am. */
fm_net *fm_xfer_net(void);
/* Poll its completions from progress while held (counted); FM_OK, or the
 * progress table's error. */
int fm_xfer_hold(void);
void fm_xfer_release(void);
/* Post x (op.done and the fields above filled in): FM_OK when posted or
 * parked (a parked one the transport then fails completes through op.done
 * with the error); else the transport's error, and x was not taken. */
int fm_xfer_post(fm_xfer *x);
/* The same without parking: FM_ERR_AGAIN when x would have to wait
 * (FAB_FLAG_IMMEDIATE). */
int fm_xfer_post_now(fm_xfer *x);
/* At MPI_Finalize, after every user is done. */
void fm_xfer_finalize(void);

#endif
