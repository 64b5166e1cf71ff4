/* alltoall.c — alltoall, alltoallv and alltoallw.
 *
 * On two members the calls exchange through the collective cache where
 * select.c takes it (fm_a2a_pair; nonblocking and persistent ones once a
 * blocking collective has set the cache up: fm_a2a_pair_record).
 *
 * Out of place: windows of FM_A2A_WINDOW peers, each window posting all
 * its receives and sends at once (rank+i gets our block, rank-i sends us
 * theirs), so the network stays busy without thousands of outstanding
 * requests.  MPI_IN_PLACE: pairwise exchange, where in step i rank r pairs
 * with (i - r) mod p — a symmetric pairing, so each block can be saved to
 * scratch and swapped with one sendrecv. */
#include <stdlib.h>

#include "boot/world.h"
#include "coll/coll.h"
#include "coll/coll_call.h"
#include "coll/coll_util.h"
#include "coll/rma/coll_rma.h"
#include "coll/sched.h"
#include "core/comm.h"
#include "pt2pt/pt2pt.h"
#include "util/status.h"

#define FM_A2A_WINDOW 32

/* Either side of an exchange: block i is (buf + displ(i) * extent, count(i),
 * dt), or for alltoallw (buf + displs[i] bytes, counts[i], dts[i]). */
struct fm_a2a_side {
    const void *buf;
    fm_iarr counts, displs;     /* absent: fixed `count`, displacement i * count */
    MPI_Count count;
    MPI_Datatype dt;
    const MPI_Datatype *dts;    /* alltoallw: a type per peer, byte displacements */
};

static MPI_Count fm_side_count(const struct fm_a2a_side *s, int i)
{
    return !fm_iarr_null(s->counts) ? fm_iarr_at(s->counts, i) : s->count;
}

static MPI_Datatype fm_side_dt(const struct fm_a2a_side *s, int i)
{
    return s->dts ? s->dts[i] : s->dt;
}

static void *fm_side_addr(const struct fm_a2a_side *s, int i)
{
    if (s->dts)
        return (char *)(uintptr_t)s->buf + fm_iarr_at(s->displs, i);
    MPI_Aint disp = !fm_iarr_null(s->counts) ? fm_iarr_at(s->displs, i) : (MPI_Aint)i * s->count;
    return fm_coll_at(s->buf, disp, s->dt);
}

static MPI_Count fm_side_bytes(const struct fm_a2a_side *s, int i)
{
    return fm_side_count(s, i) * fm_side_dt(s, i)->size;
}

/* Every window is posted even after an error (coll_call.h), so no peer is
 * left waiting for its block. */
static void fm_a2a_windows(fm_coll_call *cc, const struct fm_a2a_side *snd,
                           const struct fm_a2a_side *rcv)
{
    const int size = cc->comm->size, rank = cc->comm->rank;
    struct fm_request *reqs[2 * FM_A2A_WINDOW];
    long long want[2 * FM_A2A_WINDOW];
    fm_cc_batch b = {.reqs = reqs, .want = want};
    fm_cc_copy(cc, fm_side_addr(snd, rank), fm_side_count(snd, rank), fm_side_dt(snd, rank),
               fm_side_addr(rcv, rank), fm_side_count(rcv, rank), fm_side_dt(rcv, rank));
    for (int base = 1; base < size; base += FM_A2A_WINDOW) {
        for (int i = base; i < size && i < base + FM_A2A_WINDOW; i++) {
            int src = (rank - i + size) % size, dst = (rank + i) % size;
            if (fm_side_bytes(rcv, src) > 0)
                fm_cc_irecv(cc, &b, fm_side_addr(rcv, src), fm_side_count(rcv, src),
                            fm_side_dt(rcv, src), src);
            if (fm_side_bytes(snd, dst) > 0)
                fm_cc_isend(cc, &b, fm_side_addr(snd, dst), fm_side_count(snd, dst),
                            fm_side_dt(snd, dst), dst);
        }
        fm_cc_waitall(cc, &b);
    }
}

