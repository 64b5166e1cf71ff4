/* shm.c — the shared-memory transport's ops: one SPSC ring per
 * sender->receiver pair (ring.c) in the receiver's segment (segment.c),
 * rendezvous data by CMA (cma.c) or, without it, through the rings. */
#include "net/shm/shm.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>

#include "boot/boot.h"
#include "net/net.h"
#include "util/log.h"
#include "util/param.h"
#include "util/pvar.h"
#include "util/status.h"

/* Messages taken from one ring per poll() before moving to the next, so a
 * chatty peer cannot starve the others. */
#define SHM_POLL_BATCH 32

static int polling; /* poll() is not re-entrant: callbacks may send only */

static inline int lane_of(const fm_net *n) { return (int)(n - fm_net_shm_lanes); }
/* The counters an instance's copies go to. */
static struct fm_pv *pv_of(const fm_net *n) { return n->pv ? n->pv : &fm_pv; }

static const char *copy_mode_name(int m)
{
    return m == FM_SHM_COPY_CMA ? "cma" : m == FM_SHM_COPY_PIPELINE ? "pipeline" : "auto";
}

static int build_rx_list(void)
{
    fm_shm_state *s = &fm_shm;
    if (!s->own)
        return FM_OK;
    s->rx = calloc((size_t)s->nlocal, sizeof *s->rx);
    s->rx_peer = calloc((size_t)s->nlocal, sizeof *s->rx_peer);
    if (!s->rx || !s->rx_peer)
        return FM_ERR_NOMEM;
    s->rx_of_local = malloc((size_t)s->nlocal * sizeof *s->rx_of_local);
    if (!s->rx_of_local)
        return FM_ERR_NOMEM;
    fm_shm_seg_hdr *h = s->own;
    for (int i = 0; i < s->nlocal; i++) {
        s->rx_of_local[i] = -1;
        /* Our own ring carries data only when we also send through it. */
        if (i == s->me && !s->local[i].mapped)
            continue;
        void *ring = (uint8_t *)s->own + h->rings_off + (size_t)i * h->ring_stride;
        if (fm_ring_rx_attach(&s->rx[s->nrx], ring) != FM_OK)
            return FM_ERR_INTERN;
        s->rx_of_local[i] = s->nrx;
        s->rx_peer[s->nrx++] = s->local[i].rank;
    }
    if (!s->nlanes)
        return FM_OK;
    s->lanes = calloc((size_t)s->nlanes + 1, sizeof *s->lanes);
    if (!s->lanes)
        return FM_ERR_NOMEM;
    for (int l = 1; l <= s->nlanes; l++) {
        fm_shm_lane *L = &s->lanes[l];
        L->tx = calloc((size_t)s->size, sizeof *L->tx);
        L->rx = calloc((size_t)s->nlocal, sizeof *L->rx);
        L->rx_peer = calloc((size_t)s->nlocal, sizeof *L->rx_peer);
        if (!L->tx || !L->rx || !L->rx_peer)
            return FM_ERR_NOMEM;
        for (int i = 0; i < s->nlocal; i++) {
            if (s->rx_of_local[i] < 0)
                continue;
            void *ring = (uint8_t *)s->own + h->rings_off +
                         (size_t)(l * s->nlocal + i) * h->ring_stride;
            if (fm_ring_rx_attach(&L->rx[L->nrx], ring) != FM_OK)
                return FM_ERR_INTERN;
            L->rx_peer[L->nrx++] = s->local[i].rank;
        }
    }
    return FM_OK;
}

