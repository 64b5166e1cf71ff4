/* select.c — which algorithm runs a Barrier, Bcast, Reduce, Allreduce,
 * Allgather(v), or a 2-member Reduce_scatter, Alltoall(v,w), Gather(v) or
 * Scatter(v) (their nonblocking and persistent forms: select_sched.c).
 *
 * FABMPI_COLL_RMA:
 *   off   always the two-sided algorithms (src/coll);
 *   on    the one-sided ones whenever they can run: more than one member,
 *         something to move, the packed message fits the cache's larger
 *         area (cache.h; bcast: the whole area; allreduce and
 *         reduce_scatter: half of it, one slot per writer; reduce: half of
 *         it, or one piece of a larger vector, fm_crma_reduce_piece), and
 *         the cache could be set up: over shared memory when every member is reached
 *         through it (each maps every other's segment), else over OFI
 *         (fi_write into segments registered with the RMA endpoint;
 *         FABMPI_NET=ofi takes this path on one node too);
 *   auto  as `on`, and also every member reached through shared memory,
 *         and the one-sided algorithm is a candidate only at the sizes where
 *         our measurements show it winning (tables below), where the
 *         flat barrier / allreduce / reduce fits (flat_fits) or the flat
 *         Bcast (bcast_flat_fits), for a Bcast too large to go eagerly on
 *         a crowded node (crowded_bcast_wins), or a Reduce of 3 or more
 *         members there (crowded_reduce_wins).
 *         Over OFI auto stays two-sided: each flag there waits for a
 *         completion round trip of the data before it (backend_net.c),
 *         and no measurement has shown the one-sided path winning on the
 *         providers we have (net, tcp;ofi_rxm, shm over loopback); the
 *         candidate with the higher priority runs: two-sided has the fixed priority
 *         FM_COLL_TWO_SIDED_PRIORITY (10), one-sided FABMPI_COLL_RMA_PRIORITY
 *         (default 20), ties go to two-sided.  So in auto mode a priority
 *         of 10 or less turns the one-sided collectives off.
 * Every input is the same on every member (knobs, communicator, packed
 * size — MPI requires matching type signatures), so all members choose
 * alike.
 *
 * FABMPI_COLL_VERBOSE prints one line per call on the communicator's rank 0
 * only (the choice is the same everywhere): call, communicator, bytes,
 * algorithm ("rma over shm|ofi ..." or "two-sided ...") and, for
 * two-sided, why. */
#include "coll/rma/coll_rma.h"

#include <stdint.h>
#include <stdio.h>

#include "coll/coll.h"
#include "coll/coll_util.h"
#include "coll/op.h"
#include "coll/rma/cache.h"
#include "coll/rma/select.h"
#include "coll/sched.h"
#include "core/world.h"
#include "dtype/dtype.h"
#include "core/comm.h"
#include "util/log.h"
#include "util/param.h"
#include "util/status.h"
#include "util/pvar.h"

#define FM_COLL_TWO_SIDED_PRIORITY 10

const char *const fm_sel_call_name[NKIND] = {
    "MPI_Barrier",   "MPI_Bcast",      "MPI_Reduce",   "MPI_Allreduce", "MPI_Reduce_scatter",
    "MPI_Allgather", "MPI_Allgatherv", "MPI_Alltoall", "MPI_Alltoallv", "MPI_Alltoallw",
    "MPI_Gather",    "MPI_Gatherv",    "MPI_Scatter",  "MPI_Scatterv",  "MPI_Bcast"};

