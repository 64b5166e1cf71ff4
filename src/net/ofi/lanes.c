/* lanes.c — the OFI transport's lane instances (fm_net_ofi_lanes[1 ..]):
 * with FABMPI_VCIS=n, each of the n - 1 lanes of core/vci.h carries its
 * communicators' point-to-point traffic to OFI peers on an instance of its
 * own, so threads on different lanes never share a lock or a provider
 * object.
 *
 * A lane's instance opens its own fabric, domain, address vector, endpoint,
 * completion queue and buffers on the main instance's provider.  The
 * providers are opened FI_THREAD_DOMAIN (the application serializes each
 * domain): a domain per lane is what lets two lanes' threads call the
 * provider at once, each under its own lane's lock.  Its endpoint's name
 * goes through the bootstrap under a key of its own, and lane i here sends
 * to lane i at every peer (both pick the lane from the context id).
 *
 * What stays on the main instance: collectives, one-sided and
 * active-message traffic (they run on fm_vci0), thread grouping's
 * contexts, and rendezvous by fi_read (its registrations and keys are
 * process-wide).  A lane's rendezvous streams instead (RTS, CTS, DATA
 * chunks on the lane): its instance has no FM_NET_CAP_PULL. */
#include <stdio.h>
#include <string.h>

#include "boot/boot.h"
#include "boot/world.h"
#include "net/net.h"
#include "net/ofi/ofi.h"
#include "util/log.h"
#include "util/param.h"
#include "util/status.h"

static fm_ofi_state lane_state[FM_NET_LANES_MAX];

static fm_ofi_state *state_of(const fm_net *n) { return &lane_state[n - fm_net_ofi_lanes]; }

static int lane_init(fm_net *n)
{
    fm_ofi_state *s = state_of(n);
    int lane = (int)(n - fm_net_ofi_lanes);
    memset(s, 0, sizeof *s);
    s->lane = lane;
    s->net = n;
    snprintf(s->addr_key, sizeof s->addr_key, "fm.ofi.addr.%d", lane);
    int rc = FM_ERR_NET;
    if (!fm_ofi.up)
        fm_error_msg("ofi: lane %d opened before the OFI transport", lane);
    else if (!(s->info = fi_dupinfo(fm_ofi.info)))
        rc = FM_ERR_NOMEM;
    else if ((rc = fm_ofi_size_state(s)) == FM_OK)
        rc = fm_ofi_open_endpoint(s);
    /* Every rank publishes and fences, failed or not. */
    if ((rc = fm_ofi_publish(s, rc)) != FM_OK) {
        fm_ofi_close_state(s);
        return rc;
    }
    n->caps = FM_NET_CAP_REMOTE;
    fm_log(2, "ofi: lane %d has its own endpoint and completion queue (provider %s)", lane,
           s->info->fabric_attr->prov_name);
    return FM_OK;
}

static int lane_reaches(int peer, const fm_net *n)
{
    return state_of(n)->up && peer >= 0 && peer < fm_world_size;
}

static int lane_send(int peer, const void *hdr, size_t hlen, const void *payload, size_t plen,
                     fm_net *n)
{
    return fm_ofi_send_at(peer, hdr, hlen, payload, plen, state_of(n));
}

static int lane_poll(fm_net_deliver_fn *cb, fm_net *n) { return fm_ofi_poll_at(state_of(n), cb); }

/* As the main instance's: every rank flushes, then all fence before any
 * endpoint of this lane closes. */
static void lane_finalize(fm_net *n)
{
    fm_ofi_state *s = state_of(n);
    if (!s->info)
        return;
    fm_ofi_quiesce(s);
    fm_ofi_close_state(s);
}

static void lane_retune(fm_net *n) { n->eager_limit = fm_ofi_eager_limit(state_of(n)); }

static const fm_net_ops lane_ops = {
    .name = "ofi",
    .init = lane_init,
    .reaches = lane_reaches,
    .send = lane_send,
    .poll = lane_poll,
    .finalize = lane_finalize,
    .retune = lane_retune,
};

#define LANE_OPS(i) [i] = {.ops = &lane_ops}
fm_net fm_net_ofi_lanes[FM_NET_LANES_MAX] = {
    LANE_OPS(1),  LANE_OPS(2),  LANE_OPS(3),  LANE_OPS(4),  LANE_OPS(5),
    LANE_OPS(6),  LANE_OPS(7),  LANE_OPS(8),  LANE_OPS(9),  LANE_OPS(10),
    LANE_OPS(11), LANE_OPS(12), LANE_OPS(13), LANE_OPS(14), LANE_OPS(15),
};
