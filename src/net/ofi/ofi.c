/* ofi.c — the libfabric transport's ops: bring-up (provider, fabric,
 * domain, endpoint, CQ, AV, buffers), address exchange through the
 * bootstrap, teardown, and the OFI section of fabmpi_info. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot/boot.h"
#include "boot/world.h"
#include "net/net.h"
#include "net/ofi/fabric_load.h"
#include "net/ofi/ofi.h"
#include "net/ofi/ofi_info.h"
#include "net/ofi/quirks.h"
#include "net/ofi/tag.h"
#include "util/fabric_shm.h"
#include "util/log.h"
#include "util/param.h"
#include "util/status.h"

fm_ofi_state fm_ofi;

static int single_node(void) { return fm_local_size > 0 && fm_local_size == fm_world_size; }

static int fail(const char *what, int rc)
{
    fm_error_msg("ofi: %s failed with provider %s: %s", what,
                 fm_ofi.info ? fm_ofi.info->fabric_attr->prov_name : "?", fi_strerror(-rc));
    return FM_ERR_NET;
}

int fm_ofi_open_endpoint(fm_ofi_state *s)
{
    struct fi_info *i = s->info;
    int rc;
    if ((rc = fi_fabric(i->fabric_attr, &s->fabric, NULL)))
        return fail("fi_fabric", rc);
    if ((rc = fi_domain(s->fabric, i, &s->domain, NULL)))
        return fail("fi_domain", rc);
    if ((rc = fm_ofi_ctx_plan(s)) != FM_OK)
        return rc;
    /* Every rank's context 0, and its other contexts when those are
     * endpoints of their own (a scalable endpoint's share its address). */
    size_t per_rank = s->rx_ctx_bits ? 1 : (size_t)s->max_ctx;
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE, .count = (size_t)fm_world_size * per_rank,
                                 .rx_ctx_bits = s->rx_ctx_bits};
    if ((rc = fi_av_open(s->domain, &av_attr, &s->av, NULL)))
        return fail("fi_av_open", rc);
    return fm_ofi_ctx_open_first(s);
}

void fm_ofi_close_state(fm_ofi_state *s)
{
    fm_ofi_ctx_close_all(s);
    free(s->events);
    if (s->av)
        fi_close(&s->av->fid);
    if (s->domain)
        fi_close(&s->domain->fid);
    if (s->fabric)
        fi_close(&s->fabric->fid);
    if (s->info)
        fi_freeinfo(s->info);
    free(s->addr);
    fm_net *n = s->net;
    memset(s, 0, sizeof *s);
    if (n)
        n->caps = 0;
}

static void close_all(void)
{
    fm_ofi_rndv_teardown(); /* rendezvous registrations, before their domain */
    fm_ofi_rma_close(); /* the windows' endpoint (rma.c), if one opened */
    fm_ofi_close_state(&fm_ofi);
}

