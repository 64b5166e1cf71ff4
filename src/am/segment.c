/* segment.c — each rank's segment (fab_segment): a region (am/region.h)
 * of FABMPI_AM_SEGMENT_SIZE bytes of shared memory made at MPI_Init
 * without reserving its pages, so a program that never touches it pays
 * one mmap and no pages.  Its node card travels through the bootstrap's
 * key-value store; a peer on this node maps it on first use
 * (fm_am_seg_map), so one-sided transfers and Long payloads to it are
 * plain copies.  Where the shared region or the mapping fails, the
 * segment is private memory and peers fall back to CMA or messages.  Its
 * memfd stays open for the job: peers map it whenever they first need
 * it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <fabmpi/am.h>

#include "am/am.h"
#include "boot/boot.h"
#include "boot/world.h"
#include "core/world.h"
#include "core/cs.h"
#include "util/log.h"
#include "util/param.h"
#include "util/status.h"

fm_region_node_card *fm_am_segs;
fm_region fm_am_seg_mine = {.fd = -1};
/* Per rank: where its segment is mapped here (NULL: not yet or never),
 * and whether mapping was tried. */
static char **mapped;
static uint8_t *tried;

int fm_am_publish(void)
{
    size_t size = fm_param.AM_SEGMENT_SIZE;
    fm_region *r = &fm_am_seg_mine;
    fm_region_wrap(r, NULL, 0);
    if (size) {
        const char *failed = "";
        if (fm_region_alloc(r, size, 0, FM_REGION_SHARED, &failed) != FM_OK) {
            fm_log(1, "am: no shared segment (memfd %s: %s); peers reach it by CMA or messages",
                   failed, strerror(errno));
            if (fm_region_alloc(r, size, 0, 0, &failed) != FM_OK) {
                fm_error_msg("FABMPI_AM_SEGMENT_SIZE=%zu: cannot reserve the segment (%s)",
                             size, strerror(errno));
                return FM_ERR_NOMEM;
            }
        }
    }
    fm_region_node_card mine;
    fm_region_describe(r, &mine);
    return fm_boot_put("fm.am.seg", &mine, sizeof mine);
}

char *fm_am_seg_map(int rank)
{
    if (mapped[rank] || tried[rank])
        return mapped[rank];
    tried[rank] = 1;
    const fm_region_node_card *s = &fm_am_segs[rank];
    if (rank == fm_world_rank)
        mapped[rank] = (char *)(uintptr_t)s->base;
    else if (s->len && s->fd >= 0 && fm_peer_net[rank] == &fm_net_shm) {
        const char *failed = "";
        mapped[rank] = fm_region_map(s, &failed);
        if (!mapped[rank])
            fm_log(1, "am: rank %d's segment not mapped (%s: %s); reached by CMA or messages",
                   rank, failed, strerror(errno));
    }
    return mapped[rank];
}

int fm_am_segments_read(int world_size)
{
    fm_am_segs = calloc((size_t)world_size, sizeof *fm_am_segs);
    mapped = calloc((size_t)world_size, sizeof *mapped);
    tried = calloc((size_t)world_size, sizeof *tried);
    if (!fm_am_segs || !mapped || !tried)
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

void fm_am_segments_release(void)
{
    for (int r = 0; mapped && r < fm_world_size; r++)
        if (r != fm_world_rank)
            fm_region_unmap(mapped[r], &fm_am_segs[r]);
    fm_region_free(&fm_am_seg_mine);
    free(fm_am_segs);
    free(mapped);
    free(tried);
    fm_am_segs = NULL;
    mapped = NULL;
    tried = NULL;
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
    *size = (size_t)fm_am_segs[rank].len;
    return FAB_OK;
}
