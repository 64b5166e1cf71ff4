/* xfer.c — posting one-sided network operations for the whole library
 * (xfer.h): one open endpoint, one completion hook, one order per target.
 * Before it, windows, the collectives' caches and fab_rma each kept their
 * own copy of the parking and the hook, and a process using all three
 * polled the same completion queue three times per progress call. */
#include "am/xfer.h"

#include <stdlib.h>

#include "core/transports.h"
#include "core/world.h"
#include "util/status.h"

static struct {
    int tried;
    fm_net *net;
    int holds;
    int *parked; /* [world] operations to that rank waiting in the deferred queue */
} X;

fm_net *fm_xfer_net(void)
{
    if (!X.tried) {
        X.tried = 1;
        fm_net *n = fm_transports_onesided();
        if (n && fm_net_rma_open(n) == FM_OK)
            X.net = n;
    }
    return X.net;
}

static int hook(void) { return fm_net_rma_poll(X.net); }

int fm_xfer_hold(void)
{
    if (!fm_xfer_net())
        return FM_ERR_UNSUPPORTED;
    if (X.holds++ == 0) {
        int rc = fm_progress_add(hook);
        if (rc != FM_OK) {
            X.holds--;
            return rc;
        }
    }
    return FM_OK;
}

void fm_xfer_release(void)
{
    if (X.holds > 0 && --X.holds == 0)
        fm_progress_remove(hook);
}

static int try_post(fm_xfer *x)
{
    if (x->kind < FM_XFER_ATOMIC)
        return fm_net_rma_xfer(X.net, x->kind == FM_XFER_WRITE, x->world, (void *)(uintptr_t)x->buf,
                               x->count, x->raddr, x->key, &x->op);
    return fm_net_rma_atomic(X.net, x->kind - FM_XFER_ATOMIC, x->world, x->buf, x->count, x->cmp,
                             x->res, x->raddr, x->key, x->type, x->aop, &x->op);
}

/* A parked operation's turn (from progress): refused again, it stays;
 * failed, it completes with the error. */
static int retry(fm_deferred *d)
{
    fm_xfer *x = (fm_xfer *)(void *)((char *)d - offsetof(fm_xfer, parked));
    int rc = try_post(x);
    if (rc == FM_ERR_AGAIN)
        return rc;
    X.parked[x->world]--;
    if (rc != FM_OK)
        x->op.done(&x->op, rc);
    return rc;
}

int fm_xfer_post_now(fm_xfer *x)
{
    if (!fm_xfer_net())
        return FM_ERR_UNSUPPORTED;
    if (X.parked && X.parked[x->world])
        return FM_ERR_AGAIN;
    return try_post(x);
}

int fm_xfer_post(fm_xfer *x)
{
    int rc = fm_xfer_post_now(x);
    if (rc != FM_ERR_AGAIN)
        return rc;
    if (!X.parked && !(X.parked = calloc((size_t)fm_world_size, sizeof *X.parked)))
        return FM_ERR_NOMEM;
    X.parked[x->world]++;
    x->parked.retry = retry;
    fm_defer(&x->parked);
    return FM_OK;
}

void fm_xfer_finalize(void)
{
    if (X.holds)
        fm_progress_remove(hook);
    free(X.parked);
    X = (__typeof__(X)){0};
}
