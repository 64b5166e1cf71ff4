/* rma.c — the OFI endpoint for one-sided windows: fi_write / fi_read into
 * memory registered per window.
 *
 * A second endpoint, not the messaging one, because the memory-registration
 * mode is a domain attribute: the messaging domain asks for mr_mode 0 so any
 * provider fits, while windows ask for the modes the RMA layer copes with
 * (FI_MR_VIRT_ADDR, FI_MR_PROV_KEY, FI_MR_ALLOCATED, and FI_MR_LOCAL: local
 * buffers then get descriptors from mr_cache.c; with FABMPI_OFI_MR_CACHE=off
 * such a provider is not returned and windows use active messages).  It
 * is opened on the first window with an
 * OFI peer, from the provider and domain the messaging endpoint uses;
 * addresses travel in the window's setup exchange, not through the
 * bootstrap.
 *
 * Completions land in this endpoint's own CQ and name their fm_net_rma_op;
 * the users of this endpoint (windows, one-sided collectives, through the
 * one-sided contract of net/net_rma.h; rendezvous reads, rndv.c) poll this
 * CQ from their progress hooks (providers with manual progress, like shm,
 * move incoming RMA only then). */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "boot/world.h"
#include <rdma/fi_atomic.h>
#include <rdma/fi_rma.h>

#include "net/net.h"
#include "net/ofi/mr_cache.h"
#include "net/ofi/ofi.h"
#include "net/ofi/quirks.h"
#include "util/log.h"
#include "util/param.h"
#include "util/status.h"

static struct {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_ep *ep;
    struct fid_cq *cq;
    struct fid_av *av;
    fi_addr_t *addr; /* per world rank */
    uint64_t next_key;
    int tried, up;
    int atomic; /* the endpoint has FI_ATOMIC (fi_*atomicvalid still decide) */
} R;

/* The provider's context of an operation: its first bytes, so a
 * completion's op_context is the operation's address. */
static_assert(sizeof(struct fi_context) <= sizeof(((fm_net_rma_op *)0)->transport),
              "fi_context fits fm_net_rma_op.transport");
static struct fi_context *op_ctx(fm_net_rma_op *op) { return (struct fi_context *)(void *)op; }

/* The contract's atomic types and operators in libfabric's terms. */
static const enum fi_datatype fi_type[FM_NET_AT_COUNT] = {
    [FM_NET_AT_I8] = FI_INT8,        [FM_NET_AT_U8] = FI_UINT8,
    [FM_NET_AT_I16] = FI_INT16,      [FM_NET_AT_U16] = FI_UINT16,
    [FM_NET_AT_I32] = FI_INT32,      [FM_NET_AT_U32] = FI_UINT32,
    [FM_NET_AT_I64] = FI_INT64,      [FM_NET_AT_U64] = FI_UINT64,
    [FM_NET_AT_FLOAT] = FI_FLOAT,    [FM_NET_AT_DOUBLE] = FI_DOUBLE,
    [FM_NET_AT_LDOUBLE] = FI_LONG_DOUBLE,
    [FM_NET_AT_FCOMPLEX] = FI_FLOAT_COMPLEX,
    [FM_NET_AT_DCOMPLEX] = FI_DOUBLE_COMPLEX,
    [FM_NET_AT_LDCOMPLEX] = FI_LONG_DOUBLE_COMPLEX,
};
static const enum fi_op fi_aop[FM_NET_AOP_COUNT] = {
    [FM_NET_AOP_SUM] = FI_SUM,   [FM_NET_AOP_PROD] = FI_PROD, [FM_NET_AOP_MAX] = FI_MAX,
    [FM_NET_AOP_MIN] = FI_MIN,   [FM_NET_AOP_LAND] = FI_LAND, [FM_NET_AOP_LOR] = FI_LOR,
    [FM_NET_AOP_LXOR] = FI_LXOR, [FM_NET_AOP_BAND] = FI_BAND, [FM_NET_AOP_BOR] = FI_BOR,
    [FM_NET_AOP_BXOR] = FI_BXOR, [FM_NET_AOP_WRITE] = FI_ATOMIC_WRITE,
    [FM_NET_AOP_READ] = FI_ATOMIC_READ, [FM_NET_AOP_CSWAP] = FI_CSWAP,
};

