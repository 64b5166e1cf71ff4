/* ctx.c — communicator context ids and the matching queue of each context.
 *
 * Each communicator owns a pair of contexts (2k: point-to-point, 2k+1:
 * collectives); k is its "id".  Every process keeps a bitmap of the ids it
 * has free; agreeing on a new id is one allreduce (bitwise AND) of that
 * bitmap over the parent communicator, after which the lowest id free
 * everywhere is taken.  2^17 ids make a 16 KiB bitmap: one message of
 * modest size buys a guarantee that any 65,536+ live communicators fit,
 * whatever the pattern of frees (no fragmentation-driven retries).  Ids
 * are reused as soon as every member has freed them.
 *
 * Queues live in a two-level table indexed by context (chunk 0 is the
 * static fm_ctx_direct table delivery reads inline; the others allocated on
 * first use, never moved) so the progress engine can look a queue up
 * without a lock while another thread creates one.
 *
 * Known limit: two threads of one process creating communicators at the
 * same time may pick the same id (MPI_THREAD_MULTIPLE); the bitmap itself
 * is protected, the agreement is not. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "mpi/api.h"
#include "pt2pt/ofi_engine.h"
#include "pt2pt/pt2pt.h"

#define NIDS ((int)(FM_MAX_CONTEXTS / 2))
#define NWORDS (NIDS / 64)
#define CHUNK 1024
#define NCHUNKS ((int)(FM_MAX_CONTEXTS / CHUNK))

typedef _Atomic(fm_match_queue *) mq_slot;
_Static_assert(CHUNK == FM_CTX_DIRECT, "chunk 0 is the direct table");
mq_slot fm_ctx_direct[FM_CTX_DIRECT];
static _Atomic(mq_slot *) chunks[NCHUNKS] = {fm_ctx_direct};

static pthread_mutex_t ids_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t ids_free[NWORDS]; /* bit set = id free at this process */
static int ids_live;

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

/* Destroy the queue of ctx if nothing is queued in it.  A queue still
 * holding messages is kept (the program freed a communicator with messages
 * never received); they stay unmatched rather than freed under a sender. */
static void drop_queue(uint32_t ctx)
{
    mq_slot *chunk = atomic_load_explicit(&chunks[ctx / CHUNK], memory_order_acquire);
    if (!chunk)
        return;
    fm_match_queue *q = atomic_load_explicit(&chunk[ctx % CHUNK], memory_order_acquire);
    if (!q || fm_match_posted_count(q) || fm_match_unexpected_count(q))
        return;
    if (atomic_compare_exchange_strong(&chunk[ctx % CHUNK], &q, NULL))
        fm_match_queue_destroy(q);
}

void fm_ctx_init(void)
{
    pthread_mutex_lock(&ids_lock);
    memset(ids_free, 0xff, sizeof(ids_free));
    ids_free[0] &= ~(uint64_t)3; /* ids 0 (WORLD, ctx 0/1) and 1 (SELF, ctx 2/3) */
    /* Ids the OFI tag's context field cannot carry are never free. */
    for (int id = fm_pt2pt_comm_ids(); id < NIDS; id++)
        ids_free[id / 64] &= ~((uint64_t)1 << (id % 64));
    ids_live = 2;
    pthread_mutex_unlock(&ids_lock);
}

void fm_ctx_finalize(void)
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

int fm_ctx_live(void) { return ids_live; }

/* Take the lowest id set in `avail` (and free here); -1 if none. */
static int take_lowest(const uint64_t *avail)
{
    int id = -1;
    pthread_mutex_lock(&ids_lock);
    for (int w = 0; w < NWORDS; w++) {
        uint64_t bits = avail[w] & ids_free[w];
        if (bits) {
            int b = __builtin_ctzll(bits);
            ids_free[w] &= ~((uint64_t)1 << b);
            ids_live++;
            id = w * 64 + b;
            break;
        }
    }
    pthread_mutex_unlock(&ids_lock);
    return id;
}

static uint64_t *snapshot(void)
{
    uint64_t *bits = malloc(sizeof(ids_free));
    if (!bits)
        return NULL;
    pthread_mutex_lock(&ids_lock);
    memcpy(bits, ids_free, sizeof(ids_free));
    pthread_mutex_unlock(&ids_lock);
    return bits;
}

/* `bits` is the AND over all members: each picks the same lowest id. */
static int finish(uint64_t *bits, uint32_t *ctx)
{
    int id = take_lowest(bits);
    free(bits);
    if (id < 0)
        return FM_ERR_NO_CONTEXT;
    *ctx = (uint32_t)id * 2;
    return FM_OK;
}

/* Ids agreed per round: 1024 (128 bytes of bitmap). */
#define WINDOW_WORDS 16

/* Index of the lowest bitmap word with a free id here (NWORDS: none). */
static uint64_t lowest_free_word(void)
{
    uint64_t w = 0;
    pthread_mutex_lock(&ids_lock);
    while (w < NWORDS && !ids_free[w])
        w++;
    pthread_mutex_unlock(&ids_lock);
    return w;
}

/* The lowest id free at every member, found without moving the whole
 * 16 KiB bitmap (over TCP that one message cost a rendezvous per
 * communicator): first agree on the highest of the members' lowest free
 * words — no id below it is free everywhere — then AND windows of
 * WINDOW_WORDS words from there up until one has a common free id.  Every
 * member sees the same results, so all walk the same windows and pick
 * the same id. */
