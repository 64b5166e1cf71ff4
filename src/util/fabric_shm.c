/* fabric_shm.c — leftovers of libfabric's shm provider.
 *
 * The shm provider (libfabric 1.17) keeps each endpoint's queues in
 * /dev/shm/<pid>:<uid>:<endpoint index> and unlinks it in fi_close, or in
 * its SIGTERM/SIGINT handler.  A rank killed by SIGKILL, or one that leaves
 * through _exit after an abort, leaves 16 MiB behind.  Worse, when a later
 * process gets the same pid, its fi_enable finds the file, sees the pid
 * recorded in it alive (the new process itself) and fails with EBUSY
 * ("Device or resource busy"): the whole job cannot start.  So a rank clears
 * names under its own pid before opening its first shm endpoint (no endpoint
 * of its own can exist yet), and mpiexec and fabmpi_hostd clear a rank's
 * names when they reap it. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/fabric_shm.h"

/* "<digits>:<digits>" from s on, and nothing after. */
static int uid_and_index(const char *s)
{
    int colons = 0, digits = 0;
    for (; *s; s++) {
        if (*s == ':') {
            if (!digits || ++colons > 1)
                return 0;
            digits = 0;
        } else if (*s >= '0' && *s <= '9') {
            digits++;
        } else {
            return 0;
        }
    }
    return colons == 1 && digits > 0;
}

int fm_fabric_shm_remove(pid_t pid)
{
    char prefix[32];
    int pl = snprintf(prefix, sizeof prefix, "%ld:", (long)pid);
    DIR *d = opendir("/dev/shm");
    if (!d)
        return 0;
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, prefix, (size_t)pl) && uid_and_index(e->d_name + pl) &&
            unlinkat(dirfd(d), e->d_name, 0) == 0)
            removed++;
    closedir(d);
    return removed;
}
