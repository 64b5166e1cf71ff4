/* groups.c — the OFI transport's contexts, and communicators routed to
 * contexts of their own (FABMPI_OFI_THREAD_GROUPING=1, after the OFI MTL's
 * thread grouping in seed ofi-mtl.txt).
 *
 * Context 0 is opened at init and carries everything by default.  With
 * grouping on, a communicator made by a blocking creation call picks a
 * context here (an unused one, else a new one while fewer than
 * FABMPI_OFI_CONTEXTS are open, else the least used: round-robin sharing)
 * and its members exchange their picks over the communicator itself
 * (coll/comm_contexts.c); from then on the messages it matches travel from
 * its context here to its context at each member.  Opening on demand means
 * a program with few communicators opens few contexts.
 *
 * Where the provider has scalable endpoints (domain_attr max_ep_tx_ctx and
 * max_ep_rx_ctx above 1: `sockets` here) the contexts are a scalable
 * endpoint's tx/rx context pairs and a member's context k is addressed as
 * fi_rx_addr(its address, k, rx_ctx_bits): nothing but k travels.
 * Elsewhere each context is an endpoint of its own, whose name travels in
 * the exchange and is inserted into the shared address vector once.
 * Every context has its own buffers, and completes into context 0's
 * completion queue: while one lock serializes every thread's calls
 * (core/cs.h) a poll reads one queue however many contexts are open.  With
 * a queue each, every poll read them all: on `net` each read is a pass of
 * the provider's progress, and 4 threads on their own communicators moved
 * 0.09 Mmsg/s against 0.15 with one context.  Threads that want locks of
 * their own use lanes (FABMPI_VCIS, lanes.c): whole instances, each with
 * its own queue, polled only by its lane's holder. */
#include <stdlib.h>
#include <string.h>

#include "boot/world.h"
#include "net/ofi/ofi.h"
#include "util/log.h"
#include "util/param.h"
#include "util/pvar.h"
#include "util/status.h"

static int fail(const char *what, int rc)
{
    fm_error_msg("ofi: %s failed with provider %s: %s", what,
                 fm_ofi.info ? fm_ofi.info->fabric_attr->prov_name : "?", fi_strerror(-rc));
    return FM_ERR_NET;
}

static int grouping(void) { return fm_param.OFI_THREAD_GROUPING != 0; }

int fm_ofi_ctx_plan(fm_ofi_state *s)
{
    s->max_ctx = 1;
    s->rx_ctx_bits = 0;
    if (!grouping() || s->lane)
        return FM_OK;
    const struct fi_domain_attr *d = s->info->domain_attr;
    size_t sep = d->max_ep_tx_ctx < d->max_ep_rx_ctx ? d->max_ep_tx_ctx : d->max_ep_rx_ctx;
    long want = fm_param.OFI_CONTEXTS ? fm_param.OFI_CONTEXTS : sep > 1 ? (long)sep : 16;
    if (sep > 1 && (size_t)want > sep) {
        fm_log(1, "ofi: FABMPI_OFI_CONTEXTS=%ld is more than provider %s's %zu scalable-endpoint "
                  "contexts: %zu", want, s->info->fabric_attr->prov_name, sep, sep);
        want = (long)sep;
    }
    s->max_ctx = want > FM_OFI_CTX_MAX ? FM_OFI_CTX_MAX : (int)want;
    if (sep > 1 && s->max_ctx > 1)
        while ((1 << s->rx_ctx_bits) < s->max_ctx)
            s->rx_ctx_bits++;
    s->routes = calloc(FM_MAX_CONTEXTS / 2, sizeof *s->routes);
    s->raddr = malloc((size_t)s->max_ctx * (size_t)fm_world_size * sizeof *s->raddr);
    if (!s->routes || !s->raddr)
        return FM_ERR_NOMEM;
    for (size_t i = 0; i < (size_t)s->max_ctx * (size_t)fm_world_size; i++)
        s->raddr[i] = FI_ADDR_NOTAVAIL;
    return FM_OK;
}

/* Close one context (any part of it that opened). */
static void close_ctx(fm_ofi_ctx *c)
{
    /* Endpoints first: they hold the posted receives into the slab. */
    if (c->rx && c->rx != c->tx)
        fi_close(&c->rx->fid);
    if (c->tx)
        fi_close(&c->tx->fid);
    c->rx = c->tx = NULL;
    fm_ofi_bufs_teardown(c);
    if (c->cq)
        fi_close(&c->cq->fid);
    c->cq = NULL;
}

