/* barrier_bcast.c — barrier (dissemination) and broadcast (binomial tree). */
#include "coll/coll.h"
#include "coll/coll_util.h"
#include "core/comm.h"
#include "pt2pt/pt2pt.h"
#include "util/status.h"

/* Dissemination: in round k every rank signals rank+2^k and waits for
 * rank-2^k, so after ceil(log2 p) rounds each rank has heard, directly or
 * transitively, from every other.  Works for any p, no extra round for
 * non-powers of two. */
int fm_coll_barrier(MPI_Comm comm)
{
    const int size = comm->size, rank = comm->rank;
    char token; /* zero bytes move, but give the layer below a real address */
    for (int k = 1; k < size; k <<= 1) {
        int to = (rank + k) % size, from = (rank - k + size) % size;
        int rc = fm_coll_sendrecv(&token, 0, MPI_BYTE, to, &token, 0, MPI_BYTE, from,
                                  FM_TAG_BARRIER, comm);
        if (rc != FM_OK)
            return rc;
    }
    return FM_OK;
}

/* Binomial tree on ranks relative to root: a rank receives once from the
 * rank that differs in its lowest set bit, then forwards to the ranks below
 * that bit, all sends in flight together. */
int fm_coll_bcast(void *buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    const int size = comm->size, rank = comm->rank;
    if (size == 1 || count == 0 || dt->size == 0)
        return FM_OK;
    const int vr = (rank - root + size) % size;
    int mask = 1, rc = FM_OK;
    while (mask < size) {
        if (vr & mask) {
            rc = fm_coll_recv(buf, count, dt, (rank - mask + size) % size, FM_TAG_BCAST, comm);
            if (rc != FM_OK)
                return rc;
            break;
        }
        mask <<= 1;
    }
    struct fm_request *reqs[32]; /* one child per bit of an int rank */
    int n = 0;
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vr + mask >= size)
            continue;
        rc = fm_isend(buf, count, dt, (rank + mask) % size, FM_TAG_BCAST, comm, 1, FM_SEND_STD,
                      &reqs[n]);
        if (rc != FM_OK)
            break;
        n++;
    }
    int wrc = n ? fm_waitall(n, reqs) : FM_OK;
    return rc != FM_OK ? rc : wrc;
}
