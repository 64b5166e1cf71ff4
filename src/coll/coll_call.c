/* coll_call.c — collective messages that keep flowing after an error
 * (coll_call.h says why and how). */
#include "coll/coll_call.h"

#include <stdlib.h>

#include "coll/coll_util.h"
#include "coll/op.h"
#include "coll/sched.h"
#include "dtype/dtype.h"
#include "util/status.h"

/* Zero bytes move in a marker; the layer below still gets a real address. */
static char marker;

void fm_cc_isend(fm_coll_call *cc, fm_cc_batch *b, const void *buf, MPI_Count count,
                 MPI_Datatype dt, int dest)
{
    if (cc->sched) {
        fm_sched_add_send(cc, buf, count, dt, dest);
        return;
    }
    if (cc->rc != FM_OK) {
        buf = &marker;
        count = 0;
        dt = MPI_BYTE;
    } else if (fm_coll_send_now(buf, count, dt, dest, cc->tag, cc->comm) == FM_OK) {
        return; /* gone at once: nothing to wait for */
    }
    struct fm_request *r;
    int rc = fm_isend(buf, count, dt, dest, cc->tag, cc->comm, 1, FM_SEND_STD, &r);
    if (rc != FM_OK) {
        fm_cc_fail(cc, rc);
        return;
    }
    b->reqs[b->n] = r;
    b->want[b->n++] = -1;
}

void fm_cc_irecv(fm_coll_call *cc, fm_cc_batch *b, void *buf, MPI_Count count, MPI_Datatype dt,
                 int src)
{
    if (cc->sched) {
        fm_sched_add_recv(cc, buf, count, dt, src);
        return;
    }
    long long want = (long long)count * (long long)dt->size, got;
    if (!buf) { /* no memory for it: consume the message into nothing */
        buf = &marker;
        count = 0;
        dt = MPI_BYTE;
    }
    int rc = fm_coll_recv_now(buf, count, dt, src, cc->tag, cc->comm, &got);
    if (rc != FM_ERR_AGAIN) { /* it was here: checked as fm_cc_waitall checks */
        fm_cc_fail(cc, rc == FM_OK && got < want ? FM_ERR_COLL_PEER : rc);
        return;
    }
    struct fm_request *r;
    rc = fm_irecv(buf, count, dt, src, cc->tag, cc->comm, 1, &r);
    if (rc != FM_OK) {
        fm_cc_fail(cc, rc);
        return;
    }
    b->reqs[b->n] = r;
    b->want[b->n++] = want;
}

void fm_cc_waitall(fm_coll_call *cc, fm_cc_batch *b)
{
    if (cc->sched) {
        fm_sched_add_wait(cc);
        b->n = 0;
        return;
    }
    for (int i = 0; i < b->n; i++) {
        MPI_Status st;
        int rc = fm_wait(b->reqs[i], &st);
        if (rc == FM_OK && b->want[i] >= 0 && st.fm_count < b->want[i])
            rc = FM_ERR_COLL_PEER;
        fm_cc_fail(cc, rc);
    }
    b->n = 0;
}

void fm_cc_send(fm_coll_call *cc, const void *buf, MPI_Count count, MPI_Datatype dt, int dest)
{
    struct fm_request *r[1];
    long long w[1];
    fm_cc_batch b = {.reqs = r, .want = w};
    fm_cc_isend(cc, &b, buf, count, dt, dest);
    fm_cc_waitall(cc, &b);
}

void fm_cc_recv(fm_coll_call *cc, void *buf, MPI_Count count, MPI_Datatype dt, int src)
{
    struct fm_request *r[1];
    long long w[1];
    fm_cc_batch b = {.reqs = r, .want = w};
    fm_cc_irecv(cc, &b, buf, count, dt, src);
    fm_cc_waitall(cc, &b);
}

void fm_cc_sendrecv(fm_coll_call *cc, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                    int dest, void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int src)
{
    struct fm_request *r[2];
    long long w[2];
    fm_cc_batch b = {.reqs = r, .want = w};
    fm_cc_irecv(cc, &b, rbuf, rcount, rdt, src);
    fm_cc_isend(cc, &b, sbuf, scount, sdt, dest);
    fm_cc_waitall(cc, &b);
}

void fm_cc_copy(fm_coll_call *cc, const void *src, MPI_Count scount, MPI_Datatype sdt, void *dst,
                MPI_Count rcount, MPI_Datatype rdt)
{
    if (cc->sched)
        fm_sched_add_copy(cc, src, scount, sdt, dst, rcount, rdt);
    else if (cc->rc == FM_OK)
        fm_cc_fail(cc, fm_dt_copy(src, scount, sdt, dst, rcount, rdt));
}

void fm_cc_op(fm_coll_call *cc, MPI_Op op, const void *in, void *inout, MPI_Count count,
              MPI_Datatype dt)
{
    if (cc->sched)
        fm_sched_add_reduce(cc, op, in, inout, count, dt);
    else if (cc->rc == FM_OK)
        fm_cc_fail(cc, fm_op_apply(op, in, inout, count, dt));
}

void *fm_cc_tmp(fm_coll_call *cc, MPI_Count count, MPI_Datatype dt, void **raw)
{
    *raw = NULL;
    void *p = fm_coll_tmp_alloc(count, dt, raw);
    if (p && cc->sched)
        fm_sched_keep(cc, *raw);
    return p;
}

void fm_cc_tmp_done(fm_coll_call *cc, void *raw)
{
    if (!cc->sched)
        fm_coll_tmp_free(raw);
}