/* Auto mode: the packed sizes (bytes, lo..hi inclusive) at which the
 * one-sided algorithm beat the two-sided one in bench/coll_rma.c on shared
 * memory (best of 3-5 alternated runs on a busy 2-core machine; 4 ranks
 * there are oversubscribed), by communicator size class: [0] 2 members,
 * [1] 3 or more (4 measured; larger ones assumed alike).  {1, 0}: never.
 * Reduce at 2 members, measured apart (osu_reduce, 4 alternated runs,
 * 2026-11-27): one-sided over two-sided 0.59-0.92 from 1 B to 1 KiB,
 * 0.44-0.79 from 2 to 32 KiB, 0.36 at 64 KiB (3.0 against 8.3 us: the
 * child's copy into the root's cache returns at once, the root folds from
 * there), so every size the cache holds.  With 4 members (3 runs) 0.45-0.81
 * from 1 B to 16 KiB, 0.99 at 32 KiB, 1.39 at 64 KiB; with 8 (2 runs)
 * 0.43-0.67 up to 16 KiB, 0.93 at 32 KiB: so up to 16 KiB.
 * Allreduce at 2 members runs as a pair (each writes its vector into the
 * other's cache, both fold): osu_allreduce, 3 alternated runs, 2026-11-27,
 * against two-sided: 2 KiB 0.32-0.36 against 0.56-0.85 us, 16 KiB
 * 1.38-1.54 against 2.2-4.2, 128 KiB 10.0-11.8 against 25-27, 512 KiB
 * 50-54 against 85-88; so every size that fits.  (Reduce then bcast, its
 * two crossings in a row, lost above 1 KiB.)  Reduce_scatter at 2 members
 * the same way (each writes the other's block): osu_reduce_scatter, 3
 * alternated runs against the two-sided pairwise exchange, medians, 4 B
 * 0.14 against 0.20 us, 4 KiB 0.29 against 0.48, 128 KiB 4.8 against 8.6,
 * 1 MiB 47.5 against 65.0: every size that fits.  Alltoall(v,w) at 2
 * members the same way (each writes its block for the other, both copy
 * out; fm_crma_exchange): osu_alltoall, 2 ranks bound, 3 alternated runs,
 * medians, against the two-sided exchange, us: 1 B 0.23 against 0.32, 4
 * KiB 0.72 against 0.93, 64 KiB 7.5 against 14.0, 512 KiB 56 against 90
 * (Open MPI 0.38, 4.03, 13.7, 90.3); osu_alltoallv 64-512 KiB 0.56-0.75
 * of two-sided (6 runs): every size that fits.  Allgather(v) at 2 members
 * too (the same data movement): osu_allgather, 2 ranks bound, 4
 * alternated rounds, medians, against two-sided, us: 8 B 0.42 against
 * 0.45, 4 KiB 0.92 against 1.24, 64 KiB 6.3 against 10.0, 512 KiB 48
 * against 58, 1 MiB 107 against 128 (Open MPI 0.65, 6.56, 11.5, 63.7,
 * 130); osu_allgatherv alike: every size that fits.  Gather(v) and
 * scatter(v) at 2 members the same way, one block one way (the sender
 * writes it into the receiver's slot, the root copies its own meanwhile):
 * osu_gather / osu_scatter, 2 ranks bound, 5 alternated rounds (8 at 128
 * KiB and up), medians, against two-sided, us: 64 KiB 4.2 against 6.8 and
 * 4.4 against 6.2 (Open MPI 6.4, 6.8), 128 KiB 6.8 against 8.7 and 7.6
 * against 8.0, 512 KiB gather 25.5 against 29.3; but up to 32 KiB the
 * other member's eager send leaves at once where the exchange waits for
 * the root (gather 8 B 0.39 against 0.31), and above 128 KiB the
 * two-sided scatter's single copy, pulled while the root copies its own
 * block, won (512 KiB scatterv 31.9 against 25.8): so past 32 KiB, and a
 * scatter up to 128 KiB.  Bcast at 2 members past 32 KiB alike (the root's
 * block into the other's slot; K_BCAST_PAIR): osu_bcast, 2 ranks bound, 8
 * alternated rounds, medians, against two-sided, us: 64 KiB 3.66 against
 * 5.73, 128 KiB 6.56 against 6.95 (Open MPI 6.16, 8.73); above that the
 * two-sided single CMA copy won (the pair forced with FABMPI_COLL_RMA=on, 6
 * rounds: 256 KiB 13.7 against 11.7, 512 KiB 27.5 against 17.1), and up to
 * 32 KiB the fan-out tree did (4 KiB 0.56 against 0.67, 16 KiB 1.09 against
 * 1.25): so past 32 KiB up to 128 KiB.
 * With 3 or more members the tree algorithms won only in some runs: bcast
 * at 8-32 KiB on/off 0.87, 1.06, 1.27 in one run of bench/run-bench and
 * 1.56, 1.09, 1.44 in the next, allreduce at 8-64 KiB 1.40-1.51 in the
 * second; so auto keeps them two-sided there (the flat allreduce and the
 * barrier won in every run: 0.6 and 0.6-0.7). */
typedef struct { size_t lo, hi; } fm_size_range;
static const fm_size_range wins[NKIND][2] = {
    [K_BARRIER] = {{0, SIZE_MAX}, {0, SIZE_MAX}},
    [K_BCAST] = {{1, 32768}, {1, 0}},
    [K_REDUCE] = {{1, SIZE_MAX}, {1, 16384}},
    [K_ALLREDUCE] = {{1, SIZE_MAX}, {1, 0}},
    [K_REDUCE_SCATTER] = {{1, SIZE_MAX}, {1, 0}}, /* asked for 2 members only */
    [K_ALLGATHER] = {{1, SIZE_MAX}, {1, 0}}, /* 2 members: the exchange; else flat only */
    [K_ALLGATHERV] = {{1, SIZE_MAX}, {1, 0}},
    [K_ALLTOALL] = {{1, SIZE_MAX}, {1, 0}}, /* asked for 2 members only */
    [K_ALLTOALLV] = {{1, SIZE_MAX}, {1, 0}},
    [K_ALLTOALLW] = {{1, SIZE_MAX}, {1, 0}},
    [K_GATHER] = {{FM_COLL_ROOTED_PAIR_MIN + 1, SIZE_MAX}, {1, 0}}, /* 2 members */
    [K_GATHERV] = {{FM_COLL_ROOTED_PAIR_MIN + 1, SIZE_MAX}, {1, 0}},
    [K_SCATTER] = {{FM_COLL_ROOTED_PAIR_MIN + 1, 131072}, {1, 0}},
    [K_SCATTERV] = {{FM_COLL_ROOTED_PAIR_MIN + 1, 131072}, {1, 0}},
    [K_BCAST_PAIR] = {{FM_COLL_ROOTED_PAIR_MIN + 1, 131072}, {1, 0}}, /* asked for 2 members */
};

