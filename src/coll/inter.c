/* inter.c — collectives on intercommunicators (MPI-3.1 5.2.2).
 *
 * Ranks in an intercommunicator's messages name the remote group; its
 * local_comm is this group as an intracommunicator.  Rooted collectives
 * flow from the root's group to the other: the root passes MPI_ROOT, the
 * rest of its group MPI_PROC_NULL, the other group the root's rank.
 * All-to-all-shaped ones go both ways: each group ends with what the other
 * group gave.  The patterns:
 *   - bcast: root -> remote leader, then a bcast inside that group;
 *   - reduce: a reduce inside the non-root group to its leader, which
 *     sends to the root;
 *   - allreduce and reduce_scatter: each group reduces to its leader, the
 *     leaders swap, each spreads the other group's result in its group;
 *   - barrier: a barrier in each group around a leader exchange;
 *   - gather, scatter, allgather, alltoall and their v/w forms: direct
 *     messages with every remote member (linear, all posted at once).
 * The local steps use the same call (same tag, same schedule when one is
 * recording, same first error), on local_comm. */
#include <stdlib.h>

#include "coll/coll.h"
#include "coll/coll_util.h"
#include "core/comm.h"
#include "util/status.h"

/* The call's local half: the same tag, schedule and first error. */
static fm_coll_call local_of(const fm_coll_call *cc)
{
    fm_coll_call l = *cc;
    l.comm = cc->comm->local_comm;
    return l;
}

static void rejoin(fm_coll_call *cc, const fm_coll_call *l) { fm_cc_fail(cc, l->rc); }

void fm_cc_inter_barrier(fm_coll_call *cc)
{
    fm_coll_call l = local_of(cc);
    static char token;
    fm_cc_barrier(&l);
    fm_cc_fail(cc, l.rc);
    if (cc->comm->rank == 0)
        fm_cc_sendrecv(cc, &token, 0, MPI_BYTE, 0, &token, 0, MPI_BYTE, 0);
    l.rc = cc->rc;
    fm_cc_barrier(&l);
    rejoin(cc, &l);
}

void fm_cc_inter_bcast(fm_coll_call *cc, void *buf, MPI_Count count, MPI_Datatype dt, int root)
{
    if (root == MPI_PROC_NULL || count == 0 || dt->size == 0)
        return;
    if (root == MPI_ROOT) {
        fm_cc_send(cc, buf, count, dt, 0);
        return;
    }
    if (cc->comm->rank == 0)
        fm_cc_recv(cc, buf, count, dt, root);
    fm_coll_call l = local_of(cc);
    fm_cc_bcast(&l, buf, count, dt, 0);
    rejoin(cc, &l);
}

/* This group's reduction of sbuf at its leader, into a scratch buffer
 * the leader gets back (NULL elsewhere). */
static void *reduce_to_leader(fm_coll_call *cc, const void *sbuf, MPI_Count count,
                              MPI_Datatype dt, MPI_Op op, void **raw)
{
    void *tmp = NULL;
    *raw = NULL;
    if (cc->comm->rank == 0 && !(tmp = fm_cc_tmp(cc, count, dt, raw)))
        fm_cc_fail(cc, FM_ERR_NOMEM);
    fm_coll_call l = local_of(cc);
    fm_cc_reduce(&l, sbuf, tmp, count, dt, op, 0);
    rejoin(cc, &l);
    return tmp;
}

void fm_cc_inter_reduce(fm_coll_call *cc, const void *sbuf, void *rbuf, MPI_Count count,
                        MPI_Datatype dt, MPI_Op op, int root)
{
    if (root == MPI_PROC_NULL || count == 0 || dt->size == 0)
        return;
    if (root == MPI_ROOT) {
        fm_cc_recv(cc, rbuf, count, dt, 0);
        return;
    }
    void *raw, *tmp = reduce_to_leader(cc, sbuf, count, dt, op, &raw);
    if (cc->comm->rank == 0)
        fm_cc_send(cc, tmp, count, dt, root);
    fm_cc_tmp_done(cc, raw);
}