/* Bytes per element of each, for registering the buffers of an atomic. */
static const size_t at_size[FM_NET_AT_COUNT] = {
    [FM_NET_AT_I8] = 1,      [FM_NET_AT_U8] = 1,     [FM_NET_AT_I16] = 2,
    [FM_NET_AT_U16] = 2,     [FM_NET_AT_I32] = 4,    [FM_NET_AT_U32] = 4,
    [FM_NET_AT_I64] = 8,     [FM_NET_AT_U64] = 8,    [FM_NET_AT_FLOAT] = sizeof(float),
    [FM_NET_AT_DOUBLE] = sizeof(double),             [FM_NET_AT_LDOUBLE] = sizeof(long double),
    [FM_NET_AT_FCOMPLEX] = 2 * sizeof(float),        [FM_NET_AT_DCOMPLEX] = 2 * sizeof(double),
    [FM_NET_AT_LDCOMPLEX] = 2 * sizeof(long double),
};

static int rfail(const char *what, int rc)
{
    fm_log(1, "ofi/rma: %s failed: %s; windows use active messages", what, fi_strerror(-rc));
    return FM_ERR_NET;
}

static int rma_open(void)
{
    struct fi_info *hints = fi_allocinfo(), *list = NULL;
    if (!hints)
        return FM_ERR_NOMEM;
    const struct fi_info *m = fm_ofi.info;
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = FI_RMA;
    hints->mode = 0;
    /* The modes we handle; with "scalable" none, so offsets and our keys.
     * Local descriptors too unless the registration cache is off. */
    hints->domain_attr->mr_mode = fm_param.OFI_RMA_MR == FM_OFI_RMA_MR_BASIC
                                      ? FI_MR_VIRT_ADDR | FI_MR_PROV_KEY | FI_MR_ALLOCATED
                                      : 0;
    if (fm_param.OFI_MR_CACHE != FM_OFI_MR_CACHE_OFF)
        hints->domain_attr->mr_mode |= FI_MR_LOCAL;
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    /* Completion must mean the bytes are in the target's memory: the
     * flush that waits for it is followed by messages on another endpoint
     * (unlock, fence barrier) that order nothing against this one. */
    hints->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    hints->fabric_attr->prov_name = strdup(m->fabric_attr->prov_name);
    if (m->domain_attr->name)
        hints->domain_attr->name = strdup(m->domain_attr->name);
    /* Atomics too when windows may use them; some providers (tcp;ofi_rxm)
     * offer them only when asked.  Without, RMA alone. */
    int rc = -FI_ENODATA;
    if (fm_param.RMA_ATOMICS != FM_RMA_ATOMICS_AM) {
        hints->caps = FI_RMA | FI_ATOMIC;
        rc = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &list);
        R.atomic = rc == 0 && list;
    }
    if (!R.atomic) {
        hints->caps = FI_RMA;
        rc = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &list);
    }
    fi_freeinfo(hints);
    if (rc || !list)
        return rfail("fi_getinfo for FI_RMA", rc ? rc : -FI_ENODATA);
    R.info = fi_dupinfo(list);
    fi_freeinfo(list);
    if (!R.info)
        return FM_ERR_NOMEM;
    if ((rc = fi_fabric(R.info->fabric_attr, &R.fabric, NULL)))
        return rfail("fi_fabric", rc);
    if ((rc = fi_domain(R.fabric, R.info, &R.domain, NULL)))
        return rfail("fi_domain", rc);
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_CONTEXT, .wait_obj = FI_WAIT_NONE};
    cq_attr.size = 1024;
    if ((rc = fi_cq_open(R.domain, &cq_attr, &R.cq, NULL)))
        return rfail("fi_cq_open", rc);
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE, .count = (size_t)fm_world_size};
    if ((rc = fi_av_open(R.domain, &av_attr, &R.av, NULL)))
        return rfail("fi_av_open", rc);
    if ((rc = fi_endpoint(R.domain, R.info, &R.ep, NULL)))
        return rfail("fi_endpoint", rc);
    if ((rc = fi_ep_bind(R.ep, &R.cq->fid, FI_TRANSMIT | FI_RECV)))
        return rfail("binding the completion queue", rc);
    if ((rc = fi_ep_bind(R.ep, &R.av->fid, 0)))
        return rfail("binding the address vector", rc);
    if ((rc = fi_enable(R.ep)))
        return rfail("fi_enable", rc);
    R.addr = malloc((size_t)fm_world_size * sizeof *R.addr);
    if (!R.addr)
        return FM_ERR_NOMEM;
    for (int p = 0; p < fm_world_size; p++)
        R.addr[p] = FI_ADDR_NOTAVAIL;
    uint64_t mr = R.info->domain_attr->mr_mode;
    fm_log(1, "ofi/rma: provider %s, domain %s, mr_mode%s%s%s%s, max %zu bytes per op%s",
           R.info->fabric_attr->prov_name, R.info->domain_attr->name,
           mr & FI_MR_VIRT_ADDR ? " virt_addr" : " offsets", mr & FI_MR_PROV_KEY ? " prov_key" : " own_keys",
           mr & FI_MR_ALLOCATED ? " allocated" : "", mr & FI_MR_LOCAL ? " local" : "",
           R.info->ep_attr->max_msg_size, R.atomic ? ", FI_ATOMIC" : "");
    fm_ofi_mr_cache_open(R.domain, mr & FI_MR_PROV_KEY ? NULL : &R.next_key,
                         (mr & FI_MR_LOCAL) != 0);
    return FM_OK;
}

