/* fabric_shm.h — remove the /dev/shm regions libfabric's shm provider left
 * behind for a process that no longer runs. */
#ifndef FM_UTIL_FABRIC_SHM_H
#define FM_UTIL_FABRIC_SHM_H

#include <sys/types.h>

/* Unlinks every /dev/shm/<pid>:<uid>:<endpoint index> of pid (any uid).
 * The caller vouches that no live endpoint uses those names: a rank calls it
 * for itself before opening its first shm endpoint, a launcher for a rank it
 * has just reaped.  Returns how many it removed. */
int fm_fabric_shm_remove(pid_t pid);

#endif
