/* reduce.c — reduce by binomial tree.
 *
 * fm_op_apply computes inout = in op inout, so whenever order matters the
 * operand holding lower-ranked data is passed as `in`. */
#include <stdlib.h>

#include "coll/coll.h"
#include "coll/coll_call.h"
#include "coll/coll_util.h"
#include "coll/op.h"
#include "core/comm.h"
#include "pt2pt/pt2pt.h"
#include "util/status.h"

/* Two scratch buffers of (count, dt), allocated on first use. */
struct fm_scratch {
    void *buf[2], *raw[2];
};

static void *fm_scratch_get(fm_coll_call *cc, struct fm_scratch *s, int i, MPI_Count count,
                            MPI_Datatype dt)
{
    if (!s->buf[i])
        s->buf[i] = fm_cc_tmp(cc, count, dt, &s->raw[i]);
    return s->buf[i];
}

static void fm_scratch_free(fm_coll_call *cc, struct fm_scratch *s)
{
    fm_cc_tmp_done(cc, s->raw[0]);
    fm_cc_tmp_done(cc, s->raw[1]);
}

/* Binomial reduction towards `root`.  Rank vr (relative to root) receives,
 * in rounds mask = 1, 2, 4, ..., from vr + mask (whose subtree covers the
 * ranks just above its own range) while that bit of vr is clear, then
 * sends its partial result to vr - mask.  With `ordered` the tree must be
 * rooted at 0 so relative ranks are real ranks and ranges stay ordered.
 * `res` is where the root wants the result (may equal `mine`).  After an
 * error the messages still flow (coll_call.h); the arithmetic stops. */
static void fm_reduce_tree(fm_coll_call *cc, const void *mine, void *res, MPI_Count count,
                           MPI_Datatype dt, MPI_Op op, int root, int ordered)
{
    const int size = cc->comm->size, rank = cc->comm->rank;
    const int vr = (rank - root + size) % size;
    struct fm_scratch s = {0};
    const void *cur = mine; /* this rank's partial result so far */
    void *acc = NULL, *tmp = NULL;
    int started = 0;

    for (int mask = 1; mask < size; mask <<= 1) {
        if (vr & mask) {
            fm_cc_send(cc, cur, count, dt, (rank - mask + size) % size);
            break;
        }
        if (vr + mask >= size)
            continue;
        if (!started) {
            started = 1;
            /* The root accumulates straight into its result buffer. */
            acc = vr == 0 && res ? res : fm_scratch_get(cc, &s, 0, count, dt);
            tmp = fm_scratch_get(cc, &s, 1, count, dt);
            if (!acc || !tmp)
                fm_cc_fail(cc, FM_ERR_NOMEM);
            else if (acc != mine)
                fm_cc_copy(cc, mine, count, dt, acc, count, dt);
        }
        fm_cc_recv(cc, tmp, count, dt, (rank + mask) % size);
        if (ordered) { /* acc holds lower ranks than tmp */
            fm_cc_op(cc, op, acc, tmp, count, dt);
            void *t = acc;
            acc = tmp;
            tmp = t;
        } else {
            fm_cc_op(cc, op, tmp, acc, count, dt);
        }
        cur = acc;
    }
    if (vr == 0 && res && cur != res)
        fm_cc_copy(cc, cur, count, dt, res, count, dt);
    fm_scratch_free(cc, &s);
}

void fm_cc_reduce(fm_coll_call *cc, const void *sbuf, void *rbuf, MPI_Count count,
                  MPI_Datatype dt, MPI_Op op, int root)
{
    if (fm_comm_is_inter(cc->comm)) {
        fm_cc_inter_reduce(cc, sbuf, rbuf, count, dt, op, root);
        return;
    }
    const int rank = cc->comm->rank;
    if (count == 0 || dt->size == 0)
        return;
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (cc->comm->size == 1) {
        if (mine != rbuf)
            fm_cc_copy(cc, mine, count, dt, rbuf, count, dt);
        return;
    }
    if (op->commute) {
        fm_reduce_tree(cc, mine, rank == root ? rbuf : NULL, count, dt, op, root, 0);
        return;
    }

    /* Non-commutative: reduce in rank order at 0, then hand over to root. */
    void *res = NULL, *raw = NULL;
    if (rank == 0)
        res = root == 0 ? rbuf : fm_cc_tmp(cc, count, dt, &raw);
    if (rank == 0 && !res)
        fm_cc_fail(cc, FM_ERR_NOMEM);
    fm_reduce_tree(cc, mine, res, count, dt, op, 0, 1);
    if (root != 0) {
        if (rank == 0)
            fm_cc_send(cc, res, count, dt, root);
        else if (rank == root)
            fm_cc_recv(cc, rbuf, count, dt, 0);
    }
    fm_cc_tmp_done(cc, raw);
}

int fm_coll_reduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                   int root, MPI_Comm comm)
{
    fm_coll_call cc = FM_COLL_CALL(comm, FM_TAG_REDUCE);
    fm_cc_reduce(&cc, sbuf, rbuf, count, dt, op, root);
    return cc.rc;
}
