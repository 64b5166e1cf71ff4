/* allreduce.c — allreduce by recursive doubling, or for large vectors and
 * commutative ops by reduce-scatter (recursive halving) + allgather
 * (recursive doubling), which moves about 2n bytes per rank instead of
 * n log p.
 *
 * Both run over the largest power of two pof2 <= p.  The first 2*rem ranks
 * (rem = p - pof2) pair up first: each even one hands its data to the odd
 * one above it, sits out, and gets the result at the end.  The survivors'
 * new ranks keep the real ranks' order, so "partner below me" means
 * "partner's data comes first" — which is what lets recursive doubling
 * serve non-commutative ops too (fm_op_apply computes inout = in op inout;
 * lower-ranked data goes in `in`). */
#include <stdlib.h>

#include "coll/coll.h"
#include "coll/coll_call.h"
#include "coll/coll_util.h"
#include "coll/op.h"
#include "core/comm.h"
#include "pt2pt/pt2pt.h"
#include "util/status.h"
#include "util/pvar.h"

/* Vectors at least this large (bytes) use reduce-scatter + allgather. */
#define FM_ALLREDUCE_LARGE (64 * 1024)

static int fm_real_rank(int newrank, int rem)
{
    return newrank < rem ? newrank * 2 + 1 : newrank + rem;
}

/* Each step runs even after an error (coll_call.h): the exchanges keep
 * every partner moving, and a member in error skips the arithmetic. */
static void fm_allreduce_doubling(fm_coll_call *cc, void *rbuf, void *tmp, MPI_Count count,
                                  MPI_Datatype dt, MPI_Op op, int newrank, int pof2, int rem)
{
    const int rank = cc->comm->rank;
    void *acc = rbuf;
    for (int mask = 1; mask < pof2; mask <<= 1) {
        int partner = fm_real_rank(newrank ^ mask, rem);
        fm_cc_sendrecv(cc, acc, count, dt, partner, tmp, count, dt, partner);
        if (partner < rank || op->commute) {
            fm_cc_op(cc, op, tmp, acc, count, dt);
        } else { /* acc op tmp, computed into tmp */
            fm_cc_op(cc, op, acc, tmp, count, dt);
            void *t = acc;
            acc = tmp;
            tmp = t;
        }
    }
    if (acc != rbuf)
        fm_cc_copy(cc, acc, count, dt, rbuf, count, dt);
}

/* Piece i of the vector (i in 0..pof2) starts at element fm_piece(i). */
static MPI_Count fm_piece(MPI_Count count, int pof2, int i)
{
    MPI_Count q = count / pof2, r = count % pof2;
    return i * q + (i < r ? i : r);
}

/* Commutative ops only.  Halving: each round a rank keeps half its window
 * of pieces (upper half when its bit for that round is set), sends the
 * other half to the partner and reduces the partner's copy of the kept
 * half into it; at the end it owns piece newrank, fully reduced.
 * Doubling then exchanges owned windows until everyone has everything. */