int fm_ctx_alloc(MPI_Comm comm, uint32_t *ctx)
{
    if (comm->size == 1) {
        uint64_t *bits = snapshot();
        return bits ? finish(bits, ctx) : FM_ERR_NOMEM;
    }
    uint64_t start = lowest_free_word();
    int rc = fm_coll_allreduce(MPI_IN_PLACE, &start, 1, MPI_UINT64_T, MPI_MAX, comm);
    for (uint64_t w0 = start; rc == FM_OK && w0 < NWORDS; w0 += WINDOW_WORDS) {
        uint64_t win[WINDOW_WORDS] = {0};
        pthread_mutex_lock(&ids_lock);
        for (int i = 0; i < WINDOW_WORDS && w0 + (uint64_t)i < NWORDS; i++)
            win[i] = ids_free[w0 + (uint64_t)i];
        pthread_mutex_unlock(&ids_lock);
        rc = fm_coll_allreduce(MPI_IN_PLACE, win, WINDOW_WORDS, MPI_UINT64_T, MPI_BAND, comm);
        int found = -1;
        pthread_mutex_lock(&ids_lock);
        for (int i = 0; rc == FM_OK && found < 0 && i < WINDOW_WORDS; i++) {
            uint64_t bits = win[i] & (w0 + (uint64_t)i < NWORDS ? ids_free[w0 + (uint64_t)i] : 0);
            if (bits) {
                int b = __builtin_ctzll(bits);
                ids_free[w0 + (uint64_t)i] &= ~((uint64_t)1 << b);
                ids_live++;
                found = (int)(w0 + (uint64_t)i) * 64 + b;
            }
        }
        pthread_mutex_unlock(&ids_lock);
        if (found >= 0) {
            *ctx = (uint32_t)found * 2;
            return FM_OK;
        }
    }
    return rc != FM_OK ? rc : FM_ERR_NO_CONTEXT;
}

/* Binomial-tree AND-reduce of the bitmaps to group rank 0, which picks the
 * id and sends it back down the same tree.  Messages run on comm's
 * collective context with comm ranks, so non-members are not involved. */
int fm_ctx_alloc_group(MPI_Comm comm, struct fm_group *group, int tag, uint32_t *ctx)
{
    int n = group->size, r = group->rank, rc = FM_OK;
    int t = FM_TAG_CTX_AGREE | (tag & FM_TAG_CTX_MASK);
    uint64_t *bits = snapshot();
    uint64_t *tmp = malloc(sizeof(ids_free));
    if (!bits || !tmp) {
        free(bits);
        free(tmp);
        return FM_ERR_NOMEM;
    }
#define PEER(gr) fm_group_rank_of(comm->group, group->world[gr])
    int mask = 1;
    for (; mask < n; mask <<= 1) {
        if (r & mask) {
            rc = fm_coll_send(bits, NWORDS, MPI_UINT64_T, PEER(r - mask), t, comm);
            break;
        }
        if (r + mask < n) {
            rc = fm_coll_recv(tmp, NWORDS, MPI_UINT64_T, PEER(r + mask), t, comm);
            if (rc != FM_OK)
                break;
            for (int w = 0; w < NWORDS; w++)
                bits[w] &= tmp[w];
        }
    }
    free(tmp);
    /* Root decides: id, or -1 when the members share no free id. */
    int id = -1;
    if (rc == FM_OK && r == 0) {
        id = take_lowest(bits);
    } else if (rc == FM_OK) {
        rc = fm_coll_recv(&id, 1, MPI_INT, PEER(r - mask), t, comm);
    }
    free(bits);
    /* Children of r are r + m for m below r's lowest set bit (all m for 0). */
    for (mask >>= 1; rc == FM_OK && mask > 0; mask >>= 1)
        if (r + mask < n)
            rc = fm_coll_send(&id, 1, MPI_INT, PEER(r + mask), t, comm);
#undef PEER
    if (rc != FM_OK)
        return rc;
    if (id < 0)
        return FM_ERR_NO_CONTEXT;
    if (r != 0) {
        /* The root checked the AND of everyone's bitmaps, so id is free here. */
        pthread_mutex_lock(&ids_lock);
        ids_free[id / 64] &= ~((uint64_t)1 << (id % 64));
        ids_live++;
        pthread_mutex_unlock(&ids_lock);
    }
    *ctx = (uint32_t)id * 2;
    return FM_OK;
}

void fm_ctx_free(uint32_t ctx)
{
    uint32_t id = ctx / 2;
    if (id < 2 || id >= NIDS)
        return; /* predefined communicators keep theirs */
    drop_queue(ctx);
    drop_queue(ctx + 1);
    pthread_mutex_lock(&ids_lock);
    if (!(ids_free[id / 64] & ((uint64_t)1 << (id % 64)))) {
        ids_free[id / 64] |= (uint64_t)1 << (id % 64);
        ids_live--;
    }
    pthread_mutex_unlock(&ids_lock);
}

int fm_ctx_raise(MPI_Comm comm, const char *call, int rc)
{
    if (rc == FM_ERR_NO_CONTEXT && fm_pt2pt_comm_limit_why())
        return fm_raise(comm, call, MPI_ERR_OTHER, "out of communicator context ids (%d live): %s",
                        fm_ctx_live(), fm_pt2pt_comm_limit_why());
    if (rc == FM_ERR_NO_CONTEXT)
        return fm_raise(comm, call, MPI_ERR_OTHER,
                        "out of communicator context ids (%d live communicators, the most "
                        "fabmpi supports; free some with MPI_Comm_free)",
                        fm_ctx_live());
    return fm_raise_status(comm, call, rc);
}
