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

/* Reserve this rank's segment and publish it; before the transports' init
 * (whose fences make it visible).  FM_OK or an error after logging why. */
int fm_am_publish(void);
/* Read every rank's segment, register the protocol; after the transports. */
int fm_am_init(int world_rank, int world_size);
/* After the transports are gone. */
void fm_am_finalize(void);

/* segment.c: rank's segment (base 0, size 0 before fm_am_init). */
struct fm_am_segment {
    uint64_t base;
    uint64_t size;
};
extern struct fm_am_segment *fm_am_segs;
/* Read every rank's (after the fences of the transports' init). */
int fm_am_segments_read(int world_size);
/* 1 when [addr, addr + n) lies in rank's segment. */
int fm_am_in_segment(int rank, uint64_t addr, size_t n);
void fm_am_segments_release(void);

#endif
