/* barrier_bcast.c — barrier (dissemination) and broadcast (binomial tree). */
#include "coll/coll.h"
#include "coll/coll_call.h"
#include "coll/coll_util.h"
#include "coll/rma/coll_rma.h"
#include "coll/sched.h"
#include "core/comm.h"
#include "pt2pt/pt2pt.h"
#include "util/status.h"

/* Dissemination: in round k every rank signals rank+2^k and waits for
 * rank-2^k, so after ceil(log2 p) rounds each rank has heard, directly or
 * transitively, from every other.  Works for any p, no extra round for
 * non-powers of two. */
void fm_cc_barrier(fm_coll_call *cc)
{
    if (fm_comm_is_inter(cc->comm)) {
        fm_cc_inter_barrier(cc);
        return;
    }
    const int size = cc->comm->size, rank = cc->comm->rank;
    static char token; /* zero bytes move, but give the layer below a real address */
    for (int k = 1; k < size; k <<= 1) {
        int to = (rank + k) % size, from = (rank - k + size) % size;
        fm_cc_sendrecv(cc, &token, 0, MPI_BYTE, to, &token, 0, MPI_BYTE, from);
    }
}

int fm_coll_barrier(MPI_Comm comm)
{
    fm_coll_call cc = FM_COLL_CALL(comm, FM_TAG_BARRIER);
    fm_cc_barrier(&cc);
    return cc.rc;
}

/* Binomial tree on ranks relative to root: a rank receives once from the
 * rank that differs in its lowest set bit, then forwards to the ranks below
 * that bit, all sends in flight together.  A rank whose receive failed
 * (its count is smaller than the root's) still forwards, an error marker
 * (coll_call.h), so the ranks below it return too. */
void fm_cc_bcast(fm_coll_call *cc, void *buf, MPI_Count count, MPI_Datatype dt, int root)
{
    if (fm_comm_is_inter(cc->comm)) {
        fm_cc_inter_bcast(cc, buf, count, dt, root);
        return;
    }
    const int size = cc->comm->size, rank = cc->comm->rank;
    if (size == 1 || count == 0 || dt->size == 0)
        return;
    const int vr = (rank - root + size) % size;
    int mask = 1;
    while (mask < size) {
        if (vr & mask) {
            fm_cc_recv(cc, buf, count, dt, (rank - mask + size) % size);
            break;
        }
        mask <<= 1;
    }
    struct fm_request *reqs[32]; /* one child per bit of an int rank */
    long long want[32];
    fm_cc_batch b = {.reqs = reqs, .want = want};
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < size)
            fm_cc_isend(cc, &b, buf, count, dt, (rank + mask) % size);
    fm_cc_waitall(cc, &b);
}

/* Out of line: the calls that do not offer the exchange build nothing for it. */
static __attribute__((noinline)) void bcast_pair_sched(fm_coll_call *cc, void *buf,
                                                       MPI_Count count, MPI_Datatype dt, int root)
{
    void *pair = NULL;
    const fm_pair_blocks p = fm_coll_bcast_pair_blocks(cc->comm->rank, root, buf, count, dt);
    if (fm_coll_sel_iexchange_pair(cc, FM_PAIR_BCAST, p, &pair))
        return;
    const int first = fm_sched_steps(cc);
    fm_cc_bcast(cc, buf, count, dt, root);
    if (pair)
        fm_coll_sel_iexchange_alt_end(cc, pair, first);
}

void fm_cc_ibcast(fm_coll_call *cc, void *buf, MPI_Count count, MPI_Datatype dt, int root)
{
    if (fm_coll_bcast_pair_may(cc->comm->size, (size_t)count * (size_t)dt->size) &&
        !fm_comm_is_inter(cc->comm))
        bcast_pair_sched(cc, buf, count, dt, root);
    else
        fm_cc_bcast(cc, buf, count, dt, root);
}

int fm_coll_bcast(void *buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    fm_coll_call cc = FM_COLL_CALL(comm, FM_TAG_BCAST);
    fm_cc_bcast(&cc, buf, count, dt, root);
    return cc.rc;
}