static void fm_a2a_inplace(fm_coll_call *cc, const struct fm_a2a_side *rcv)
{
    const int size = cc->comm->size, rank = cc->comm->rank;
    /* Scratch for the largest block, in bytes of its packed form. */
    MPI_Count maxbytes = 0;
    for (int i = 0; i < size; i++)
        if (fm_side_bytes(rcv, i) > maxbytes)
            maxbytes = fm_side_bytes(rcv, i);
    void *raw, *tmp = fm_cc_tmp(cc, maxbytes, MPI_BYTE, &raw);
    if (!tmp)
        fm_cc_fail(cc, FM_ERR_NOMEM); /* the exchanges still run, as markers */
    for (int i = 0; i < size; i++) {
        int peer = (i - rank + size) % size;
        MPI_Count n = fm_side_count(rcv, peer), bytes = fm_side_bytes(rcv, peer);
        MPI_Datatype dt = fm_side_dt(rcv, peer);
        if (peer == rank || bytes == 0)
            continue;
        void *blk = fm_side_addr(rcv, peer);
        fm_cc_copy(cc, blk, n, dt, tmp, bytes, MPI_BYTE);
        fm_cc_sendrecv(cc, tmp, bytes, MPI_BYTE, peer, blk, n, dt, peer);
    }
    fm_cc_tmp_done(cc, raw);
}

static fm_crma_block fm_side_block(const struct fm_a2a_side *s, int i)
{
    return (fm_crma_block){fm_side_addr(s, i), fm_side_count(s, i), fm_side_dt(s, i)};
}

/* The blocks of a two-member exchange: the other member's leaves from
 * sbuf (MPI_IN_PLACE: from rbuf, before the other's block lands there),
 * ours is copied locally (nothing in place). */
static fm_pair_blocks fm_a2a_pair_blocks(MPI_Comm comm, const struct fm_a2a_side *snd,
                                         const struct fm_a2a_side *rcv)
{
    const int me = comm->rank, peer = 1 - me;
    const int in_place = snd->buf == MPI_IN_PLACE;
    const fm_crma_block none = {NULL, 0, MPI_BYTE};
    return (fm_pair_blocks){fm_side_block(in_place ? rcv : snd, peer), fm_side_block(rcv, peer),
                            in_place ? none : fm_side_block(snd, me), fm_side_block(rcv, me)};
}

static enum fm_pair_call fm_a2a_form(const struct fm_a2a_side *rcv)
{
    return rcv->dts ? FM_PAIR_ALLTOALLW : !fm_iarr_null(rcv->counts) ? FM_PAIR_ALLTOALLV
                                                                       : FM_PAIR_ALLTOALL;
}

/* Two members, blocking calls: the one-sided exchange through the
 * collective cache where select.c takes it; 1 with *rc when it ran. */
static int fm_a2a_pair(MPI_Comm comm, const struct fm_a2a_side *snd,
                       const struct fm_a2a_side *rcv, int *rc)
{
    if (comm->size != 2 || fm_comm_is_inter(comm))
        return 0;
    return fm_coll_sel_exchange_pair(comm, fm_a2a_form(rcv), fm_a2a_pair_blocks(comm, snd, rcv),
                                     rc);
}

/* The same recorded into a schedule: 1 when the exchange is all of it;
 * else *pair may be an exchange that each start tries before the
 * two-sided steps the caller records next. */
static int fm_a2a_pair_record(fm_coll_call *cc, const struct fm_a2a_side *snd,
                              const struct fm_a2a_side *rcv, void **pair)
{
    if (cc->comm->size != 2 || fm_comm_is_inter(cc->comm))
        return 0;
    return fm_coll_sel_iexchange_pair(cc, fm_a2a_form(rcv), fm_a2a_pair_blocks(cc->comm, snd, rcv),
                                      pair);
}