int fm_coll_crowded(MPI_Comm comm)
{
    return !fm_comm_is_inter(comm) && fm_oversubscribed && fm_crma_all_shm(comm);
}

/* A Bcast of 3 or more members on a crowded node, larger than the most a
 * crowded node sends eagerly (an eighth of a ring, net/shm/segment.c):
 * two-sided, every hop is a rendezvous whose handshake waits for the
 * receiver and then the sender to get a core; one-sided, the root writes
 * its cache once and the members copy out, waiting on flags only.
 * osu_bcast on 2 cores, one-sided against two-sided, us (2026-11-27):
 * 4 ranks (3 alternated runs, medians) 256 KiB 25.5 / 46.5, 512 KiB
 * 40.8 / 115, 1 MiB 80.2 / 216, but 128 KiB (eager) 18.3 / 9.9; 8 ranks
 * (2 runs) 128 KiB 22.0 / 53-58, 1 MiB 149-171 / 267-319; 3 ranks 256
 * KiB 17.2 / 28.9, 11.9 / 25.9.  Open MPI in the same runs, 4 ranks:
 * 256 KiB 31-51, 1 MiB 223-880. */
static int crowded_bcast_wins(MPI_Comm comm, enum kind k, size_t bytes)
{
    return k == K_BCAST && comm->size > 2 && bytes > fm_param.SHM_RING_SIZE / 8 &&
           fm_coll_crowded(comm);
}

/* A Reduce of 3 or more members on a crowded node, at any size (its pieces,
 * cache.h): two-sided, every hop past the eager size is a rendezvous.
 * osu_reduce on 2 cores, one-sided in 64 KiB pieces against two-sided, us,
 * medians of alternated rounds (2026-12-07): 4 ranks (3 rounds) 32 KiB
 * 8.1 / 9.7, 256 KiB 23.4 / 68.1, 1 MiB 116 / 273; 3 ranks (2 rounds)
 * 64 KiB 6.2 / 7.3, 1 MiB 92 / 184; 8 ranks (2 rounds) 64 KiB 20.7 /
 * 32.3, 1 MiB 229 / 554.  Open MPI in the same runs: 1 MiB 262 (4 ranks),
 * 3281 (3), 9534 (8).  Where each rank has a core it stays two-sided past
 * 16 KiB (wins): not measured on a node with more than 2 cores. */
static int crowded_reduce_wins(MPI_Comm comm, enum kind k)
{
    return k == K_REDUCE && comm->size > 2 && fm_coll_crowded(comm);
}

/* (select.h) */
const char *fm_sel_two_sided_why(MPI_Comm comm, enum kind k, size_t bytes, int flat)
{
    const int mode = fm_param.COLL_RMA;
    if (mode == FM_COLL_RMA_OFF)
        return "FABMPI_COLL_RMA=off";
    if (fm_comm_is_inter(comm))
        return "intercommunicator";
    if (comm->size < 2)
        return "one member";
    if (k != K_BARRIER && bytes == 0)
        return "nothing to move";
    size_t area = fm_crma_area_max(comm);
    size_t fits = k == K_BARRIER ? SIZE_MAX : k == K_BCAST ? area : area / 2 / 64 * 64;
    if (bytes > fits)
        return "larger than the cache's largest area";
    if (mode == FM_COLL_RMA_AUTO) {
        if (fm_param.COLL_RMA_PRIORITY <= FM_COLL_TWO_SIDED_PRIORITY)
            return "FABMPI_COLL_RMA_PRIORITY <= two-sided priority 10";
        if (!fm_crma_all_shm(comm))
            return "members beyond shared memory (auto never picks one-sided over OFI)";
        const fm_size_range *w = &wins[k][comm->size == 2 ? 0 : 1];
        if (!flat && (bytes < w->lo || bytes > w->hi) && !crowded_bcast_wins(comm, k, bytes) &&
            !crowded_reduce_wins(comm, k))
            return "two-sided measured faster at this size";
    }
    return NULL;
}

_Static_assert(NKIND == FM_CRMA_CHOICES, "one remembered choice per kind (cache.h)");

/* The cache to run on, or NULL with *why saying why two-sided runs.  Once
 * the cache is set up it remembers the last choice of each kind (cache.h,
 * fm_crma_choice) and the same call again takes it from there: the inputs
 * that can differ from call to call are the bytes and `flat` (the
 * communicator's are fixed, the knobs' are tracked by fm_param_writes). */
static fm_crma *choose(MPI_Comm comm, enum kind k, size_t bytes, int flat, const char **why)
{
    fm_crma *c = comm->coll_rma;
    if (c) {
        const fm_crma_choice *m = &c->choice[k];
        if (m->set && m->bytes == bytes && m->flat == flat &&
            m->param_writes == fm_param_writes) {
            *why = m->why;
            return m->why ? NULL : c;
        }
    }
    c = (*why = fm_sel_two_sided_why(comm, k, bytes, flat)) ? NULL : fm_crma_get(comm);
    if (!*why && !c)
        *why = "cache setup failed (FABMPI_VERBOSE=1 says why)";
    fm_crma *own = comm->coll_rma; /* set up by now, or not at all */
    if (own && !own->disabled)
        own->choice[k] = (fm_crma_choice){.bytes = bytes, .param_writes = fm_param_writes,
                                          .why = *why, .set = 1, .flat = (unsigned char)flat};
    return c;
}

