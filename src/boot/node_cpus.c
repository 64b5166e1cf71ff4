/* node_cpus.c — how many CPUs the ranks of this node may use together, and
 * whether they are more than that (world.h).
 *
 * Each rank publishes its affinity mask before the transports' first fence;
 * after it, the union of the node's masks counts the CPUs: ranks bound one
 * per core each see one CPU, yet do not share it.  A cgroup v2 CPU quota
 * lowers the count.  The shared-memory transport decides once it knows the
 * node's ranks (net/shm/segment.c, before it sizes its rings), so every
 * layer after it reads one answer. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot/boot.h"
#include "boot/world.h"
#include "util/status.h"

int fm_node_cpus_usable = 1;
int fm_node_crowded;

/* A cgroup v2 CPU quota, in whole CPUs (0 when unlimited). */
static int cgroup_cpus(void)
{
    int n = 0;
    FILE *f = fopen("/sys/fs/cgroup/cpu.max", "r");
    if (f) {
        char quota[32];
        long period;
        if (fscanf(f, "%31s %ld", quota, &period) == 2 && strcmp(quota, "max") != 0 && period > 0)
            n = (int)((atol(quota) + period - 1) / period);
        fclose(f);
    }
    return n;
}

void fm_node_cpus_publish(void)
{
    cpu_set_t mine;
    if (sched_getaffinity(0, sizeof mine, &mine) != 0)
        CPU_ZERO(&mine);
    fm_boot_put("fm.cpus", &mine, sizeof mine);
}

void fm_node_cpus_decide(const int *ranks, int n)
{
    cpu_set_t all, set;
    CPU_ZERO(&all);
    for (int i = 0; i < n; i++) {
        size_t len = sizeof set;
        if (fm_boot_get(ranks[i], "fm.cpus", &set, &len) == FM_OK && len == sizeof set)
            CPU_OR(&all, &all, &set);
    }
    int cpus = CPU_COUNT(&all);
    if (cpus <= 0)
        cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    int q = cgroup_cpus();
    if (q > 0 && q < cpus)
        cpus = q;
    fm_node_cpus_usable = cpus > 0 ? cpus : 1;
    fm_node_crowded = n > fm_node_cpus_usable;
}