/* scounts absent: alltoall (scount, rcount); sdts NULL: alltoallv. */
void fm_cc_alltoallw(fm_coll_call *cc, const void *sbuf, fm_iarr scounts, fm_iarr sdispls,
                     MPI_Count scount, MPI_Datatype sdt, const MPI_Datatype sdts[], void *rbuf,
                     fm_iarr rcounts, fm_iarr rdispls, MPI_Count rcount, MPI_Datatype rdt,
                     const MPI_Datatype rdts[])
{
    if (fm_comm_is_inter(cc->comm)) {
        fm_cc_inter_alltoallw(cc, sbuf, scounts, sdispls, scount, sdt, sdts, rbuf, rcounts,
                              rdispls, rcount, rdt, rdts);
        return;
    }
    struct fm_a2a_side rcv = {.buf = rbuf, .counts = rcounts, .displs = rdispls,
                              .count = rcount, .dt = rdt, .dts = rdts};
    struct fm_a2a_side snd = {.buf = sbuf, .counts = scounts, .displs = sdispls,
                              .count = scount, .dt = sdt, .dts = sdts};
    void *pair = NULL; /* a schedule's exchange, tried first at each start */
    if (cc->sched && fm_a2a_pair_record(cc, &snd, &rcv, &pair))
        return;
    const int first = cc->sched ? fm_sched_steps(cc) : 0;
    if (sbuf == MPI_IN_PLACE)
        fm_a2a_inplace(cc, &rcv);
    else
        fm_a2a_windows(cc, &snd, &rcv);
    if (pair)
        fm_coll_sel_iexchange_alt_end(cc, pair, first);
}

int fm_coll_alltoall(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                     MPI_Count rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    const struct fm_a2a_side snd = {.buf = sbuf, .count = scount, .dt = sdt};
    const struct fm_a2a_side rcv = {.buf = rbuf, .count = rcount, .dt = rdt};
    int rc;
    if (__builtin_expect(fm_oversubscribed, 0) &&
        fm_coll_sel_alltoall_flat(sbuf, scount, sdt, rbuf, rcount, rdt, comm, &rc))
        return rc;
    if (fm_a2a_pair(comm, &snd, &rcv, &rc))
        return rc;
    fm_coll_call cc = FM_COLL_CALL(comm, FM_TAG_ALLTOALL);
    fm_cc_alltoallw(&cc, sbuf, FM_IARR_NONE, FM_IARR_NONE, scount, sdt, NULL, rbuf, FM_IARR_NONE,
                    FM_IARR_NONE, rcount, rdt, NULL);
    return cc.rc;
}

int fm_coll_alltoallv(const void *sbuf, fm_iarr scounts, fm_iarr sdispls, MPI_Datatype sdt,
                      void *rbuf, fm_iarr rcounts, fm_iarr rdispls, MPI_Datatype rdt,
                      MPI_Comm comm)
{
    const struct fm_a2a_side snd = {.buf = sbuf, .counts = scounts, .displs = sdispls, .dt = sdt};
    const struct fm_a2a_side rcv = {.buf = rbuf, .counts = rcounts, .displs = rdispls, .dt = rdt};
    int rc;
    if (fm_a2a_pair(comm, &snd, &rcv, &rc))
        return rc;
    fm_coll_call cc = FM_COLL_CALL(comm, FM_TAG_ALLTOALLV);
    fm_cc_alltoallw(&cc, sbuf, scounts, sdispls, 0, sdt, NULL, rbuf, rcounts, rdispls, 0, rdt,
                    NULL);
    return cc.rc;
}

int fm_coll_alltoallw(const void *sbuf, fm_iarr scounts, fm_iarr sdispls,
                      const MPI_Datatype sdts[], void *rbuf, fm_iarr rcounts, fm_iarr rdispls,
                      const MPI_Datatype rdts[], MPI_Comm comm)
{
    const struct fm_a2a_side snd = {.buf = sbuf, .counts = scounts, .displs = sdispls, .dts = sdts};
    const struct fm_a2a_side rcv = {.buf = rbuf, .counts = rcounts, .displs = rdispls, .dts = rdts};
    int rc;
    if (fm_a2a_pair(comm, &snd, &rcv, &rc))
        return rc;
    fm_coll_call cc = FM_COLL_CALL(comm, FM_TAG_ALLTOALLW);
    fm_cc_alltoallw(&cc, sbuf, scounts, sdispls, 0, NULL, sdts, rbuf, rcounts, rdispls, 0, NULL,
                    rdts);
    return cc.rc;
}
