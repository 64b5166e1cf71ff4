/* allgather.c — allgather and allgatherv: recursive doubling on a power of
 * two members, else a ring.  On two members the blocking calls may run as
 * an exchange through the collective cache (select.c); the nonblocking and
 * persistent ones record it here (fm_ag_pair_sched).
 *
 * Both work directly in the receive buffer: a run of k consecutive blocks
 * of (rcount, rdt) is itself (addr, k * rcount, rdt), since element i of a
 * datatype sits at i * extent. */
#include "coll/coll.h"
#include "coll/coll_call.h"
#include "coll/coll_util.h"
#include "coll/rma/coll_rma.h"
#include "coll/sched.h"
#include "core/comm.h"
#include "pt2pt/pt2pt.h"
#include "util/status.h"

/* Step one of both: pass our own block (own, count, rdt) to `right` and take
 * (from_left, lcount, rdt) from `left`.  The block leaves from sbuf, and our
 * copy of it into rbuf runs while the peer takes it: sent from the
 * just-written copy in rbuf instead, a 2-rank 1 MiB allgather took 340 us
 * against Open MPI's 128 (now 124-134). */
static void fm_ag_first(fm_coll_call *cc, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                        void *own, MPI_Count count, MPI_Datatype rdt, int right, int left,
                        void *from_left, MPI_Count lcount)
{
    struct fm_request *r[2];
    long long w[2];
    fm_cc_batch b = {.reqs = r, .want = w};
    fm_cc_irecv(cc, &b, from_left, lcount, rdt, left);
    if (sbuf != MPI_IN_PLACE) {
        fm_cc_isend(cc, &b, sbuf, scount, sdt, right);
        fm_cc_copy(cc, sbuf, scount, sdt, own, count, rdt);
    } else {
        fm_cc_isend(cc, &b, own, count, rdt, right);
    }
    fm_cc_waitall(cc, &b);
}

fm_pair_blocks fm_coll_allgather_pair_blocks(int me, const void *sbuf, MPI_Count scount,
                                             MPI_Datatype sdt, void *rbuf, fm_iarr rcounts,
                                             fm_iarr displs, MPI_Count rcount, MPI_Datatype rdt)
{
    const int peer = 1 - me, v = !fm_iarr_null(rcounts);
    const fm_crma_block own = {fm_coll_at(rbuf, v ? fm_iarr_at(displs, me) : me * rcount, rdt),
                               v ? fm_iarr_at(rcounts, me) : rcount, rdt};
    const fm_crma_block in = {fm_coll_at(rbuf, v ? fm_iarr_at(displs, peer) : peer * rcount, rdt),
                              v ? fm_iarr_at(rcounts, peer) : rcount, rdt};
    const fm_crma_block mine = {sbuf, scount, sdt}, none = {NULL, 0, MPI_BYTE};
    const int in_place = sbuf == MPI_IN_PLACE;
    return (fm_pair_blocks){in_place ? own : mine, in, in_place ? none : mine, own};
}

/* Two members, a schedule: the exchange select.c takes, tried first at
 * each start, and else (or until the communicator's cache is there) the
 * two-sided exchange of fm_ag_first. */
static void fm_ag_pair_sched(fm_coll_call *cc, const void *sbuf, MPI_Count scount,
                             MPI_Datatype sdt, void *rbuf, fm_iarr rcounts, fm_iarr displs,
                             MPI_Count rcount, MPI_Datatype rdt)
{
    const fm_pair_blocks b = fm_coll_allgather_pair_blocks(cc->comm->rank, sbuf, scount, sdt, rbuf,
                                                           rcounts, displs, rcount, rdt);
    const enum fm_pair_call call = fm_iarr_null(rcounts) ? FM_PAIR_ALLGATHER : FM_PAIR_ALLGATHERV;
    void *pair = NULL;
    if (fm_coll_sel_iexchange_pair(cc, call, b, &pair))
        return;
    const int first = fm_sched_steps(cc), peer = 1 - cc->comm->rank;
    fm_ag_first(cc, sbuf, scount, sdt, (void *)(uintptr_t)b.own_to.buf, b.own_to.count, rdt, peer,
                peer, (void *)(uintptr_t)b.in.buf, b.in.count);
    if (pair)
        fm_coll_sel_iexchange_alt_end(cc, pair, first);
}

