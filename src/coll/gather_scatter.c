/* gather_scatter.c — gather(v) and scatter(v), linear at the root.
 *
 * The root posts every transfer at once and waits for all of them, so
 * peers proceed in parallel and a large block never waits behind a small
 * one.  Transfers of zero bytes are skipped on both sides (the type
 * signatures match, so both sides agree on which ones those are). */
#include <stdlib.h>

#include "coll/coll.h"
#include "coll/coll_util.h"
#include "core/comm.h"
#include "pt2pt/pt2pt.h"
#include "util/status.h"

/* One block per rank at the root: block i is (buf + displ(i) * extent,
 * count(i), dt).  Fixed-size calls pass counts = NULL and use `count` and
 * displacement i * count. */
struct fm_blocks {
    void *buf;
    const int *counts, *displs;
    MPI_Count count;
    MPI_Datatype dt;
};

static MPI_Count fm_blk_count(const struct fm_blocks *b, int i)
{
    return b->counts ? b->counts[i] : b->count;
}

static void *fm_blk_addr(const struct fm_blocks *b, int i)
{
    MPI_Aint disp = b->counts ? b->displs[i] : (MPI_Aint)i * b->count;
    return fm_coll_at(b->buf, disp, b->dt);
}

/* Root side: post a receive (gather) or send (scatter) per peer, copy the
 * root's own block locally unless MPI_IN_PLACE, wait for all. */
static int fm_root_linear(const struct fm_blocks *b, void *own, MPI_Count own_count,
                          MPI_Datatype own_dt, int gather, int tag, MPI_Comm comm)
{
    const int size = comm->size, rank = comm->rank;
    int rc = FM_OK, n = 0;
    struct fm_request **reqs = malloc(sizeof *reqs * (size_t)size);
    if (!reqs)
        return FM_ERR_NOMEM;
    for (int i = 0; i < size && rc == FM_OK; i++) {
        if (i == rank || fm_blk_count(b, i) * b->dt->size == 0)
            continue;
        if (gather)
            rc = fm_irecv(fm_blk_addr(b, i), fm_blk_count(b, i), b->dt, i, tag, comm, 1, &reqs[n]);
        else
            rc = fm_isend(fm_blk_addr(b, i), fm_blk_count(b, i), b->dt, i, tag, comm, 1,
                          FM_SEND_STD, &reqs[n]);
        if (rc == FM_OK)
            n++;
    }
    if (rc == FM_OK && own != MPI_IN_PLACE) {
        if (gather)
            rc = fm_dt_copy(own, own_count, own_dt, fm_blk_addr(b, rank), fm_blk_count(b, rank),
                            b->dt);
        else
            rc = fm_dt_copy(fm_blk_addr(b, rank), fm_blk_count(b, rank), b->dt, own, own_count,
                            own_dt);
    }
    int wrc = n ? fm_waitall(n, reqs) : FM_OK;
    free(reqs);
    return rc != FM_OK ? rc : wrc;
}

int fm_coll_gather(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                   MPI_Count rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    if (comm->rank != root)
        return scount * sdt->size == 0 ? FM_OK
                                       : fm_coll_send(sbuf, scount, sdt, root, FM_TAG_GATHER, comm);
    struct fm_blocks b = {.buf = rbuf, .count = rcount, .dt = rdt};
    return fm_root_linear(&b, (void *)(uintptr_t)sbuf, scount, sdt, 1, FM_TAG_GATHER, comm);
}

int fm_coll_gatherv(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                    const int rcounts[], const int displs[], MPI_Datatype rdt, int root,
                    MPI_Comm comm)
{
    if (comm->rank != root)
        return scount * sdt->size == 0
                   ? FM_OK
                   : fm_coll_send(sbuf, scount, sdt, root, FM_TAG_GATHERV, comm);
    struct fm_blocks b = {.buf = rbuf, .counts = rcounts, .displs = displs, .dt = rdt};
    return fm_root_linear(&b, (void *)(uintptr_t)sbuf, scount, sdt, 1, FM_TAG_GATHERV, comm);
}

int fm_coll_scatter(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                    MPI_Count rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    if (comm->rank != root)
        return rcount * rdt->size == 0
                   ? FM_OK
                   : fm_coll_recv(rbuf, rcount, rdt, root, FM_TAG_SCATTER, comm);
    struct fm_blocks b = {.buf = (void *)(uintptr_t)sbuf, .count = scount, .dt = sdt};
    return fm_root_linear(&b, rbuf, rcount, rdt, 0, FM_TAG_SCATTER, comm);
}

int fm_coll_scatterv(const void *sbuf, const int scounts[], const int displs[],
                     MPI_Datatype sdt, void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int root,
                     MPI_Comm comm)
{
    if (comm->rank != root)
        return rcount * rdt->size == 0
                   ? FM_OK
                   : fm_coll_recv(rbuf, rcount, rdt, root, FM_TAG_SCATTERV, comm);
    struct fm_blocks b = {.buf = (void *)(uintptr_t)sbuf, .counts = scounts, .displs = displs,
                          .dt = sdt};
    return fm_root_linear(&b, rbuf, rcount, rdt, 0, FM_TAG_SCATTERV, comm);
}
