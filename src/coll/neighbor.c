/* neighbor.c — neighborhood collectives (MPI-3.1 7.6, MPI-4.0 8.6) over
 * a communicator's topology (core/topo.h): receive block i comes from
 * in[i], send block j goes to out[j] (allgather: the one send block to
 * every out[j]); MPI_PROC_NULL neighbours move nothing.
 *
 * Every receive is posted, then every send, then one wait.  Where a
 * process is a neighbour twice (graphs with repeated edges), messages
 * between a pair are matched in posting order, so sends go out in the
 * order the receiver lists its sources.  Cartesian topologies follow the
 * MPI-4.0 errata (MPI-4.1 8.6): a block sent to the neighbour in slot s
 * lands in the receiver's slot s ^ 1 (the -1 neighbour sees us as its +1
 * neighbour).  In a periodic dimension of size 2 both slots name the same
 * process, of size 1 this process itself; sending in the order of the
 * slot each block lands in makes first-posted receive meet first-sent
 * block there too. */
#include <stdlib.h>

#include "coll/coll.h"
#include "coll/coll_util.h"
#include "core/comm.h"
#include "core/topo.h"
#include "util/status.h"

/* Block i of one side: (buf + displ, count, dt), with element
 * displacements (v), byte displacements and a type per block (w), or
 * fixed blocks of `count` at i * count. */
struct nside {
    const void *buf;
    fm_iarr counts;
    fm_iarr displs;           /* v: in elements of dt */
    const MPI_Aint *bdispls;  /* w: in bytes */
    const MPI_Datatype *dts;  /* w */
    MPI_Count count;
    MPI_Datatype dt;
};

static MPI_Count ncount(const struct nside *s, int i)
{
    return !fm_iarr_null(s->counts) ? fm_iarr_at(s->counts, i) : s->count;
}
static MPI_Datatype ndt(const struct nside *s, int i) { return s->dts ? s->dts[i] : s->dt; }

static void *naddr(const struct nside *s, int i)
{
    if (s->bdispls)
        return (char *)(uintptr_t)s->buf + s->bdispls[i];
    MPI_Aint disp = !fm_iarr_null(s->displs) ? fm_iarr_at(s->displs, i) : (MPI_Aint)i * s->count;
    return fm_coll_at(s->buf, disp, s->dt);
}

/* one: the send side is a single block (allgather forms). */
static void neighbor_exchange(fm_coll_call *cc, const struct nside *snd, int one,
                              const struct nside *rcv)
{
    int nin, nout;
    const int *in, *out;
    int rc = fm_topo_neighbors(cc->comm, &nin, &in, &nout, &out);
    if (rc != FM_OK) {
        fm_cc_fail(cc, rc);
        return;
    }
    const int cart = cc->comm->topo->kind == MPI_CART;
    /* Stencils have a few neighbours: their requests fit on the stack (a
     * malloc and free of each array per call cost more than the sends). */
    enum { ON_STACK = 32 };
    struct fm_request *sreqs[ON_STACK], **reqs = sreqs;
    long long swant[ON_STACK], *want = swant;
    if (nin + nout > ON_STACK) {
        reqs = malloc(sizeof *reqs * (size_t)(nin + nout));
        want = malloc(sizeof *want * (size_t)(nin + nout));
    }
    if (!reqs || !want) {
        free(reqs);
        free(want);
        fm_cc_fail(cc, FM_ERR_NOMEM); /* one at a time: every peer still hears from us */
        reqs = NULL;
        want = NULL;
    }
    fm_cc_batch b = {.reqs = reqs, .want = want};
    for (int i = 0; i < nin; i++) {
        if (in[i] == MPI_PROC_NULL || ncount(rcv, i) * ndt(rcv, i)->size == 0)
            continue;
        if (reqs)
            fm_cc_irecv(cc, &b, naddr(rcv, i), ncount(rcv, i), ndt(rcv, i), in[i]);
        else
            fm_cc_recv(cc, NULL, ncount(rcv, i), ndt(rcv, i), in[i]);
    }
    for (int t = 0; t < nout; t++) {
        int j = cart ? t ^ 1 : t, k = one ? 0 : j;
        if (out[j] == MPI_PROC_NULL || ncount(snd, k) * ndt(snd, k)->size == 0)
            continue;
        if (reqs)
            fm_cc_isend(cc, &b, naddr(snd, k), ncount(snd, k), ndt(snd, k), out[j]);
        else
            fm_cc_send(cc, NULL, 0, MPI_BYTE, out[j]);
    }
    if (reqs)
        fm_cc_waitall(cc, &b);
    if (reqs != sreqs)
        free(reqs);
    if (want != swant)
        free(want);
}

void fm_cc_neighbor_allgatherv(fm_coll_call *cc, const void *sbuf, MPI_Count scount,
                               MPI_Datatype sdt, void *rbuf, fm_iarr rcounts, fm_iarr displs,
                               MPI_Count rcount, MPI_Datatype rdt)
{
    struct nside s = {.buf = sbuf, .count = scount, .dt = sdt};
    struct nside r = {.buf = rbuf, .counts = rcounts, .displs = displs, .count = rcount,
                      .dt = rdt};
    neighbor_exchange(cc, &s, 1, &r);
}

void fm_cc_neighbor_alltoallv(fm_coll_call *cc, const void *sbuf, fm_iarr scounts,
                              fm_iarr sdispls, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                              fm_iarr rcounts, fm_iarr rdispls, MPI_Count rcount,
                              MPI_Datatype rdt)
{
    struct nside s = {.buf = sbuf, .counts = scounts, .displs = sdispls, .count = scount,
                      .dt = sdt};
    struct nside r = {.buf = rbuf, .counts = rcounts, .displs = rdispls, .count = rcount,
                      .dt = rdt};
    neighbor_exchange(cc, &s, 0, &r);
}

void fm_cc_neighbor_alltoallw(fm_coll_call *cc, const void *sbuf, fm_iarr scounts,
                              const MPI_Aint sdispls[], const MPI_Datatype sdts[], void *rbuf,
                              fm_iarr rcounts, const MPI_Aint rdispls[],
                              const MPI_Datatype rdts[])
{
    struct nside s = {.buf = sbuf, .counts = scounts, .bdispls = sdispls, .dts = sdts};
    struct nside r = {.buf = rbuf, .counts = rcounts, .bdispls = rdispls, .dts = rdts};
    neighbor_exchange(cc, &s, 0, &r);
}