int fm_ofi_size_state(fm_ofi_state *s)
{
    s->addr = malloc((size_t)fm_world_size * sizeof *s->addr);
    s->nevents = (int)fm_param.OFI_PROGRESS_EVENT_CNT;
    s->events = calloc((size_t)s->nevents, sizeof *s->events);
    if (!s->addr || !s->events)
        return FM_ERR_NOMEM;
    for (int p = 0; p < fm_world_size; p++)
        s->addr[p] = FI_ADDR_NOTAVAIL;
    /* Whole wire messages up to this size go by fi_inject (no completion,
     * buffer free at once); larger ones through a bounce buffer. */
    s->inject_size = s->info->tx_attr->inject_size;
    if (s->inject_size > 4096)
        s->inject_size = 4096;
    s->ntx = (int)fm_param.OFI_TX_BUFS;
    s->nrx = (int)fm_param.OFI_RX_BUFS;
    s->buf_size = (fm_param.OFI_BUF_SIZE + 63) & ~(size_t)63;
    size_t prov_max = s->info->ep_attr->max_msg_size;
    if (prov_max && s->buf_size > prov_max)
        s->buf_size = prov_max & ~(size_t)63;
    fm_net *n = s->net;
    n->max_msg = s->buf_size - sizeof(fm_ofi_wire);
    /* MPI's order holds only for messages the provider completes in order
     * (quirks.c: ofi_rxm's eager size, 16 KiB with its own header), so
     * eager sends stay below that whatever FABMPI_OFI_EAGER_LIMIT says,
     * and so do the transport's ordered messages (8 KiB at most). */
    size_t ordered = fm_ofi_ordered_bytes(s->info->fabric_attr->prov_name);
    size_t ordered_msg = ordered > sizeof(fm_ofi_wire) ? ordered - sizeof(fm_ofi_wire) : 0;
    if (ordered_msg > n->max_msg)
        ordered_msg = n->max_msg;
    if (ordered_msg < 1024) { /* active messages and rendezvous need some room */
        fm_error_msg("ofi: %s completes messages in order only up to %zu bytes (%s); fabmpi "
                     "needs 1024: raise FI_OFI_RXM_BUFFER_SIZE",
                     s->info->fabric_attr->prov_name, ordered_msg,
                     fm_ofi_quirk_why(s->info->fabric_attr->prov_name,
                                      FM_OFI_QUIRK_ORDER_LIMITED));
        return FM_ERR_NET;
    }
    n->ordered_max = ordered_msg < 8192 ? ordered_msg : 8192;
    s->eager_cap = ordered_msg > sizeof(fm_hdr_rndv) ? ordered_msg - sizeof(fm_hdr_rndv) : 0;
    n->eager_limit = fm_ofi_eager_limit(s);
    if (fm_param.OFI_EAGER_LIMIT > s->eager_cap && !s->lane && fm_world_rank == 0)
        fm_warn("ofi: FABMPI_OFI_EAGER_LIMIT=%zu is more than %s delivers in order (%s); "
                "messages over %zu bytes go by rendezvous",
                (size_t)fm_param.OFI_EAGER_LIMIT, s->info->fabric_attr->prov_name,
                fm_ofi_quirk_why(s->info->fabric_attr->prov_name, FM_OFI_QUIRK_ORDER_LIMITED),
                s->eager_cap);
    return FM_OK;
}

size_t fm_ofi_eager_limit(const fm_ofi_state *s)
{
    size_t want = fm_param.OFI_EAGER_LIMIT;
    return want < s->eager_cap ? want : s->eager_cap;
}

/* Choose a provider and open everything; logs why on failure. */
static int bring_up(void)
{
    fm_ofi_state *s = &fm_ofi;
    s->net = &fm_net_ofi;
    snprintf(s->addr_key, sizeof s->addr_key, "fm.ofi.addr");
    /* libfabric is opened here, on first use (fabric_load.c). */
    const char *lwhy = NULL;
    if (fm_fabric_load(&lwhy)) {
        fm_error_msg("ofi: %s needs the libfabric transport, but %s could not be loaded: %s; "
                     "install libfabric1 (Debian), or use FABMPI_NET=shm with every rank on "
                     "one node",
                     fm_param.NET == FM_NET_OFI ? "FABMPI_NET=ofi" : "reaching ranks on other nodes",
                     FM_FABRIC_SONAME, lwhy);
        return FM_ERR_NET;
    }
    struct fi_info *list = NULL;
    int rc = fm_ofi_getinfo(&list);
    char why[1024];
    struct fi_info *pick = fm_ofi_choose(list, fm_param.OFI_PROVIDER_INCLUDE,
                                         fm_param.OFI_PROVIDER_EXCLUDE, fm_param.OFI_DOMAIN,
                                         single_node(), why, sizeof why);
    if (!pick) {
        if (!list && rc != 0 && rc != -FI_ENODATA)
            fm_error_msg("ofi: fi_getinfo failed: %s", fi_strerror(-rc));
        fm_error_msg("ofi: %s", why);
        fi_freeinfo(list);
        return FM_ERR_NET;
    }
    s->info = fi_dupinfo(pick);
    fi_freeinfo(list);
    if (!s->info)
        return FM_ERR_NOMEM;
    /* No endpoint of ours exists yet, so any shm region under our pid is a
     * dead process's, and would make shm's fi_enable fail (fabric_shm.c). */
    int stale = fm_fabric_shm_remove(getpid());
    if (stale)
        fm_log(1, "ofi: removed %d libfabric shm region(s) a dead process left under our pid", stale);
    if ((rc = fm_ofi_size_state(s)) != FM_OK || (rc = fm_ofi_open_endpoint(s)) != FM_OK)
        return rc;
    fm_net_ofi.caps |= FM_NET_CAP_REMOTE;
    return FM_OK;
}

