/* cma.c — typed transfers with process_vm_readv / process_vm_writev.
 *
 * Both sides become iovec lists (one entry per contiguous block); the
 * kernel walks the two lists as one byte stream each, which is exactly
 * pack-on-one-side, unpack-on-the-other.  Lists longer than what one call
 * takes are cut into batches whose two halves carry the same bytes, and a
 * short transfer (the kernel stops at a page it cannot reach) resumes where
 * it stopped. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "dtype/dtype.h"
#include "rma/rma.h"
#include "util/log.h"
#include "util/status.h"

#define IOV_BATCH 1024 /* the kernel's UIO_MAXIOV */

typedef struct iovlist {
    struct iovec *v;
    size_t n;
    struct iovec one; /* storage for contiguous buffers */
} iovlist;

static int build(iovlist *l, uintptr_t buf, MPI_Count count, MPI_Datatype dt)
{
    if (fm_dt_is_contig(dt) || count == 0) {
        l->one.iov_base = (void *)(buf + (uintptr_t)dt->true_lb);
        l->one.iov_len = (size_t)count * (size_t)dt->size;
        l->v = &l->one;
        l->n = 1;
        return FM_OK;
    }
    size_t nb = (size_t)dt->nblocks;
    l->v = malloc((size_t)count * nb * sizeof *l->v);
    if (!l->v)
        return FM_ERR_NOMEM;
    l->n = 0;
    for (MPI_Count i = 0; i < count; i++)
        for (size_t b = 0; b < nb; b++) {
            l->v[l->n].iov_base = (void *)(buf + (uintptr_t)(i * dt->extent + dt->blocks[b].off));
            l->v[l->n].iov_len = (size_t)dt->blocks[b].len;
            l->n++;
        }
    return FM_OK;
}

static void drop(iovlist *l)
{
    if (l->v != &l->one)
        free(l->v);
}

typedef struct cursor {
    const iovlist *l;
    size_t i, off;
} cursor;

static void advance(cursor *c, size_t bytes)
{
    while (bytes && c->i < c->l->n) {
        size_t left = c->l->v[c->i].iov_len - c->off;
        if (bytes < left) {
            c->off += bytes;
            return;
        }
        bytes -= left;
        c->i++;
        c->off = 0;
    }
}

/* Append [base, base+len) to a batch, merging with the previous piece when
 * it continues it. */
static void append(struct iovec *b, int *n, char *base, size_t len)
{
    if (*n && (char *)b[*n - 1].iov_base + b[*n - 1].iov_len == base) {
        b[*n - 1].iov_len += len;
        return;
    }
    b[*n].iov_base = base;
    b[*n].iov_len = len;
    (*n)++;
}

int fm_rma_cma(int pid, int write, void *lbuf, MPI_Count lcount, MPI_Datatype ldt, uintptr_t raddr,
               MPI_Count rcount, MPI_Datatype rdt)
{
    iovlist L, R;
    int rc = build(&L, (uintptr_t)lbuf, lcount, ldt);
    if (rc != FM_OK)
        return rc;
    if ((rc = build(&R, raddr, rcount, rdt)) != FM_OK) {
        drop(&L);
        return rc;
    }
    struct iovec lb[IOV_BATCH], rb[IOV_BATCH];
    cursor lc = {&L, 0, 0}, rcur = {&R, 0, 0};
    for (;;) {
        int nl = 0, nr = 0;
        size_t total = 0;
        cursor a = lc, b = rcur;
        while (a.i < L.n && b.i < R.n && nl < IOV_BATCH && nr < IOV_BATCH) {
            size_t la = L.v[a.i].iov_len - a.off, ra = R.v[b.i].iov_len - b.off;
            size_t take = la < ra ? la : ra;
            if (take) {
                append(lb, &nl, (char *)L.v[a.i].iov_base + a.off, take);
                append(rb, &nr, (char *)R.v[b.i].iov_base + b.off, take);
                total += take;
            }
            advance(&a, take);
            advance(&b, take);
            if (!la)
                a.i++, a.off = 0;
            if (!ra)
                b.i++, b.off = 0;
        }
        if (!total)
            break;
        ssize_t got = write ? process_vm_writev(pid, lb, (unsigned long)nl, rb, (unsigned long)nr, 0)
                            : process_vm_readv(pid, lb, (unsigned long)nl, rb, (unsigned long)nr, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            int e = got < 0 ? errno : EIO;
            fm_error_msg("rma: process_vm_%s of %zu bytes at 0x%llx in pid %d: %s", write ? "writev" : "readv",
                         total, (unsigned long long)(uintptr_t)rb[0].iov_base, pid, strerror(e));
            rc = e == ESRCH ? FM_ERR_PEER_DEAD : FM_ERR_NET;
            break;
        }
        advance(&lc, (size_t)got);
        advance(&rcur, (size_t)got);
    }
    drop(&L);
    drop(&R);
    return rc;
}