static void report(MPI_Comm comm, enum kind k, size_t bytes, int root, const fm_crma *c,
                   const char *algo, const char *why)
{
    if (!fm_param.COLL_VERBOSE || comm->rank != 0)
        return;
    char where[32] = "";
    if (root >= 0)
        snprintf(where, sizeof where, " root=%d", root);
    fm_log_print("coll", "%s comm=%s ctx=%u size=%d bytes=%zu%s: %s%s %s%s%s",
                 fm_sel_call_name[k], comm->name[0] ? comm->name : "<unnamed>", comm->ctx,
                 comm->size, bytes, where,
                 c ? "rma over " : "two-sided", c ? c->be->name : "", algo, c ? "" : " — ",
                 c ? "" : why);
}

int fm_coll_sel_barrier(MPI_Comm comm)
{
    const char *why = "";
    const int flat = flat_fits(comm, 0, NULL);
    fm_crma *c = choose(comm, K_BARRIER, 0, flat, &why);
    report(comm, K_BARRIER, 0, -1, c,
           c ? flat ? "flat (one round of flags)" : "dissemination on flags" : "dissemination",
           why);
    if (!c) {
        FM_PV_INC(coll_barrier_two_sided);
        return fm_coll_barrier(comm);
    }
    if (flat) {
        FM_PV_INC(coll_barrier_flat);
        return fm_crma_barrier_flat(c);
    }
    FM_PV_INC(coll_barrier_rma);
    return fm_crma_barrier(c);
}

/* A Bcast of 2 members past the eager size, where chosen (wins above): the
 * exchange with nothing going back, as a scatter's: the root writes the
 * block into the other member's cache, which copies it out.  1 with *rc
 * when it ran; 0 when the choice is another (made and reported by the
 * caller, so that a call says one algorithm). */
static __attribute__((noinline)) int bcast_pair(void *buf, MPI_Count count, MPI_Datatype dt,
                                                int root, MPI_Comm comm, int *rc)
{
    return fm_coll_sel_exchange_pair(
        comm, FM_PAIR_BCAST, fm_coll_bcast_pair_blocks(comm->rank, root, buf, count, dt), rc);
}

/* A Bcast of 4 or more members on a crowded node, up to a lane's bytes in
 * any layout: flat, the root publishes once and every member copies out of
 * its lane (flat.c).  The binomial tree made a member wait for its parent
 * to get a core before its own turn came.  osu_bcast on the 2 cores,
 * alternated rounds, medians, us, tree -> flat: 4 ranks (5 rounds) 1 B-4
 * KiB 1.10-1.85 -> 0.18-0.36 (Open MPI 1.82-17.1), 8 ranks (2 rounds)
 * 13.6-16.8 -> 0.21-0.54 (Open MPI 27-78).  3 members keep the tree, one
 * level there (the root sends to both), whose eager message a member has
 * taken in while leaving the barrier before it: 0.15-0.35 against flat's
 * 0.20-0.42. */
static int bcast_flat_fits(MPI_Comm comm, size_t bytes)
{
    return comm->size <= FM_FLAT_RANKS && bytes <= FM_CRMA_LANE_MAX && fm_coll_crowded(comm);
}

/* Run it: 1 with *rc when it ran, 0 when the choice is another (then made
 * as for any bcast).  Apart, as reduce_flat. */
static __attribute__((noinline)) int bcast_flat(void *buf, MPI_Count count, MPI_Datatype dt,
                                                int root, MPI_Comm comm, int *rc)
{
    const char *why = "";
    const size_t bytes = (size_t)count * (size_t)dt->size;
    fm_crma *c = choose(comm, K_BCAST, bytes, 1, &why);
    if (!c)
        return 0;
    report(comm, K_BCAST, bytes, root, c, "flat (the root publishes, every member copies out)",
           why);
    FM_PV_INC(coll_bcast_flat);
    *rc = fm_crma_bcast_flat(c, buf, count, dt, root);
    return 1;
}

int fm_coll_sel_bcast(void *buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    const char *why = "";
    size_t bytes = (size_t)count * (size_t)dt->size;
    int rc;
    if (comm->size > 3 && __builtin_expect(fm_oversubscribed, 0) && bcast_flat_fits(comm, bytes) &&
        bcast_flat(buf, count, dt, root, comm, &rc))
        return rc;
    if (fm_coll_bcast_pair_may(comm->size, bytes) && !fm_comm_is_inter(comm) &&
        bcast_pair(buf, count, dt, root, comm, &rc))
        return rc;
    fm_crma *c = choose(comm, K_BCAST, bytes, 0, &why);
    if (fm_param.COLL_VERBOSE && comm->rank == 0) {
        char algo[48];
        snprintf(algo, sizeof algo, c ? "%ld-way fan-out tree" : "binomial tree",
                 fm_param.COLL_FANOUT);
        report(comm, K_BCAST, bytes, root, c, algo, why);
    }
    if (c)
        FM_PV_INC(coll_bcast_rma);
    else
        FM_PV_INC(coll_bcast_two_sided);
    return c ? fm_crma_bcast(c, buf, count, dt, root, FM_OK)
             : fm_coll_bcast(buf, count, dt, root, comm);
}

