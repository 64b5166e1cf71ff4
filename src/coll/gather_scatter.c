/* gather_scatter.c — gather(v) and scatter(v), linear at the root; on two
 * members blocks past the eager size cross as an exchange through the
 * collective cache instead (select.c decides, coll/rma/exchange.c runs it).
 *
 * The root posts every transfer at once and waits for all of them, so
 * peers proceed in parallel and a large block never waits behind a small
 * one.  Transfers of zero bytes are skipped on both sides (the type
 * signatures match, so both sides agree on which ones those are). */
#include <stdlib.h>

#include "coll/coll.h"
#include "coll/coll_call.h"
#include "coll/coll_util.h"
#include "coll/rma/coll_rma.h"
#include "coll/sched.h"
#include "core/comm.h"
#include "pt2pt/pt2pt.h"
#include "util/status.h"

/* One block per rank at the root: block i is (buf + displ(i) * extent,
 * count(i), dt).  Fixed-size calls pass no counts and use `count` and
 * displacement i * count. */
struct fm_blocks {
    void *buf;
    fm_iarr counts, displs;
    MPI_Count count;
    MPI_Datatype dt;
};

static MPI_Count fm_blk_count(const struct fm_blocks *b, int i)
{
    return !fm_iarr_null(b->counts) ? fm_iarr_at(b->counts, i) : b->count;
}

static void *fm_blk_addr(const struct fm_blocks *b, int i)
{
    MPI_Aint disp = !fm_iarr_null(b->counts) ? fm_iarr_at(b->displs, i) : (MPI_Aint)i * b->count;
    return fm_coll_at(b->buf, disp, b->dt);
}

#define STACK_PEERS 64

/* Root side: post a receive (gather) or send (scatter) per peer, copy the
 * root's own block locally unless MPI_IN_PLACE, wait for all.  Every
 * transfer is posted even after an error, so no peer is left waiting. */
static void fm_root_linear(fm_coll_call *cc, const struct fm_blocks *b, void *own,
                           MPI_Count own_count, MPI_Datatype own_dt, int gather)
{
    const int size = cc->comm->size, rank = cc->comm->rank;
    /* Small communicators track their transfers on the stack (the two
     * allocations and frees were 7% of osu_scatterv at 4 ranks, 1-64 B:
     * 0.15 -> 0.14 us, medians of 8 alternated runs). */
    struct fm_request *reqs_here[STACK_PEERS];
    long long want_here[STACK_PEERS];
    int heap = size > STACK_PEERS;
    struct fm_request **reqs = heap ? malloc(sizeof *reqs * (size_t)size) : reqs_here;
    long long *want = heap ? malloc(sizeof *want * (size_t)size) : want_here;
    if (!reqs || !want) {
        /* Cannot track the transfers at once: do them one by one. */
        fm_cc_fail(cc, FM_ERR_NOMEM);
        for (int i = 0; i < size; i++) {
            if (i == rank || fm_blk_count(b, i) * b->dt->size == 0)
                continue;
            if (gather)
                fm_cc_recv(cc, NULL, fm_blk_count(b, i), b->dt, i);
            else
                fm_cc_send(cc, NULL, 0, MPI_BYTE, i);
        }
        if (heap) {
            free(reqs);
            free(want);
        }
        return;
    }
    fm_cc_batch batch = {.reqs = reqs, .want = want};
    for (int i = 0; i < size; i++) {
        if (i == rank || fm_blk_count(b, i) * b->dt->size == 0)
            continue;
        if (gather)
            fm_cc_irecv(cc, &batch, fm_blk_addr(b, i), fm_blk_count(b, i), b->dt, i);
        else
            fm_cc_isend(cc, &batch, fm_blk_addr(b, i), fm_blk_count(b, i), b->dt, i);
    }
    if (own != MPI_IN_PLACE) {
        if (gather)
            fm_cc_copy(cc, own, own_count, own_dt, fm_blk_addr(b, rank), fm_blk_count(b, rank),
                       b->dt);
        else
            fm_cc_copy(cc, fm_blk_addr(b, rank), fm_blk_count(b, rank), b->dt, own, own_count,
                       own_dt);
    }
    fm_cc_waitall(cc, &batch);
    if (heap) {
        free(reqs);
        free(want);
    }
}

/* Two members: the root's block from or for the other member as an
 * exchange with nothing going the other way (select.c chooses: blocks past
 * the eager size).  b: the root's blocks; (mine, mcount, mdt): the caller's
 * own buffer, sbuf of a gather or rbuf of a scatter. */
