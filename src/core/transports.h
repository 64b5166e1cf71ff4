/* transports.h — bringing the transports up and down, choosing the one
 * that reaches each world rank (fm_peer_net, core/world.h), and polling
 * them from fm_progress().  Also decides whether blocking waits yield at
 * once (fm_oversubscribed), from FABMPI_YIELD and whether the node is
 * crowded (boot/world.h). */
#ifndef FM_CORE_TRANSPORTS_H
#define FM_CORE_TRANSPORTS_H

#include "net/net.h"

/* Bring up self and shm, and OFI when asked for or when a rank is off
 * this node; every arriving message goes to deliver.  fm_vci0 polls them
 * (core/vci.h).  When the shm setup made lanes (FABMPI_VCIS > 1, every
 * rank on this node), each lane VCI gets its own instances, polled by
 * whoever holds it, whose messages go to deliver_lanes[i] for lane i.
 * Collective over the job (the transports fence). */
int fm_transports_init(int world_rank, int world_size, fm_net_deliver_fn *deliver,
                       fm_net_deliver_fn *const *deliver_lanes);
/* 1 when OFI was brought up. */
int fm_transports_ofi_up(void);
/* The transport one-sided layers (windows, one-sided collectives) reach
 * peers whose memory cannot be mapped through: the first brought up that
 * reaches remote peers and has one-sided operations (net/net_rma.h), or
 * NULL.  Not yet opened: fm_net_rma_open() it before use. */
fm_net *fm_transports_onesided(void);
/* The transport brought up that gives communicators contexts of their
 * own (ops->comm_card), or NULL. */
fm_net *fm_transports_comm_contexts(void);
/* Have every transport brought up take its knobs again (ops->retune). */
void fm_transports_retune(void);
/* Tear every transport down, last brought up first. */
void fm_transports_finalize(void);

#endif
