/* send.c — starting sends: eager (inline in one transport message) or
 * rendezvous (RTS; the receiver pulls and sends FIN, or answers CTS and we
 * stream DATA chunks).  Synchronous eager sends complete on ACK. */
#include <stdlib.h>
#include <string.h>

#include "dtype/dtype.h"
#include "core/comm.h"
#include "pt2pt/internal.h"
#include "pt2pt/pt2pt.h"
#include "util/status.h"
#include "util/pvar.h"

const void *fm_contig_source(const void *buf, MPI_Count count, MPI_Datatype dt, size_t bytes,
                             void **tmp)
{
    if (fm_dt_is_contig(dt) || bytes == 0)
        return (const char *)buf + dt->true_lb;
    *tmp = malloc(bytes);
    if (!*tmp)
        return NULL;
    fm_dt_pack(buf, count, dt, 0, *tmp, bytes);
    return *tmp;
}

/* Packs non-contiguous data straight into the transport: a whole eager
 * message, or one DATA chunk of a rendezvous. */
void fm_pack_fill(void *arg, void *dst, size_t len)
{
    struct fm_pack_src *p = arg;
    fm_dt_pack(p->buf, p->count, p->dt, p->offset, dst, len);
}

int fm_sw_isend(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                MPI_Comm comm, int coll, int mode, struct fm_request **out)
{
    struct fm_vci *V = fm_comm_vci(comm, coll);
    struct fm_request *r = fm_req_alloc_on(V, FM_REQ_SEND);
    if (!r)
        return FM_ERR_NOMEM;
    *out = r;
    r->comm = comm; /* held until the request is freed (MPI_Comm_free may come first) */
    comm->refcount++;
    if (dest == MPI_PROC_NULL) {
        r->status.MPI_SOURCE = MPI_PROC_NULL;
        r->status.MPI_TAG = MPI_ANY_TAG;
        r->done = 1;
        return FM_OK;
    }
    int peer = comm->world[dest];
    uint64_t bytes = (uint64_t)count * (uint64_t)dt->size;
    r->count = count;
    r->peer = dest;
    r->tag = tag;
    r->bytes = bytes;
    r->peer_world = peer;
    if (mode == FM_SEND_SYNC)
        r->flags |= FM_REQF_SYNC;
    fm_net *net = V->peer_net[peer];
    if (!fm_dt_is_contig(dt) && bytes && bytes <= fm_eager_limit(peer) && mode != FM_SEND_SYNC &&
        fm_net_can_fill(net) && !fm_pending_to(V, peer)) {
        fm_hdr h = {.proto = FM_PROTO_EAGER, .ctx = comm->ctx + (uint32_t)coll, .src = comm->rank,
                    .tag = tag, .len = bytes};
        struct fm_pack_src src = {buf, count, dt, 0};
        int rc = fm_net_send_fill(net, peer, &h, sizeof h, fm_pack_fill, &src, bytes);
        if (rc == FM_OK) {
            FM_PV_INC_AT(&V->pv, pt2pt_eager_sent);
            FM_PV_ADD_AT(&V->pv, pt2pt_eager_sent_bytes, bytes);
            fm_on_sent(r, &h);
            return FM_OK;
        }
        if (rc != FM_ERR_AGAIN)
            return rc;
        /* No room now: stage a packed copy and park it like any send. */
    }
    if (!fm_dt_is_contig(dt) && bytes > fm_eager_limit(peer) && fm_net_can_fill(net)) {
        /* Rendezvous without staging: the receiver answers CTS and each
         * DATA chunk is packed straight into the transport (stream_push). */
        r->flags |= FM_REQF_PACK;
        FM_PV_INC_AT(&V->pv, pt2pt_rndv_sent);
        FM_PV_ADD_AT(&V->pv, pt2pt_rndv_sent_bytes, bytes);
        r->sbuf = buf;
        r->dt = dt;
        if (!(dt->flags & FM_DT_PREDEFINED))
            fm_dt_retain(dt);
        fm_hdr_rndv h = {.h = {.proto = FM_PROTO_RTS, .flags = FM_HDRF_STREAM,
                               .ctx = comm->ctx + (uint32_t)coll, .src = comm->rank, .tag = tag,
                               .len = bytes},
                         .sreq = (uintptr_t)r};
        return fm_send_or_park(V, peer, &h, sizeof h, NULL, 0, r);
    }
    const void *data = fm_contig_source(buf, count, dt, bytes, &r->tmp);
    if (!data && bytes)
        return FM_ERR_NOMEM;
    r->sbuf = data;

    fm_hdr_rndv h;
    h.h.flags = 0;
    h.h.reserved = 0;
    h.h.ctx = comm->ctx + (uint32_t)coll;
    h.h.src = comm->rank;
    h.h.tag = tag;
    h.h.len = bytes;
    if (bytes <= fm_eager_limit(peer)) {
        FM_PV_INC_AT(&V->pv, pt2pt_eager_sent);
        FM_PV_ADD_AT(&V->pv, pt2pt_eager_sent_bytes, bytes);
        if (!(r->flags & FM_REQF_SYNC)) {
            h.h.proto = FM_PROTO_EAGER;
            return fm_send_or_park(V, peer, &h.h, sizeof h.h, data, bytes, r);
        }
        h.h.proto = FM_PROTO_EAGER_SYNC;
        h.sreq = (uintptr_t)r;
        h.rreq = h.addr = h.offset = 0;
        return fm_send_or_park(V, peer, &h, sizeof h, data, bytes, r);
    }
    /* Rendezvous: the data stays where it is until the receiver asks. */
    FM_PV_INC_AT(&V->pv, pt2pt_rndv_sent);
    FM_PV_ADD_AT(&V->pv, pt2pt_rndv_sent_bytes, bytes);
    h.h.proto = FM_PROTO_RTS;
    h.sreq = (uintptr_t)r;
    h.rreq = h.offset = 0;
    h.addr = (uintptr_t)data;
    r->flags |= FM_REQF_PULLED;
    V->rndv_out[peer]++;
    return fm_send_or_park(V, peer, &h, sizeof h, NULL, 0, r);
}