static int setup_ctx(fm_ofi_state *s, fm_ofi_ctx *c, int k)
{
    int rc;
    struct fid_cq *cq = s->c0.cq;
    if (k == 0) {
        struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_TAGGED, .wait_obj = FI_WAIT_NONE};
        cq_attr.size = (size_t)(s->ntx + s->nrx) * 2 * (size_t)s->max_ctx;
        if ((rc = fi_cq_open(s->domain, &cq_attr, &c->cq, NULL)))
            return fail("fi_cq_open", rc);
        cq = c->cq;
    }
    if (s->sep) {
        if ((rc = fi_tx_context(s->sep, k, NULL, &c->tx, NULL)))
            return fail("fi_tx_context", rc);
        if ((rc = fi_rx_context(s->sep, k, NULL, &c->rx, NULL)))
            return fail("fi_rx_context", rc);
        if ((rc = fi_ep_bind(c->tx, &cq->fid, FI_TRANSMIT)))
            return fail("binding a tx context's completion queue", rc);
        if ((rc = fi_ep_bind(c->rx, &cq->fid, FI_RECV)))
            return fail("binding an rx context's completion queue", rc);
        if ((rc = fi_enable(c->tx)) || (rc = fi_enable(c->rx)))
            return fail("enabling a scalable endpoint's context", rc);
    } else {
        if ((rc = fi_endpoint(s->domain, s->info, &c->tx, NULL)))
            return fail("fi_endpoint", rc);
        c->rx = c->tx;
        if ((rc = fi_ep_bind(c->tx, &cq->fid, FI_TRANSMIT | FI_RECV)))
            return fail("binding the completion queue", rc);
        if ((rc = fi_ep_bind(c->tx, &s->av->fid, 0)))
            return fail("binding the address vector", rc);
        if ((rc = fi_enable(c->tx)))
            return fail("fi_enable", rc);
    }
    return fm_ofi_bufs_setup(s, c);
}

/* Open context k == nctx: the scalable endpoint's pair k, or an endpoint. */
static int open_ctx(fm_ofi_state *s, int k)
{
    fm_ofi_ctx *c = k == 0 ? &s->c0 : calloc(1, sizeof *c);
    if (!c)
        return FM_ERR_NOMEM;
    int rc = setup_ctx(s, c, k);
    if (rc != FM_OK) {
        close_ctx(c);
        if (k > 0)
            free(c);
        return rc;
    }
    s->ctx[k] = c;
    s->nctx = k + 1;
    if (k > 0) {
        FM_PV_INC(ofi_contexts_opened);
        fm_log(2, "ofi: context %d opened (%s)", k, s->sep ? "scalable endpoint" : "endpoint");
    }
    return FM_OK;
}

int fm_ofi_ctx_open_first(fm_ofi_state *s)
{
    int rc;
    if (s->rx_ctx_bits) {
        struct fi_info *i = s->info;
        i->ep_attr->tx_ctx_cnt = (size_t)s->max_ctx;
        i->ep_attr->rx_ctx_cnt = (size_t)s->max_ctx;
        if ((rc = fi_scalable_ep(s->domain, i, &s->sep, NULL)))
            return fail("fi_scalable_ep", rc);
        if ((rc = fi_scalable_ep_bind(s->sep, &s->av->fid, 0)))
            return fail("binding the address vector to the scalable endpoint", rc);
        if ((rc = open_ctx(s, 0)) != FM_OK)
            return rc;
        if ((rc = fi_enable(s->sep)))
            return fail("enabling the scalable endpoint", rc);
        return FM_OK;
    }
    return open_ctx(s, 0);
}

void fm_ofi_ctx_close_all(fm_ofi_state *s)
{
    for (int k = s->nctx - 1; k >= 0; k--) {
        close_ctx(s->ctx[k]);
        if (k > 0)
            free(s->ctx[k]);
        s->ctx[k] = NULL;
    }
    s->nctx = 0;
    if (s->sep)
        fi_close(&s->sep->fid);
    s->sep = NULL;
    if (s->routes)
        for (size_t i = 0; i < FM_MAX_CONTEXTS / 2; i++)
            free(s->routes[i]);
    free(s->routes);
    free(s->raddr);
    s->routes = NULL;
    s->raddr = NULL;
}

/* What a member tells the others about its context for a communicator. */
typedef struct card {
    uint32_t k;       /* its context */
    uint32_t namelen; /* 0 with a scalable endpoint (k addresses it) */
    char name[];      /* the context's endpoint name */
} card;

