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

static int fm_a2a_windows(const struct fm_a2a_side *snd, const struct fm_a2a_side *rcv, int tag,
                          MPI_Comm comm)
{
    const int size = comm->size, rank = comm->rank;
    struct fm_request *reqs[2 * FM_A2A_WINDOW];
    int rc = fm_dt_copy(fm_side_addr(snd, rank), fm_side_count(snd, rank), snd->dt,
                        fm_side_addr(rcv, rank), fm_side_count(rcv, rank), rcv->dt);
    for (int base = 1; base < size && rc == FM_OK; base += FM_A2A_WINDOW) {
        int n = 0;
        for (int i = base; i < size && i < base + FM_A2A_WINDOW && rc == FM_OK; i++) {
            int src = (rank - i + size) % size, dst = (rank + i) % size;
            if (fm_side_count(rcv, src) * rcv->dt->size > 0) {
                rc = fm_irecv(fm_side_addr(rcv, src), fm_side_count(rcv, src), rcv->dt, src, tag,
                              comm, 1, &reqs[n]);
                n += rc == FM_OK;
            }
            if (rc == FM_OK && fm_side_count(snd, dst) * snd->dt->size > 0) {
                rc = fm_isend(fm_side_addr(snd, dst), fm_side_count(snd, dst), snd->dt, dst, tag,
                              comm, 1, FM_SEND_STD, &reqs[n]);
                n += rc == FM_OK;
            }
        }
        int wrc = n ? fm_waitall(n, reqs) : FM_OK;
        if (rc == FM_OK)
            rc = wrc;
    }
    return rc;
}

static int fm_a2a_inplace(const struct fm_a2a_side *rcv, int tag, MPI_Comm comm)
{
    const int size = comm->size, rank = comm->rank;
    MPI_Count maxcount = 0;
    for (int i = 0; i < size; i++)
        if (fm_side_count(rcv, i) > maxcount)
            maxcount = fm_side_count(rcv, i);
    void *raw, *tmp = fm_coll_tmp_alloc(maxcount, rcv->dt, &raw);
    if (!tmp)
        return FM_ERR_NOMEM;
    int rc = FM_OK;
    for (int i = 0; i < size && rc == FM_OK; i++) {
        int peer = (i - rank + size) % size;
        MPI_Count n = fm_side_count(rcv, peer);
        if (peer == rank || n * rcv->dt->size == 0)
            continue;
        void *blk = fm_side_addr(rcv, peer);
        rc = fm_dt_copy(blk, n, rcv->dt, tmp, n, rcv->dt);
        if (rc == FM_OK)
            rc = fm_coll_sendrecv(tmp, n, rcv->dt, peer, blk, n, rcv->dt, peer, tag, comm);
    }
    free(raw);
    return rc;
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
