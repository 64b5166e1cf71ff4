/* mpiexec_bind.c — binding ranks to cores with hwloc.  Ranks on a host take
 * cores in local-rank order, wrapping when oversubscribed.  Without hwloc at
 * build time, --bind-to core is refused up front rather than ignored. */
#include "mpiexec_bind.h"

#include <stdio.h>

#ifdef FM_HAVE_HWLOC
#include <hwloc.h>

static hwloc_topology_t topo;
static int ncores;

int fm_mx_bind_init(const char *who)
{
    if (hwloc_topology_init(&topo) || hwloc_topology_load(topo)) {
        fprintf(stderr, "%s: --bind-to core: hwloc cannot read the topology\n", who);
        return -1;
    }
    ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    if (ncores <= 0) {
        fprintf(stderr, "%s: --bind-to core: hwloc finds no cores\n", who);
        return -1;
    }
    return 0;
}

void fm_mx_bind_child(int local_rank)
{
    hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)(local_rank % ncores));
    /* A failed bind leaves the rank unbound: slower, never wrong. */
    if (core && hwloc_set_cpubind(topo, core->cpuset, HWLOC_CPUBIND_PROCESS))
        fprintf(stderr, "warning: cannot bind local rank %d to core %u\n", local_rank, core->logical_index);
}
#else
int fm_mx_bind_init(const char *who)
{
    fprintf(stderr, "%s: --bind-to core: this fabmpi was built without hwloc (libhwloc-dev)\n", who);
    return -1;
}

void fm_mx_bind_child(int local_rank)
{
    (void)local_rank;
}
#endif
