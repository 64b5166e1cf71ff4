/* segment.c — each rank's segment (fab_segment): FABMPI_AM_SEGMENT_SIZE
 * bytes of anonymous memory reserved at MPI_Init with MAP_NORESERVE, so a
 * program that never touches it pays one mmap and no pages.  Its address
 * and size travel through the bootstrap's key-value store. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <fabmpi/am.h>

#include "am/am.h"
#include "boot/boot.h"
#include "boot/world.h"
#include "core/cs.h"
#include "util/log.h"
#include "util/param.h"
#include "util/status.h"

struct fm_am_segment *fm_am_segs;
static struct fm_am_segment mine;

int fm_am_publish(void)
{
    mine = (struct fm_am_segment){0, 0};
    size_t size = fm_param.AM_SEGMENT_SIZE;
    if (size) {
        void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) {
            fm_error_msg("FABMPI_AM_SEGMENT_SIZE=%zu: cannot reserve the segment (%s)", size,
                         strerror(errno));
            return FM_ERR_NOMEM;
        }
        mine = (struct fm_am_segment){(uint64_t)(uintptr_t)p, size};
    }
    return fm_boot_put("fm.am.seg", &mine, sizeof mine);
}

int fm_am_segments_read(int world_size)
{
    fm_am_segs = calloc((size_t)world_size, sizeof *fm_am_segs);
    if (!fm_am_segs)
        return FM_ERR_NOMEM;
    for (int r = 0; r < world_size; r++) {
        size_t len = sizeof fm_am_segs[r];
        if (fm_boot_get(r, "fm.am.seg", &fm_am_segs[r], &len) != FM_OK ||
            len != sizeof fm_am_segs[r]) {
            fm_error_msg("rank %d published no active-message segment", r);
            return FM_ERR_BOOT;
        }
    }
    return FM_OK;
}

int fm_am_in_segment(int rank, uint64_t addr, size_t n)
{
    const struct fm_am_segment *s = &fm_am_segs[rank];
    return addr >= s->base && n <= s->size && addr - s->base <= s->size - n;
}

void fm_am_segments_release(void)
{
    if (mine.size)
        munmap((void *)(uintptr_t)mine.base, mine.size);
    mine = (struct fm_am_segment){0, 0};
    free(fm_am_segs);
    fm_am_segs = NULL;
}

int fab_segment(int rank, void **base, size_t *size)
{
    FM_API_LOCK();
    if (!fm_am_segs)
        return FAB_ERR_NOT_INIT;
    if (rank < 0 || rank >= fm_world_size) {
        fm_error_msg("fab_segment: rank=%d is not a rank (0..%d)", rank, fm_world_size - 1);
        return FAB_ERR_BAD_ARG;
    }
    if (!base || !size) {
        fm_error_msg("fab_segment: %s=NULL", !base ? "base" : "size");
        return FAB_ERR_BAD_ARG;
    }
    *base = (void *)(uintptr_t)fm_am_segs[rank].base;
    *size = (size_t)fm_am_segs[rank].size;
    return FAB_OK;
}
