/* select.h — what the blocking choices (select.c) and those of the
 * nonblocking and persistent forms (select_sched.c) share: the kinds of
 * call, why two-sided runs, and whether the flat algorithm fits. */
#ifndef FM_COLL_RMA_SELECT_H
#define FM_COLL_RMA_SELECT_H

#include <mpi.h>
#include <stddef.h>

#include "coll/rma/cache.h"
#include "coll/rma/coll_rma.h"
#include "core/comm.h"
#include "core/world.h"
#include "dtype/dtype.h"

/* The calls chosen for, each with its remembered choice (cache.h,
 * fm_crma_choice) and its name in the verbose lines. */
enum kind { K_BARRIER, K_BCAST, K_REDUCE, K_ALLREDUCE, K_REDUCE_SCATTER, K_ALLGATHER,
            K_ALLGATHERV, K_ALLTOALL, K_ALLTOALLV, K_ALLTOALLW, K_GATHER, K_GATHERV, K_SCATTER,
            K_SCATTERV, K_BCAST_PAIR, NKIND };
extern const char *const fm_sel_call_name[NKIND];

/* The flat algorithms (flat.c): when the node has more ranks than CPUs
 * (fm_oversubscribed, the same on every rank of a node), up to
 * FM_FLAT_RANKS members and FM_CRMA_FLAT_MAX bytes of a contiguous type, all
 * mapping each other's segments.  Measured with bench/allreduce.c and
 * bench/barrier.c on 2 cores (us, flat vs two-sided or dissemination):
 * allreduce 8 B at 4 ranks 2.7 vs 4.0, 8 ranks 6.7 vs 16, 16 ranks 19 vs
 * 52; flat still ahead at 1 KiB (4 ranks 3.3-3.6 vs 4.5) but not at 4 KiB;
 * barrier at 8 ranks 6-8 vs 9-10, 16 ranks 18 vs 31-38.  With a core per
 * rank (2 ranks here) the dissemination barrier's pushed flags beat
 * flat's polled ones (0.07 vs 0.12 us), so flat is kept to oversubscribed
 * nodes; a member's p - 1 reads keep it to small communicators. */
#define FM_FLAT_RANKS 16

static inline int flat_fits(MPI_Comm comm, size_t bytes, MPI_Datatype dt)
{
    /* fm_oversubscribed first: where it is 0 (a core per rank) that is
     * the whole cost of asking. */
    return fm_oversubscribed && comm->size <= FM_FLAT_RANKS && bytes <= FM_CRMA_FLAT_MAX &&
           (!dt || fm_dt_is_contig(dt)) && fm_coll_crowded(comm);
}

/* The flat algorithm's pushed form (flat.c), for nonblocking and persistent
 * calls and the blocking Allreduce (select.c, push_flat): two members on a
 * node with a core each, up to a lane's bytes of a contiguous type; above
 * FM_CRMA_PUSH_PAIR_ABOVE as the pair that larger blocking calls there
 * take (fm_crma_pair, no size limit below the cache's; in a
 * schedule since `done` became a watermark, cache.h).  bench/
 * allreduce_persistent.c, 2 ranks bound, 10 alternated runs, medians,
 * two-sided schedule -> pushed: MPI_Iallreduce + MPI_Wait of 8 B 0.670 ->
 * 0.462 us, MPI_Start + MPI_Wait 0.403 -> 0.297 (the blocking pair 0.33). */
static inline int push_fits(MPI_Comm comm, size_t bytes, MPI_Datatype dt)
{
    return comm->size == 2 && bytes <= FM_CRMA_LANE_MAX && (!dt || fm_dt_is_contig(dt)) &&
           !fm_comm_is_inter(comm) && !fm_oversubscribed && fm_crma_all_shm(comm);
}

/* Why two-sided runs, before looking at the cache (NULL: one-sided may).
 * flat: the flat algorithm fits, which auto mode takes at any size it fits. */
const char *fm_sel_two_sided_why(MPI_Comm comm, enum kind k, size_t bytes, int flat);

#endif