void fm_cc_inter_allreduce(fm_coll_call *cc, const void *sbuf, void *rbuf, MPI_Count count,
                           MPI_Datatype dt, MPI_Op op)
{
    if (count == 0 || dt->size == 0)
        return;
    void *raw, *tmp = reduce_to_leader(cc, sbuf, count, dt, op, &raw);
    if (cc->comm->rank == 0)
        fm_cc_sendrecv(cc, tmp, count, dt, 0, rbuf, count, dt, 0);
    fm_coll_call l = local_of(cc);
    l.rc = cc->rc;
    fm_cc_bcast(&l, rbuf, count, dt, 0);
    rejoin(cc, &l);
    fm_cc_tmp_done(cc, raw);
}

/* rcounts NULL: reduce_scatter_block (rcount each).  The vectors are as
 * long as this group's counts add up to, which the standard makes equal
 * to the other group's. */
void fm_cc_inter_reduce_scatter(fm_coll_call *cc, const void *sbuf, void *rbuf,
                                fm_iarr rcounts, MPI_Count rcount, MPI_Datatype dt, MPI_Op op)
{
    const int n = cc->comm->size, v = !fm_iarr_null(rcounts);
    MPI_Count total = rcount * n;
    MPI_Aint *displs = NULL;
    if (v) {
        displs = malloc(sizeof *displs * (size_t)n);
        if (!displs) {
            fm_cc_fail(cc, FM_ERR_NOMEM);
            return;
        }
        total = 0;
        for (int i = 0; i < n; i++) {
            displs[i] = total;
            total += fm_iarr_at(rcounts, i);
        }
    }
    void *raw, *mine = reduce_to_leader(cc, sbuf, total, dt, op, &raw);
    void *raw2 = NULL, *theirs = NULL;
    if (cc->comm->rank == 0) {
        if (!(theirs = fm_cc_tmp(cc, total, dt, &raw2)))
            fm_cc_fail(cc, FM_ERR_NOMEM);
        fm_cc_sendrecv(cc, mine, total, dt, 0, theirs, total, dt, 0);
    }
    fm_coll_call l = local_of(cc);
    l.rc = cc->rc;
    fm_cc_scatterv(&l, theirs, rcounts, v ? fm_iarr_wide(displs) : FM_IARR_NONE, rcount, dt, rbuf,
                   v ? fm_iarr_at(rcounts, cc->comm->rank) : rcount, dt, 0);
    rejoin(cc, &l);
    fm_cc_tmp_done(cc, raw);
    fm_cc_tmp_done(cc, raw2);
    free(displs);
}

/* One side of a direct exchange with every remote member: block i is
 * (buf + displ, count, dt) as alltoall.c lays them out. */
struct side {
    const void *buf;
    fm_iarr counts, displs;     /* absent: `count` each at i * count */
    MPI_Count count;
    MPI_Datatype dt;
    const MPI_Datatype *dts;    /* alltoallw: per member, byte displacements */
};

static MPI_Count side_count(const struct side *s, int i)
{
    return !fm_iarr_null(s->counts) ? fm_iarr_at(s->counts, i) : s->count;
}

static MPI_Datatype side_dt(const struct side *s, int i) { return s->dts ? s->dts[i] : s->dt; }

static void *side_addr(const struct side *s, int i)
{
    if (s->dts)
        return (char *)(uintptr_t)s->buf + fm_iarr_at(s->displs, i);
    MPI_Aint disp = !fm_iarr_null(s->counts) ? fm_iarr_at(s->displs, i) : (MPI_Aint)i * s->count;
    return fm_coll_at(s->buf, disp, s->dt);
}

/* Post a receive of block i from remote member i (rcv) and a send of
 * block i (or of the single `one` block) to it (snd), for every member,
 * then wait.  Either side may be absent (NULL). */
