/* backend_shm.c — the cache backend for members on one node: each member's
 * segment is a POSIX shm object every member maps, so a "put" is a store
 * and a flag is a release store.
 *
 * Setup (the same steps on every member, so the collectives pair up even
 * when one member fails):
 *   1. allreduce(min) of "ready to create": everyone is here (or everyone
 *      gives up together);
 *   2. create our segment `/fabmpi-<JOBID>-c<ctx>-<world rank>` (0600;
 *      the world rank, because disjoint communicators can share a context
 *      id), size and map it;
 *   3. allgather the names (length 0: creation failed); map every member's
 *      segment;
 *   4. allreduce(min) of "mapped all": when it returns, every member has
 *      mapped ours (or given up), so
 *   5. unlink our name: from here only mappings hold the memory, and
 *      nothing is left in /dev/shm however the job ends.
 * The collectives are the communicator's two-sided ones. */
#include "coll/rma/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "coll/coll.h"
#include "core/world.h"
#include "core/comm.h"
#include "util/param.h"
#include "util/shm_segment.h"
#include "util/status.h"

#define WHY 256

typedef struct shm_card {
    char name[104];
    uint64_t len;
} shm_card;

static int make_name(char *out, size_t len, uint32_t ctx)
{
    char what[16];
    snprintf(what, sizeof what, "c%u-", ctx);
    return fm_shm_seg_name(out, len, what, fm_world_rank);
}

/* Step 1.  Returns our mapping or NULL (why written). */
static void *create_own(fm_crma *c, const char *name, char *why)
{
    const char *failed;
    void *m = fm_shm_seg_create(name, c->seg_len, &failed);
    if (!m && failed[0] == 'c')
        snprintf(why, WHY, "cannot create /dev/shm%s: %s", name, strerror(errno));
    else if (!m && failed[0] == 's')
        snprintf(why, WHY, "cannot size /dev/shm%s to %zu bytes: %s (free space in /dev/shm, "
                 "or lower FABMPI_COLL_CACHE_PAGES)", name, c->seg_len, strerror(errno));
    else if (!m)
        snprintf(why, WHY, "cannot map /dev/shm%s (%zu bytes): %s", name, c->seg_len,
                 strerror(errno));
    return m;
}

static void *map_peer(const shm_card *card, int rank, char *why)
{
    const char *failed;
    size_t len = (size_t)card->len;
    void *m = fm_shm_seg_map(card->name, &len, &failed);
    if (!m && failed[0] == 'o')
        snprintf(why, WHY, "member %d's cache /dev/shm%s is not reachable (%s): is it on "
                 "another node?", rank, card->name, strerror(errno));
    else if (!m)
        snprintf(why, WHY, "cannot map member %d's cache /dev/shm%s: %s", rank, card->name,
                 strerror(errno));
    return m;
}

/* Collective agreement: 1 when every member passes ok = 1. */
static int all_ok(MPI_Comm comm, int ok, int *rc)
{
    int in = ok, out = 0;
    *rc = fm_coll_allreduce(&in, &out, 1, MPI_INT, MPI_MIN, comm);
    return *rc == FM_OK && out == 1;
}

static void unmap_peers(fm_crma *c, int upto)
{
    for (int i = 0; i < upto; i++)
        if (i != c->rank && c->dir[i].local)
            munmap((void *)(uintptr_t)c->dir[i].local, c->dir[i].len);
}

static int shm_attach(fm_crma *c, MPI_Comm comm, char *why)
{
    shm_card own = {{0}, 0};
    shm_card *cards = calloc((size_t)c->size, sizeof *cards);
    int ok = !c->disabled && cards != NULL, rc;
    if (!ok)
        snprintf(why, WHY, "out of memory for the cache's bookkeeping");
    if (ok && !make_name(own.name, sizeof own.name, comm->ctx)) {
        snprintf(why, WHY, "cache segment name too long (FABMPI_JOBID=%s)", fm_param.JOBID);
        ok = 0;
    }
    /* Step 2 comes before the segment exists: members reach their first
     * one-sided call at different times, and a name should stay in
     * /dev/shm only for the moment it takes everyone present to map it. */
    if (!all_ok(comm, ok, &rc)) {
        free(cards);
        return rc != FM_OK ? rc : FM_ERR_NOMEM;
    }
    c->self = create_own(c, own.name, why);
    if (c->self) {
        if (fm_param.SHM_PREFAULT)
            fm_shm_touch(c->self, c->seg_len);
        own.len = c->seg_len; /* 0 tells the others we failed */
        fm_crma_stamp(c);
    }
    rc = fm_coll_allgather(&own, sizeof own, MPI_BYTE, cards, sizeof own, MPI_BYTE, comm);
    int mapped = 0;
    ok = rc == FM_OK && c->self != NULL;
    for (; ok && mapped < c->size; mapped++) {
        fm_crma_dirent *d = &c->dir[mapped];
        void *m = NULL;
        if (mapped == c->rank)
            m = c->self;
        else if (cards[mapped].len == c->seg_len && (m = map_peer(&cards[mapped], mapped, why)) &&
                 fm_param.SHM_PREFAULT)
            fm_shm_touch(m, c->seg_len); /* first calls at full speed (osu_bcast 64 B: 3x) */
        if (!m) {
            ok = 0;
            break;
        }
        d->local = (uint64_t)(uintptr_t)m;
        d->len = cards[mapped].len;
        d->raddr = 0;
        d->key = 0;
    }
    int agreed = all_ok(comm, ok, &rc);
    if (c->self)
        shm_unlink(own.name); /* step 5: every member is past its mapping */
    free(cards);
    if (agreed)
        return FM_OK;
    if (c->self) {
        unmap_peers(c, mapped);
        munmap(c->self, c->seg_len);
    }
    c->self = NULL;
    c->dir = NULL;
    return rc != FM_OK ? rc : FM_ERR_NET;
}

static void shm_detach(fm_crma *c)
{
    if (!c->self)
        return;
    unmap_peers(c, c->size);
    munmap(c->self, c->seg_len);
    c->self = NULL;
    c->dir = NULL;
}

static void *shm_direct(fm_crma *c, int peer, size_t off)
{
    return (unsigned char *)(uintptr_t)c->dir[peer].local + off;
}

static uint64_t shm_peek(fm_crma *c, int peer, size_t off)
{
    const fm_crma_word *w = shm_direct(c, peer, off);
    return atomic_load_explicit(&w->v, memory_order_acquire);
}

static int shm_put(fm_crma *c, int peer, size_t off, const void *src, size_t len)
{
    memcpy(shm_direct(c, peer, off), src, len);
    return FM_OK;
}

static int shm_flag(fm_crma *c, int peer, size_t off, uint64_t val)
{
    fm_crma_word *w = shm_direct(c, peer, off);
    atomic_store_explicit(&w->v, val, memory_order_release);
    return FM_OK;
}

const fm_crma_backend fm_crma_shm = {
    .name = "shm",
    .attach = shm_attach,
    .detach = shm_detach,
    .peek = shm_peek,
    .direct = shm_direct,
    .put = shm_put,
    .flag = shm_flag,
};