/* coll: 0 on the communicator's point-to-point context, 1 on its
 * collective one (a constant in each caller, so the add folds away). */
static inline int send_now(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                           MPI_Comm comm, uint32_t coll)
{
    if (dest == MPI_PROC_NULL)
        return FM_OK;
    struct fm_vci *V = fm_comm_vci(comm, (int)coll);
    int peer = comm->world[dest];
    uint64_t bytes = (uint64_t)count * (uint64_t)dt->size;
    if (!fm_dt_is_contig(dt) || bytes > fm_eager_limit(peer) || fm_pending_to(V, peer))
        return FM_ERR_AGAIN;
    const char *data = (const char *)buf + dt->true_lb;
    fm_net *net = V->peer_net[peer];
    int rc;
    if (bytes <= FM_HDR_SHORT_MAX && (net->caps & FM_NET_CAP_EXACT_LEN)) {
        fm_hdr_short hs = {.proto = FM_PROTO_EAGER_SHORT, .ctx = comm->ctx + coll,
                           .src = comm->rank, .tag = tag};
        rc = fm_net_send(net, peer, &hs, sizeof hs, data, bytes);
    } else {
        fm_hdr h = {.proto = FM_PROTO_EAGER, .ctx = comm->ctx + coll, .src = comm->rank,
                    .tag = tag, .len = bytes};
        rc = fm_net_send(net, peer, &h, sizeof h, data, bytes);
    }
    /* Counted only when sent (a refused one goes the general way, which
     * counts it then).  A branch on rc costs less here than a branch-free
     * sum: every caller tests rc right after, so it is predicted alike. */
    if (__builtin_expect(rc == FM_OK, 1)) {
        FM_PV_INC_AT(&V->pv, pt2pt_eager_sent);
        FM_PV_ADD_AT(&V->pv, pt2pt_eager_sent_bytes, bytes);
    }
    return rc;
}

int fm_sw_send_now(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                   MPI_Comm comm)
{
    return send_now(buf, count, dt, dest, tag, comm, 0);
}

int fm_sw_coll_send_now(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                        MPI_Comm comm)
{
    return send_now(buf, count, dt, dest, tag, comm, 1);
}

void fm_on_sent(struct fm_request *r, const void *hdr)
{
    switch (((const fm_hdr *)hdr)->proto) {
    case FM_PROTO_EAGER:
        r->sent = 1;
        fm_req_complete(r);
        break;
    case FM_PROTO_EAGER_SYNC:
        r->sent = 1;
        if (r->acked)
            fm_req_complete(r);
        break;
    default: /* RTS: completion comes with FIN or the last DATA chunk */
        break;
    }
}