static void rma_close(void)
{
    fm_ofi_mr_cache_close();
    if (R.ep)
        fi_close(&R.ep->fid);
    if (R.av)
        fi_close(&R.av->fid);
    if (R.cq)
        fi_close(&R.cq->fid);
    if (R.domain)
        fi_close(&R.domain->fid);
    if (R.fabric)
        fi_close(&R.fabric->fid);
    if (R.info)
        fi_freeinfo(R.info);
    free(R.addr);
    int tried = R.tried;
    R.atomic = 0;
    memset(&R, 0, sizeof R);
    R.tried = tried;
}

int fm_ofi_rma_open(void)
{
    if (R.up)
        return FM_OK;
    if (R.tried || !fm_ofi.up || fm_param.OFI_RMA == FM_OFI_RMA_AM)
        return FM_ERR_UNSUPPORTED;
    R.tried = 1;
    int rc = rma_open();
    if (rc != FM_OK) {
        rma_close();
        return rc;
    }
    R.up = 1;
    return FM_OK;
}

void fm_ofi_rma_close(void)
{
    rma_close();
    R.tried = 0;
}

size_t fm_ofi_rma_name(void *buf, size_t len)
{
    if (!R.up)
        return 0;
    size_t n = len;
    return fi_getname(&R.ep->fid, buf, &n) == 0 ? n : 0;
}

int fm_ofi_rma_insert(int world, const void *name, size_t len)
{
    if (!R.up || !len)
        return FM_ERR_NET;
    if (R.addr[world] != FI_ADDR_NOTAVAIL)
        return FM_OK;
    if (fi_av_insert(R.av, name, 1, &R.addr[world], 0, NULL) != 1) {
        R.addr[world] = FI_ADDR_NOTAVAIL;
        return FM_ERR_NET;
    }
    return FM_OK;
}

int fm_ofi_rma_reg(void *base, size_t len, struct fid_mr **mr, uint64_t *key, uint64_t *raddr)
{
    *mr = NULL;
    if (!R.up)
        return FM_ERR_NET;
    uint64_t mode = R.info->domain_attr->mr_mode;
    /* Our own keys when the provider lets us choose: unique per domain. */
    uint64_t want = mode & FI_MR_PROV_KEY ? 0 : ++R.next_key;
    int rc = fi_mr_reg(R.domain, base, len, FI_REMOTE_READ | FI_REMOTE_WRITE, 0, want, 0, mr, NULL);
    if (rc) {
        fm_log(1, "ofi/rma: registering %zu bytes failed: %s", len, fi_strerror(-rc));
        *mr = NULL;
        return FM_ERR_NET;
    }
    *key = fi_mr_key(*mr);
    /* Without FI_MR_VIRT_ADDR a target address is an offset into the region. */
    *raddr = mode & FI_MR_VIRT_ADDR ? (uint64_t)(uintptr_t)base : 0;
    return FM_OK;
}

void fm_ofi_rma_dereg(struct fid_mr *mr)
{
    if (mr)
        fi_close(&mr->fid);
}

size_t fm_ofi_rma_max(void)
{
    size_t m = R.up ? R.info->ep_attr->max_msg_size : 0;
    return m ? m : (size_t)1 << 30;
}

