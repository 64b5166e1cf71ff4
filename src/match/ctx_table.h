/* ctx_table.h — the matching queue of each communicator context id.
 *
 * Delivery looks a queue up by the context id in the message envelope;
 * communicators keep pointers to theirs.  A queue is created the first time
 * a message or a receive for its context appears (a peer may start sending
 * on a new communicator before this process has built it) and dropped when
 * the context id is freed with nothing queued.  A table belongs to a VCI
 * (core/vci.h); a zeroed one is empty and ready. */
#ifndef FM_MATCH_CTX_TABLE_H
#define FM_MATCH_CTX_TABLE_H

#include <stdatomic.h>
#include <stdint.h>

#include "match/match.h"
#include "net/net.h" /* FM_MAX_CONTEXTS */

/* The queues of the first FM_CTX_DIRECT contexts (the first 512
 * communicators: nearly every program's all) sit in a fixed array, so
 * delivery finds one with a load and a test per message; the others in
 * chunks of as many, allocated on first use and never moved, so delivery
 * can look a queue up without a lock while another thread creates one. */
#define FM_CTX_DIRECT 1024u
typedef _Atomic(fm_match_queue *) fm_ctx_slot;
typedef struct fm_ctx_table {
    fm_ctx_slot direct[FM_CTX_DIRECT];
    _Atomic(fm_ctx_slot *) chunks[FM_MAX_CONTEXTS / FM_CTX_DIRECT]; /* [0] unused */
} fm_ctx_table;

/* The queue of ctx, created on first use.  NULL when ctx >= FM_MAX_CONTEXTS
 * or memory is exhausted. */
fm_match_queue *fm_ctx_queue(fm_ctx_table *t, uint32_t ctx);

/* fm_ctx_queue with the direct array read inline; NULL as fm_ctx_queue. */
static inline fm_match_queue *fm_ctx_queue_fast(fm_ctx_table *t, uint32_t ctx)
{
    if (ctx < FM_CTX_DIRECT) {
        fm_match_queue *q = atomic_load_explicit(&t->direct[ctx], memory_order_acquire);
        if (q)
            return q;
    }
    return fm_ctx_queue(t, ctx);
}

/* Destroy the queue of ctx if nothing is queued in it (a queue still
 * holding messages a program never received is kept: they stay unmatched
 * rather than freed under a sender). */
void fm_ctx_queue_drop(fm_ctx_table *t, uint32_t ctx);

/* Destroy every queue (MPI_Finalize); the table is empty again. */
void fm_ctx_table_finalize(fm_ctx_table *t);

#endif