static fm_pair_blocks fm_gs_pair_blocks(int me, int root, int gather, const struct fm_blocks *b,
                                        const void *mine, MPI_Count mcount, MPI_Datatype mdt)
{
    const fm_crma_block none = {NULL, 0, MPI_BYTE}, caller = {mine, mcount, mdt};
    fm_pair_blocks p = {none, none, none, none};
    if (me != root) {
        if (gather)
            p.out = caller;
        else
            p.in = caller;
        return p;
    }
    const fm_crma_block theirs = {fm_blk_addr(b, 1 - root), fm_blk_count(b, 1 - root), b->dt};
    const fm_crma_block own = {fm_blk_addr(b, root), fm_blk_count(b, root), b->dt};
    if (gather)
        p.in = theirs;
    else
        p.out = theirs;
    if (mine != MPI_IN_PLACE) { /* the root's own block, between caller and b */
        p.own_from = gather ? caller : own;
        p.own_to = gather ? own : caller;
    }
    return p;
}

static enum fm_pair_call fm_gs_call(int gather, const struct fm_blocks *b)
{
    const int v = !fm_iarr_null(b->counts);
    return gather ? v ? FM_PAIR_GATHERV : FM_PAIR_GATHER : v ? FM_PAIR_SCATTERV : FM_PAIR_SCATTER;
}

/* Blocking: 1 with *rc when the exchange ran; (buf, counts, displs,
 * count, dt) are the root's blocks.  Out of line, so that the calls that
 * do not offer it (fm_gs_pair_may) build nothing for it. */
static __attribute__((noinline)) int fm_gs_pair(MPI_Comm comm, int gather, int root, void *buf,
                                                fm_iarr counts, fm_iarr displs, MPI_Count count,
                                                MPI_Datatype dt, const void *mine,
                                                MPI_Count mcount, MPI_Datatype mdt, int *rc)
{
    const struct fm_blocks b = {.buf = buf, .counts = counts, .displs = displs, .count = count,
                                .dt = dt};
    return fm_coll_sel_exchange_pair(
        comm, fm_gs_call(gather, &b),
        fm_gs_pair_blocks(comm->rank, root, gather, &b, mine, mcount, mdt), rc);
}

/* Offered on 2 members; bytes: the block that crosses (the other member's,
 * at the root). */
static inline int fm_gs_pair_may(MPI_Comm comm, size_t bytes)
{
    return comm->size == 2 && fm_coll_rooted_pair_may(bytes) && !fm_comm_is_inter(comm);
}

/* The block a gatherv or scatterv of 2 members moves: the other member's
 * (counts, dt) at the root, where the counts mean something, and our own
 * (mine, mdt) elsewhere; 0 where no exchange may run.  On an
 * intercommunicator `root` names a rank of the other group, so a member
 * whose rank it equals is no root and its counts may be anything, NULL
 * included (coll_inter). */
static size_t fm_gsv_pair_bytes(MPI_Comm comm, int root, fm_iarr counts, MPI_Datatype dt,
                                MPI_Count mine, MPI_Datatype mdt)
{
    if (comm->size != 2 || fm_comm_is_inter(comm))
        return 0;
    return comm->rank == root ? (size_t)fm_iarr_at(counts, 1 - root) * dt->size
                              : (size_t)mine * mdt->size;
}

/* Both directions of the linear algorithm: a non-root member's one
 * transfer, or the root's. */
static void fm_gs_linear(fm_coll_call *cc, int gather, int root, struct fm_blocks *b,
                         const void *mine, MPI_Count mcount, MPI_Datatype mdt)
{
    if (cc->comm->rank != root) {
        if (mcount * mdt->size != 0) {
            if (gather)
                fm_cc_send(cc, mine, mcount, mdt, root);
            else
                fm_cc_recv(cc, (void *)(uintptr_t)mine, mcount, mdt, root);
        }
        return;
    }
    fm_root_linear(cc, b, (void *)(uintptr_t)mine, mcount, mdt, gather);
}

/* Two members, a schedule (the nonblocking and persistent forms): the
 * exchange select.c takes, tried first at each start, and else (or until
 * the communicator's cache is there) the linear steps. */
static __attribute__((noinline)) void fm_gs_pair_sched(fm_coll_call *cc, int gather, int root,
                                                       struct fm_blocks b, const void *mine,
                                                       MPI_Count mcount, MPI_Datatype mdt)
{
    void *pair = NULL;
    const fm_pair_blocks p = fm_gs_pair_blocks(cc->comm->rank, root, gather, &b, mine, mcount, mdt);
    if (fm_coll_sel_iexchange_pair(cc, fm_gs_call(gather, &b), p, &pair))
        return;
    const int first = fm_sched_steps(cc);
    fm_gs_linear(cc, gather, root, &b, mine, mcount, mdt);
    if (pair)
        fm_coll_sel_iexchange_alt_end(cc, pair, first);
}

