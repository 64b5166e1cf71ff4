/* credits.c — sizing the active messages' credits (credits.h). */
#include "am/credits.h"

#include <stdlib.h>

#include "core/world.h"
#include "util/param.h"
#include "util/status.h"

struct fm_am_credits fm_am_cr;

/* A peer on this node gets a credit per KiB of the ring to it: about as
 * many 1 KiB Mediums as the ring holds. */
#define RING_BYTES_PER_CREDIT 1024

/* Credits and slack for requests to peer p; 1 when sized to its ring.
 * A peer reached through a ring of its own (on this node) gets a credit
 * per RING_BYTES_PER_CREDIT of it while FABMPI_AM_CREDITS_PP is unset,
 * whose default is set for the network's buffers: a request waiting for a
 * credit while the ring has room only idles (docs/AM.md, "Credits sized
 * to the ring", has what it gained). */
static int credits_for(int p, int *pp, int *slack)
{
    size_t ring = fm_peer_net[p] ? fm_peer_net[p]->buffered : 0;
    size_t by_ring = ring / RING_BYTES_PER_CREDIT;
    *pp = (int)fm_param.AM_CREDITS_PP;
    *slack = (int)fm_param.AM_CREDITS_SLACK;
    if (!fm_param_is_default(&fm_param.AM_CREDITS_PP) || by_ring <= (size_t)*pp)
        return 0;
    *pp = by_ring > 65536 ? 65536 : (int)by_ring;
    if (fm_param_is_default(&fm_param.AM_CREDITS_SLACK))
        *slack = *pp / 16;
    return 1;
}

int fm_am_credits_setup(int world_size)
{
    struct fm_am_credits *C = &fm_am_cr;
    C->credits = calloc((size_t)world_size, sizeof *C->credits);
    C->max_credits = calloc((size_t)world_size, sizeof *C->max_credits);
    C->banked = calloc((size_t)world_size, sizeof *C->banked);
    C->slack = calloc((size_t)world_size, sizeof *C->slack);
    if (!C->credits || !C->max_credits || !C->banked || !C->slack)
        return FM_ERR_NOMEM;
    /* The seed's TOTAL: MIN(256, peers * PP), at least PP; the same on
     * every rank. */
    int pp = (int)fm_param.AM_CREDITS_PP;
    int seed_total = (int)fm_param.AM_CREDITS_TOTAL;
    if (seed_total == 0)
        seed_total = world_size > 1 && (world_size - 1) * pp < 256 ? (world_size - 1) * pp : 256;
    if (seed_total < pp)
        seed_total = pp;
    int net_total = 0, ring_total = 0;
    for (int p = 0; p < world_size; p++) {
        int ring_sized = credits_for(p, &C->credits[p], &C->slack[p]);
        C->max_credits[p] = C->credits[p];
        /* What a target keeps back never holds all of a requester's
         * credits: below the peer's credits, and below TOTAL / ranks where
         * several targets draw on one TOTAL (seed_total, the same on every
         * rank, so every target clamps alike).  Peers on this node draw
         * on their own part of the default TOTAL: their slack sums below
         * it. */
        if (C->slack[p] > C->credits[p] - 1)
            C->slack[p] = C->credits[p] - 1;
        if ((!ring_sized || fm_param.AM_CREDITS_TOTAL) && C->slack[p] > (seed_total - 1) / world_size)
            C->slack[p] = (seed_total - 1) / world_size;
        if (p == fm_world_rank)
            continue;
        *(ring_sized ? &ring_total : &net_total) += C->credits[p];
    }
    /* Default: the seed's for the network's peers, plus every ring peer's
     * credits (so at least one peer's worth). */
    C->total = fm_param.AM_CREDITS_TOTAL ? seed_total
                                         : (net_total < 256 ? net_total : 256) + ring_total;
    if (C->total < pp)
        C->total = pp;
    C->inflight = 0;
    return FM_OK;
}

void fm_am_credits_teardown(void)
{
    struct fm_am_credits *C = &fm_am_cr;
    free(C->credits);
    free(C->max_credits);
    free(C->banked);
    free(C->slack);
    C->credits = C->max_credits = C->banked = C->slack = NULL;
}
