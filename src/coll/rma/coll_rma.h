/* coll_rma.h — collectives on one-sided writes (the seed's coll/ofi
 * component), and the choice between them and the two-sided algorithms.
 *
 * The MPI entry points of Barrier, Bcast, Reduce, Allreduce and
 * Allgather(v) call the fm_coll_sel_* functions, and the two-member
 * paths of the others fm_coll_sel_*_pair, which pick an algorithm
 * (FABMPI_COLL_RMA, see select.c for the rule), report it when
 * FABMPI_COLL_VERBOSE is set, and run it.  Arguments are checked already;
 * each returns FM_OK or FM_ERR_*.
 * Every member of a communicator reaches the same choice from the same
 * facts (knobs, sizes, communicator), which the one-sided algorithms rely
 * on: their sequence numbers count only the calls that used them. */
#ifndef FM_COLL_RMA_COLL_RMA_H
#define FM_COLL_RMA_COLL_RMA_H

#include <mpi.h>
#include <stddef.h>

#include "util/int_array.h"
#include "util/param.h"

/* Indices into the accepted values of FABMPI_COLL_RMA (src/util/param.h). */
enum { FM_COLL_RMA_OFF, FM_COLL_RMA_ON, FM_COLL_RMA_AUTO };

int fm_coll_sel_barrier(MPI_Comm comm);
int fm_coll_sel_bcast(void *buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm);
int fm_coll_sel_reduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                       int root, MPI_Comm comm);
int fm_coll_sel_allreduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt,
                          MPI_Op op, MPI_Comm comm);
/* MPI_Alltoall run flat on a crowded node (select.c): 1 with *rc when it
 * ran, 0 when another algorithm is to run. */
int fm_coll_sel_alltoall_flat(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                              MPI_Count rcount, MPI_Datatype rdt, MPI_Comm comm, int *rc);
int fm_coll_sel_allgather(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                          MPI_Count rcount, MPI_Datatype rdt, MPI_Comm comm);
int fm_coll_sel_allgatherv(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                           fm_iarr rcounts, fm_iarr displs, MPI_Datatype rdt, MPI_Comm comm);
/* Reduce_scatter on 2 members with an input buffer (blocks of n0 and n1
 * elements): 1 and *rc when the one-sided pair ran (select.c chooses, the
 * same on both members), 0 when the caller runs its own algorithm. */
int fm_coll_sel_reduce_scatter_pair(const void *sbuf, void *rbuf, MPI_Count n0, MPI_Count n1,
                                    MPI_Datatype dt, MPI_Op op, MPI_Comm comm, int *rc);
/* One block of a collective's buffer: (buf, count, dt). */
typedef struct fm_crma_block {
    const void *buf;
    MPI_Count count;
    MPI_Datatype dt;
} fm_crma_block;

/* The calls that run as an exchange on 2 members (cache.h,
 * fm_crma_exchange): each member's block for the other, the other's block
 * for it, and its own block copied locally. */
enum fm_pair_call { FM_PAIR_ALLTOALL, FM_PAIR_ALLTOALLV, FM_PAIR_ALLTOALLW, FM_PAIR_ALLGATHER,
                    FM_PAIR_ALLGATHERV, FM_PAIR_GATHER, FM_PAIR_GATHERV, FM_PAIR_SCATTER,
                    FM_PAIR_SCATTERV, FM_PAIR_BCAST };

/* Their blocks: the one for the other member, the other's for us, and
 * ours copied locally (own_from's buf NULL: in place, nothing to copy). */
typedef struct fm_pair_blocks {
    fm_crma_block out, in, own_from, own_to;
} fm_pair_blocks;
/* An allgather's (rcounts absent: blocks of rcount) or allgatherv's, for
 * member `me` of 2: ours leaves from sbuf (in place: from its place in
 * rbuf) and is copied into rbuf, the other's lands at its place there
 * (coll/allgather.c, which knows the layout; select.c runs the blocking
 * exchange with them). */
fm_pair_blocks fm_coll_allgather_pair_blocks(int me, const void *sbuf, MPI_Count scount,
                                             MPI_Datatype sdt, void *rbuf, fm_iarr rcounts,
                                             fm_iarr displs, MPI_Count rcount, MPI_Datatype rdt);