void fm_cc_allgather(fm_coll_call *cc, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                     void *rbuf, MPI_Count rcount, MPI_Datatype rdt)
{
    if (fm_comm_is_inter(cc->comm)) {
        fm_cc_inter_allgatherv(cc, sbuf, scount, sdt, rbuf, FM_IARR_NONE, FM_IARR_NONE, rcount,
                               rdt);
        return;
    }
    const int size = cc->comm->size, rank = cc->comm->rank;
    void *own = fm_coll_at(rbuf, rank * rcount, rdt);
    if (size == 1 || rcount * rdt->size == 0) {
        if (sbuf != MPI_IN_PLACE)
            fm_cc_copy(cc, sbuf, scount, sdt, own, rcount, rdt);
        return;
    }
    if (cc->sched && size == 2) {
        fm_ag_pair_sched(cc, sbuf, scount, sdt, rbuf, FM_IARR_NONE, FM_IARR_NONE, rcount, rdt);
        return;
    }
    const int pof2 = (size & (size - 1)) == 0;
    const int right = pof2 ? rank ^ 1 : (rank + 1) % size;
    const int left = pof2 ? right : (rank - 1 + size) % size;
    fm_ag_first(cc, sbuf, scount, sdt, own, rcount, rdt, right, left,
                fm_coll_at(rbuf, left * rcount, rdt), rcount);

    if (pof2) {
        /* Power of two: in round mask, exchange the aligned run of `mask`
         * blocks this rank holds for the partner's; log2(p) rounds. */
        for (int mask = 2; mask < size; mask <<= 1) {
            int partner = rank ^ mask;
            int mine = rank & ~(mask - 1), theirs = partner & ~(mask - 1);
            fm_cc_sendrecv(cc, fm_coll_at(rbuf, mine * rcount, rdt), mask * rcount, rdt,
                           partner, fm_coll_at(rbuf, theirs * rcount, rdt), mask * rcount, rdt,
                           partner);
        }
        return;
    }
    /* Otherwise a ring: in step s pass block rank-s right, take rank-s-1
     * from the left. */
    for (int s = 1; s < size - 1; s++) {
        int sb = (rank - s + size) % size, rb = (rank - s - 1 + size) % size;
        fm_cc_sendrecv(cc, fm_coll_at(rbuf, sb * rcount, rdt), rcount, rdt, right,
                       fm_coll_at(rbuf, rb * rcount, rdt), rcount, rdt, left);
    }
}

int fm_coll_allgather(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                      MPI_Count rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    fm_coll_call cc = FM_COLL_CALL(comm, FM_TAG_ALLGATHER);
    fm_cc_allgather(&cc, sbuf, scount, sdt, rbuf, rcount, rdt);
    return cc.rc;
}

/* Allgatherv's rounds after the first on a power of two members: in round
 * mask, exchange the aligned run of `mask` blocks this rank holds for the
 * partner's, log2(p) rounds as allgather's where a ring takes p - 1, each
 * a wait for a partner to be scheduled on a crowded node.  One message per
 * block, since the blocks of a run sit where each rank's own displs put
 * them, which may differ between ranks: message boundaries agree only
 * block by block (rcounts[i] is the same everywhere).  Batches of
 * FM_AGV_WINDOW blocks.  Taken while no block is over FM_AGV_DOUBLING_MAX
 * bytes: osu_allgatherv, 4 ranks on 2 cores, 3 rounds alternated, medians,
 * doubling over ring 0.75-0.89 from 1 B to 64 KiB (8 B 5.18 against 6.77
 * us, 64 KiB 26.5 against 33.6; Open MPI 6.66, 79.6), but 1.46 at 128 KiB
 * (89.8 against 61.4; 1.3-2.5 in 4 more rounds), where two eager blocks a
 * round meet in each ring; 0.94-0.99 above. */
enum { FM_AGV_WINDOW = 32 };
#define FM_AGV_DOUBLING_MAX ((size_t)64 << 10)

