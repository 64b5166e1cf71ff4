/* coll_util.h — private to src/coll: tags, temporary buffers, local copies. */
#ifndef FM_COLL_COLL_UTIL_H
#define FM_COLL_COLL_UTIL_H

#include <mpi.h>
#include <stddef.h>

#include "dtype/dtype.h"

/* One tag per collective kind on the collective context.  Every rank issues
 * a communicator's collectives in the same order, each algorithm receives
 * from specific sources only, and messages between a pair never overtake,
 * so no sequence number is needed to keep consecutive calls apart. */
enum fm_coll_tag {
    FM_TAG_BARRIER = 1,
    FM_TAG_BCAST,
    FM_TAG_REDUCE,
    FM_TAG_ALLREDUCE,
    FM_TAG_GATHER,
    FM_TAG_GATHERV,
    FM_TAG_SCATTER,
    FM_TAG_SCATTERV,
    FM_TAG_ALLGATHER,
    FM_TAG_ALLGATHERV,
    FM_TAG_ALLTOALL,
    FM_TAG_ALLTOALLV,
    FM_TAG_SCAN,
    FM_TAG_EXSCAN,
    FM_TAG_ALLTOALLW,
    FM_TAG_NEIGHBOR,
    FM_TAG_CONTEXTS, /* once per communicator: comm_contexts.c */
    FM_TAG_SCHED_FIRST = 64, /* nonblocking and persistent collectives: sched_record.c */
};

/* Address of element `disp` of a (buf, dt) array. */
static inline void *fm_coll_at(const void *buf, MPI_Aint disp, MPI_Datatype dt)
{
    return (char *)(uintptr_t)buf + disp * dt->extent;
}

/* A scratch buffer able to hold (count, dt): sized by the true extent, so
 * derived types with lb != 0 or holes fit.  Returns the buffer pointer to
 * pass with (count, dt) and sets *raw to what fm_coll_tmp_free takes; NULL
 * when out of memory.  count 0 still gives a valid pointer.  Large buffers
 * are kept for reuse (their pages stay mapped). */
void *fm_coll_tmp_alloc(MPI_Count count, MPI_Datatype dt, void **raw);
/* Give back *raw of fm_coll_tmp_alloc; any other malloc'd pointer (or NULL)
 * is simply freed. */
void fm_coll_tmp_free(void *raw);
/* Free the kept buffers no one holds (MPI_Finalize). */
void fm_coll_tmp_release_all(void);

/* Copy (src, scount, sdt) into (dst, rcount, rdt) as a send/receive pair
 * would: type signatures are assumed to match.  FM_ERR_TRUNCATE (after
 * copying what fits) when the source holds more bytes than the destination. */
int fm_dt_copy(const void *src, MPI_Count scount, MPI_Datatype sdt, void *dst, MPI_Count rcount,
               MPI_Datatype rdt);

#endif
