/* credits.h — the active messages' flow control (the ibv conduit's
 * scheme; docs/AM.md, "Flow control"): what each rank may still send to
 * each target, and what it owes each requester.
 *
 * A request takes one of its target's credits and one of this rank's
 * TOTAL; every reply gives it back.  A target that runs a request without
 * a reply banks the credit and returns it on its next message to the
 * requester, or in a hidden reply once more than the slack is banked.
 * Requests to oneself take none.  Everything here runs under the library
 * lock (core/cs.h). */
#ifndef FM_AM_CREDITS_H
#define FM_AM_CREDITS_H

#include "boot/world.h"

struct fm_am_credits {
    int *credits;     /* per target: requests it may still take from us */
    int *max_credits; /* per target: what credits[] starts at */
    int *banked;      /* per requester: credits we owe it */
    int *slack;       /* per requester: credits we may keep back */
    int inflight;     /* our requests whose credit has not come back */
    int total;        /* FABMPI_AM_CREDITS_TOTAL as it applies here */
};
extern struct fm_am_credits fm_am_cr __attribute__((visibility("hidden")));

/* Size every peer's credits and slack from the knobs and the transports
 * (fm_peer_net set).  FM_OK or FM_ERR_NOMEM. */
int fm_am_credits_setup(int world_size);
void fm_am_credits_teardown(void);

static inline int fm_am_has_credit(int peer)
{
    return peer == fm_world_rank ||
           (fm_am_cr.credits[peer] > 0 && fm_am_cr.inflight < fm_am_cr.total);
}

/* Take (take 1) or give back (take -1) the credit of a request to peer. */
static inline void fm_am_credit_take(int peer, int take)
{
    int c = peer != fm_world_rank ? take : 0;
    fm_am_cr.credits[peer] -= c;
    fm_am_cr.inflight += c;
}

#endif