/* Doorbells pay off only when there are many rings to look at. */
static int setup_doorbells(void)
{
    fm_shm_state *s = &fm_shm;
    int want = fm_param.SHM_DOORBELL == FM_SHM_DOORBELL_ON ||
               (fm_param.SHM_DOORBELL == FM_SHM_DOORBELL_AUTO && s->nlocal > 4);
    if (!want || !s->own || s->nlocal > FM_SHM_BELLS_MAX)
        return FM_OK;
    s->bell_to = calloc((size_t)s->size, sizeof *s->bell_to);
    if (!s->bell_to)
        return FM_ERR_NOMEM;
    s->own_bells = (_Atomic uint8_t *)((uint8_t *)s->own + FM_SHM_BELLS_OFF);
    for (int i = 0; i < s->nlocal; i++) {
        fm_shm_peer *p = &s->local[i];
        if (!p->mapped)
            continue;
        uint8_t *seg = p->seg ? p->seg : s->own;
        s->bell_to[p->rank] = (_Atomic uint8_t *)(seg + FM_SHM_BELLS_OFF + s->me);
    }
    s->doorbells = 1;
    return FM_OK;
}

static int choose_copy(void)
{
    int mode = fm_param.SHM_COPY;
    fm_net_shm.caps = FM_NET_CAP_EXACT_LEN | FM_NET_CAP_MAPPED;
    if (mode == FM_SHM_COPY_PIPELINE) {
        fm_log(1, "shm: rendezvous data is pipelined through the rings (FABMPI_SHM_COPY=pipeline)");
        return FM_OK;
    }
    char why[256] = "";
    if (fm_shm_cma_works(why, sizeof why)) {
        fm_net_shm.caps |= FM_NET_CAP_PULL;
        fm_log(1, "shm: rendezvous data by CMA single copy (FABMPI_SHM_COPY=%s)", copy_mode_name(mode));
        return FM_OK;
    }
    if (mode == FM_SHM_COPY_CMA) {
        fm_error_msg("shm: FABMPI_SHM_COPY=cma but CMA does not work here: %s; needs ptrace permission "
                     "between ranks (kernel.yama.ptrace_scope <= 1, CAP_SYS_PTRACE in containers) "
                     "or set FABMPI_SHM_COPY=pipeline or auto",
                     why);
        return FM_ERR_NET;
    }
    fm_log(1, "shm: CMA refused (%s); rendezvous data is pipelined through the rings", why);
    return FM_OK;
}

static int shm_init(fm_net *n)
{
    (void)n; /* the one instance: fm_net_shm */
    char err[256];
    if (fm_param_load(err, sizeof err) != FM_OK) {
        fm_error_msg("%s", err);
        return FM_ERR_PARAM;
    }
    /* Let local peers read our memory with process_vm_readv under Yama
     * ptrace_scope=1 (fails harmlessly without Yama).  Before the first
     * fence, so the probes that follow it see the permission. */
    if (fm_param.SHM_COPY != FM_SHM_COPY_PIPELINE)
        (void)prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);

    int rc = fm_shm_segments_setup();
    if (rc == FM_OK)
        rc = build_rx_list();
    if (rc == FM_OK)
        rc = setup_doorbells();
    if (rc == FM_OK)
        rc = choose_copy();
    if (rc != FM_OK) {
        fm_shm_segments_teardown();
        return rc;
    }
    fm_shm_state *s = &fm_shm;
    size_t max = fm_ring_max_msg(fm_ring_round_size(fm_param.SHM_RING_SIZE));
    for (int i = 0; i < s->nlocal; i++) {
        fm_shm_peer *p = &s->local[i];
        if (!p->mapped) {
            if (s->nlanes && i != s->me) {
                /* Lanes pair rings by index: every rank must reach every
                 * other through them. */
                fm_error_msg("shm: FABMPI_VCIS=%d needs every rank reachable through shared "
                             "memory, and rank %d is not (its /dev/shm is not visible here); "
                             "set FABMPI_VCIS=1", s->nlanes + 1, p->rank);
                fm_shm_segments_teardown();
                return FM_ERR_NET;
            }
            continue;
        }
        s->tx[p->rank] = &p->tx;
        for (int l = 1; l <= s->nlanes; l++)
            s->lanes[l].tx[p->rank] = &p->lane_tx[l];
        if (p->tx.max_msg < max) /* a peer configured with smaller rings */
            max = p->tx.max_msg;
    }
    s->max_msg = max;
    fm_net_shm.max_msg = max;
    fm_net_shm.ordered_max = max; /* one ring per pair: all in order */
    fm_net_shm.eager_limit = fm_param.EAGER_LIMIT;
    fm_net_shm.buffered = 4 * (max + FM_RING_HDR); /* fm_ring_max_msg: a quarter ring */
    for (int l = 1; l <= s->nlanes; l++) {
        fm_net *ln = &fm_net_shm_lanes[l];
        const fm_net_ops *ops = ln->ops;
        *ln = fm_net_shm;
        ln->ops = ops;
    }
    fm_log(1, "shm: %d ranks on this node, rings of %zu bytes, max message %zu bytes, doorbells %s, "
           "%d lane%s",
           s->nlocal, fm_ring_round_size(fm_param.SHM_RING_SIZE), max, s->doorbells ? "on" : "off",
           s->nlanes, s->nlanes == 1 ? "" : "s");
    return FM_OK;
}

