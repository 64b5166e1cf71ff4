/* world.c — storage for the process-wide facts in world.h. */
#include "core/world.h"

int fm_world_rank, fm_world_size = 1;
int fm_local_rank, fm_local_size = 1;
fm_net_ops **fm_peer_net;
int fm_oversubscribed;