static const char *reduce_algo(int rma, MPI_Op op)
{
    if (rma)
        return op->commute ? "binary tree" : "in-order binary tree (rank order)";
    return op->commute ? "binomial tree" : "rank-ordered binomial tree";
}

/* Out of the call's way: its buffer would cost every call a stack guard. */
static __attribute__((noinline, cold)) void report_reduce(MPI_Comm comm, size_t bytes, int root,
                                                          const fm_crma *c, MPI_Op op, int flat,
                                                          size_t piece, const char *why)
{
    char algo[80];
    snprintf(algo, sizeof algo, "%s%s",
             c && flat ? "flat (one round of flags, the root reduces all)"
                       : reduce_algo(c != NULL, op),
             c && piece ? ", in pieces" : "");
    report(comm, K_REDUCE, bytes, root, c, algo, why);
}

/* A Reduce run flat (crowded nodes only; flat_fits): 1 with *rc when it
 * ran, 0 when the choice is another (then made as for any reduce).  Apart,
 * so that a node with a core per rank pays one test for it. */
static __attribute__((noinline)) int reduce_flat(const void *sbuf, void *rbuf, MPI_Count count,
                                                 MPI_Datatype dt, MPI_Op op, int root,
                                                 MPI_Comm comm, int *rc)
{
    const char *why = "";
    const size_t bytes = (size_t)count * (size_t)dt->size;
    fm_crma *c = choose(comm, K_REDUCE, bytes, 1, &why);
    if (!c)
        return 0;
    if (fm_param.COLL_VERBOSE)
        report_reduce(comm, bytes, root, c, op, 1, 0, why);
    FM_PV_INC(coll_reduce_flat);
    *rc = fm_crma_reduce_flat(c, sbuf, rbuf, count, dt, op, root);
    return 1;
}

int fm_coll_sel_reduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                       int root, MPI_Comm comm)
{
    const char *why = "";
    size_t bytes = (size_t)count * (size_t)dt->size;
    int rc;
    if (__builtin_expect(fm_oversubscribed, 0) && flat_fits(comm, bytes, dt) &&
        reduce_flat(sbuf, rbuf, count, dt, op, root, comm, &rc))
        return rc;
    /* What must fit the cache: one piece, when the vector goes in pieces
     * (cache.h, fm_crma_reduce_piece). */
    const size_t piece = bytes > FM_CRMA_REDUCE_PIECE_MIN
                             ? fm_crma_reduce_split(fm_crma_area_max(comm), bytes, (size_t)dt->size)
                             : 0;
    fm_crma *c = choose(comm, K_REDUCE, piece ? piece : bytes, 0, &why);
    if (fm_param.COLL_VERBOSE)
        report_reduce(comm, bytes, root, c, op, 0, piece, why);
    if (c)
        FM_PV_INC(coll_reduce_rma);
    else
        FM_PV_INC(coll_reduce_two_sided);
    return c ? fm_crma_reduce(c, sbuf, rbuf, count, dt, op, root)
             : fm_coll_reduce(sbuf, rbuf, count, dt, op, root, comm);
}

int fm_coll_allreduce_is_flat(MPI_Comm comm, size_t bytes, MPI_Datatype dt)
{
    return flat_fits(comm, bytes, dt) && !fm_sel_two_sided_why(comm, K_ALLREDUCE, bytes, 1);
}

/* The blocking Allreduce of two members with a core each, up to
 * FM_CRMA_PUSH_PAIR_ABOVE bytes, runs as its nonblocking and persistent
 * forms do: flat, pushed (flat.c), each member writing its vector into the
 * other's lane.  Against the pair there (osu_allreduce, 2 ranks bound, 4
 * alternated rounds, slow state, medians): 4-32 B 0.87-0.98, 64-256 B
 * 0.78-0.85, 512 B 0.90, 1-2 KiB 0.99-1.03; bench/allreduce_persistent's
 * 8 B 0.337-0.349 us against 0.392-0.401. */
static int push_flat(const fm_crma *c, MPI_Comm comm, size_t bytes, MPI_Datatype dt)
{
    return c->flat_push && bytes <= FM_CRMA_PUSH_PAIR_ABOVE && push_fits(comm, bytes, dt);
}

