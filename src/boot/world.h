/* world.h — process-wide facts fixed at MPI_Init from what the launcher
 * said (src/mpi/init.c sets them; every layer reads them). */
#ifndef FM_BOOT_WORLD_H
#define FM_BOOT_WORLD_H

extern int fm_world_rank, fm_world_size;
extern int fm_local_rank, fm_local_size;
/* 1 when blocking waits yield from the first unsuccessful poll: the node is
 * crowded (FABMPI_YIELD=auto) or FABMPI_YIELD=always (core/transports.c). */
extern int fm_oversubscribed;

/* node_cpus.c: the CPUs this node's ranks may use together (the union of
 * their affinity masks, within a cgroup quota), and 1 when the node's ranks
 * outnumber them.  Set by fm_node_cpus_decide, which the shared-memory
 * transport calls once it knows the node's ranks, before it sizes its
 * rings; the same on every rank of a node. */
extern int fm_node_cpus_usable;
extern int fm_node_crowded;
/* Publish this process's affinity mask (before the transports' fences). */
void fm_node_cpus_publish(void);
/* After a fence: decide from the masks of the node's n ranks (world ranks,
 * this one included). */
void fm_node_cpus_decide(const int *ranks, int n);

#endif
