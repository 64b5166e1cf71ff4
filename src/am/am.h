/* am.h — the active-message layer inside the library (its public face is
 * include/fabmpi/am.h): set up and torn down by MPI_Init / MPI_Finalize.
 *
 * Messages travel as one protocol of the transports (FM_PROTO_AM, handed to
 * am.c by pt2pt's delivery table), in order per pair of ranks with every
 * other message, and wait in pt2pt's per-peer queue (copied) when a
 * transport has no room.  Each rank's segment is reserved at MPI_Init
 * (segment.c) and its address published through the bootstrap. */
#ifndef FM_AM_AM_H
#define FM_AM_AM_H

#include <stddef.h>
#include <stdint.h>

#include <fabmpi/am.h>

#include "am/region.h"

/* Reserve this rank's segment and publish it; before the transports' init
 * (whose fences make it visible).  FM_OK or an error after logging why. */
int fm_am_publish(void);
/* Read every rank's segment, register the protocol; after the transports. */
int fm_am_init(int world_rank, int world_size);
/* After the transports are gone. */
void fm_am_finalize(void);
int fm_am_up(void);         /* 1 between fm_am_init and fm_am_finalize */
extern int fm_am_handler_depth; /* > 0 inside a handler (which may not wait) */

/* The library's own active messages (rma.c): handlers 0..FM_AM_INTERNAL_MAX
 * in a table beside the program's, sent with the same credits and the
 * same rules (a request handler replies at most once, a reply handler
 * sends nothing).  Arguments are the caller's to check. */
#define FM_AM_INTERNAL_MAX 15
/* Who owns which: 0..7 fab_rma (rma.c), 8 and 9 the windows of src/rma
 * (src/rma/am.c), 10 and 11 their handed-off accumulates (src/rma/handoff.c). */
enum { FM_AM_H_WIN_REQ = 8, FM_AM_H_WIN_ANS = 9, FM_AM_H_WIN_HANDOFF = 10,
       FM_AM_H_WIN_HANDBACK = 11 };
/* fab_am_max_medium() without the API lock (callers hold it). */
size_t fm_am_max_medium(void);
enum { FM_AM_SHORT = 0, FM_AM_MEDIUM = 1, FM_AM_LONG = 2 };
void fm_am_internal_register(unsigned index, fab_am_fn_t fn);
int fm_am_internal_request(int kind, int rank, unsigned handler, const void *buf, size_t nbytes,
                           void *dest, unsigned flags, unsigned nargs, const fab_am_arg_t *args);
int fm_am_internal_reply(int kind, fab_am_token_t token, unsigned handler, const void *buf,
                         size_t nbytes, void *dest, unsigned nargs, const fab_am_arg_t *args);

/* rma.c: one-sided transfers into and out of segments (fab_rma_*); set up
 * at the end of fm_am_init, torn down before the transports (it waits for
 * what is in flight and gives its registration back). */
int fm_am_rma_init(void);
void fm_am_rma_finalize(void);

/* segment.c: rank's segment, a region (am/region.h) whose node card every
 * rank publishes (base 0, len 0 before fm_am_init; fd -1: private memory,
 * not mappable). */
extern fm_region_node_card *fm_am_segs;
/* Ours, registered for the network by am/rma.c on first use. */
extern fm_region fm_am_seg_mine;
/* Read every rank's (after the fences of the transports' init). */
int fm_am_segments_read(int world_size);
/* 1 when [addr, addr + n) lies in rank's segment. */
static inline int fm_am_in_segment(int rank, uint64_t addr, size_t n)
{
    const fm_region_node_card *s = &fm_am_segs[rank];
    return addr >= s->base && n <= s->len && addr - s->base <= s->len - n;
}
void fm_am_segments_release(void);
/* Where rank's segment is mapped in this process: ours, or a peer's on
 * this node mapped on first use; NULL when it cannot be (another node, or
 * FABMPI_NET=ofi, or the mapping failed). */
char *fm_am_seg_map(int rank);
/* Translate addr of rank's segment into the mapping m = fm_am_seg_map(rank). */
static inline void *fm_am_seg_at(char *m, int rank, uint64_t addr)
{
    return m + (addr - fm_am_segs[rank].base);
}

#endif
