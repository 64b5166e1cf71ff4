/* world.h — process-wide facts fixed at MPI_Init. */
#ifndef FM_CORE_WORLD_H
#define FM_CORE_WORLD_H

#include "net/net.h"

extern int fm_world_rank, fm_world_size;
extern int fm_local_rank, fm_local_size;
/* Transport that reaches each world rank (fm_world_size entries). */
extern fm_net_ops **fm_peer_net;
/* 1 when ranks on this node outnumber the CPUs this process may use: blocking
 * waits then yield from the first unsuccessful poll. */
extern int fm_oversubscribed;

#endif