int fm_coll_sel_allreduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt,
                          MPI_Op op, MPI_Comm comm)
{
    const char *why = "";
    size_t bytes = (size_t)count * (size_t)dt->size;
    const int flat = flat_fits(comm, bytes, dt);
    fm_crma *c = choose(comm, K_ALLREDUCE, bytes, flat, &why);
    const int push = c && !flat && push_flat(c, comm, bytes, dt);
    report(comm, K_ALLREDUCE, bytes, -1, c,
           c ? flat   ? "flat (one round of flags, every member reduces all)"
               : push ? "flat, pushed (each writes its vector into the other's lane)"
               : comm->size == 2 ? "pair (each writes its vector into the other's cache)"
                                 : "reduce (binary tree) + fan-out bcast"
             : "recursive doubling / halving",
           why);
    if (!c) {
        FM_PV_INC(coll_allreduce_two_sided);
        return fm_coll_allreduce(sbuf, rbuf, count, dt, op, comm);
    }
    if (flat || push) {
        FM_PV_INC(coll_allreduce_flat);
        return fm_crma_allreduce_flat(c, sbuf, rbuf, count, dt, op);
    }
    FM_PV_INC(coll_allreduce_rma);
    if (comm->size == 2) {
        const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
        return fm_crma_pair(c, mine, count, mine, count, rbuf, dt, op);
    }
    /* Reduce to 0 (non-root members read their contribution from rbuf
     * under MPI_IN_PLACE), then broadcast 0's result — or, when the reduce
     * failed at 0, its error, so every member returns. */
    int rc = fm_crma_reduce(c, sbuf, rbuf, count, dt, op, 0);
    return fm_crma_bcast(c, rbuf, count, dt, 0, rc);
}

int fm_coll_sel_reduce_scatter_pair(const void *sbuf, void *rbuf, MPI_Count n0, MPI_Count n1,
                                    MPI_Datatype dt, MPI_Op op, MPI_Comm comm, int *rc)
{
    const char *why = "";
    /* bytes: the larger block, what each slot must hold (as reduce's half) */
    size_t bytes = (size_t)(n0 > n1 ? n0 : n1) * (size_t)dt->size;
    fm_crma *c = choose(comm, K_REDUCE_SCATTER, bytes, 0, &why);
    report(comm, K_REDUCE_SCATTER, bytes, -1, c,
           c ? "pair (each writes the other's block into its cache)"
             : op->commute ? "pairwise exchange" : "reduce to rank 0 + scatter",
           why);
    if (!c)
        return 0;
    const int me = comm->rank;
    const void *block0 = sbuf, *block1 = fm_coll_at(sbuf, (MPI_Aint)n0, dt);
    *rc = fm_crma_pair(c, me ? block0 : block1, me ? n0 : n1, me ? block1 : block0, me ? n1 : n0,
                       rbuf, dt, op);
    return 1;
}

/* Allgather and allgatherv on a crowded node, blocks of at most
 * FM_FLAT_GATHER_MAX bytes: flat (flat.c), one round of flags where
 * recursive doubling waits log2(p) times for a partner to get a core.
 * Chosen by the block sizes, which are the same on every member, and by
 * nothing a member's own datatypes say (types of one signature may have
 * different layouts): flat packs what is not contiguous.  osu_allgather
 * on the 2 cores, 3 rounds alternating the library before it, medians of
 * 1 B to 4 KiB, us, two-sided -> flat: 3 ranks 4.0-7.6 -> 3.1-6.0, 4 ranks
 * 5.7-10.0 -> 4.0-6.8 (Open MPI 7.3-30.5), 8 ranks 19-35 -> 8.7-13.1, 16
 * ranks (2 rounds) 72-200 -> 31-52; osu_allgatherv at 4 ranks 5.9-9.3 ->
 * 4.2-5.5 (Open MPI 6.6-41.6).  A lane holds 4 KiB. */
#define FM_FLAT_GATHER_MAX ((size_t)FM_CRMA_LANE_MAX)

/* The allgather that runs (rcounts none: every block is rcount elements),
 * on 2 members, once the node is crowded or the choice is to be reported. */
static inline int sel_allgather(enum kind k, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                                void *rbuf, fm_iarr rcounts, fm_iarr displs, MPI_Count rcount,
                                MPI_Datatype rdt, MPI_Comm comm)
{
    const char *why = "node not crowded (one round of flags pays where ranks outnumber CPUs)";
    fm_crma *c = NULL;
    const int crowded = comm->size <= FM_FLAT_RANKS && fm_coll_crowded(comm);
    size_t largest = 0;
    if (crowded || fm_param.COLL_VERBOSE) {
        if (fm_iarr_null(rcounts))
            largest = (size_t)rcount;
        else /* a block from each rank our arguments name: the remote group's on an
              * intercommunicator (remote_size is size on an intracommunicator) */
            for (int p = 0; p < comm->remote_size; p++)
                if ((size_t)fm_iarr_at(rcounts, p) > largest)
                    largest = (size_t)fm_iarr_at(rcounts, p);
        largest *= (size_t)rdt->size;
    }
    if (crowded) {
        why = "a block larger than a lane's 4096 bytes";
        if (largest <= FM_FLAT_GATHER_MAX)
            c = choose(comm, k, largest, 1, &why);
    }
    if (!c && comm->size == 2 && !fm_comm_is_inter(comm)) {
        /* 2 members, where flat does not run: the exchange */
        int rc;
        const fm_pair_blocks b = fm_coll_allgather_pair_blocks(
            comm->rank, sbuf, scount, sdt, rbuf, rcounts, displs, rcount, rdt);
        const enum fm_pair_call call = k == K_ALLGATHER ? FM_PAIR_ALLGATHER : FM_PAIR_ALLGATHERV;
        if (fm_coll_sel_exchange_pair(comm, call, b, &rc))
            return rc;
    } else {
        report(comm, k, largest, -1, c,
               c ? "flat (one round of flags, every member copies all)"
                 : "recursive doubling (power of two members) or ring",
               why);
    }
    if (!c)
        return k == K_ALLGATHER ? fm_coll_allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm)
                                : fm_coll_allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt,
                                                     comm);
    FM_PV_INC(coll_allgather_flat);
    return fm_crma_allgather_flat(c, sbuf, scount, sdt, rbuf, rcounts, displs, rcount, rdt);
}

