/* coll_call.h — private to src/coll: one two-sided collective call (its
 * communicator, tag and first error) and the message helpers that keep
 * every member moving after an error.
 *
 * A collective that fails on one member must not leave the others waiting
 * for messages that will never come (a truncation in the middle of a tree
 * used to hang every member below it).  So an algorithm runs its whole
 * message pattern even after an error, and these helpers do the rest:
 *   - the first error is kept in cc->rc and is what the call returns;
 *   - once cc->rc is set, a member's sends are error markers — messages of
 *     zero bytes — instead of data it no longer trusts;
 *   - a receive that brings fewer bytes than it posted (a marker, or a peer
 *     whose count is smaller than ours) fails with FM_ERR_COLL_PEER; more
 *     bytes than posted is FM_ERR_TRUNCATE, as for any receive.
 * In a correct program every collective message has exactly the size its
 * receive posted (type signatures match), so neither check can fire there.
 * The error propagates along the pattern's own messages: every member whose
 * result depends on a failed one returns an error too.
 *
 * A receive whose buffer could not be allocated (NULL) still takes its
 * message, into nothing, so the sender is not left waiting either. */
#ifndef FM_COLL_COLL_CALL_H
#define FM_COLL_COLL_CALL_H

#include <mpi.h>
#include <stddef.h>

#include "pt2pt/pt2pt.h"
#include "util/int_array.h"

struct fm_sched;

typedef struct fm_coll_call {
    MPI_Comm comm;
    int tag;
    int rc; /* first error of this call; FM_OK while none */
    /* NULL: act now (a blocking collective).  Otherwise every helper below
     * appends a step to this schedule instead (coll/sched.h). */
    struct fm_sched *sched;
} fm_coll_call;

#define FM_COLL_CALL(c, t) ((fm_coll_call){.comm = (c), .tag = (t), .rc = 0, .sched = NULL})

/* Record an error (the first one wins). */
static inline void fm_cc_fail(fm_coll_call *cc, int rc)
{
    if (rc != 0 && cc->rc == 0)
        cc->rc = rc;
}

/* Requests of one step, posted together and waited for together; `want`
 * is the byte count each receive posted (-1 for a send).  The caller
 * provides arrays large enough for every request it posts. */
typedef struct fm_cc_batch {
    int n;
    struct fm_request **reqs;
    long long *want;
} fm_cc_batch;

void fm_cc_isend(fm_coll_call *cc, fm_cc_batch *b, const void *buf, MPI_Count count,
                 MPI_Datatype dt, int dest);
void fm_cc_irecv(fm_coll_call *cc, fm_cc_batch *b, void *buf, MPI_Count count, MPI_Datatype dt,
                 int src);
/* Wait for every request of the batch and empty it. */
void fm_cc_waitall(fm_coll_call *cc, fm_cc_batch *b);

/* Blocking forms: one message, or one exchange (receive posted first). */
void fm_cc_send(fm_coll_call *cc, const void *buf, MPI_Count count, MPI_Datatype dt, int dest);
void fm_cc_recv(fm_coll_call *cc, void *buf, MPI_Count count, MPI_Datatype dt, int src);
void fm_cc_sendrecv(fm_coll_call *cc, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                    int dest, void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int src);

/* Local steps: a typed copy (fm_dt_copy) and a reduction inout = in op
 * inout (fm_op_apply).  Both are skipped once cc->rc is set. */
void fm_cc_copy(fm_coll_call *cc, const void *src, MPI_Count scount, MPI_Datatype sdt, void *dst,
                MPI_Count rcount, MPI_Datatype rdt);
void fm_cc_op(fm_coll_call *cc, MPI_Op op, const void *in, void *inout, MPI_Count count,
              MPI_Datatype dt);

/* Scratch for (count, dt) that lives as long as the call: a blocking call
 * frees it with fm_cc_tmp_done, a schedule when it is freed.  NULL when
 * out of memory (the caller records FM_ERR_NOMEM and keeps going). */
void *fm_cc_tmp(fm_coll_call *cc, MPI_Count count, MPI_Datatype dt, void **raw);
void fm_cc_tmp_done(fm_coll_call *cc, void *raw);

/* A blocking collective made of steps gives each its own tag; a schedule
 * keeps its one tag (its steps are ordered among themselves anyway). */
static inline void fm_cc_set_tag(fm_coll_call *cc, int tag)
{
    if (!cc->sched)
        cc->tag = tag;
}

/* Whole collectives as steps of a larger call that shares cc (and keeps
 * going after its errors): reduce_scatter is a reduce, then a scatterv.
 * cc->tag must be the step's own tag.  fm_cc_scatterv: scounts absent
 * (FM_IARR_NONE) means scount to every member at displacement i * scount. */
void fm_cc_reduce(fm_coll_call *cc, const void *sbuf, void *rbuf, MPI_Count count,
                  MPI_Datatype dt, MPI_Op op, int root);
void fm_cc_scatterv(fm_coll_call *cc, const void *sbuf, fm_iarr scounts, fm_iarr displs,
                    MPI_Count scount, MPI_Datatype sdt, void *rbuf, MPI_Count rcount,
                    MPI_Datatype rdt, int root);

#endif
