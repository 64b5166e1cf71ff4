/* world.h — process-wide facts fixed at MPI_Init from what the launcher
 * said (src/mpi/init.c sets them; every layer reads them). */
#ifndef FM_BOOT_WORLD_H
#define FM_BOOT_WORLD_H

extern int fm_world_rank, fm_world_size;
extern int fm_local_rank, fm_local_size;
/* 1 when ranks on this node outnumber the CPUs this process may use: blocking
 * waits then yield from the first unsuccessful poll. */
extern int fm_oversubscribed;

#endif
