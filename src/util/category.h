/* category.h — the MPI_T categories: one per layer a knob or a counter
 * belongs to.  Control variables (util/param.h) and performance variables
 * (util/pvar.h) name their category by the first column; src/mpi/mpit_*.c
 * turn the list into MPI_T_category_* answers.
 *
 * Row: X(NAME, PARENT, DESC).  PARENT is another row's NAME (listed
 * earlier), or top for a category of its own. */
#ifndef FM_UTIL_CATEGORY_H
#define FM_UTIL_CATEGORY_H

#define FM_CATEGORIES(X)                                                                        \
    X(pt2pt, top, "Point-to-point: eager and rendezvous protocols, matching queues, the matching engine") \
    X(net, top, "Transports: which one reaches each peer")                                    \
    X(shm, net, "Shared-memory transport: rings, doorbells, single-copy (CMA) and pipelined rendezvous") \
    X(ofi, net, "libfabric (OFI) transport: providers, buffers, rendezvous reads")             \
    X(am, top, "Active messages, the segment and one-sided transfers into it (include/fabmpi/am.h): credits, limits, paths")\
    X(coll, top, "Collectives: algorithm choice, the one-sided (cache) collectives")          \
    X(rma, top, "One-sided windows: load/store, provider RMA and atomics, active messages")    \
    X(progress, top, "Progress and blocking waits: polls, spinning, yielding, time waited")    \
    X(boot, top, "Bootstrap and launch: what mpiexec hands each rank")                         \
    X(log, top, "Diagnostics printed on stderr")

#define FM_CATEGORY_ENUM(name, parent, desc) FM_CAT_##name,
enum fm_category { FM_CAT_top = -1, FM_CATEGORIES(FM_CATEGORY_ENUM) FM_NCATEGORIES };
#undef FM_CATEGORY_ENUM

#endif