int fm_ofi_rma_xfer(int write, int world, void *buf, size_t len, uint64_t raddr, uint64_t key,
                    fm_net_rma_op *op)
{
    struct fi_context *ctx = op_ctx(op);
    void *desc = NULL;
    if (fm_ofi_mr_cache_on) {
        int r = fm_ofi_mr_desc(buf, len, &desc);
        if (r != FM_OK)
            return r;
    }
    ssize_t rc = write ? fi_write(R.ep, buf, len, desc, R.addr[world], raddr, key, ctx)
                       : fi_read(R.ep, buf, len, desc, R.addr[world], raddr, key, ctx);
    if (rc == -FI_EAGAIN)
        return FM_ERR_AGAIN;
    if (rc) {
        fm_error_msg("ofi/rma: fi_%s of %zu bytes to rank %d failed: %s", write ? "write" : "read",
                     len, world, fi_strerror((int)-rc));
        return FM_ERR_NET;
    }
    fm_ofi_mr_inflight++;
    return FM_OK;
}

size_t fm_ofi_rma_atomic_count(int form, int type, int aop)
{
    if (!R.up || !R.atomic)
        return 0;
    enum fi_datatype dt = fi_type[type];
    enum fi_op op = fi_aop[aop];
    size_t count = 0;
    int rc = form == FM_NET_ATOMIC_FETCH    ? fi_fetch_atomicvalid(R.ep, dt, op, &count)
             : form == FM_NET_ATOMIC_COMPARE ? fi_compare_atomicvalid(R.ep, dt, op, &count)
                                            : fi_atomicvalid(R.ep, dt, op, &count);
    return rc == 0 ? count : 0;
}

/* What the window layer must know of this endpoint (fm_net.rma_caps). */
static unsigned rma_caps(void)
{
    const uint64_t all = FI_ORDER_ATOMIC_RAR | FI_ORDER_ATOMIC_RAW | FI_ORDER_ATOMIC_WAR |
                         FI_ORDER_ATOMIC_WAW;
    unsigned caps = 0;
    if ((R.info->tx_attr->msg_order & all) == all)
        caps |= FM_NET_RMA_ATOMICS_ORDERED;
    /* net in libfabric 1.17 completes writes before they land,
     * FI_DELIVERY_COMPLETE or not; a read ordered behind them does not. */
    if ((fm_ofi_quirks(R.info->fabric_attr->prov_name) & FM_OFI_QUIRK_WRITE_LANDS_LATE) &&
        (R.info->tx_attr->msg_order & FI_ORDER_RAW))
        caps |= FM_NET_RMA_FLUSH_BY_READ;
    return caps;
}

int fm_ofi_rma_atomic(int form, int world, const void *buf, size_t count, const void *cmp,
                      void *res, uint64_t raddr, uint64_t key, int type, int aop,
                      fm_net_rma_op *o)
{
    fi_addr_t a = R.addr[world];
    enum fi_datatype dt = fi_type[type];
    enum fi_op op = fi_aop[aop];
    void *d = NULL, *cd = NULL, *rd = NULL;
    if (fm_ofi_mr_cache_on) {
        size_t bytes = count * at_size[type];
        int r = fm_ofi_mr_desc(buf, aop == FM_NET_AOP_READ ? 0 : bytes, &d);
        if (r == FM_OK && form == FM_NET_ATOMIC_COMPARE)
            r = fm_ofi_mr_desc(cmp, bytes, &cd);
        if (r == FM_OK && form != FM_NET_ATOMIC_WRITE)
            r = fm_ofi_mr_desc(res, bytes, &rd);
        if (r != FM_OK)
            return r;
    }
    ssize_t rc;
    if (form == FM_NET_ATOMIC_COMPARE)
        rc = fi_compare_atomic(R.ep, buf, count, d, cmp, cd, res, rd, a, raddr, key, dt, op,
                               op_ctx(o));
    else if (form == FM_NET_ATOMIC_FETCH)
        rc = fi_fetch_atomic(R.ep, buf, count, d, res, rd, a, raddr, key, dt, op, op_ctx(o));
    else
        rc = fi_atomic(R.ep, buf, count, d, a, raddr, key, dt, op, op_ctx(o));
    if (rc == -FI_EAGAIN)
        return FM_ERR_AGAIN;
    if (rc) {
        fm_error_msg("ofi/rma: fi_%satomic of %zu elements (datatype %d, op %d) to rank %d "
                     "failed: %s",
                     form == FM_NET_ATOMIC_COMPARE ? "compare_" : form == FM_NET_ATOMIC_FETCH ? "fetch_" : "",
                     count, (int)dt, (int)op, world, fi_strerror((int)-rc));
        return FM_ERR_NET;
    }
    fm_ofi_mr_inflight++;
    return FM_OK;
}