int fm_shm_lanes(void) { return fm_shm.nlanes; }

static void shm_retune(fm_net *n)
{
    n->eager_limit = fm_param.EAGER_LIMIT;
    for (int l = 1; l <= fm_shm.nlanes; l++)
        fm_net_shm_lanes[l].eager_limit = fm_param.EAGER_LIMIT;
}

static int reaches(int peer)
{
    return fm_shm.tx && peer >= 0 && peer < fm_shm.size && fm_shm.tx[peer] != NULL;
}

static int shm_reaches(int peer, const fm_net *n)
{
    (void)n;
    return reaches(peer);
}

static int shm_send(int peer, const void *hdr, size_t hlen, const void *payload, size_t plen,
                    fm_net *n)
{
    (void)n;
    if (!reaches(peer))
        return FM_ERR_ARG;
    int rc = fm_ring_send(fm_shm.tx[peer], hdr, hlen, payload, plen);
    if (rc == FM_OK && fm_shm.doorbells)
        fm_bell_ring(fm_shm.bell_to[peer]);
    return rc;
}

static int shm_send_fill(int peer, const void *hdr, size_t hlen,
                         void (*fill)(void *arg, void *dst, size_t len), void *arg, size_t plen,
                         fm_net *n)
{
    (void)n;
    if (!reaches(peer))
        return FM_ERR_ARG;
    int rc = fm_ring_send_fill(fm_shm.tx[peer], hdr, hlen, fill, arg, plen);
    if (rc == FM_OK && fm_shm.doorbells)
        fm_bell_ring(fm_shm.bell_to[peer]);
    return rc;
}

static int shm_push(int peer, uint64_t remote_addr, const void *local, size_t len, fm_net *n)
{
    if (!(n->caps & FM_NET_CAP_PULL))
        return FM_ERR_UNSUPPORTED;
    return fm_shm_cma_push(pv_of(n), peer, remote_addr, local, len);
}

static int shm_pull(int peer, void *local, uint64_t remote_addr, size_t len, fm_net *n)
{
    if (!(n->caps & FM_NET_CAP_PULL))
        return FM_ERR_UNSUPPORTED;
    return fm_shm_cma_pull(pv_of(n), peer, local, remote_addr, len);
}

/* fm_ring_poll found a record no producer writes: the ring from `peer` is
 * unreadable from here on, and its messages lost; end the job, saying so. */
static __attribute__((cold, noinline, noreturn)) void ring_corrupt(int peer)
{
    char why[160];
    snprintf(why, sizeof why, "fabmpi: the shared-memory ring from rank %d holds a malformed "
             "record (corrupt or foreign writer); ending the job", peer);
    fm_boot_abort(1, why);
}

static fm_net_deliver_fn *bell_cb;

static int visit_ring(void *arg, int sender, int *more)
{
    fm_shm_state *s = arg;
    int i = s->rx_of_local[sender];
    if (i < 0)
        return 0;
    int n = fm_ring_poll(&s->rx[i], s->rx_peer[i], bell_cb, SHM_POLL_BATCH);
    if (__builtin_expect(n < 0, 0))
        ring_corrupt(s->rx_peer[i]);
    *more = n == SHM_POLL_BATCH;
    return n;
}

