/* world.c — storage for the process-wide facts in world.h. */
#include "boot/world.h"

int fm_world_rank, fm_world_size = 1;
int fm_local_rank, fm_local_size = 1;
int fm_oversubscribed;
