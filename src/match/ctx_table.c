/* ctx_table.c — the context id → matching queue table: the direct array
 * for the first FM_CTX_DIRECT contexts, chunks for the rest (ctx_table.h). */
#include <stdlib.h>

#include "match/ctx_table.h"

#define CHUNK ((int)FM_CTX_DIRECT)
#define NCHUNKS ((int)(FM_MAX_CONTEXTS / CHUNK))

/* The slot array holding ctx (ctx < FM_MAX_CONTEXTS), allocating its chunk
 * when `create`; NULL when absent or out of memory. */
static fm_ctx_slot *chunk_of(fm_ctx_table *t, uint32_t ctx, int create)
{
    if (ctx < CHUNK)
        return t->direct;
    _Atomic(fm_ctx_slot *) *c = &t->chunks[ctx / CHUNK];
    fm_ctx_slot *chunk = atomic_load_explicit(c, memory_order_acquire);
    if (chunk || !create)
        return chunk;
    fm_ctx_slot *fresh = calloc(CHUNK, sizeof(fm_ctx_slot));
    if (!fresh)
        return NULL;
    fm_ctx_slot *expect = NULL;
    if (atomic_compare_exchange_strong(c, &expect, fresh))
        return fresh;
    free(fresh); /* another thread won */
    return expect;
}

fm_match_queue *fm_ctx_queue(fm_ctx_table *t, uint32_t ctx)
{
    if (ctx >= FM_MAX_CONTEXTS)
        return NULL;
    fm_ctx_slot *chunk = chunk_of(t, ctx, 1);
    if (!chunk)
        return NULL;
    fm_ctx_slot *slot = &chunk[ctx % CHUNK];
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

void fm_ctx_queue_drop(fm_ctx_table *t, uint32_t ctx)
{
    if (ctx >= FM_MAX_CONTEXTS)
        return;
    fm_ctx_slot *chunk = chunk_of(t, ctx, 0);
    if (!chunk)
        return;
    fm_match_queue *q = atomic_load_explicit(&chunk[ctx % CHUNK], memory_order_acquire);
    if (!q || fm_match_posted_count(q) || fm_match_unexpected_count(q))
        return;
    if (atomic_compare_exchange_strong(&chunk[ctx % CHUNK], &q, NULL))
        fm_match_queue_destroy(q);
}

static void destroy_all(fm_ctx_slot *chunk)
{
    for (int i = 0; i < CHUNK; i++) {
        fm_match_queue *q = atomic_exchange(&chunk[i], NULL);
        if (q)
            fm_match_queue_destroy(q);
    }
}

void fm_ctx_table_finalize(fm_ctx_table *t)
{
    destroy_all(t->direct);
    for (int c = 1; c < NCHUNKS; c++) {
        fm_ctx_slot *chunk = atomic_exchange(&t->chunks[c], NULL);
        if (chunk) {
            destroy_all(chunk);
            free(chunk);
        }
    }
}
