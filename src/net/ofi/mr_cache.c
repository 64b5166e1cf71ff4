/* mr_cache.c — local registrations of one-sided transfers, cached by page
 * range (mr_cache.h says when and why).
 *
 * A short list, most recently used first: the transfers of a program come
 * from few buffers, and the front entry answers almost every lookup.  The
 * memory hooks may drop entries from any thread at any time, so the list
 * has a mutex of its own; it is never held across a libfabric call (a
 * provider that unmaps memory of its own inside fi_mr_reg would come back
 * here through the hooks).  Dropped registrations wait on a second list
 * until no operation is in flight on the endpoint, since one of them may
 * still use the descriptor. */
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>

#include "net/ofi/mr_cache.h"
#include "util/log.h"
#include "util/mem_hooks.h"
#include "util/param.h"
#include "util/pvar.h"
#include "util/status.h"

typedef struct mr_entry {
    uintptr_t lo, hi; /* whole pages */
    struct fid_mr *mr;
    void *desc;
    struct mr_entry *next;
} mr_entry;

static struct {
    struct fid_domain *domain;
    uint64_t *key_next;
    pthread_mutex_t lock; /* live and dead, against the hooks */
    mr_entry *live;       /* most recently used first */
    long nlive;
    mr_entry *dead;       /* dropped, to close when nothing is in flight */
    uintptr_t page;
} C = {.lock = PTHREAD_MUTEX_INITIALIZER};

int fm_ofi_mr_cache_on;
long fm_ofi_mr_inflight;

/* Move *pp from the live list to the dead one (*pp becomes its successor). */
static void drop(mr_entry **pp)
{
    mr_entry *e = *pp;
    *pp = e->next;
    e->next = C.dead;
    C.dead = e;
    C.nlive--;
}

/* The memory hooks: [lo, hi) leaves the address space. */
static void pages_gone(uintptr_t lo, uintptr_t hi)
{
    pthread_mutex_lock(&C.lock);
    for (mr_entry **pp = &C.live; *pp;) {
        if ((*pp)->lo < hi && lo < (*pp)->hi) {
            drop(pp);
            FM_PV_INC(ofi_mr_cache_invalidated);
        } else {
            pp = &(*pp)->next;
        }
    }
    pthread_mutex_unlock(&C.lock);
}

void fm_ofi_mr_cache_open(struct fid_domain *domain, uint64_t *key_next, int pinned)
{
    int mode = (int)fm_param.OFI_MR_CACHE;
    fm_ofi_mr_cache_on = mode == FM_OFI_MR_CACHE_ON || (mode == FM_OFI_MR_CACHE_AUTO && pinned);
    if (!fm_ofi_mr_cache_on)
        return;
    C.domain = domain;
    C.key_next = key_next;
    C.page = (uintptr_t)sysconf(_SC_PAGESIZE);
    fm_mem_hooks_watch(pages_gone);
    if (pinned) {
        /* glibc frees by unmapping through names the hooks do not see:
         * keep freed memory mapped (the ibv conduit's DISABLE_MUNMAP). */
        mallopt(M_MMAP_MAX, 0);
        mallopt(M_TRIM_THRESHOLD, -1);
    }
    fm_log(1, "ofi/rma: local registrations cached (at most %ld)%s",
           (long)fm_param.OFI_MR_CACHE_ENTRIES,
           pinned ? "; the provider pins them, so malloc keeps freed memory mapped" : "");
}

int fm_ofi_mr_desc(const void *buf, size_t len, void **desc)
{
    *desc = NULL;
    if (!len)
        return FM_OK;
    uintptr_t a = (uintptr_t)buf, b = a + len;
    pthread_mutex_lock(&C.lock);
    for (mr_entry **pp = &C.live; *pp; pp = &(*pp)->next) {
        mr_entry *e = *pp;
        if (e->lo <= a && b <= e->hi) {
            if (pp != &C.live) { /* to the front */
                *pp = e->next;
                e->next = C.live;
                C.live = e;
            }
            *desc = e->desc;
            pthread_mutex_unlock(&C.lock);
            FM_PV_INC(ofi_mr_cache_hits);
            return FM_OK;
        }
    }
    pthread_mutex_unlock(&C.lock);
    FM_PV_INC(ofi_mr_cache_misses);
    fm_ofi_mr_reap();
    mr_entry *e = malloc(sizeof *e);
    if (!e)
        return FM_ERR_NOMEM;
    e->lo = a & ~(C.page - 1);
    e->hi = (b + C.page - 1) & ~(C.page - 1);
    uint64_t key = C.key_next ? ++*C.key_next : 0;
    int rc = fi_mr_reg(C.domain, (void *)e->lo, e->hi - e->lo, FI_READ | FI_WRITE, 0, key, 0,
                       &e->mr, NULL);
    if (rc) {
        fm_error_msg("ofi/rma: registering %zu local bytes at %p for a one-sided transfer "
                     "failed: %s", (size_t)(e->hi - e->lo), (void *)e->lo, fi_strerror(-rc));
        free(e);
        return FM_ERR_NET;
    }
    e->desc = fi_mr_desc(e->mr);
    *desc = e->desc;
    pthread_mutex_lock(&C.lock);
    e->next = C.live;
    C.live = e;
    if (++C.nlive > (long)fm_param.OFI_MR_CACHE_ENTRIES) {
        mr_entry **pp = &C.live;
        while ((*pp)->next)
            pp = &(*pp)->next;
        drop(pp);
        FM_PV_INC(ofi_mr_cache_evicted);
    }
    pthread_mutex_unlock(&C.lock);
    return FM_OK;
}

void fm_ofi_mr_reap(void)
{
    if (fm_ofi_mr_inflight || !C.dead)
        return;
    pthread_mutex_lock(&C.lock);
    mr_entry *e = C.dead;
    C.dead = NULL;
    pthread_mutex_unlock(&C.lock);
    while (e) {
        mr_entry *next = e->next;
        fi_close(&e->mr->fid);
        free(e);
        e = next;
    }
}

void fm_ofi_mr_cache_close(void)
{
    fm_ofi_mr_inflight = 0; /* the endpoint is going: nothing completes any more */
    if (!fm_ofi_mr_cache_on)
        return;
    fm_mem_hooks_watch(NULL);
    pthread_mutex_lock(&C.lock);
    while (C.live)
        drop(&C.live);
    pthread_mutex_unlock(&C.lock);
    fm_ofi_mr_reap();
    fm_ofi_mr_cache_on = 0;
    C.domain = NULL;
}
