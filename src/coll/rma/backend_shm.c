/* backend_shm.c — the cache backend for members on one node: each member's
 * segment is a shared region of the active-message layer (am/region.h:
 * nameless memory, mapped by peers through /proc) every member maps, so a
 * "put" is a store and a flag is a release store.
 *
 * Setup (the same steps on every member, so the collectives pair up even
 * when one member fails):
 *   1. make our region of c->seg_len bytes, the memory of all but the
 *      large area taken now (a lack of it fails here, not as a SIGBUS
 *      later) and touched when FABMPI_SHM_PREFAULT says so;
 *   2. allgather the node cards (length 0: making it failed); map every
 *      member's region;
 *   3. allreduce(min) of "mapped all": when it returns, every member has
 *      mapped ours (or given up), so
 *   4. seal our region: its descriptor is closed and only mappings hold
 *      the memory.  Nothing has a name, so nothing is left behind however
 *      the job ends.
 * The collectives are the communicator's two-sided ones. */
#include "coll/rma/cache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "am/region.h"
#include "coll/coll.h"
#include "core/comm.h"
#include "util/copy.h"
#include "util/param.h"
#include "util/shm_segment.h"
#include "util/status.h"

#define WHY 256

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
            fm_region_unmap((void *)(uintptr_t)c->dir[i].local,
                            &(fm_region_node_card){.len = c->dir[i].len});
}

static int shm_attach(fm_crma *c, MPI_Comm comm, char *why)
{
    fm_region_node_card own = {0, 0, 0, -1};
    fm_region_node_card *cards = calloc((size_t)c->size, sizeof *cards);
    fm_region *r = calloc(1, sizeof *r);
    const char *failed = "";
    if (!cards || !r || c->disabled) {
        snprintf(why, WHY, "out of memory for the cache's bookkeeping");
    } else if (fm_region_alloc(r, c->seg_len, c->taken_len, FM_REGION_SHARED, &failed) !=
               FM_OK) {
        snprintf(why, WHY, "cannot %s the %zu-byte cache (shared memory): %s (lower "
                 "FABMPI_COLL_CACHE_PAGES)", failed, c->seg_len, strerror(errno));
    } else {
        c->self = r->base;
        c->be_state = r;
        if (fm_param.SHM_PREFAULT)
            fm_shm_touch(c->self, c->taken_len);
        fm_region_describe(r, &own); /* len 0 tells the others we failed */
        fm_crma_stamp(c);
    }
    fm_region_node_card dummy[1];
    int rc = fm_coll_allgather(&own, sizeof own, MPI_BYTE, cards ? (void *)cards : dummy,
                               cards ? (MPI_Count)sizeof own : 0, MPI_BYTE, comm);
    int mapped = 0, ok = rc == FM_OK && c->self != NULL;
    for (; ok && mapped < c->size; mapped++) {
        fm_crma_dirent *d = &c->dir[mapped];
        void *m = NULL;
        if (mapped == c->rank) {
            m = c->self;
        } else if (cards[mapped].len != c->seg_len) {
            snprintf(why, WHY, "member %d could not make its cache", mapped);
        } else if (!(m = fm_region_map(&cards[mapped], &failed))) {
            snprintf(why, WHY, "cannot %s member %d's cache (process %d, descriptor %d): %s",
                     failed, mapped, (int)cards[mapped].pid, (int)cards[mapped].fd,
                     strerror(errno));
        } else if (fm_param.SHM_PREFAULT) {
            fm_shm_touch(m, c->taken_len); /* first calls at full speed (osu_bcast 64 B: 3x) */
        }
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
    if (c->be_state)
        fm_region_seal(r); /* step 4: every member is past its mapping */
    free(cards);
    if (agreed)
        return FM_OK;
    if (c->self) {
        unmap_peers(c, mapped);
        fm_region_free(r);
    }
    free(r);
    c->be_state = NULL;
    c->self = NULL;
    c->dir = NULL;
    return rc != FM_OK ? rc : FM_ERR_NET;
}

static void shm_detach(fm_crma *c)
{
    if (!c->self)
        return;
    unmap_peers(c, c->size);
    fm_region_free(c->be_state);
    free(c->be_state);
    c->be_state = NULL;
    c->self = NULL;
    c->dir = NULL;
}

static void *shm_direct(fm_crma *c, int peer, size_t off) { return fm_crma_mapped(c, peer, off); }

/* peek and flag are the inline loads and stores of cache.h (every segment
 * is mapped here), for callers that go through the table. */
static uint64_t shm_peek(fm_crma *c, int peer, size_t off) { return fm_crma_peek(c, peer, off); }

static int shm_put(fm_crma *c, int peer, size_t off, const void *src, size_t len)
{
    fm_copy(shm_direct(c, peer, off), src, len);
    return FM_OK;
}

static int shm_flag(fm_crma *c, int peer, size_t off, uint64_t val)
{
    return fm_crma_signal(c, peer, off, val);
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
