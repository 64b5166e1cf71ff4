/* shm_segment.h — shared-memory segments, the one place fabmpi creates and
 * maps them: named POSIX ones (the shm transport's rings, shared windows)
 * and nameless memfd ones (the active-message layer's regions,
 * am/region.h, which peers map through /proc).
 *
 * Names are /fabmpi-<job>-<what><rank> so that mpiexec's sweep of
 * /dev/shm/fabmpi-<job>-* finds whatever a killed job left. */
#ifndef FM_UTIL_SHM_SEGMENT_H
#define FM_UTIL_SHM_SEGMENT_H

#include <stddef.h>

/* Write /fabmpi-<job>-<what><rank> into out (len bytes): job is
 * FABMPI_JOBID (with '/' made '_'), or s<pid> for a singleton; what is ""
 * or a tag ending in '-' ("w3-").  0 if it does not fit. */
int fm_shm_seg_name(char *out, size_t len, const char *what, int rank);

/* Create segment `name` (exclusive, mode 0600), size it to len zeroed
 * bytes and map it.  The bytes are allocated now (posix_fallocate), so a
 * /dev/shm without room fails here ("size", ENOSPC) rather than with a
 * SIGBUS at the first write to a page nobody could back.  NULL on failure
 * with errno set and *failed naming the step ("create", "size" or "map");
 * the name is gone again then. */
void *fm_shm_seg_create(const char *name, size_t len, const char **failed);

/* Write to every page of [mem, mem + len) (mem 8-byte aligned) from this
 * process without changing a byte (an atomic OR of zero per page: safe on
 * memory in use), so later accesses find the pages mapped.  A process's
 * first write to a shared page costs far more than a message: on this
 * project's VMs about 16 us a page, and MAP_POPULATE or MADV_POPULATE_WRITE
 * did not remove it; only a write by each process that uses the page did
 * (bench/warmup.c).  Callers honour FABMPI_SHM_PREFAULT. */
void fm_shm_touch(void *mem, size_t len);

/* Map an existing segment.  *len: its size as expected (0: whatever it
 * is), set to the size mapped.  NULL on failure with errno set and *failed
 * naming the step ("open", "size": not the expected size, or "map"). */
void *fm_shm_seg_map(const char *name, size_t *len, const char **failed);

/* A nameless segment of len zeroed bytes (memfd), mapped shared; nothing
 * is left behind by a killed process (there is no name to sweep).  Its
 * first `reserve` bytes are allocated now (posix_fallocate), as for named
 * segments; past them it is mapped MAP_NORESERVE and pages are taken when
 * first touched.  *fd stays open for peers to map it (fm_shm_anon_map)
 * until the owner closes it.  NULL on failure with errno set and *failed
 * naming the step ("create", "size", "map"). */
void *fm_shm_anon_create(size_t len, size_t reserve, int *fd, const char **failed);
/* Map process pid's nameless segment (its descriptor fd, len bytes)
 * through /proc/<pid>/fd/<fd>: same user and a dumpable process, no
 * ptrace permission needed.  NULL on failure with errno set and *failed
 * naming the step ("open", "size", "map"). */
void *fm_shm_anon_map(int pid, int fd, size_t len, const char **failed);

#endif
