/* coll_util.c — scratch buffers and local typed copies for collectives. */
#include <stdlib.h>
#include <string.h>

#include "coll/coll_util.h"
#include "util/status.h"
#include "util/copy.h"

/* Large scratch buffers are kept for the next call instead of freed.  A
 * freed block of 128 KiB or more goes back to the system (glibc unmaps it),
 * and each call then pays a page fault per 4 KiB page of a fresh one: on
 * this project's VMs about 16 us a page, which made osu_reduce_scatter at
 * 1 MiB (2 ranks) take 9.7 ms against Open MPI's 0.14.  A few slots, each block at
 * most SCRATCH_MAX bytes, handed to one user at a time; the library lock
 * serialises callers at MPI_THREAD_MULTIPLE.  Smaller blocks come from
 * malloc's heap, which keeps its pages.
 *
 * Kept blocks start on a page: a large mmap'd malloc block starts 16 bytes
 * past one, and a 1 MiB rendezvous copied into it from a page-aligned user
 * buffer made osu_reduce (2 ranks, 1 MiB) take 132-135 us instead of
 * 89-93 with page-aligned scratch. */
#define SCRATCH_SLOTS 8
#define SCRATCH_MIN ((size_t)64 << 10)
#define SCRATCH_MAX ((size_t)64 << 20)
#define SCRATCH_ALIGN ((size_t)4096)

struct scratch_slot {
    void *p;
    size_t size;
    int busy;
};
static struct scratch_slot scratch[SCRATCH_SLOTS];

static void *scratch_get(size_t bytes)
{
    if (bytes < SCRATCH_MIN || bytes > SCRATCH_MAX)
        return malloc(bytes);
    struct scratch_slot *best = NULL, *empty = NULL, *smallest = NULL;
    for (int i = 0; i < SCRATCH_SLOTS; i++) {
        struct scratch_slot *s = &scratch[i];
        if (!s->p) {
            empty = empty ? empty : s;
        } else if (!s->busy) {
            if (s->size >= bytes && (!best || s->size < best->size))
                best = s;
            if (!smallest || s->size < smallest->size)
                smallest = s;
        }
    }
    if (best) {
        best->busy = 1;
        return best->p;
    }
    bytes = (bytes + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN;
    void *p = aligned_alloc(SCRATCH_ALIGN, bytes);
    if (!p)
        return NULL;
    if (!empty && smallest) { /* every idle block too small: replace the smallest */
        free(smallest->p);
        *smallest = (struct scratch_slot){0};
        empty = smallest;
    }
    if (empty)
        *empty = (struct scratch_slot){.p = p, .size = bytes, .busy = 1};
    return p;
}

/* 1 if p is a kept block (now idle again), 0 if the caller frees it. */
static int scratch_put(void *p)
{
    for (int i = 0; i < SCRATCH_SLOTS; i++) {
        if (scratch[i].p == p) {
            scratch[i].busy = 0;
            return 1;
        }
    }
    return 0;
}

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
    char *p = scratch_get(bytes);
    if (!p)
        return NULL;
    *raw = p;
    return p - (count > 0 ? lo : 0);
}

void fm_coll_tmp_free(void *raw)
{
    if (raw && !scratch_put(raw))
        free(raw);
}

void fm_coll_tmp_release_all(void)
{
    for (int i = 0; i < SCRATCH_SLOTS; i++) {
        if (scratch[i].p && !scratch[i].busy) {
            free(scratch[i].p);
            scratch[i] = (struct scratch_slot){0};
        }
    }
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
        fm_move((char *)dst + rdt->true_lb, (const char *)src + sdt->true_lb, n);
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
