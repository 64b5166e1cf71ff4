/* coll_util.c — scratch buffers and local typed copies for collectives. */
#include <stdlib.h>
#include <string.h>

#include "coll/coll_util.h"
#include "util/status.h"

void *fm_coll_tmp_alloc(MPI_Count count, MPI_Datatype dt, void **raw)
{
    /* Span of the bytes (count, dt) touches, relative to the buffer pointer;
     * a negative extent lays elements out downwards. */
    MPI_Aint lo = dt->true_lb, hi = dt->true_lb + dt->true_extent;
    if (count > 1) {
        MPI_Aint last = (MPI_Aint)(count - 1) * dt->extent;
        if (last < 0)
            lo += last;
        else
            hi += last;
    }
    size_t bytes = count > 0 && hi > lo ? (size_t)(hi - lo) : 1;
    char *p = malloc(bytes);
    if (!p)
        return NULL;
    *raw = p;
    return p - (count > 0 ? lo : 0);
}

int fm_dt_copy(const void *src, MPI_Count scount, MPI_Datatype sdt, void *dst, MPI_Count rcount,
               MPI_Datatype rdt)
{
    size_t sbytes = (size_t)scount * (size_t)sdt->size;
    size_t rbytes = (size_t)rcount * (size_t)rdt->size;
    size_t n = sbytes < rbytes ? sbytes : rbytes;
    int rc = sbytes > rbytes ? FM_ERR_TRUNCATE : FM_OK;
    if (n == 0)
        return rc;
    if (fm_dt_is_contig(sdt) && fm_dt_is_contig(rdt)) {
        memmove((char *)dst + rdt->true_lb, (const char *)src + sdt->true_lb, n);
        return rc;
    }
    if (fm_dt_is_contig(sdt)) {
        fm_dt_unpack(dst, rcount, rdt, 0, (const char *)src + sdt->true_lb, n);
        return rc;
    }
    if (fm_dt_is_contig(rdt)) {
        fm_dt_pack(src, scount, sdt, 0, (char *)dst + rdt->true_lb, n);
        return rc;
    }
    /* Both sides have holes: stage through a bounce buffer, a chunk at a time. */
    _Alignas(64) unsigned char bounce[16384];
    for (size_t off = 0; off < n; off += sizeof bounce) {
        size_t len = n - off < sizeof bounce ? n - off : sizeof bounce;
        fm_dt_pack(src, scount, sdt, off, bounce, len);
        fm_dt_unpack(dst, rcount, rdt, off, bounce, len);
    }
    return rc;
}