/* Alltoall of 3 or more members on a crowded node: flat, as allgather,
 * where the send buffer (size blocks, the same bytes on every member) fits
 * a lane (2 members cross once through the exchange already).  osu_alltoall
 * on the 2 cores, alternated rounds, medians, us, pairwise two-sided ->
 * flat: 3 ranks (4 rounds) 1 B-1 KiB 8.4-9.9 -> 7.1-8.6, 4 ranks (5
 * rounds) 11.3-13.4 -> 10.8-12.1 (19.1 -> 10.9 at 1 B), 8 ranks (2 rounds)
 * 43-53 -> 36-46 (Open MPI 55-85).  1 with *rc when it ran; 0 when the
 * choice is another (made by the caller). */
int fm_coll_sel_alltoall_flat(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                              MPI_Count rcount, MPI_Datatype rdt, MPI_Comm comm, int *rc)
{
    const size_t block = (size_t)rcount * (size_t)rdt->size;
    if (comm->size < 3 || comm->size > FM_FLAT_RANKS ||
        block * (size_t)comm->size > FM_CRMA_LANE_MAX ||
        !fm_coll_crowded(comm))
        return 0;
    const char *why = "";
    fm_crma *c = choose(comm, K_ALLTOALL, block, 1, &why);
    if (!c)
        return 0;
    report(comm, K_ALLTOALL, block, -1, c, "flat (one round of flags, every member copies its "
           "block out of each)", why);
    FM_PV_INC(coll_alltoall_flat);
    *rc = fm_crma_alltoall_flat(c, sbuf, scount, sdt, rbuf, rcount, rdt);
    return 1;
}

/* Elsewhere (3 or more members, node not crowded) an allgather pays three
 * loads for the choice: the entry points below jump to the two-sided
 * algorithm or to these, whose arguments are theirs, so neither needs a
 * frame: 8 instructions a call (callgrind, at 2 ranks when they still ran
 * two-sided), where sel_allgather inlined into them cost 52 and a call to
 * it with its own arguments 17. */
static __attribute__((noinline)) int allgather_chosen(const void *sbuf, MPI_Count scount,
                                                      MPI_Datatype sdt, void *rbuf,
                                                      MPI_Count rcount, MPI_Datatype rdt,
                                                      MPI_Comm comm)
{
    return sel_allgather(K_ALLGATHER, sbuf, scount, sdt, rbuf, FM_IARR_NONE, FM_IARR_NONE, rcount,
                         rdt, comm);
}

static __attribute__((noinline)) int allgatherv_chosen(const void *sbuf, MPI_Count scount,
                                                       MPI_Datatype sdt, void *rbuf,
                                                       fm_iarr rcounts, fm_iarr displs,
                                                       MPI_Datatype rdt, MPI_Comm comm)
{
    return sel_allgather(K_ALLGATHERV, sbuf, scount, sdt, rbuf, rcounts, displs, 0, rdt, comm);
}

int fm_coll_sel_allgather(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                          MPI_Count rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    if (fm_oversubscribed || comm->size == 2 || fm_param.COLL_VERBOSE)
        return allgather_chosen(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
    return fm_coll_allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
}

int fm_coll_sel_allgatherv(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                           fm_iarr rcounts, fm_iarr displs, MPI_Datatype rdt, MPI_Comm comm)
{
    if (fm_oversubscribed || comm->size == 2 || fm_param.COLL_VERBOSE)
        return allgatherv_chosen(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm);
    return fm_coll_allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm);
}

/* The pieces an exchange of `bytes` goes in (0: whole), and its key for
 * choose(): within a node blocks up to twice a slot go in two pieces.
 * osu_alltoall at 1 MiB (slots of 512 KiB), 2 ranks bound, 8 pairs of
 * runs against the two-sided exchange: 121-129 us against 168-244 in the
 * fast machine state, 215-245 against 171-196 in the slow one (pieces of a
 * quarter of the area, two in flight, did the same); at 2 MiB no gain (10
 * pairs, median ratio 1.03), so larger blocks stay two-sided.  A gather or
 * scatter (one block, one way) never goes in pieces: at 1 MiB, 8
 * alternated rounds of osu_gather / osu_scatterv, 68.0 / 68.3 us in pieces
 * against 65.3 / 60.9 two-sided (a single CMA copy), so it stays there. */
