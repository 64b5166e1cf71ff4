/* coll_call.c — collective messages that keep flowing after an error
 * (coll_call.h says why and how). */
#include "coll/coll_call.h"

#include "dtype/dtype.h"
#include "util/status.h"

/* Zero bytes move in a marker; the layer below still gets a real address. */
static char marker;

void fm_cc_isend(fm_coll_call *cc, fm_cc_batch *b, const void *buf, MPI_Count count,
                 MPI_Datatype dt, int dest)
{
    if (cc->rc != FM_OK) {
        buf = &marker;
        count = 0;
        dt = MPI_BYTE;
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
    long long want = (long long)count * (long long)dt->size;
    if (!buf) { /* no memory for it: consume the message into nothing */
        buf = &marker;
        count = 0;
        dt = MPI_BYTE;
    }
    struct fm_request *r;
    int rc = fm_irecv(buf, count, dt, src, cc->tag, cc->comm, 1, &r);
    if (rc != FM_OK) {
        fm_cc_fail(cc, rc);
        return;
    }
    b->reqs[b->n] = r;
    b->want[b->n++] = want;
}

void fm_cc_waitall(fm_coll_call *cc, fm_cc_batch *b)
{
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