size_t fm_ofi_comm_card(void *buf, size_t len)
{
    fm_ofi_state *s = &fm_ofi;
    if (!s->routes || !s->up)
        return 0;
    /* An unused context, else a new one, else the least used. */
    int k = 0;
    if (s->max_ctx > 1) {
        for (int i = 1; i < s->nctx && !k; i++)
            if (s->ctx[i]->users == 0)
                k = i;
        if (!k && s->nctx < s->max_ctx && open_ctx(s, s->nctx) == FM_OK)
            k = s->nctx - 1;
        if (!k)
            for (int i = 1; i < s->nctx; i++)
                if (!k || s->ctx[i]->users < s->ctx[k]->users)
                    k = i;
    }
    fm_ofi_ctx *c = s->ctx[k];
    c->users++; /* now: a creation on another thread picks another one */
    card *cd = buf;
    memset(cd, 0, len);
    cd->k = (uint32_t)k;
    if (!s->sep && k > 0) {
        size_t nl = len - sizeof *cd;
        int rc = fi_getname(&c->tx->fid, cd->name, &nl);
        if (rc) {
            /* Still a card (the others wait for it): context 0's. */
            fail("fi_getname", rc);
            c->users--;
            s->c0.users++;
            memset(cd, 0, len);
        } else {
            cd->namelen = (uint32_t)nl;
        }
    }
    return len;
}

/* Address of world rank w's context k, inserting it on first use. */
static int learn(int w, const card *cd)
{
    fm_ofi_state *s = &fm_ofi;
    int k = (int)cd->k;
    fi_addr_t *a = &s->raddr[(size_t)k * (size_t)fm_world_size + (size_t)w];
    if (k == 0 || *a != FI_ADDR_NOTAVAIL)
        return FM_OK; /* context 0: connected on first send */
    if (s->sep) {
        int rc = s->addr[w] == FI_ADDR_NOTAVAIL ? fm_ofi_connect(w) : FM_OK;
        if (rc == FM_OK)
            *a = fi_rx_addr(s->addr[w], k, s->rx_ctx_bits);
        return rc;
    }
    int rc = fi_av_insert(s->av, cd->name, 1, a, 0, NULL);
    if (rc != 1) {
        *a = FI_ADDR_NOTAVAIL;
        fm_error_msg("ofi: inserting rank %d's context %d into the address vector failed: %s", w,
                     k, rc < 0 ? fi_strerror(-rc) : "address not accepted");
        return FM_ERR_NET;
    }
    return FM_OK;
}

int fm_ofi_comm_join(uint32_t ctx, int n, const int *world, const void *cards, size_t card_len)
{
    fm_ofi_state *s = &fm_ofi;
    const card *mine = NULL;
    for (int i = 0; i < n; i++)
        if (world[i] == fm_world_rank)
            mine = (const card *)(const void *)((const char *)cards + (size_t)i * card_len);
    if (!mine)
        return FM_ERR_ARG;
    fm_ofi_ctx *c = s->ctx[mine->k];
    fm_ofi_route *r = calloc(1, sizeof *r + (size_t)fm_world_size);
    int rc = r ? FM_OK : FM_ERR_NOMEM;
    for (int i = 0; i < n && rc == FM_OK; i++) {
        const card *cd = (const card *)(const void *)((const char *)cards + (size_t)i * card_len);
        if (cd->k >= FM_OFI_CTX_MAX || (!s->sep && cd->k && cd->namelen == 0) ||
            cd->namelen > card_len - sizeof *cd) {
            fm_error_msg("ofi: rank %d described its context for a communicator as %u (%u "
                         "bytes of name): FABMPI_OFI_THREAD_GROUPING must be the same on every rank",
                         world[i], cd->k, cd->namelen);
            rc = FM_ERR_NET;
            break;
        }
        if (world[i] != fm_world_rank)
            rc = learn(world[i], cd);
        r->ridx[world[i]] = (uint8_t)cd->k;
    }
    if (rc != FM_OK) {
        free(r);
        c->users--;
        return rc;
    }
    r->c = c;
    free(s->routes[ctx >> 1]);
    s->routes[ctx >> 1] = r;
    fm_log(2, "ofi: communicator of context id %u sends on context %u", ctx, mine->k);
    return FM_OK;
}

void fm_ofi_comm_abandon(const void *mycard)
{
    const card *cd = mycard;
    if (fm_ofi.routes && cd->k < (uint32_t)fm_ofi.nctx && fm_ofi.ctx[cd->k])
        fm_ofi.ctx[cd->k]->users--;
}

void fm_ofi_comm_leave(uint32_t ctx)
{
    fm_ofi_state *s = &fm_ofi;
    if (!s->routes)
        return;
    fm_ofi_route *r = s->routes[ctx >> 1];
    if (!r)
        return;
    r->c->users--;
    free(r);
    s->routes[ctx >> 1] = NULL;
    fm_log(2, "ofi: communicator of context id %u left its context", ctx);
}
