/* wait.c — blocking waits on requests and the blocking helpers the
 * collectives use. */
#include "core/progress.h"
#include "core/task.h"
#include "pt2pt/pt2pt.h"
#include "util/status.h"

int fm_wait(struct fm_request *r, MPI_Status *status)
{
    fm_request_block(r);
    int err = r->status.MPI_ERROR;
    if (status)
        *status = r->status;
    fm_req_free(r);
    return err == MPI_SUCCESS ? FM_OK : err == MPI_ERR_TRUNCATE ? FM_ERR_TRUNCATE : FM_ERR_OTHER;
}

int fm_waitall(int n, struct fm_request **reqs)
{
    int rc = FM_OK;
    for (int i = 0; i < n; i++) {
        if (!reqs[i])
            continue;
        int e = fm_wait(reqs[i], NULL);
        reqs[i] = NULL;
        if (e != FM_OK && rc == FM_OK)
            rc = e;
    }
    return rc;
}

int fm_coll_send(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    struct fm_request *r;
    int rc = fm_isend(buf, count, dt, dest, tag, comm, 1, FM_SEND_STD, &r);
    if (rc != FM_OK)
        return rc;
    return fm_wait(r, NULL);
}

int fm_coll_recv(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag, MPI_Comm comm)
{
    struct fm_request *r;
    int rc = fm_irecv(buf, count, dt, src, tag, comm, 1, &r);
    if (rc != FM_OK)
        return rc;
    return fm_wait(r, NULL);
}

int fm_coll_sendrecv(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, int dest,
                     void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int src, int tag,
                     MPI_Comm comm)
{
    struct fm_request *rq[2];
    int rc = fm_irecv(rbuf, rcount, rdt, src, tag, comm, 1, &rq[0]);
    if (rc != FM_OK)
        return rc;
    rc = fm_isend(sbuf, scount, sdt, dest, tag, comm, 1, FM_SEND_STD, &rq[1]);
    if (rc != FM_OK) {
        fm_wait(rq[0], NULL);
        return rc;
    }
    return fm_waitall(2, rq);
}
