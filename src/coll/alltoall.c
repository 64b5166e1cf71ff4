/* alltoall.c — alltoall and alltoallv.
 *
 * Out of place: windows of FM_A2A_WINDOW peers, each window posting all
 * its receives and sends at once (rank+i gets our block, rank-i sends us
 * theirs), so the network stays busy without thousands of outstanding
 * requests.  MPI_IN_PLACE: pairwise exchange, where in step i rank r pairs
 * with (i - r) mod p — a symmetric pairing, so each block can be saved to
 * scratch and swapped with one sendrecv. */
#include <stdlib.h>

#include "coll/coll.h"
#include "coll/coll_call.h"
#include "coll/coll_util.h"
#include "core/comm.h"
#include "pt2pt/pt2pt.h"
#include "util/status.h"

#define FM_A2A_WINDOW 32

/* Either side of an exchange: block i is (buf + displ(i) * extent, count(i), dt). */
struct fm_a2a_side {
    const void *buf;
    const int *counts, *displs; /* NULL: fixed `count`, displacement i * count */
    MPI_Count count;
    MPI_Datatype dt;
};

static MPI_Count fm_side_count(const struct fm_a2a_side *s, int i)
{
    return s->counts ? s->counts[i] : s->count;
}

static void *fm_side_addr(const struct fm_a2a_side *s, int i)
{
    MPI_Aint disp = s->counts ? s->displs[i] : (MPI_Aint)i * s->count;
    return fm_coll_at(s->buf, disp, s->dt);
}

/* Every window is posted even after an error (coll_call.h), so no peer is
 * left waiting for its block. */
static int fm_a2a_windows(const struct fm_a2a_side *snd, const struct fm_a2a_side *rcv, int tag,
                          MPI_Comm comm)
{
    const int size = comm->size, rank = comm->rank;
    fm_coll_call cc = FM_COLL_CALL(comm, tag);
    struct fm_request *reqs[2 * FM_A2A_WINDOW];
    long long want[2 * FM_A2A_WINDOW];
    fm_cc_batch b = {.reqs = reqs, .want = want};
    fm_cc_fail(&cc, fm_dt_copy(fm_side_addr(snd, rank), fm_side_count(snd, rank), snd->dt,
                               fm_side_addr(rcv, rank), fm_side_count(rcv, rank), rcv->dt));
    for (int base = 1; base < size; base += FM_A2A_WINDOW) {
        for (int i = base; i < size && i < base + FM_A2A_WINDOW; i++) {
            int src = (rank - i + size) % size, dst = (rank + i) % size;
            if (fm_side_count(rcv, src) * rcv->dt->size > 0)
                fm_cc_irecv(&cc, &b, fm_side_addr(rcv, src), fm_side_count(rcv, src), rcv->dt,
                            src);
            if (fm_side_count(snd, dst) * snd->dt->size > 0)
                fm_cc_isend(&cc, &b, fm_side_addr(snd, dst), fm_side_count(snd, dst), snd->dt,
                            dst);
        }
        fm_cc_waitall(&cc, &b);
    }
    return cc.rc;
}

static int fm_a2a_inplace(const struct fm_a2a_side *rcv, int tag, MPI_Comm comm)
{
    const int size = comm->size, rank = comm->rank;
    fm_coll_call cc = FM_COLL_CALL(comm, tag);
    MPI_Count maxcount = 0;
    for (int i = 0; i < size; i++)
        if (fm_side_count(rcv, i) > maxcount)
            maxcount = fm_side_count(rcv, i);
    void *raw = NULL, *tmp = fm_coll_tmp_alloc(maxcount, rcv->dt, &raw);
    if (!tmp)
        fm_cc_fail(&cc, FM_ERR_NOMEM); /* the exchanges still run, as markers */
    for (int i = 0; i < size; i++) {
        int peer = (i - rank + size) % size;
        MPI_Count n = fm_side_count(rcv, peer);
        if (peer == rank || n * rcv->dt->size == 0)
            continue;
        void *blk = fm_side_addr(rcv, peer);
        if (cc.rc == FM_OK)
            fm_cc_fail(&cc, fm_dt_copy(blk, n, rcv->dt, tmp, n, rcv->dt));
        fm_cc_sendrecv(&cc, tmp, n, rcv->dt, peer, blk, n, rcv->dt, peer);
    }
    free(raw);
    return cc.rc;
}

int fm_coll_alltoall(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                     MPI_Count rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    struct fm_a2a_side rcv = {.buf = rbuf, .count = rcount, .dt = rdt};
    if (sbuf == MPI_IN_PLACE)
        return fm_a2a_inplace(&rcv, FM_TAG_ALLTOALL, comm);
    struct fm_a2a_side snd = {.buf = sbuf, .count = scount, .dt = sdt};
    return fm_a2a_windows(&snd, &rcv, FM_TAG_ALLTOALL, comm);
}

int fm_coll_alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                      MPI_Datatype sdt, void *rbuf, const int rcounts[], const int rdispls[],
                      MPI_Datatype rdt, MPI_Comm comm)
{
    struct fm_a2a_side rcv = {.buf = rbuf, .counts = rcounts, .displs = rdispls, .dt = rdt};
    if (sbuf == MPI_IN_PLACE)
        return fm_a2a_inplace(&rcv, FM_TAG_ALLTOALLV, comm);
    struct fm_a2a_side snd = {.buf = sbuf, .counts = scounts, .displs = sdispls, .dt = sdt};
    return fm_a2a_windows(&snd, &rcv, FM_TAG_ALLTOALLV, comm);
}
