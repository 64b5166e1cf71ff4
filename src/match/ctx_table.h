/* ctx_table.h — the matching queue of each communicator context id.
 *
 * Delivery looks a queue up by the context id in the message envelope;
 * communicators keep pointers to theirs.  A queue is created the first time
 * a message or a receive for its context appears (a peer may start sending
 * on a new communicator before this process has built it) and dropped when
 * the context id is freed with nothing queued. */
#ifndef FM_MATCH_CTX_TABLE_H
#define FM_MATCH_CTX_TABLE_H

#include <stdatomic.h>
#include <stdint.h>

#include "match/match.h"
#include "net/net.h" /* FM_MAX_CONTEXTS */

/* The queue of ctx, created on first use.  NULL when ctx >= FM_MAX_CONTEXTS
 * or memory is exhausted. */
fm_match_queue *fm_ctx_queue(uint32_t ctx);

/* The queues of the first FM_CTX_DIRECT contexts (the first 512
 * communicators: nearly every program's all) sit in a fixed table, so
 * delivery finds one with a load and a test per message. */
#define FM_CTX_DIRECT 1024u
extern _Atomic(fm_match_queue *) fm_ctx_direct[FM_CTX_DIRECT];

/* fm_ctx_queue with the direct table read inline; NULL as fm_ctx_queue. */
static inline fm_match_queue *fm_ctx_queue_fast(uint32_t ctx)
{
    if (ctx < FM_CTX_DIRECT) {
        fm_match_queue *q = atomic_load_explicit(&fm_ctx_direct[ctx], memory_order_acquire);
        if (q)
            return q;
    }
    return fm_ctx_queue(ctx);
}

/* Destroy the queue of ctx if nothing is queued in it (a queue still
 * holding messages a program never received is kept: they stay unmatched
 * rather than freed under a sender). */
void fm_ctx_queue_drop(uint32_t ctx);

/* Destroy every queue (MPI_Finalize). */
void fm_ctx_table_finalize(void);

#endif