static size_t exchange_piece(MPI_Comm comm, enum kind k, size_t bytes, size_t *key)
{
    const size_t slot = fm_crma_area_max(comm) / 2 / 64 * 64;
    const size_t piece = k < K_GATHER && bytes > slot && bytes <= 2 * slot && fm_crma_all_shm(comm)
                             ? slot
                             : 0;
    *key = piece ? slot : bytes;
    return piece;
}

/* The larger block, what each slot must hold; the other member's out is
 * our in, so both compute the same. */
static size_t exchange_bytes(fm_crma_block out, fm_crma_block in)
{
    const size_t ob = (size_t)out.count * (size_t)out.dt->size;
    const size_t ib = (size_t)in.count * (size_t)in.dt->size;
    return ob > ib ? ob : ib;
}

static const enum kind pair_kind[] = {
    [FM_PAIR_ALLTOALL] = K_ALLTOALL,   [FM_PAIR_ALLTOALLV] = K_ALLTOALLV,
    [FM_PAIR_ALLTOALLW] = K_ALLTOALLW, [FM_PAIR_ALLGATHER] = K_ALLGATHER,
    [FM_PAIR_ALLGATHERV] = K_ALLGATHERV, [FM_PAIR_GATHER] = K_GATHER,
    [FM_PAIR_GATHERV] = K_GATHERV,     [FM_PAIR_SCATTER] = K_SCATTER,
    [FM_PAIR_SCATTERV] = K_SCATTERV,   [FM_PAIR_BCAST] = K_BCAST_PAIR};

/* MPI_T's counter of the exchanges of kind k. */
static unsigned long long *pair_count(enum kind k)
{
    if (k == K_ALLGATHER || k == K_ALLGATHERV)
        return &fm_pv.coll_allgather_pair;
    if (k == K_ALLTOALL || k == K_ALLTOALLV || k == K_ALLTOALLW)
        return &fm_pv.coll_alltoall_pair;
    if (k == K_BCAST_PAIR)
        return &fm_pv.coll_bcast_pair;
    return &fm_pv.coll_gather_scatter_pair;
}

int fm_coll_sel_exchange_pair(MPI_Comm comm, enum fm_pair_call call, fm_pair_blocks b, int *rc)
{
    const enum kind k = pair_kind[call];
    const char *why = "";
    const size_t bytes = exchange_bytes(b.out, b.in);
    size_t key;
    const size_t piece = exchange_piece(comm, k, bytes, &key);
    fm_crma *c = choose(comm, k, key, 0, &why);
    if (!c && k == K_BCAST_PAIR)
        return 0; /* fm_coll_sel_bcast chooses again, and reports that */
    const int rooted = k >= K_GATHER; /* one block crosses, to or from the root */
    report(comm, k, bytes, -1, c,
           !c       ? rooted ? "linear" : "exchange of one message each way"
           : rooted ? piece ? "pair, in pieces (the block crosses through the receiver's cache)"
                            : "pair (the block crosses through the receiver's cache)"
           : piece  ? "pair, in pieces (each writes its block into the other's cache)"
                    : "pair (each writes its block into the other's cache)",
           why);
    if (!c)
        return 0;
    ++*pair_count(k);
    *rc = fm_crma_exchange(c, b.out, b.in, b.own_from, b.own_to, piece);
    return 1;
}

int fm_coll_sel_iexchange_pair(struct fm_coll_call *cc, enum fm_pair_call call, fm_pair_blocks b,
                               void **x)
{
    MPI_Comm comm = cc->comm;
    const enum kind k = pair_kind[call];
    const size_t bytes = exchange_bytes(b.out, b.in);
    size_t key;
    const size_t piece = exchange_piece(comm, k, bytes, &key);
    const char *why = fm_sel_two_sided_why(comm, k, key, 0);
    fm_crma *c = NULL;
    if (!why && comm->coll_rma && !(c = fm_crma_get(comm)))
        why = "cache setup failed (FABMPI_VERBOSE=1 says why)";
    if (fm_param.COLL_VERBOSE && comm->rank == 0)
        fm_log_print("coll", "%s, nonblocking or persistent, comm=%s ctx=%u size=%d bytes=%zu: %s%s",
                     fm_sel_call_name[k], comm->name[0] ? comm->name : "<unnamed>", comm->ctx,
                     comm->size, bytes,
                     why ? "two-sided — " : piece ? "rma pair, in pieces" : "rma pair",
                     why ? why
                     : c ? ""
                         : " once a blocking collective has set up the one-sided cache, two-sided "
                           "until then");
    *x = NULL;
    if (why)
        return 0;
    *x = fm_crma_record_exchange(cc, c, b.out, b.in, b.own_from, b.own_to, piece, pair_count(k));
    return c != NULL;
}

void fm_coll_sel_iexchange_alt_end(struct fm_coll_call *cc, void *x, int first_alt)
{
    fm_crma_record_exchange_alt_end(cc, x, first_alt);
}

void fm_coll_rma_free(MPI_Comm comm)
{
    fm_crma_release(comm);
}