int fm_ofi_rma_poll(void)
{
    if (!R.up)
        return 0;
    struct fi_cq_entry ev[16];
    int n = 0;
    for (;;) {
        ssize_t got = fi_cq_read(R.cq, ev, 16);
        if (got == -FI_EAGAIN)
            break;
        if (got == -FI_EAVAIL) {
            struct fi_cq_err_entry e;
            memset(&e, 0, sizeof e);
            if (fi_cq_readerr(R.cq, &e, 0) != 1)
                break;
            fm_error_msg("ofi/rma: operation failed: %s (provider: %s)", fi_strerror(e.err),
                         fi_cq_strerror(R.cq, e.prov_errno, e.err_data, NULL, 0));
            fm_net_rma_op *op = e.op_context;
            fm_ofi_mr_inflight--;
            if (op)
                op->done(op, FM_ERR_NET);
            continue;
        }
        if (got < 0)
            break;
        fm_ofi_mr_inflight -= got;
        for (ssize_t i = 0; i < got; i++) {
            fm_net_rma_op *op = ev[i].op_context;
            op->done(op, FM_OK);
            n++;
        }
        if (got < 16) /* drained: see fm_ofi_poll */
            break;
    }
    if (fm_ofi_mr_cache_on) /* no call per poll where nothing is cached */
        fm_ofi_mr_reap();
    return n;
}

/* ---- the one-sided contract (net/net_rma.h) over the functions above ---- */

static int op_open(fm_net *n)
{
    int rc = fm_ofi_rma_open();
    if (rc == FM_OK) {
        n->rma_caps = rma_caps();
        n->rma_max = fm_ofi_rma_max();
        n->rma_distrust = fm_ofi_quirk_why(R.info->fabric_attr->prov_name, FM_OFI_QUIRK_ATOMICS);
    }
    return rc;
}

static size_t op_name(void *buf, size_t len, fm_net *n)
{
    (void)n;
    return fm_ofi_rma_name(buf, len);
}

static int op_insert(int peer, const void *name, size_t len, fm_net *n)
{
    (void)n;
    return fm_ofi_rma_insert(peer, name, len);
}

static int op_reg(void *base, size_t len, fm_net_mr **mr, uint64_t *key, uint64_t *raddr,
                  fm_net *n)
{
    (void)n;
    struct fid_mr *m;
    int rc = fm_ofi_rma_reg(base, len, &m, key, raddr);
    *mr = (fm_net_mr *)m;
    return rc;
}

static void op_dereg(fm_net_mr *mr, fm_net *n)
{
    (void)n;
    fm_ofi_rma_dereg((struct fid_mr *)mr);
}

static int op_xfer(int write, int peer, void *buf, size_t len, uint64_t raddr, uint64_t key,
                   fm_net_rma_op *op, fm_net *n)
{
    (void)n;
    return fm_ofi_rma_xfer(write, peer, buf, len, raddr, key, op);
}

static size_t op_atomic_count(int form, int type, int aop, fm_net *n)
{
    (void)n;
    return fm_ofi_rma_atomic_count(form, type, aop);
}

static int op_atomic(int form, int peer, const void *buf, size_t count, const void *cmp,
                     void *res, uint64_t raddr, uint64_t key, int type, int aop,
                     fm_net_rma_op *op, fm_net *n)
{
    (void)n;
    return fm_ofi_rma_atomic(form, peer, buf, count, cmp, res, raddr, key, type, aop, op);
}

static int op_poll(fm_net *n)
{
    (void)n;
    return fm_ofi_rma_poll();
}

const fm_net_rma_ops fm_ofi_rma_ops = {
    .open = op_open,
    .name = op_name,
    .insert = op_insert,
    .reg = op_reg,
    .dereg = op_dereg,
    .xfer = op_xfer,
    .atomic_count = op_atomic_count,
    .atomic = op_atomic,
    .poll = op_poll,
};
