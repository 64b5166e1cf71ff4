/* lane.h — which lane (core/vci.h) covers one of the hottest calls at
 * MPI_THREAD_MULTIPLE, from its arguments: the communicator's, for
 * point-to-point on a communicator with a lane of its own and a predefined
 * datatype; a request's lane, for a send or receive request (no derived
 * datatype) made on one.  NULL: the call takes the
 * library lock.  Read before the call's argument checks, so every test
 * here tolerates a bad argument (which the checks then report). */
#ifndef FM_MPI_LANE_H
#define FM_MPI_LANE_H

#include <mpi.h>

#include "core/comm.h"
#include "core/request.h"
#include "core/task.h"
#include "core/vci.h"
#include "dtype/dtype.h"

static inline struct fm_vci *fm_lane_for(MPI_Comm comm, MPI_Datatype dt)
{
    if (!fm_comm_valid(comm) || comm->vci == &fm_vci0 || !fm_dt_valid(dt) ||
        !(dt->flags & FM_DT_PREDEFINED) || fm_task_level)
        return NULL;
    return comm->vci;
}

/* A call whose requests are all null or fm_req_sent (an eager send that
 * left at once: shared, immutable, always done) touches no state: with
 * lanes about, it takes no lock, so the thread doing a lane's calls keeps
 * its streak (and bias) through the MPI_Waitall of its eager sends.  Never
 * a VCI's address (as MAP_FAILED is never a mapping's), and never
 * dereferenced: FM_API_LANE_TWIN only compares it. */
#define FM_LANE_NONE ((struct fm_vci *)-1)

/* A request that may complete under its lane's lock alone: made on a lane
 * (only fm_req_alloc_on's callers, sends and receives, are: persistent
 * requests belong to fm_vci0, and only the ones each Start makes live on
 * a lane) with no derived datatype.  Flags are not read here, since
 * completion on the lane writes them. */
static inline int fm_req_lane_ok(MPI_Request r)
{
    return r->magic == FM_MAGIC_REQ && r->vci && (!r->dt || (r->dt->flags & FM_DT_PREDEFINED));
}

/* The one lane of the requests in reqs (FM_LANE_NONE when they need
 * none), or NULL.  One pass that compares lane indexes: it runs for every
 * request of every MPI_Waitall while lanes exist. */
static inline struct fm_vci *fm_lane_of_reqs(int n, const MPI_Request *reqs)
{
    if (n < 0 || (n && !reqs) || fm_task_level)
        return NULL;
    unsigned vci = 0; /* none seen yet */
    for (int i = 0; i < n; i++) {
        MPI_Request r = reqs[i];
        if (r == MPI_REQUEST_NULL || r == &fm_req_sent)
            continue;
        if (!fm_req_lane_ok(r) || (vci && r->vci != vci))
            return NULL;
        vci = r->vci;
    }
    return vci ? fm_vcis[vci] : FM_LANE_NONE;
}

/* The same for one request (MPI_Wait, MPI_Test). */
static inline struct fm_vci *fm_lane_of_req(MPI_Request r) { return fm_lane_of_reqs(1, &r); }

/* FM_API_LOCKED_TWIN (core/cs.h) for a call a lane may cover: `lane` is an
 * expression of the call's arguments (`which`).  A thread already holding the library
 * lock keeps to it; one already on the same lane (a nested call) runs the
 * body as is; one on another lane leaves it for the library lock.  The body
 * appears twice, once under the library lock and once for every lane case
 * (`how` says which lock to give back): with a copy per case the compiler
 * called the send path out of line on the lane (an 8-byte Isend on a lane
 * cost 363 instructions against 305 under the library lock). */
enum { FM_HOW_LIBRARY, FM_HOW_NONE, FM_HOW_LANE, FM_HOW_ESCAPED };
#define FM_API_LANE_TWIN(body, which, params, args)                                \
    static __attribute__((noinline)) int body##_locked params                      \
    {                                                                              \
        if (__builtin_expect(fm_nlanes, 0) && !fm_cs_t.depth) {                    \
            struct fm_vci *fm_want_ = (which), *fm_on_ = fm_cs_t.lane, *fm_lane_;  \
            int fm_how_;                                                           \
            if (fm_want_ == FM_LANE_NONE || (fm_on_ && fm_on_ == fm_want_)) {      \
                fm_lane_ = NULL;                                                   \
                fm_how_ = FM_HOW_NONE;                                             \
            } else if (fm_on_) {                                                   \
                fm_lane_ = fm_lane_escape();                                       \
                fm_how_ = FM_HOW_ESCAPED;                                          \
            } else {                                                               \
                fm_lane_ = fm_want_;                                               \
                fm_how_ = fm_lane_ ? FM_HOW_LANE : FM_HOW_LIBRARY;                 \
            }                                                                      \
            if (fm_how_ != FM_HOW_LIBRARY) {                                       \
                if (fm_how_ == FM_HOW_LANE)                                        \
                    fm_lane_enter(fm_lane_);                                       \
                int fm_rc_ = body args;                                            \
                if (fm_how_ == FM_HOW_LANE)                                        \
                    fm_lane_exit(fm_lane_);                                        \
                else if (fm_how_ == FM_HOW_ESCAPED)                                \
                    fm_lane_back(fm_lane_);                                        \
                return fm_rc_;                                                     \
            }                                                                      \
        }                                                                          \
        fm_cs_enter();                                                             \
        int fm_cs_rc_ = body args;                                                 \
        fm_cs_exit();                                                              \
        return fm_cs_rc_;                                                          \
    }

#endif