/* gather (rcounts absent: rcount from every member) and gatherv. */
void fm_cc_gatherv(fm_coll_call *cc, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                   void *rbuf, fm_iarr rcounts, fm_iarr displs, MPI_Count rcount,
                   MPI_Datatype rdt, int root)
{
    if (fm_comm_is_inter(cc->comm)) {
        fm_cc_inter_gatherv(cc, sbuf, scount, sdt, rbuf, rcounts, displs, rcount, rdt, root);
        return;
    }
    struct fm_blocks b = {.buf = rbuf, .counts = rcounts, .displs = displs, .count = rcount,
                          .dt = rdt};
    if (cc->sched && cc->comm->size == 2)
        fm_gs_pair_sched(cc, 1, root, b, sbuf, scount, sdt);
    else
        fm_gs_linear(cc, 1, root, &b, sbuf, scount, sdt);
}

int fm_coll_gather(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                   MPI_Count rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    const size_t bytes =
        comm->rank == root ? (size_t)rcount * rdt->size : (size_t)scount * sdt->size;
    int rc;
    if (fm_gs_pair_may(comm, bytes) && fm_gs_pair(comm, 1, root, rbuf, FM_IARR_NONE, FM_IARR_NONE,
                                                  rcount, rdt, sbuf, scount, sdt, &rc))
        return rc;
    fm_coll_call cc = FM_COLL_CALL(comm, FM_TAG_GATHER);
    fm_cc_gatherv(&cc, sbuf, scount, sdt, rbuf, FM_IARR_NONE, FM_IARR_NONE, rcount, rdt, root);
    return cc.rc;
}

int fm_coll_gatherv(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                    fm_iarr rcounts, fm_iarr displs, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    const size_t bytes = fm_gsv_pair_bytes(comm, root, rcounts, rdt, scount, sdt);
    int rc;
    if (fm_gs_pair_may(comm, bytes) &&
        fm_gs_pair(comm, 1, root, rbuf, rcounts, displs, 0, rdt, sbuf, scount, sdt, &rc))
        return rc;
    fm_coll_call cc = FM_COLL_CALL(comm, FM_TAG_GATHERV);
    fm_cc_gatherv(&cc, sbuf, scount, sdt, rbuf, rcounts, displs, 0, rdt, root);
    return cc.rc;
}

void fm_cc_scatterv(fm_coll_call *cc, const void *sbuf, fm_iarr scounts, fm_iarr displs,
                    MPI_Count scount, MPI_Datatype sdt, void *rbuf, MPI_Count rcount,
                    MPI_Datatype rdt, int root)
{
    if (fm_comm_is_inter(cc->comm)) {
        fm_cc_inter_scatterv(cc, sbuf, scounts, displs, scount, sdt, rbuf, rcount, rdt, root);
        return;
    }
    struct fm_blocks b = {.buf = (void *)(uintptr_t)sbuf, .counts = scounts, .displs = displs,
                          .count = scount, .dt = sdt};
    if (cc->sched && cc->comm->size == 2)
        fm_gs_pair_sched(cc, 0, root, b, rbuf, rcount, rdt);
    else
        fm_gs_linear(cc, 0, root, &b, rbuf, rcount, rdt);
}

int fm_coll_scatter(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                    MPI_Count rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    const size_t bytes =
        comm->rank == root ? (size_t)scount * sdt->size : (size_t)rcount * rdt->size;
    int rc;
    if (fm_gs_pair_may(comm, bytes) &&
        fm_gs_pair(comm, 0, root, (void *)(uintptr_t)sbuf, FM_IARR_NONE, FM_IARR_NONE, scount, sdt,
                   rbuf, rcount, rdt, &rc))
        return rc;
    fm_coll_call cc = FM_COLL_CALL(comm, FM_TAG_SCATTER);
    fm_cc_scatterv(&cc, sbuf, FM_IARR_NONE, FM_IARR_NONE, scount, sdt, rbuf, rcount, rdt, root);
    return cc.rc;
}

int fm_coll_scatterv(const void *sbuf, fm_iarr scounts, fm_iarr displs, MPI_Datatype sdt,
                     void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    const size_t bytes = fm_gsv_pair_bytes(comm, root, scounts, sdt, rcount, rdt);
    int rc;
    if (fm_gs_pair_may(comm, bytes) && fm_gs_pair(comm, 0, root, (void *)(uintptr_t)sbuf, scounts,
                                                  displs, 0, sdt, rbuf, rcount, rdt, &rc))
        return rc;
    fm_coll_call cc = FM_COLL_CALL(comm, FM_TAG_SCATTERV);
    fm_cc_scatterv(&cc, sbuf, scounts, displs, 0, sdt, rbuf, rcount, rdt, root);
    return cc.rc;
}
