/* self.c — the transport for messages a process sends to itself.
 *
 * A plain FIFO of malloc'd records per instance (fm_net_self, and each
 * lane's): sends to self are rare outside of
 * collectives and tests, so simplicity beats speed here. */
#include <stdlib.h>
#include <string.h>

#include "boot/world.h"
#include "net/net.h"
#include "util/param.h"
#include "util/status.h"
#include "util/copy.h"

typedef struct self_msg {
    struct self_msg *next;
    size_t len;
    _Alignas(8) unsigned char data[]; /* fm_hdr first: keep it aligned */
} self_msg;

/* One queue per instance: [0] fm_net_self's, [i] lane i's (core/vci.h). */
typedef struct self_q {
    self_msg *head, *last;
} self_q;
static self_q queues[FM_NET_LANES_MAX];

static self_q *q_of(const fm_net *n)
{
    return n == &fm_net_self ? &queues[0] : &queues[n - fm_net_self_lanes];
}

/* Messages are at most this big, like any transport's; the point-to-point
 * layer uses rendezvous above it (pull is a memcpy). */
#define SELF_MAX_MSG ((size_t)1 << 20)

static int self_init(fm_net *n)
{
    self_q *q = q_of(n);
    q->head = q->last = NULL;
    n->caps = FM_NET_CAP_PULL | FM_NET_CAP_MAPPED;
    n->max_msg = SELF_MAX_MSG;
    n->ordered_max = SELF_MAX_MSG;
    n->eager_limit = fm_param.EAGER_LIMIT;
    return FM_OK;
}

static void self_retune(fm_net *n) { n->eager_limit = fm_param.EAGER_LIMIT; }

static int self_reaches(int peer, const fm_net *n)
{
    (void)n;
    return peer == fm_world_rank;
}

static int self_send(int peer, const void *hdr, size_t hlen, const void *payload, size_t plen,
                     fm_net *n)
{
    self_q *q = q_of(n);
    if (peer != fm_world_rank || hlen + plen > SELF_MAX_MSG)
        return FM_ERR_ARG;
    self_msg *m = malloc(sizeof *m + hlen + plen);
    if (!m)
        return FM_ERR_AGAIN; /* the caller parks it and retries later */
    m->next = NULL;
    m->len = hlen + plen;
    if (hlen)
        memcpy(m->data, hdr, hlen);
    if (plen)
        fm_copy(m->data + hlen, payload, plen);
    if (q->last)
        q->last->next = m;
    else
        q->head = m;
    q->last = m;
    return FM_OK;
}

static int self_pull(int peer, void *local, uint64_t remote_addr, size_t len, fm_net *n)
{
    (void)n;
    if (peer != fm_world_rank)
        return FM_ERR_ARG;
    if (len)
        fm_move(local, (const void *)(uintptr_t)remote_addr, len);
    return FM_OK;
}

static int self_poll(fm_net_deliver_fn *cb, fm_net *net)
{
    self_q *q = q_of(net);
    if (!q->head)
        return 0;
    /* Deliver only what was queued before this call: a callback that sends
     * to itself again must not keep this loop going forever. */
    self_msg *stop = q->last;
    int n = 0, done = 0;
    while (!done) {
        self_msg *m = q->head;
        q->head = m->next;
        if (!q->head)
            q->last = NULL;
        done = m == stop;
        cb(fm_world_rank, m->data, m->len);
        free(m);
        n++;
    }
    return n;
}

static void self_finalize(fm_net *n)
{
    self_q *q = q_of(n);
    while (q->head) {
        self_msg *m = q->head;
        q->head = m->next;
        free(m);
    }
    q->last = NULL;
}

static const fm_net_ops self_ops = {
    .name = "self",
    .init = self_init,
    .reaches = self_reaches,
    .send = self_send,
    .pull = self_pull,
    .poll = self_poll,
    .finalize = self_finalize,
    .retune = self_retune,
};

fm_net fm_net_self = {.ops = &self_ops};
fm_net fm_net_self_lanes[FM_NET_LANES_MAX] = {
#define LANE(i) [i] = {.ops = &self_ops}
    LANE(1), LANE(2), LANE(3), LANE(4), LANE(5), LANE(6), LANE(7), LANE(8),
    LANE(9), LANE(10), LANE(11), LANE(12), LANE(13), LANE(14), LANE(15),
#undef LANE
};