static void fm_allreduce_halving(fm_coll_call *cc, const void *src, void *rbuf, void *tmp,
                                 MPI_Count count, MPI_Datatype dt, MPI_Op op, int newrank, int pof2,
                                 int rem)
{
    int lo = 0, hi = pof2;
    for (int mask = pof2 / 2; mask > 0; mask /= 2) {
        int partner = fm_real_rank(newrank ^ mask, rem), mid = lo + (hi - lo) / 2;
        int keep_lo = newrank & mask ? mid : lo, keep_hi = newrank & mask ? hi : mid;
        int send_lo = newrank & mask ? lo : mid, send_hi = newrank & mask ? mid : hi;
        MPI_Count k0 = fm_piece(count, pof2, keep_lo), k1 = fm_piece(count, pof2, keep_hi);
        MPI_Count s0 = fm_piece(count, pof2, send_lo), s1 = fm_piece(count, pof2, send_hi);
        if (src) {
            /* First round with our vector still in the send buffer: send
             * from it, take the partner's half straight into rbuf and
             * reduce ours into that (a commutative op: order is free). */
            fm_cc_sendrecv(cc, fm_coll_at(src, s0, dt), s1 - s0, dt, partner, fm_coll_at(rbuf, k0, dt),
                           k1 - k0, dt, partner);
            fm_cc_op(cc, op, fm_coll_at(src, k0, dt), fm_coll_at(rbuf, k0, dt), k1 - k0, dt);
            src = NULL;
            lo = keep_lo;
            hi = keep_hi;
            continue;
        }
        fm_cc_sendrecv(cc, fm_coll_at(rbuf, s0, dt), s1 - s0, dt, partner,
                       tmp ? fm_coll_at(tmp, k0, dt) : NULL, k1 - k0, dt, partner);
        fm_cc_op(cc, op, fm_coll_at(tmp, k0, dt), fm_coll_at(rbuf, k0, dt), k1 - k0, dt);
        lo = keep_lo;
        hi = keep_hi;
    }
    for (int mask = 1; mask < pof2; mask *= 2) {
        int partner = fm_real_rank(newrank ^ mask, rem);
        int mine = newrank & ~(mask - 1), theirs = (newrank ^ mask) & ~(mask - 1);
        MPI_Count m0 = fm_piece(count, pof2, mine), m1 = fm_piece(count, pof2, mine + mask);
        MPI_Count t0 = fm_piece(count, pof2, theirs), t1 = fm_piece(count, pof2, theirs + mask);
        fm_cc_sendrecv(cc, fm_coll_at(rbuf, m0, dt), m1 - m0, dt, partner,
                       fm_coll_at(rbuf, t0, dt), t1 - t0, dt, partner);
    }
}

void fm_cc_allreduce(fm_coll_call *cc, const void *sbuf, void *rbuf, MPI_Count count,
                     MPI_Datatype dt, MPI_Op op)
{
    if (fm_comm_is_inter(cc->comm)) {
        fm_cc_inter_allreduce(cc, sbuf, rbuf, count, dt, op);
        return;
    }
    const int size = cc->comm->size, rank = cc->comm->rank;
    if (count == 0 || dt->size == 0)
        return;

    int pof2 = 1;
    while (pof2 * 2 <= size)
        pof2 *= 2;
    const int rem = size - pof2;
    int newrank = rank >= 2 * rem ? rank - rem : rank % 2 ? rank / 2 : -1;
    const int halving = size > 1 && op->commute && count >= pof2 && count * dt->size >= FM_ALLREDUCE_LARGE;
    /* A rank that starts halving with its vector in sbuf reads it from
     * there (fm_allreduce_halving) rather than copying it into rbuf first:
     * the copy was a third of the bytes a 2-rank 1 MiB allreduce moved. */
    const void *src = halving && newrank >= 0 && rank >= 2 * rem && sbuf != MPI_IN_PLACE ? sbuf : NULL;
    if (sbuf != MPI_IN_PLACE && !src)
        fm_cc_copy(cc, sbuf, count, dt, rbuf, count, dt);
    if (size == 1)
        return;
    void *raw, *tmp = fm_cc_tmp(cc, count, dt, &raw);
    if (!tmp)
        fm_cc_fail(cc, FM_ERR_NOMEM); /* and take the peers' messages into nothing */

    if (rank < 2 * rem) {
        if (newrank < 0) {
            fm_cc_send(cc, rbuf, count, dt, rank + 1);
        } else {
            fm_cc_recv(cc, tmp, count, dt, rank - 1);
            fm_cc_op(cc, op, tmp, rbuf, count, dt);
        }
    }
    if (newrank >= 0) {
        if (halving) {
            FM_PV_INC(coll_allreduce_halving);
            fm_allreduce_halving(cc, src, rbuf, tmp, count, dt, op, newrank, pof2, rem);
        } else {
            FM_PV_INC(coll_allreduce_doubling);
            fm_allreduce_doubling(cc, rbuf, tmp, count, dt, op, newrank, pof2, rem);
        }
    }
    if (rank < 2 * rem) {
        if (newrank >= 0)
            fm_cc_send(cc, rbuf, count, dt, rank - 1);
        else
            fm_cc_recv(cc, rbuf, count, dt, rank + 1);
    }
    fm_cc_tmp_done(cc, raw);
}

int fm_coll_allreduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                      MPI_Comm comm)
{
    fm_coll_call cc = FM_COLL_CALL(comm, FM_TAG_ALLREDUCE);
    fm_cc_allreduce(&cc, sbuf, rbuf, count, dt, op);
    return cc.rc;
}
