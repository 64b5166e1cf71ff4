/* ctx_ids.c — which communicator context ids this process has free.
 *
 * Each communicator owns a pair of contexts (2k: point-to-point, 2k+1:
 * collectives); k is its "id".  A bitmap of FM_CTX_IDS bits says which ids
 * are free here; the members of a new communicator agree on an id free at
 * all of them (src/mpi/ctx.c runs that agreement), and freeing a
 * communicator gives its id back and drops its matching queues.  2^17 ids:
 * any 65,536+ live communicators fit, whatever the pattern of frees. */
#include <pthread.h>
#include <string.h>

#include "core/comm.h"
#include "core/vci.h"
#include "match/ctx_table.h"

#define NWORDS FM_CTX_ID_WORDS

static pthread_mutex_t ids_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t ids_free[NWORDS]; /* bit set = id free at this process */
static int ids_live;

static void take(int id)
{
    ids_free[id / 64] &= ~((uint64_t)1 << (id % 64));
    ids_live++;
}

void fm_ctx_ids_init(int usable)
{
    pthread_mutex_lock(&ids_lock);
    memset(ids_free, 0xff, sizeof(ids_free));
    ids_free[0] &= ~(uint64_t)3; /* ids 0 (WORLD, ctx 0/1) and 1 (SELF, ctx 2/3) */
    for (int id = usable; id < FM_CTX_IDS; id++)
        ids_free[id / 64] &= ~((uint64_t)1 << (id % 64));
    ids_live = 2;
    pthread_mutex_unlock(&ids_lock);
}

int fm_ctx_live(void) { return ids_live; }

void fm_ctx_ids_snapshot(uint64_t *out)
{
    pthread_mutex_lock(&ids_lock);
    memcpy(out, ids_free, sizeof(ids_free));
    pthread_mutex_unlock(&ids_lock);
}

uint64_t fm_ctx_ids_lowest_free_word(void)
{
    uint64_t w = 0;
    pthread_mutex_lock(&ids_lock);
    while (w < NWORDS && !ids_free[w])
        w++;
    pthread_mutex_unlock(&ids_lock);
    return w;
}

void fm_ctx_ids_window(uint64_t w0, uint64_t *win, int n)
{
    pthread_mutex_lock(&ids_lock);
    for (int i = 0; i < n; i++)
        win[i] = w0 + (uint64_t)i < NWORDS ? ids_free[w0 + (uint64_t)i] : 0;
    pthread_mutex_unlock(&ids_lock);
}

int fm_ctx_ids_take_lowest(uint64_t w0, const uint64_t *avail, int n)
{
    int id = -1;
    pthread_mutex_lock(&ids_lock);
    for (int i = 0; i < n && w0 + (uint64_t)i < NWORDS; i++) {
        uint64_t bits = avail[i] & ids_free[w0 + (uint64_t)i];
        if (bits) {
            id = (int)(w0 + (uint64_t)i) * 64 + __builtin_ctzll(bits);
            take(id);
            break;
        }
    }
    pthread_mutex_unlock(&ids_lock);
    return id;
}

void fm_ctx_ids_reserve(uint64_t w0, uint64_t *win, int n)
{
    pthread_mutex_lock(&ids_lock);
    for (int i = 0; i < n; i++) {
        uint64_t w = w0 + (uint64_t)i;
        win[i] = w < NWORDS ? ids_free[w] : 0;
        if (w < NWORDS)
            ids_free[w] = 0;
    }
    pthread_mutex_unlock(&ids_lock);
}

void fm_ctx_ids_unreserve(uint64_t w0, const uint64_t *reserved, int n, int keep)
{
    pthread_mutex_lock(&ids_lock);
    for (int i = 0; i < n && w0 + (uint64_t)i < NWORDS; i++)
        ids_free[w0 + (uint64_t)i] |= reserved[i];
    if (keep >= 0)
        take(keep);
    pthread_mutex_unlock(&ids_lock);
}

void fm_ctx_ids_take(int id)
{
    pthread_mutex_lock(&ids_lock);
    take(id);
    pthread_mutex_unlock(&ids_lock);
}

void fm_ctx_free(uint32_t ctx)
{
    uint32_t id = ctx / 2;
    if (id < 2 || id >= FM_CTX_IDS)
        return; /* predefined communicators keep theirs */
    fm_ctx_queue_drop(&fm_vci_of_ctx(ctx)->ctx, ctx);
    fm_ctx_queue_drop(&fm_vci0.ctx, ctx + 1);
    pthread_mutex_lock(&ids_lock);
    if (!(ids_free[id / 64] & ((uint64_t)1 << (id % 64)))) {
        ids_free[id / 64] |= (uint64_t)1 << (id % 64);
        ids_live--;
    }
    pthread_mutex_unlock(&ids_lock);
}
