/* cma.c — typed transfers with process_vm_readv / process_vm_writev.
 *
 * Both sides become iovec lists (one entry per contiguous block); the
 * kernel walks the two lists as one byte stream each, which is exactly
 * pack-on-one-side, unpack-on-the-other (util/cma.c does the calls). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "dtype/dtype.h"
#include "rma/rma.h"
#include "util/cma.h"
#include "util/log.h"
#include "util/status.h"

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
    /* One iovec per block; a run (FM_DT_RUNS) is count blocks. */
    size_t nb = (size_t)dt->nblocks, per = 0, total;
    for (size_t b = 0; b < nb; b++)
        per += (size_t)dt->blocks[b].count;
    if (__builtin_mul_overflow((size_t)count, per, &total) ||
        __builtin_mul_overflow(total, sizeof *l->v, &total))
        return FM_ERR_NOMEM;
    l->v = malloc(total);
    if (!l->v)
        return FM_ERR_NOMEM;
    l->n = 0;
    for (MPI_Count i = 0; i < count; i++)
        for (size_t b = 0; b < nb; b++) {
            const fm_dt_block *blk = &dt->blocks[b];
            for (MPI_Aint k = 0; k < blk->count; k++) {
                l->v[l->n].iov_base =
                    (void *)(buf + (uintptr_t)(i * dt->extent + blk->off + k * blk->stride));
                l->v[l->n].iov_len = (size_t)blk->len;
                l->n++;
            }
        }
    return FM_OK;
}

static void drop(iovlist *l)
{
    if (l->v != &l->one)
        free(l->v);
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
    fm_cma_fail f;
    if (fm_cma_copy(pid, write, L.v, L.n, R.v, R.n, &f) != 0) {
        fm_error_msg("rma: process_vm_%s of %zu bytes at 0x%llx in pid %d: %s",
                     write ? "writev" : "readv", f.bytes, (unsigned long long)f.remote, pid,
                     strerror(f.err));
        rc = f.err == ESRCH ? FM_ERR_PEER_DEAD : FM_ERR_NET;
    }
    drop(&L);
    drop(&R);
    return rc;
}
