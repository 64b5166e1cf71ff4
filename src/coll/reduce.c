/* reduce.c — reduce by binomial tree.
 *
 * fm_op_apply computes inout = in op inout, so whenever order matters the
 * operand holding lower-ranked data is passed as `in`. */
#include <stdlib.h>

#include "coll/coll.h"
#include "coll/coll_util.h"
#include "coll/op.h"
#include "core/comm.h"
#include "pt2pt/pt2pt.h"
#include "util/status.h"

/* Two scratch buffers of (count, dt), allocated on first use. */
struct fm_scratch {
    void *buf[2], *raw[2];
};

static void *fm_scratch_get(struct fm_scratch *s, int i, MPI_Count count, MPI_Datatype dt)
{
    if (!s->buf[i])
        s->buf[i] = fm_coll_tmp_alloc(count, dt, &s->raw[i]);
    return s->buf[i];
}

static void fm_scratch_free(struct fm_scratch *s)
{
    free(s->raw[0]);
    free(s->raw[1]);
}

/* Binomial reduction towards `root`.  Rank vr (relative to root) receives,
 * in rounds mask = 1, 2, 4, ..., from vr + mask (whose subtree covers the
 * ranks just above its own range) while that bit of vr is clear, then
 * sends its partial result to vr - mask.  With `ordered` the tree must be
 * rooted at 0 so relative ranks are real ranks and ranges stay ordered.
 * `res` is where the root wants the result (may equal `mine`). */
static int fm_reduce_tree(const void *mine, void *res, MPI_Count count, MPI_Datatype dt,
                          MPI_Op op, int root, int ordered, MPI_Comm comm)
{
    const int size = comm->size, rank = comm->rank;
    const int vr = (rank - root + size) % size;
    struct fm_scratch s = {0};
    const void *cur = mine; /* this rank's partial result so far */
    void *acc = NULL, *tmp = NULL;
    int rc = FM_OK;

    for (int mask = 1; mask < size; mask <<= 1) {
        if (vr & mask) {
            rc = fm_coll_send(cur, count, dt, (rank - mask + size) % size, FM_TAG_REDUCE, comm);
            break;
        }
        if (vr + mask >= size)
            continue;
        if (!acc) {
            /* The root accumulates straight into its result buffer. */
            acc = vr == 0 && res ? res : fm_scratch_get(&s, 0, count, dt);
            tmp = fm_scratch_get(&s, 1, count, dt);
            if (!acc || !tmp) {
                rc = FM_ERR_NOMEM;
                break;
            }
            if (acc != mine && (rc = fm_dt_copy(mine, count, dt, acc, count, dt)) != FM_OK)
                break;
        }
        rc = fm_coll_recv(tmp, count, dt, (rank + mask) % size, FM_TAG_REDUCE, comm);
        if (rc != FM_OK)
            break;
        if (ordered) { /* acc holds lower ranks than tmp */
            rc = fm_op_apply(op, acc, tmp, count, dt);
            void *t = acc;
            acc = tmp;
            tmp = t;
        } else {
            rc = fm_op_apply(op, tmp, acc, count, dt);
        }
        if (rc != FM_OK)
            break;
        cur = acc;
    }
    if (rc == FM_OK && vr == 0 && res && cur != res)
        rc = fm_dt_copy(cur, count, dt, res, count, dt);
    fm_scratch_free(&s);
    return rc;
}

int fm_coll_reduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                   int root, MPI_Comm comm)
{
    const int rank = comm->rank;
    if (count == 0 || dt->size == 0)
        return FM_OK;
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (comm->size == 1)
        return mine == rbuf ? FM_OK : fm_dt_copy(mine, count, dt, rbuf, count, dt);
    if (op->commute)
        return fm_reduce_tree(mine, rank == root ? rbuf : NULL, count, dt, op, root, 0, comm);

    /* Non-commutative: reduce in rank order at 0, then hand over to root. */
    void *res = NULL, *raw = NULL;
    int rc = FM_OK;
    if (rank == 0)
        res = root == 0 ? rbuf : fm_coll_tmp_alloc(count, dt, &raw);
    if (rank == 0 && !res)
        rc = FM_ERR_NOMEM;
    if (rc == FM_OK)
        rc = fm_reduce_tree(mine, res, count, dt, op, 0, 1, comm);
    if (rc == FM_OK && root != 0) {
        if (rank == 0)
            rc = fm_coll_send(res, count, dt, root, FM_TAG_REDUCE, comm);
        else if (rank == root)
            rc = fm_coll_recv(rbuf, count, dt, 0, FM_TAG_REDUCE, comm);
    }
    free(raw);
    return rc;
}
