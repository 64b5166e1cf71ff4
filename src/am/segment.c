/* segment.c — each rank's segment (fab_segment): FABMPI_AM_SEGMENT_SIZE
 * bytes of nameless shared memory (memfd) reserved at MPI_Init with
 * MAP_NORESERVE, so a program that never touches it pays one mmap and no
 * pages.  Its address, size, pid and descriptor travel through the
 * bootstrap's key-value store; a peer on this node maps it on first use
 * (fm_am_seg_map), so one-sided transfers and Long payloads to it are
 * plain copies.  Where memfd or the mapping fails, the segment is private
 * memory and peers fall back to CMA or messages. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <fabmpi/am.h>

#include "am/am.h"
#include "boot/boot.h"
#include "boot/world.h"
#include "core/world.h"
#include "core/cs.h"
#include "util/log.h"
#include "util/param.h"
#include "util/shm_segment.h"
#include "util/status.h"

struct fm_am_segment *fm_am_segs;
static struct fm_am_segment mine;
/* Per rank: where its segment is mapped here (NULL: not yet or never),
 * and whether mapping was tried. */
static char **mapped;
static uint8_t *tried;

int fm_am_publish(void)
{
    mine = (struct fm_am_segment){0, 0, (int32_t)getpid(), -1};
    size_t size = fm_param.AM_SEGMENT_SIZE;
    if (size) {
        const char *failed = "";
        void *p = fm_shm_anon_create(size, &mine.fd, &failed);
        if (!p) {
            fm_log(1, "am: no shared segment (memfd %s: %s); peers reach it by CMA or messages",
                   failed, strerror(errno));
            p = mmap(NULL, size, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        }
        if (p == MAP_FAILED || !p) {
            fm_error_msg("FABMPI_AM_SEGMENT_SIZE=%zu: cannot reserve the segment (%s)", size,
                         strerror(errno));
            return FM_ERR_NOMEM;
        }
        mine.base = (uint64_t)(uintptr_t)p;
        mine.size = size;
    }
    return fm_boot_put("fm.am.seg", &mine, sizeof mine);
}

char *fm_am_seg_map(int rank)
{
    if (mapped[rank] || tried[rank])
        return mapped[rank];
    tried[rank] = 1;
    const struct fm_am_segment *s = &fm_am_segs[rank];
    if (rank == fm_world_rank)
        mapped[rank] = (char *)(uintptr_t)s->base;
    else if (s->size && s->fd >= 0 && fm_peer_net[rank] == &fm_net_shm) {
        const char *failed = "";
        mapped[rank] = fm_shm_anon_map(s->pid, s->fd, (size_t)s->size, &failed);
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
        if (mapped[r] && r != fm_world_rank)
            munmap(mapped[r], (size_t)fm_am_segs[r].size);
    if (mine.size)
        munmap((void *)(uintptr_t)mine.base, mine.size);
    if (mine.fd >= 0)
        close(mine.fd);
    mine = (struct fm_am_segment){0, 0, 0, -1};
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
    *size = (size_t)fm_am_segs[rank].size;
    return FAB_OK;
}