static int fm_agv_doubling_fits(int size, fm_iarr rcounts, MPI_Datatype rdt)
{
    if (size & (size - 1))
        return 0;
    for (int i = 0; i < size; i++)
        if ((size_t)fm_iarr_at(rcounts, i) * rdt->size > FM_AGV_DOUBLING_MAX)
            return 0;
    return 1;
}

static void fm_agv_doubling(fm_coll_call *cc, void *rbuf, fm_iarr rcounts, fm_iarr displs,
                            MPI_Datatype rdt)
{
    const int size = cc->comm->size, rank = cc->comm->rank;
    struct fm_request *r[2 * FM_AGV_WINDOW];
    long long w[2 * FM_AGV_WINDOW];
    fm_cc_batch b = {.reqs = r, .want = w};
    for (int mask = 2; mask < size; mask <<= 1) {
        const int partner = rank ^ mask;
        const int mine = rank & ~(mask - 1), theirs = partner & ~(mask - 1);
        for (int base = 0; base < mask; base += FM_AGV_WINDOW) {
            for (int i = base; i < mask && i < base + FM_AGV_WINDOW; i++) {
                const int t = theirs + i, m = mine + i;
                fm_cc_irecv(cc, &b, fm_coll_at(rbuf, fm_iarr_at(displs, t), rdt),
                            fm_iarr_at(rcounts, t), rdt, partner);
                fm_cc_isend(cc, &b, fm_coll_at(rbuf, fm_iarr_at(displs, m), rdt),
                            fm_iarr_at(rcounts, m), rdt, partner);
            }
            fm_cc_waitall(cc, &b);
        }
    }
}

void fm_cc_allgatherv(fm_coll_call *cc, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                      void *rbuf, fm_iarr rcounts, fm_iarr displs, MPI_Datatype rdt)
{
    if (fm_comm_is_inter(cc->comm)) {
        fm_cc_inter_allgatherv(cc, sbuf, scount, sdt, rbuf, rcounts, displs, 0, rdt);
        return;
    }
    const int size = cc->comm->size, rank = cc->comm->rank;
    void *own = fm_coll_at(rbuf, fm_iarr_at(displs, rank), rdt);
    if (size == 1) {
        if (sbuf != MPI_IN_PLACE)
            fm_cc_copy(cc, sbuf, scount, sdt, own, fm_iarr_at(rcounts, rank), rdt);
        return;
    }
    if (cc->sched && size == 2) {
        fm_ag_pair_sched(cc, sbuf, scount, sdt, rbuf, rcounts, displs, 0, rdt);
        return;
    }
    const int doubling = fm_agv_doubling_fits(size, rcounts, rdt);
    const int right = doubling ? rank ^ 1 : (rank + 1) % size;
    const int left = doubling ? right : (rank - 1 + size) % size;
    fm_ag_first(cc, sbuf, scount, sdt, own, fm_iarr_at(rcounts, rank), rdt, right, left,
                fm_coll_at(rbuf, fm_iarr_at(displs, left), rdt), fm_iarr_at(rcounts, left));
    if (doubling) {
        fm_agv_doubling(cc, rbuf, rcounts, displs, rdt);
        return;
    }
    for (int s = 1; s < size - 1; s++) {
        int sb = (rank - s + size) % size, rb = (rank - s - 1 + size) % size;
        fm_cc_sendrecv(cc, fm_coll_at(rbuf, fm_iarr_at(displs, sb), rdt),
                       fm_iarr_at(rcounts, sb), rdt, right,
                       fm_coll_at(rbuf, fm_iarr_at(displs, rb), rdt), fm_iarr_at(rcounts, rb),
                       rdt, left);
    }
}

int fm_coll_allgatherv(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                       fm_iarr rcounts, fm_iarr displs, MPI_Datatype rdt, MPI_Comm comm)
{
    fm_coll_call cc = FM_COLL_CALL(comm, FM_TAG_ALLGATHERV);
    fm_cc_allgatherv(&cc, sbuf, scount, sdt, rbuf, rcounts, displs, rdt);
    return cc.rc;
}
