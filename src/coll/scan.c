/* scan.c — inclusive and exclusive prefix reductions by recursive doubling.
 *
 * After the round with bit `mask`, `partial` holds the reduction over the
 * aligned block of 2*mask ranks containing this rank, and the result holds
 * the reduction from that block's start up to this rank (inclusive for
 * scan, exclusive for exscan).  A partner below contributes its block
 * first; one above contributes after ours — which keeps the order the
 * standard asks of non-commutative ops.  ceil(log2 p) rounds. */
#include <stdlib.h>

#include "coll/coll.h"
#include "coll/coll_call.h"
#include "coll/coll_util.h"
#include "coll/op.h"
#include "core/comm.h"
#include "pt2pt/pt2pt.h"
#include "util/status.h"

void fm_cc_scan(fm_coll_call *cc, const void *sbuf, void *rbuf, MPI_Count count,
                MPI_Datatype dt, MPI_Op op, int exclusive)
{
    const int size = cc->comm->size, rank = cc->comm->rank;
    if (count == 0 || dt->size == 0)
        return;
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (!exclusive && mine != rbuf)
        fm_cc_copy(cc, mine, count, dt, rbuf, count, dt);
    if (size == 1)
        return;

    void *raw1, *raw2;
    void *partial = fm_cc_tmp(cc, count, dt, &raw1);
    void *tmp = fm_cc_tmp(cc, count, dt, &raw2);
    if (!partial || !tmp)
        fm_cc_fail(cc, FM_ERR_NOMEM); /* the exchanges still run, into nothing */
    else
        fm_cc_copy(cc, mine, count, dt, partial, count, dt);
    int have_result = !exclusive; /* exscan: rbuf holds nothing until a lower partner */
    /* Every exchange runs even after an error (coll_call.h); the arithmetic stops. */
    for (int mask = 1; mask < size; mask <<= 1) {
        int partner = rank ^ mask;
        if (partner >= size)
            continue;
        fm_cc_sendrecv(cc, partial, count, dt, partner, tmp, count, dt, partner);
        if (partner < rank) {
            if (have_result)
                fm_cc_op(cc, op, tmp, rbuf, count, dt);
            else
                fm_cc_copy(cc, tmp, count, dt, rbuf, count, dt);
            have_result = 1;
            fm_cc_op(cc, op, tmp, partial, count, dt);
        } else if (op->commute) {
            fm_cc_op(cc, op, tmp, partial, count, dt);
        } else { /* partial = partial op tmp, computed into tmp */
            fm_cc_op(cc, op, partial, tmp, count, dt);
            void *t = partial;
            partial = tmp;
            tmp = t;
        }
    }
    fm_cc_tmp_done(cc, raw1);
    fm_cc_tmp_done(cc, raw2);
}

static int fm_prefix(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                     int exclusive, int tag, MPI_Comm comm)
{
    fm_coll_call cc = FM_COLL_CALL(comm, tag);
    fm_cc_scan(&cc, sbuf, rbuf, count, dt, op, exclusive);
    return cc.rc;
}

int fm_coll_scan(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                 MPI_Comm comm)
{
    return fm_prefix(sbuf, rbuf, count, dt, op, 0, FM_TAG_SCAN, comm);
}

int fm_coll_exscan(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                   MPI_Comm comm)
{
    return fm_prefix(sbuf, rbuf, count, dt, op, 1, FM_TAG_EXSCAN, comm);
}