int fm_ofi_publish(fm_ofi_state *s, int rc)
{
    char name[512];
    size_t len = 0;
    if (rc == FM_OK) {
        len = sizeof name;
        int frc = fi_getname(s->sep ? &s->sep->fid : &s->c0.tx->fid, name, &len);
        if (frc) {
            fail("fi_getname", frc);
            rc = FM_ERR_NET;
            len = 0;
        }
    }
    /* Publish (an empty address on failure) and fence on every rank, so a
     * failing rank does not leave the others waiting in a fence. */
    fm_boot_put(s->addr_key, name, len);
    int frc = fm_boot_fence();
    if (rc == FM_OK && frc != FM_OK)
        rc = frc;
    if (rc != FM_OK)
        return rc;
    s->up = 1;
    if (fm_param.OFI_CONNECT == FM_OFI_CONNECT_STATIC)
        for (int p = 0; p < fm_world_size && rc == FM_OK; p++)
            rc = fm_ofi_connect_at(s, p);
    return rc;
}

static int ofi_init(fm_net *n)
{
    (void)n; /* the main instance: fm_net_ofi (lanes.c has the lanes') */
    fm_ofi_state *s = &fm_ofi;
    int rc = bring_up();
    /* The RMA endpoint for rendezvous reads publishes its address too
     * (empty when off or failed); rma.c opens only while we are up.  It
     * needs our endpoint name taken first, so publishing comes after. */
    s->up = rc == FM_OK;
    if (rc != FM_OK)
        fm_boot_put("fm.ofi.rma", "", 0);
    else if (fm_ofi_rndv_init())
        fm_net_ofi.caps |= FM_NET_CAP_PULL;
    s->up = 0;
    if ((rc = fm_ofi_publish(s, rc)) != FM_OK) {
        close_all();
        return rc;
    }
    fm_log(1, "ofi: provider %s, fabric %s, domain %s; inject %zu bytes, max message %zu bytes, "
              "%d+%d buffers, %s connections, rendezvous by %s; %s",
           s->info->fabric_attr->prov_name, s->info->fabric_attr->name, s->info->domain_attr->name,
           s->inject_size, fm_net_ofi.max_msg, s->ntx, s->nrx,
           fm_param.OFI_CONNECT == FM_OFI_CONNECT_STATIC ? "static" : "dynamic",
           fm_ofi_rndv.on ? "fi_read + FIN" : "CTS + DATA chunks",
           !s->routes  ? "one context"
           : s->sep    ? "thread grouping on a scalable endpoint"
                       : "thread grouping on endpoints");
    if (s->routes)
        fm_log(1, "ofi: thread grouping: up to %d contexts (FABMPI_OFI_CONTEXTS)", s->max_ctx);
    return FM_OK;
}

static int ofi_reaches(int peer, const fm_net *n)
{
    (void)n;
    return fm_ofi.up && peer >= 0 && peer < fm_world_size;
}

static int ofi_send(int peer, const void *hdr, size_t hlen, const void *payload, size_t plen,
                    fm_net *n)
{
    (void)n;
    return fm_ofi_send_at(peer, hdr, hlen, payload, plen, &fm_ofi);
}

/* remote_addr is the handle fm_ofi_rndv_arrived put into the RTS. */
static int ofi_pull(int peer, void *local, uint64_t remote_addr, size_t len, fm_net *n)
{
    (void)n;
    return fm_ofi_rndv_pull(peer, local, remote_addr, len);
}

static int ofi_poll(fm_net_deliver_fn *cb, fm_net *n)
{
    (void)n;
    return fm_ofi_poll(cb);
}

static void ofi_finalize(fm_net *n)
{
    (void)n;
    if (!fm_ofi.info)
        return;
    fm_ofi_quiesce(&fm_ofi);
    close_all();
}

void fm_ofi_quiesce(fm_ofi_state *s)
{
    /* Every rank flushes, then all fence before any endpoint closes: a
     * closed peer would leave our flush (and the provider's reconnect
     * attempts) hanging until the timeout. */
    if (s->up)
        fm_ofi_flush_at(s);
    s->up = 0;
    fm_boot_fence();
}

