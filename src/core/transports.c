/* transports.c — transport bring-up, the per-peer choice, and their poll
 * hook (transports.h). */
#include <stdlib.h>

#include "core/progress.h"
#include "core/vci.h"
#include "core/transports.h"
#include "core/world.h"
#include "util/log.h"
#include "util/param.h"
#include "util/status.h"

/* The transports live in the VCI, which fm_progress() polls. */
static struct fm_vci *const V = &fm_vci0;
static int ofi_up;

/* Lane i (1 .. lanes) of the VCIs: its own self queue, shm rings (when
 * shm carries messages to some peer) and OFI endpoint (when OFI does),
 * each peer reached on the lane by the transport that reaches it on
 * fm_vci0. */
static int open_lanes(int lanes, int world_size, fm_net_deliver_fn *const *deliver_lanes)
{
    for (int i = 1; i <= lanes; i++) {
        struct fm_vci *v = fm_lane_vci(i);
        fm_net *self = &fm_net_self_lanes[i], *shm = &fm_net_shm_lanes[i];
        fm_net *ofi = &fm_net_ofi_lanes[i];
        v->nnets = 0;
        int rc = fm_net_init(self);
        if (rc != FM_OK)
            return rc;
        v->nets[v->nnets++] = self;
        if (fm_shm_lanes())
            v->nets[v->nnets++] = shm;
        if (ofi_up) {
            if ((rc = fm_net_init(ofi)) != FM_OK)
                return rc;
            v->nets[v->nnets++] = ofi;
        }
        for (int k = 0; k < v->nnets; k++)
            v->nets[k]->pv = &v->pv;
        v->deliver = deliver_lanes[i];
        v->peer_net = calloc((size_t)world_size, sizeof *v->peer_net);
        if (!v->peer_net)
            return FM_ERR_NOMEM;
        for (int p = 0; p < world_size; p++)
            v->peer_net[p] = fm_peer_net[p] == &fm_net_self  ? self
                             : fm_peer_net[p] == &fm_net_shm ? shm
                                                             : ofi;
    }
    fm_lanes_opened(lanes);
    int rc = fm_progress_add(fm_progress_lanes_hook);
    if (rc != FM_OK)
        return rc;
    fm_log(1, "%d VCIs: communicators' point-to-point traffic spread over %d lanes by context id%s",
           lanes + 1, lanes, ofi_up ? ", each with its own OFI endpoint" : "");
    return FM_OK;
}

int fm_transports_init(int world_rank, int world_size, fm_net_deliver_fn *deliver,
                       fm_net_deliver_fn *const *deliver_lanes)
{
    int rc;
    V->deliver = deliver;
    fm_peer_net = calloc((size_t)world_size, sizeof *fm_peer_net);
    if (!fm_peer_net)
        return FM_ERR_NOMEM;
    V->peer_net = fm_peer_net;
    V->nnets = 0;
    fm_node_cpus_publish(); /* the shm setup's fence shows it to the node */
    if ((rc = fm_net_init(&fm_net_self)) != FM_OK)
        return rc;
    V->nets[V->nnets++] = &fm_net_self;
    /* Every rank runs the shm setup (it fences), even alone on its node. */
    if ((rc = fm_net_init(&fm_net_shm)) != FM_OK)
        return rc;
    V->nets[V->nnets++] = &fm_net_shm;
    /* OFI only when asked for or when some rank is off this node; either is
     * the same on every rank, so its init (which fences) runs on all or none. */
    int use_ofi = fm_param.NET == FM_NET_OFI;
    for (int p = 0; p < world_size; p++)
        if (fm_param.NET == FM_NET_AUTO && p != world_rank && !fm_net_reaches(&fm_net_shm, p))
            use_ofi = 1;
    if (use_ofi) {
        if ((rc = fm_net_init(&fm_net_ofi)) != FM_OK)
            return rc;
        V->nets[V->nnets++] = &fm_net_ofi;
    }
    ofi_up = use_ofi;
    for (int p = 0; p < world_size; p++) {
        if (p == world_rank)
            fm_peer_net[p] = &fm_net_self;
        else if (fm_param.NET != FM_NET_OFI && fm_net_reaches(&fm_net_shm, p))
            fm_peer_net[p] = &fm_net_shm;
        else if (use_ofi && fm_net_reaches(&fm_net_ofi, p))
            fm_peer_net[p] = &fm_net_ofi;
        else {
            fm_error_msg("no transport reaches rank %d: it is on another node and FABMPI_NET=shm "
                         "allows only shared memory (set FABMPI_NET=auto or ofi)", p);
            return FM_ERR_NET;
        }
    }
    for (int i = 0; i < V->nnets; i++)
        V->nets[i]->pv = &V->pv;
    /* Lanes when FABMPI_VCIS asks for them and some peer is reached by a
     * transport that has them (the shm setup decided alike on every rank;
     * OFI is up on all or none).  A rank alone has no peer to reach. */
    int lanes = fm_param.VCIS > 1 && world_size > 1 && (fm_shm_lanes() || use_ofi)
                    ? (int)fm_param.VCIS - 1
                    : 0;
    if (lanes && (rc = open_lanes(lanes, world_size, deliver_lanes)) != FM_OK)
        return rc;
    fm_oversubscribed = fm_param.YIELD == FM_YIELD_ALWAYS ||
                        (fm_param.YIELD == FM_YIELD_AUTO && fm_node_crowded);
    fm_log(1, "%d usable CPUs on this node%s: blocking waits %s", fm_node_cpus_usable,
           fm_node_crowded ? ", fewer than its ranks" : "",
           fm_oversubscribed ? "yield at once" : "spin, then yield");
    return FM_OK;
}

int fm_transports_ofi_up(void) { return ofi_up; }

fm_net *fm_transports_onesided(void)
{
    for (int i = 0; i < V->nnets; i++)
        if ((V->nets[i]->caps & FM_NET_CAP_REMOTE) && V->nets[i]->ops->rma)
            return V->nets[i];
    return NULL;
}

fm_net *fm_transports_comm_contexts(void)
{
    for (int i = 0; i < V->nnets; i++)
        if (V->nets[i]->ops->comm_card)
            return V->nets[i];
    return NULL;
}

void fm_transports_retune(void)
{
    for (int i = 0; i < V->nnets; i++)
        if (V->nets[i]->ops->retune)
            V->nets[i]->ops->retune(V->nets[i]);
}

void fm_transports_finalize(void)
{
    for (int i = fm_nlanes; i >= 1; i--) {
        struct fm_vci *v = fm_lane_vci(i);
        for (int k = v->nnets - 1; k >= 0; k--)
            fm_net_finalize(v->nets[k]);
        v->nnets = 0;
        free(v->peer_net);
        v->peer_net = NULL;
    }
    if (fm_nlanes)
        fm_progress_remove(fm_progress_lanes_hook);
    fm_lanes_opened(0);
    for (int i = V->nnets - 1; i >= 0; i--)
        fm_net_finalize(V->nets[i]);
    V->nnets = 0;
    ofi_up = 0;
    free(fm_peer_net);
    fm_peer_net = NULL;
    V->peer_net = NULL;
}
