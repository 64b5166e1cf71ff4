/* pack.c — copy between a typed buffer and a window of its packed stream.
 *
 * The packed stream of (buf, count, dt) is every block of element 0, then
 * of element 1, ...; a window [offset, offset+len) can start anywhere, so a
 * large message is packed piece by piece with no state kept between calls:
 * the starting block is found by binary search in dt->pos. */
#include <string.h>

#include "dtype/dtype.h"
#include "dtype/internal.h"
#include "util/copy.h"

/* Short blocks without a call: memcpy's call overhead dominates for the
 * blocks typical of vectors of basic types (fm_copy_short takes 4 to 16
 * bytes, any size between too). */
static inline void copy_bytes(char *dst, const char *src, size_t n)
{
    if (n == 1)
        *dst = *src;
    else if (n == 2)
        memcpy(dst, src, 2);
    else
        fm_copy_short(dst, src, n);
}

/* Index of the block holding packed byte r of one element (0 <= r < size). */
static int find_block(MPI_Datatype dt, MPI_Aint r)
{
    if (!dt->pos)
        return 0;
    int lo = 0, hi = dt->nblocks - 1; /* invariant: pos[lo] <= r < pos[hi + 1] */
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (dt->pos[mid] <= r)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* transfer() for types that keep runs (FM_DT_RUNS): the same walk with
 * one more level, the block within the run.  Out of line so the common
 * loop below stays as it was. */
static size_t __attribute__((noinline, cold))
transfer_runs(char *typed, MPI_Datatype dt, size_t offset, char *packed, size_t len, int to_packed)
{
    size_t size = (size_t)dt->size;
    size_t elem = offset / size;
    MPI_Aint within = (MPI_Aint)(offset % size);
    int b = find_block(dt, within);
    const fm_dt_block *blocks = dt->blocks;
    const int nblocks = dt->nblocks;
    within -= dt->pos ? dt->pos[b] : 0;
    MPI_Aint k = within / blocks[b].len; /* block of the run */
    within -= k * blocks[b].len;
    char *ebase = fm_dt_addr(typed, (MPI_Aint)elem * dt->extent);
    size_t done = 0;
    while (done < len) {
        const fm_dt_block *blk = &blocks[b];
        size_t n = (size_t)(blk->len - within);
        if (n > len - done)
            n = len - done;
        char *p = fm_dt_addr(ebase, blk->off + k * blk->stride + within);
        if (to_packed)
            copy_bytes(packed + done, p, n);
        else
            copy_bytes(p, packed + done, n);
        done += n;
        within = 0;
        if (++k == blk->count) {
            k = 0;
            if (++b == nblocks) {
                b = 0;
                ebase = fm_dt_addr(ebase, dt->extent);
            }
        }
    }
    return len;
}

/* to_packed: 1 packs (typed → packed), 0 unpacks. */
static size_t transfer(char *typed, MPI_Count count, MPI_Datatype dt, size_t offset,
                       char *packed, size_t len, int to_packed)
{
    size_t size = (size_t)dt->size;
    size_t total = (size_t)count * size;
    if (count <= 0 || offset >= total || len == 0)
        return 0;
    if (len > total - offset)
        len = total - offset;
    /* One test for both exceptions keeps the block loop's entry as it was. */
    if (dt->flags & (FM_DT_CONTIG | FM_DT_RUNS)) {
        if (__builtin_expect(dt->flags & FM_DT_CONTIG, 1)) {
            char *p = fm_dt_addr(typed, dt->true_lb + (MPI_Aint)offset);
            fm_copy(to_packed ? packed : p, to_packed ? p : packed, len);
            return len;
        }
        return transfer_runs(typed, dt, offset, packed, len, to_packed);
    }
    size_t elem = offset / size;
    MPI_Aint within = (MPI_Aint)(offset % size);
    int b = find_block(dt, within);
    within -= dt->pos ? dt->pos[b] : 0;
    const fm_dt_block *blocks = dt->blocks;
    const int nblocks = dt->nblocks;
    char *ebase = fm_dt_addr(typed, (MPI_Aint)elem * dt->extent);
    size_t done = 0;
    while (done < len) {
        size_t n = (size_t)(blocks[b].len - within);
        if (n > len - done)
            n = len - done;
        char *p = fm_dt_addr(ebase, blocks[b].off + within);
        if (to_packed)
            copy_bytes(packed + done, p, n);
        else
            copy_bytes(p, packed + done, n);
        done += n;
        within = 0;
        if (++b == nblocks) {
            b = 0;
            ebase = fm_dt_addr(ebase, dt->extent);
        }
    }
    return len;
}

size_t fm_dt_pack(const void *buf, MPI_Count count, MPI_Datatype dt, size_t offset, void *out,
                  size_t len)
{
    return transfer((char *)buf, count, dt, offset, out, len, 1);
}

size_t fm_dt_unpack(void *buf, MPI_Count count, MPI_Datatype dt, size_t offset, const void *in,
                    size_t len)
{
    return transfer(buf, count, dt, offset, (char *)in, len, 0);
}