static void exchange(fm_coll_call *cc, const struct side *snd, int one, const struct side *rcv)
{
    const int n = cc->comm->remote_size;
    struct fm_request **reqs = malloc(sizeof *reqs * (size_t)(2 * n + 1));
    long long *want = malloc(sizeof *want * (size_t)(2 * n + 1));
    if (!reqs || !want) { /* track them one at a time instead */
        free(reqs);
        free(want);
        fm_cc_fail(cc, FM_ERR_NOMEM);
        for (int i = 0; i < n; i++) {
            if (rcv && side_count(rcv, i) * side_dt(rcv, i)->size > 0)
                fm_cc_recv(cc, NULL, side_count(rcv, i), side_dt(rcv, i), i);
            if (snd)
                fm_cc_send(cc, NULL, 0, MPI_BYTE, i);
        }
        return;
    }
    fm_cc_batch b = {.reqs = reqs, .want = want};
    for (int i = 0; i < n; i++) {
        if (rcv && side_count(rcv, i) * side_dt(rcv, i)->size > 0)
            fm_cc_irecv(cc, &b, side_addr(rcv, i), side_count(rcv, i), side_dt(rcv, i), i);
        int k = one ? 0 : i;
        if (snd && side_count(snd, k) * side_dt(snd, k)->size > 0)
            fm_cc_isend(cc, &b, side_addr(snd, k), side_count(snd, k), side_dt(snd, k), i);
    }
    fm_cc_waitall(cc, &b);
    free(reqs);
    free(want);
}

void fm_cc_inter_gatherv(fm_coll_call *cc, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                         void *rbuf, fm_iarr rcounts, fm_iarr displs, MPI_Count rcount,
                         MPI_Datatype rdt, int root)
{
    if (root == MPI_PROC_NULL)
        return;
    if (root == MPI_ROOT) {
        struct side r = {.buf = rbuf, .counts = rcounts, .displs = displs, .count = rcount,
                         .dt = rdt};
        exchange(cc, NULL, 0, &r);
    } else if (scount * sdt->size > 0) {
        fm_cc_send(cc, sbuf, scount, sdt, root);
    }
}

void fm_cc_inter_scatterv(fm_coll_call *cc, const void *sbuf, fm_iarr scounts, fm_iarr displs,
                          MPI_Count scount, MPI_Datatype sdt, void *rbuf, MPI_Count rcount,
                          MPI_Datatype rdt, int root)
{
    if (root == MPI_PROC_NULL)
        return;
    if (root == MPI_ROOT) {
        struct side s = {.buf = sbuf, .counts = scounts, .displs = displs, .count = scount,
                         .dt = sdt};
        exchange(cc, &s, 0, NULL);
    } else if (rcount * rdt->size > 0) {
        fm_cc_recv(cc, rbuf, rcount, rdt, root);
    }
}

void fm_cc_inter_allgatherv(fm_coll_call *cc, const void *sbuf, MPI_Count scount,
                            MPI_Datatype sdt, void *rbuf, fm_iarr rcounts, fm_iarr displs,
                            MPI_Count rcount, MPI_Datatype rdt)
{
    struct side s = {.buf = sbuf, .count = scount, .dt = sdt};
    struct side r = {.buf = rbuf, .counts = rcounts, .displs = displs, .count = rcount,
                     .dt = rdt};
    exchange(cc, &s, 1, &r);
}

void fm_cc_inter_alltoallw(fm_coll_call *cc, const void *sbuf, fm_iarr scounts, fm_iarr sdispls,
                           MPI_Count scount, MPI_Datatype sdt, const MPI_Datatype sdts[],
                           void *rbuf, fm_iarr rcounts, fm_iarr rdispls, MPI_Count rcount,
                           MPI_Datatype rdt, const MPI_Datatype rdts[])
{
    struct side s = {.buf = sbuf, .counts = scounts, .displs = sdispls, .count = scount,
                     .dt = sdt, .dts = sdts};
    struct side r = {.buf = rbuf, .counts = rcounts, .displs = rdispls, .count = rcount,
                     .dt = rdt, .dts = rdts};
    exchange(cc, &s, 0, &r);
}