static void ofi_retune(fm_net *n) { n->eager_limit = fm_ofi_eager_limit(&fm_ofi); }

static size_t ofi_comm_card(void *card, size_t len, fm_net *n)
{
    (void)n;
    return fm_ofi_comm_card(card, len);
}

static int ofi_comm_join(uint32_t ctx, int nmembers, const int *world, const void *cards,
                         size_t len, fm_net *n)
{
    (void)n;
    return fm_ofi_comm_join(ctx, nmembers, world, cards, len);
}

static void ofi_comm_abandon(const void *card, fm_net *n)
{
    (void)n;
    fm_ofi_comm_abandon(card);
}

static void ofi_comm_leave(uint32_t ctx, fm_net *n)
{
    (void)n;
    fm_ofi_comm_leave(ctx);
}

static const fm_net_ops ofi_ops = {
    .name = "ofi",
    .init = ofi_init,
    .reaches = ofi_reaches,
    .send = ofi_send,
    .pull = ofi_pull,
    .poll = ofi_poll,
    .finalize = ofi_finalize,
    .retune = ofi_retune,
    .rma = &fm_ofi_rma_ops,
    .comm_card = ofi_comm_card,
    .comm_join = ofi_comm_join,
    .comm_abandon = ofi_comm_abandon,
    .comm_leave = ofi_comm_leave,
};

fm_net fm_net_ofi = {.ops = &ofi_ops}; /* caps and limits: set by init() */

void fm_ofi_print_info(FILE *out)
{
    const char *lwhy = NULL;
    if (fm_fabric_load(&lwhy)) {
        fprintf(out, "  ofi          %s could not be loaded: %s\n", FM_FABRIC_SONAME, lwhy);
        return;
    }
    struct fi_info *list = NULL;
    int rc = fm_ofi_getinfo(&list);
    fprintf(out, "  ofi          libfabric %u.%u (built against %u.%u)\n",
            FI_MAJOR(fi_version()), FI_MINOR(fi_version()), FI_MAJOR_VERSION, FI_MINOR_VERSION);
    if (!list) {
        fprintf(out, "  ofi          no provider fits (fi_getinfo: %s)\n", fi_strerror(-rc));
        return;
    }
    char names[512];
    fm_ofi_provider_names(list, 0, names, sizeof names);
    fprintf(out, "  ofi/found    %s\n", names);
    for (struct fi_info *i = list; i; i = i->next) {
        const char *prov = i->fabric_attr->prov_name;
        if (fm_ofi_provider_first(list, i) && (fm_ofi_quirks(prov) & FM_OFI_QUIRK_UNRELIABLE))
            fprintf(out, "  ofi/refused  %s: %s\n", prov,
                    fm_ofi_quirk_why(prov, FM_OFI_QUIRK_UNRELIABLE));
    }
    for (int sn = 1; sn >= 0; sn--) {
        char why[1024];
        struct fi_info *p = fm_ofi_choose(list, fm_param.OFI_PROVIDER_INCLUDE,
                                          fm_param.OFI_PROVIDER_EXCLUDE, fm_param.OFI_DOMAIN, sn,
                                          why, sizeof why);
        if (p)
            fprintf(out, "  ofi/chosen   %s: provider %s, fabric %s, domain %s, inject %zu, "
                         "cq data %zu bytes, scalable endpoint contexts %zu\n",
                    sn ? "one node" : "across nodes", p->fabric_attr->prov_name,
                    p->fabric_attr->name, p->domain_attr->name, p->tx_attr->inject_size,
                    p->domain_attr->cq_data_size,
                    p->domain_attr->max_ep_rx_ctx < p->domain_attr->max_ep_tx_ctx
                        ? p->domain_attr->max_ep_rx_ctx
                        : p->domain_attr->max_ep_tx_ctx);
        if (p) /* what FABMPI_PT2PT=ofi would give on it */
            fm_ofi_tag_print_limits(out, p->ep_attr->mem_tag_format, p->domain_attr->cq_data_size,
                                    (p->caps & FI_DIRECTED_RECV) != 0, FM_MAX_CONTEXTS / 2);
        else
            fprintf(out, "  ofi/chosen   %s: none: %s\n", sn ? "one node" : "across nodes", why);
    }
    fi_freeinfo(list);
}
