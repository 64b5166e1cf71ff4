/* init.c — point-to-point bring-up: the transports (src/core/transports.c)
 * with fm_deliver as their delivery callback, the eager limit toward each
 * peer, parked sends, and the matching engine in charge (the software
 * engine's table lives here). */
#include <stdlib.h>

#include "core/progress.h"
#include "core/transports.h"
#include "core/vci.h"
#include "core/world.h"
#include "pt2pt/internal.h"
#include "pt2pt/ofi_engine.h"
#include "pt2pt/pt2pt.h"
#include "util/param.h"
#include "util/status.h"

int fm_pending_any(void);

size_t *fm_eager_lim; /* per world rank */
static int eager_n;       /* its entries */

const fm_pt2pt_engine fm_pt2pt_sw = {
    .name = "sw",
    .isend = fm_sw_isend,
    .irecv = fm_sw_irecv,
    .send_now = fm_sw_send_now,
    .isend_now = fm_sw_send_now,
    .coll_send_now = fm_sw_coll_send_now,
    .coll_recv_now = fm_sw_coll_recv_now,
    .iprobe = fm_sw_iprobe,
    .imrecv = fm_sw_imrecv,
    .cancel = fm_sw_cancel,
};

const fm_pt2pt_engine *fm_pt2pt = &fm_pt2pt_sw;

/* The eager limit toward each peer: its transport's knob, bounded by the
 * largest message the transport takes. */
static void set_eager_limits(int world_size)
{
    for (int p = 0; p < world_size; p++) {
        size_t lim = fm_peer_net[p]->eager_limit;
        size_t room = fm_peer_net[p]->max_msg - sizeof(fm_hdr_rndv);
        fm_eager_lim[p] = lim < room ? lim : room;
    }
}

void fm_pt2pt_retune(void)
{
    if (!fm_eager_lim)
        return;
    fm_transports_retune();
    set_eager_limits(eager_n);
}

/* A VCI's point-to-point state: parked sends and rendezvous counts. */
static int vci_setup(struct fm_vci *v, int world_size)
{
    v->rndv_out = calloc((size_t)world_size, sizeof *v->rndv_out);
    if (!v->rndv_out || fm_pending_setup(v, world_size) != FM_OK)
        return FM_ERR_NOMEM;
    v->pend_drain = fm_pending_drain;
    return FM_OK;
}

static void vci_teardown(struct fm_vci *v)
{
    fm_pending_teardown(v);
    fm_msg_pool_release(v);
    free(v->rndv_out);
    v->rndv_out = NULL;
}

int fm_pt2pt_init(int world_rank, int world_size)
{
    int rc;
    fm_eager_lim = calloc((size_t)world_size, sizeof *fm_eager_lim);
    if (!fm_eager_lim || vci_setup(&fm_vci0, world_size) != FM_OK)
        return FM_ERR_NOMEM;
    if ((rc = fm_transports_init(world_rank, world_size, fm_deliver, fm_deliver_lanes)) != FM_OK)
        return rc;
    for (int i = 1; i <= fm_nlanes; i++)
        if (vci_setup(fm_vcis[i], world_size) != FM_OK)
            return FM_ERR_NOMEM;
    eager_n = world_size;
    set_eager_limits(world_size);
    const fm_pt2pt_engine *e = &fm_pt2pt_sw;
    if ((rc = fm_ofi_engine_init(fm_transports_ofi_up(), &e)) != FM_OK)
        return rc;
    fm_pt2pt = e;
    if (e->progress && (rc = fm_progress_add(e->progress)) != FM_OK)
        return rc;
    return FM_OK;
}

void fm_pt2pt_finalize(void)
{
    /* Let parked control messages (FIN, ACK) reach their peers first. */
    for (int i = 0; i < 100000 && fm_pending_any(); i++)
        fm_progress();
    if (fm_pt2pt->progress)
        fm_progress_remove(fm_pt2pt->progress);
    fm_ofi_engine_finalize();
    fm_pt2pt = &fm_pt2pt_sw;
    for (int i = 1; i <= fm_nlanes; i++)
        vci_teardown(fm_vcis[i]);
    fm_transports_finalize();
    vci_teardown(&fm_vci0);
    free(fm_eager_lim);
    fm_eager_lim = NULL;
    eager_n = 0;
}
