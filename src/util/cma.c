/* cma.c — process_vm_readv / process_vm_writev over iovec lists (cma.h).
 *
 * Each call gets two batches of at most IOV_BATCH entries that carry the
 * same bytes (pieces are cut where either list's entries end, and merged
 * again where they continue each other), so what one call moves is always
 * a prefix of both streams and a short transfer resumes exactly. */
#include <errno.h>

#include "util/cma.h"

#define IOV_BATCH 1024 /* the kernel's UIO_MAXIOV */

typedef struct cursor {
    const struct iovec *v;
    size_t n, i, off;
} cursor;

static void advance(cursor *c, size_t bytes)
{
    while (c->i < c->n) {
        size_t left = c->v[c->i].iov_len - c->off;
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
static void append(struct iovec *b, unsigned long *n, char *base, size_t len)
{
    if (*n && (char *)b[*n - 1].iov_base + b[*n - 1].iov_len == base) {
        b[*n - 1].iov_len += len;
        return;
    }
    b[*n].iov_base = base;
    b[*n].iov_len = len;
    (*n)++;
}

int fm_cma_copy(int pid, int write, const struct iovec *local, size_t nl,
                const struct iovec *remote, size_t nr, fm_cma_fail *fail)
{
    struct iovec lb[IOV_BATCH], rb[IOV_BATCH];
    cursor lc = {local, nl, 0, 0}, rc = {remote, nr, 0, 0};
    for (;;) {
        unsigned long nlb = 0, nrb = 0;
        size_t total = 0;
        cursor a = lc, b = rc;
        while (a.i < a.n && b.i < b.n && nlb < IOV_BATCH && nrb < IOV_BATCH) {
            size_t la = a.v[a.i].iov_len - a.off, ra = b.v[b.i].iov_len - b.off;
            size_t take = la < ra ? la : ra;
            if (take) {
                append(lb, &nlb, (char *)a.v[a.i].iov_base + a.off, take);
                append(rb, &nrb, (char *)b.v[b.i].iov_base + b.off, take);
                total += take;
            }
            advance(&a, take); /* steps over the entry that ran out */
            advance(&b, take);
        }
        if (!total)
            return 0;
        ssize_t got = write ? process_vm_writev(pid, lb, nlb, rb, nrb, 0)
                            : process_vm_readv(pid, lb, nlb, rb, nrb, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            fail->err = got < 0 ? errno : EIO;
            fail->bytes = total;
            fail->remote = (uintptr_t)rb[0].iov_base;
            return -1;
        }
        advance(&lc, (size_t)got);
        advance(&rc, (size_t)got);
    }
}