/* Gather(v) and scatter(v) on 2 members cross as an exchange only past
 * the eager size in auto mode (select.c: the non-root member leaves an
 * eager send at once, where the exchange would wait for the root), so a
 * smaller block need not be offered: the choice would cost it 350
 * instructions a call (callgrind, 8 B) while the cache is not set up.
 * bytes: the block that crosses. */
#define FM_COLL_ROOTED_PAIR_MIN ((size_t)32768)
static inline int fm_coll_rooted_pair_may(size_t bytes)
{
    return bytes > FM_COLL_ROOTED_PAIR_MIN || fm_param.COLL_RMA == FM_COLL_RMA_ON;
}

/* A Bcast offers it on 2 members past the eager size only, in every mode:
 * up to there the one-sided fan-out tree wins (select.c).  Its blocks: the
 * root's buffer goes out, the other member's comes in. */
static inline int fm_coll_bcast_pair_may(int members, size_t bytes)
{
    return members == 2 && bytes > FM_COLL_ROOTED_PAIR_MIN;
}
static inline fm_pair_blocks fm_coll_bcast_pair_blocks(int me, int root, void *buf,
                                                       MPI_Count count, MPI_Datatype dt)
{
    const fm_crma_block none = {NULL, 0, MPI_BYTE}, all = {buf, count, dt};
    return me == root ? (fm_pair_blocks){all, none, none, none}
                      : (fm_pair_blocks){none, all, none, none};
}

/* One of them on 2 members, its blocks given: 1 and *rc when the one-sided
 * exchange ran (select.c chooses, the same on both members), 0 when the
 * caller runs its own. */
int fm_coll_sel_exchange_pair(MPI_Comm comm, enum fm_pair_call call, fm_pair_blocks b, int *rc);
/* The same recorded into cc's schedule (the nonblocking and persistent
 * forms): 1 when the exchange is the whole schedule; 0 when the caller
 * records its own steps after it, then tells their end with
 * fm_coll_sel_iexchange_alt_end(cc, *x, first), *x then being the
 * exchange each start tries first (NULL: none). */
struct fm_coll_call;
int fm_coll_sel_iexchange_pair(struct fm_coll_call *cc, enum fm_pair_call call, fm_pair_blocks b,
                               void **x);
void fm_coll_sel_iexchange_alt_end(struct fm_coll_call *cc, void *x, int first_alt);

/* 1 when MPI_Allreduce of `bytes` of dt on comm runs the flat one-round
 * algorithm (select.c), the same on every member. */
int fm_coll_allreduce_is_flat(MPI_Comm comm, size_t bytes, MPI_Datatype dt);

/* 1 when every member of comm (an intracommunicator) is on this node and
 * the node has more ranks than CPUs: the same on every member, so two-sided
 * algorithms may choose by it too. */
int fm_coll_crowded(MPI_Comm comm);

/* The same choice for MPI_Ibarrier / MPI_Iallreduce and their persistent
 * forms, recorded into cc's schedule (coll/sched.h). */
struct fm_coll_call;
void fm_coll_sel_ibarrier(struct fm_coll_call *cc);
void fm_coll_sel_iallreduce(struct fm_coll_call *cc, const void *sbuf, void *rbuf, MPI_Count count,
                            MPI_Datatype dt, MPI_Op op);
/* MPI_Ibarrier / MPI_Iallreduce replaying the flat schedule the last such
 * call on comm recorded with these arguments (coll/sched.h, "Replay"): 1
 * with *req started, or 0 (record one). */
struct fm_request;
int fm_coll_sel_ibarrier_again(MPI_Comm comm, struct fm_request **req);
int fm_coll_sel_iallreduce_again(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt,
                                 MPI_Op op, MPI_Comm comm, struct fm_request **req);

/* Free the communicator's cache (comm->coll_rma), if any.  Local: called
 * when the communicator's last reference goes (fm_comm_release, which
 * MPI_Finalize reaches for MPI_COMM_WORLD and MPI_COMM_SELF). */
void fm_coll_rma_free(MPI_Comm comm);

#endif
