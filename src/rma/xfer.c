/* xfer.c — Put and Get: one memcpy into or out of a mapped peer when both
 * sides are contiguous, a chunked pack/unpack when not, and one CMA
 * syscall batch for windows on user memory. */
#include <string.h>

#include "dtype/dtype.h"
#include "rma/rma.h"
#include "util/status.h"
#include "util/pvar.h"
#include "util/copy.h"

/* Non-contiguous copies go through this much stack at a time. */
#define COPY_CHUNK 4096

void fm_rma_span(MPI_Count count, MPI_Datatype dt, MPI_Aint *lo, MPI_Aint *hi)
{
    if (count <= 0) {
        *lo = *hi = 0;
        return;
    }
    MPI_Aint first = dt->true_lb, last = dt->true_lb + (MPI_Aint)(count - 1) * dt->extent;
    MPI_Aint l = first < last ? first : last;
    *lo = l;
    *hi = (first > last ? first : last) + dt->true_extent;
}

void fm_rma_copy(const void *src, MPI_Count scount, MPI_Datatype sdt, void *dst, MPI_Count dcount,
                 MPI_Datatype ddt)
{
    size_t n = (size_t)scount * (size_t)sdt->size;
    size_t dn = (size_t)dcount * (size_t)ddt->size;
    if (dn < n)
        n = dn;
    if (n == 0) /* buffers of nothing may be NULL, which memcpy must not see */
        return;
    if (fm_dt_is_contig(sdt) && fm_dt_is_contig(ddt)) {
        fm_copy((char *)dst + ddt->true_lb, (const char *)src + sdt->true_lb, n);
        return;
    }
    _Alignas(64) unsigned char tmp[COPY_CHUNK];
    for (size_t off = 0; off < n; off += sizeof tmp) {
        size_t len = n - off < sizeof tmp ? n - off : sizeof tmp;
        fm_dt_pack(src, scount, sdt, off, tmp, len);
        fm_dt_unpack(dst, dcount, ddt, off, tmp, len);
    }
}

int fm_rma_put(struct fm_win *w, const void *obuf, MPI_Count ocount, MPI_Datatype odt, int trank,
               MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype tdt)
{
    fm_rma_peer *p = &w->peer[trank];
    if (p->remote)
        return fm_rma_remote_put(w, obuf, ocount, odt, trank, tdisp, tcount, tdt);
    uintptr_t t = fm_rma_target(w, trank, tdisp);
    if (p->direct) {
        FM_PV_INC(rma_loadstore);
        fm_rma_copy(obuf, ocount, odt, (void *)t, tcount, tdt);
        return FM_OK;
    }
    FM_PV_INC(rma_cma);
    return fm_rma_cma(p->pid, 1, (void *)(uintptr_t)obuf, ocount, odt, t, tcount, tdt);
}

int fm_rma_get(struct fm_win *w, void *obuf, MPI_Count ocount, MPI_Datatype odt, int trank,
               MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype tdt)
{
    fm_rma_peer *p = &w->peer[trank];
    if (p->remote)
        return fm_rma_remote_get(w, obuf, ocount, odt, trank, tdisp, tcount, tdt);
    uintptr_t t = fm_rma_target(w, trank, tdisp);
    if (p->direct) {
        FM_PV_INC(rma_loadstore);
        fm_rma_copy((const void *)t, tcount, tdt, obuf, ocount, odt);
        return FM_OK;
    }
    FM_PV_INC(rma_cma);
    return fm_rma_cma(p->pid, 0, obuf, ocount, odt, t, tcount, tdt);
}