static int shm_poll(fm_net_deliver_fn *cb, fm_net *net)
{
    (void)net;
    fm_shm_state *s = &fm_shm;
    if (polling)
        return 0;
    if (s->doorbells) {
        polling = 1;
        bell_cb = cb;
        int n = fm_bell_scan(s->own_bells, s->nlocal, visit_ring, s);
        polling = 0;
        return n;
    }
    int n = 0;
    for (int i = 0; i < s->nrx; i++) {
        if (!fm_ring_ready(&s->rx[i]))
            continue; /* the common case while spinning: one load per peer */
        polling = 1;
        int k = fm_ring_poll(&s->rx[i], s->rx_peer[i], cb, SHM_POLL_BATCH);
        if (__builtin_expect(k < 0, 0))
            ring_corrupt(s->rx_peer[i]);
        n += k;
        polling = 0;
    }
    return n;
}

static void shm_finalize(fm_net *n)
{
    (void)n;
    fm_shm_segments_teardown();
}

static const fm_net_ops shm_ops = {
    .name = "shm",
    .init = shm_init,
    .reaches = shm_reaches,
    .send = shm_send,
    .send_fill = shm_send_fill,
    .push = shm_push,
    .pull = shm_pull,
    .poll = shm_poll,
    .finalize = shm_finalize,
    .retune = shm_retune,
};

fm_net fm_net_shm = {.ops = &shm_ops}; /* caps and limits: set by init() */

/* ---- a lane's instance: its own rings, nothing to set up or tear down ---- */

static int lane_init(fm_net *n)
{
    (void)n; /* fm_net_shm's init did it */
    return FM_OK;
}

static void lane_finalize(fm_net *n) { (void)n; }

static int lane_reaches(int peer, const fm_net *n)
{
    return fm_shm.lanes && peer >= 0 && peer < fm_shm.size &&
           fm_shm.lanes[lane_of(n)].tx[peer] != NULL;
}

static int lane_send(int peer, const void *hdr, size_t hlen, const void *payload, size_t plen,
                     fm_net *n)
{
    if (!lane_reaches(peer, n))
        return FM_ERR_ARG;
    return fm_ring_send(fm_shm.lanes[lane_of(n)].tx[peer], hdr, hlen, payload, plen);
}

static int lane_send_fill(int peer, const void *hdr, size_t hlen,
                          void (*fill)(void *arg, void *dst, size_t len), void *arg, size_t plen,
                          fm_net *n)
{
    if (!lane_reaches(peer, n))
        return FM_ERR_ARG;
    return fm_ring_send_fill(fm_shm.lanes[lane_of(n)].tx[peer], hdr, hlen, fill, arg, plen);
}

static int lane_poll(fm_net_deliver_fn *cb, fm_net *net)
{
    fm_shm_lane *L = &fm_shm.lanes[lane_of(net)];
    if (L->polling)
        return 0;
    int n = 0;
    for (int i = 0; i < L->nrx; i++) {
        if (!fm_ring_ready(&L->rx[i]))
            continue;
        L->polling = 1;
        int k = fm_ring_poll(&L->rx[i], L->rx_peer[i], cb, SHM_POLL_BATCH);
        if (__builtin_expect(k < 0, 0))
            ring_corrupt(L->rx_peer[i]);
        n += k;
        L->polling = 0;
    }
    return n;
}

static const fm_net_ops shm_lane_ops = {
    .name = "shm",
    .init = lane_init,
    .reaches = lane_reaches,
    .send = lane_send,
    .send_fill = lane_send_fill,
    .push = shm_push,
    .pull = shm_pull,
    .poll = lane_poll,
    .finalize = lane_finalize,
};

fm_net fm_net_shm_lanes[FM_NET_LANES_MAX] = {
#define LANE(i) [i] = {.ops = &shm_lane_ops}
    LANE(1), LANE(2), LANE(3), LANE(4), LANE(5), LANE(6), LANE(7), LANE(8),
    LANE(9), LANE(10), LANE(11), LANE(12), LANE(13), LANE(14), LANE(15),
#undef LANE
};
