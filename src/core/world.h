/* world.h — the transport that reaches each world rank, chosen at MPI_Init,
 * beside the process-wide facts of boot/world.h. */
#ifndef FM_CORE_WORLD_H
#define FM_CORE_WORLD_H

#include "boot/world.h"
#include "net/net.h"

/* Transport that reaches each world rank (fm_world_size entries). */
extern fm_net **fm_peer_net;

#endif
