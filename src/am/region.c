/* region.c — regions: memory of this process that peers map or reach by
 * one-sided transfers (am/region.h). */
#include "am/region.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "am/xfer.h"
#include "util/shm_segment.h"
#include "util/status.h"

int fm_region_alloc(fm_region *r, size_t len, size_t reserve, unsigned how, const char **failed)
{
    *r = (fm_region){.len = len, .fd = -1, .owned = 1};
    void *m;
    if (how & FM_REGION_SHARED) {
        m = fm_shm_anon_create(len, reserve, &r->fd, failed);
    } else {
        /* Private memory is counted against the commit limit whole or not
         * at all. */
        m = mmap(NULL, len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | (reserve ? 0 : MAP_NORESERVE), -1, 0);
        if (m == MAP_FAILED) {
            m = NULL;
            *failed = "map";
        }
    }
    if (!m) {
        *r = (fm_region){.fd = -1};
        return FM_ERR_NOMEM;
    }
    r->base = m;
    return FM_OK;
}

void fm_region_wrap(fm_region *r, void *base, size_t len)
{
    *r = (fm_region){.base = base, .len = len, .fd = -1};
}

void fm_region_register(fm_region *r, fm_region_net_card *card)
{
    memset(card, 0, sizeof *card);
    fm_net *n = fm_xfer_net();
    if (!n || !r->len)
        return;
    size_t eplen = fm_net_rma_name(n, card->ep, sizeof card->ep);
    if (!eplen)
        return;
    if (!r->mr) {
        if (fm_net_rma_reg(n, r->base, r->len, &r->mr, &r->key, &r->raddr) != FM_OK) {
            r->mr = NULL;
            memset(card, 0, sizeof *card);
            return;
        }
        r->net = n;
    }
    card->ok = 1;
    card->eplen = (int32_t)eplen;
    card->key = r->key;
    card->raddr = r->raddr;
}

void fm_region_describe(const fm_region *r, fm_region_node_card *card)
{
    *card = (fm_region_node_card){(uint64_t)(uintptr_t)r->base, r->len, (int32_t)getpid(),
                                  r->fd};
}

void fm_region_seal(fm_region *r)
{
    if (r->fd >= 0)
        close(r->fd);
    r->fd = -1;
}

void fm_region_deregister(fm_region *r)
{
    if (r->mr)
        fm_net_rma_dereg(r->net, r->mr);
    r->mr = NULL;
    r->net = NULL;
}

void fm_region_free(fm_region *r)
{
    fm_region_deregister(r);
    fm_region_seal(r);
    if (r->owned && r->base)
        munmap(r->base, r->len);
    *r = (fm_region){.fd = -1};
}

void *fm_region_map(const fm_region_node_card *card, const char **failed)
{
    if (card->fd < 0 || !card->len) {
        errno = ENOENT; /* private memory: nothing to open */
        *failed = "open";
        return NULL;
    }
    return fm_shm_anon_map(card->pid, card->fd, (size_t)card->len, failed);
}

void fm_region_unmap(void *mapped, const fm_region_node_card *card)
{
    if (mapped)
        munmap(mapped, (size_t)card->len);
}

int fm_region_reach(int world, const fm_region_net_card *card)
{
    fm_net *n = fm_xfer_net();
    return n && card->ok && card->eplen > 0 && card->eplen <= FM_REGION_EP_MAX &&
           fm_net_rma_insert(n, world, card->ep, (size_t)card->eplen) == FM_OK;
}
