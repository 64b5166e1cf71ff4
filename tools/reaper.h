/* reaper.h — cleanup that survives the launcher being killed (reaper.c
 * says why and how); used by mpiexec (fork launcher) and fabmpi_hostd. */
#ifndef FM_TOOLS_REAPER_H
#define FM_TOOLS_REAPER_H

#include <sys/types.h>

/* The reaper runs as "fabmpi-reaper --reaper-of-job JOBID FD" (the
 * launcher re-executed).  Call first in main(): returns -1 when argv is not
 * that, else never returns. */
#define FM_REAPER_ARG "--reaper-of-job"
int fm_reaper_main(int argc, char **argv);
/* Start it before the first rank, while few descriptors are open.  jobid:
 * whose /dev/shm/fabmpi-<jobid>-* segments the watched ranks may leave. */
int fm_reaper_start(const char *jobid);
/* Tell it about a rank just forked (its pid and world rank). */
void fm_reaper_watch(pid_t rank_pid, int rank);
/* The launcher has cleaned up itself: let the reaper go (and wait for it). */
void fm_reaper_done(void);
/* Unlink /dev/shm/fabmpi-<jobid>-* (our own segments left behind): all
 * of them, or with rank >= 0 only that world rank's. */
void fm_reaper_remove_segments(const char *jobid, int rank, int verbose);

#endif
