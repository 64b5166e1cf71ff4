/* ctx_table.c — the context id → matching queue table.
 *
 * Two levels indexed by context: chunk 0 is the static fm_ctx_direct table
 * delivery reads inline, the others are allocated on first use and never
 * moved, so the progress engine can look a queue up without a lock while
 * another thread creates one. */
#include <stdlib.h>

#include "match/ctx_table.h"

#define CHUNK 1024
#define NCHUNKS ((int)(FM_MAX_CONTEXTS / CHUNK))

typedef _Atomic(fm_match_queue *) mq_slot;
_Static_assert(CHUNK == FM_CTX_DIRECT, "chunk 0 is the direct table");
mq_slot fm_ctx_direct[FM_CTX_DIRECT];
static _Atomic(mq_slot *) chunks[NCHUNKS] = {fm_ctx_direct};

fm_match_queue *fm_ctx_queue(uint32_t ctx)
{
    if (ctx >= FM_MAX_CONTEXTS)
        return NULL;
    mq_slot *chunk = atomic_load_explicit(&chunks[ctx / CHUNK], memory_order_acquire);
    if (!chunk) {
        mq_slot *fresh = calloc(CHUNK, sizeof(mq_slot));
        if (!fresh)
            return NULL;
        mq_slot *expect = NULL;
        if (atomic_compare_exchange_strong(&chunks[ctx / CHUNK], &expect, fresh)) {
            chunk = fresh;
        } else {
            free(fresh); /* another thread won */
            chunk = expect;
        }
    }
    mq_slot *slot = &chunk[ctx % CHUNK];
    fm_match_queue *q = atomic_load_explicit(slot, memory_order_acquire);
    if (q)
        return q;
    fm_match_queue *fresh = fm_match_queue_create();
    if (!fresh)
        return NULL;
    fm_match_queue *expect = NULL;
    if (atomic_compare_exchange_strong(slot, &expect, fresh))
        return fresh;
    fm_match_queue_destroy(fresh);
    return expect;
}

void fm_ctx_queue_drop(uint32_t ctx)
{
    if (ctx >= FM_MAX_CONTEXTS)
        return;
    mq_slot *chunk = atomic_load_explicit(&chunks[ctx / CHUNK], memory_order_acquire);
    if (!chunk)
        return;
    fm_match_queue *q = atomic_load_explicit(&chunk[ctx % CHUNK], memory_order_acquire);
    if (!q || fm_match_posted_count(q) || fm_match_unexpected_count(q))
        return;
    if (atomic_compare_exchange_strong(&chunk[ctx % CHUNK], &q, NULL))
        fm_match_queue_destroy(q);
}

void fm_ctx_table_finalize(void)
{
    for (int c = 0; c < NCHUNKS; c++) {
        mq_slot *chunk = atomic_exchange(&chunks[c], c ? NULL : fm_ctx_direct);
        if (!chunk)
            continue;
        for (int i = 0; i < CHUNK; i++) {
            fm_match_queue *q = atomic_exchange(&chunk[i], NULL);
            if (q)
                fm_match_queue_destroy(q);
        }
        if (chunk != fm_ctx_direct)
            free(chunk);
    }
}
