/* intercomm.c — intercommunicators: MPI_Intercomm_create, _merge,
 * MPI_Comm_remote_size / _remote_group, and duplicating one.
 *
 * An intercommunicator is a communicator whose point-to-point ranks name
 * the remote group (core/comm.h: world is the remote group's, remote_size
 * its size) and which keeps its own group as an intracommunicator
 * (local_comm) for the local halves of what it does collectively.
 *
 * Agreements between the two groups go through their leaders: each group
 * reduces among itself over an intracommunicator, the leaders swap the
 * result, and each leader broadcasts the other side's answer to its group. */
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/sched.h"
#include "mpi/api.h"
#include "pt2pt/pt2pt.h"

/* Leader traffic on the collective context: below the schedules' tags
 * (coll_util.h), and MPI_Intercomm_create's own tag folded in so two
 * creations between the same leaders never take each other's messages. */
#define FM_TAG_INTERCOMM 0x20000
#define FM_TAG_INTER_AGREE 40
#define FM_TAG_INTER_SPLIT 41

/* How a group's leader reaches the other group's leader. */
struct bridge {
    MPI_Comm local;  /* this group, as an intracommunicator */
    int leader;      /* the leader's rank in local */
    MPI_Comm via;    /* the leaders' channel: peer_comm, or the intercommunicator */
    int peer;        /* the other leader's rank in via */
    int tag;
};

/* buf (n words) becomes f(mine, theirs) at every member of both groups:
 * the leaders swap their group's value and combine it, then broadcast. */
static int bridge_swap(const struct bridge *b, uint64_t *buf, int n, int use_and)
{
    int rc = FM_OK;
    if (b->local->rank == b->leader) {
        uint64_t *theirs = malloc(sizeof *theirs * (size_t)n);
        if (!theirs)
            return FM_ERR_NOMEM;
        rc = fm_coll_sendrecv(buf, n, MPI_UINT64_T, b->peer, theirs, n, MPI_UINT64_T, b->peer,
                              b->tag, b->via);
        for (int i = 0; rc == FM_OK && i < n; i++)
            buf[i] = use_and ? buf[i] & theirs[i] : buf[i] > theirs[i] ? buf[i] : theirs[i];
        free(theirs);
    }
    int rb = fm_coll_bcast(buf, n, MPI_UINT64_T, b->leader, b->local);
    return rc != FM_OK ? rc : rb;
}

/* A context id free at every member of both groups: as fm_ctx_alloc
 * (mpi/ctx.c), with each group's reductions bridged by its leader. */
#define WINDOW_WORDS FM_CTX_WINDOW_WORDS
static int bridge_ctx_alloc(const struct bridge *b, uint32_t *ctx)
{
    uint64_t start = fm_ctx_ids_lowest_free_word();
    int rc = fm_coll_allreduce(MPI_IN_PLACE, &start, 1, MPI_UINT64_T, MPI_MAX, b->local);
    if (rc == FM_OK)
        rc = bridge_swap(b, &start, 1, 0);
    int pass = 0;
    for (uint64_t w0 = fm_ctx_first_window(start, 0); rc == FM_OK && w0 < FM_CTX_ID_WORDS;
         w0 = fm_ctx_next_window(start, w0, 0, &pass)) {
        uint64_t win[WINDOW_WORDS], mine[WINDOW_WORDS];
        fm_ctx_ids_reserve(w0, mine, WINDOW_WORDS);
        memcpy(win, mine, sizeof win);
        rc = fm_coll_allreduce(MPI_IN_PLACE, win, WINDOW_WORDS, MPI_UINT64_T, MPI_BAND, b->local);
        if (rc == FM_OK)
            rc = bridge_swap(b, win, WINDOW_WORDS, 1);
        int found = fm_ctx_window_take(w0, win, mine, WINDOW_WORDS, rc == FM_OK);
        if (found >= 0) {
            *ctx = (uint32_t)found * 2;
            return FM_OK;
        }
    }
    return rc != FM_OK ? rc : FM_ERR_NO_CONTEXT;
}

/* The bridge of an existing intercommunicator: leaders are local rank 0,
 * reached through the intercommunicator itself. */
static struct bridge inter_bridge(MPI_Comm ic)
{
    return (struct bridge){.local = ic->local_comm, .leader = 0, .via = ic, .peer = 0,
                           .tag = FM_TAG_INTER_AGREE};
}

/* A private copy of an intracommunicator (its own context), for an
 * intercommunicator's local steps. */
static int local_dup(MPI_Comm local, MPI_Comm *out)
{
    uint32_t ctx;
    int rc = fm_ctx_alloc(local, &ctx);
    if (rc != FM_OK)
        return rc;
    rc = fm_comm_build(local->group, ctx, local, out);
    if (rc != FM_OK)
        fm_ctx_free(ctx);
    return rc;
}

/* Build the intercommunicator once the remote group and a context are
 * known; consumes nothing on failure but the context. */
static int build(MPI_Comm local, struct fm_group *remote, uint32_t ctx, MPI_Comm errh_from,
                 MPI_Comm *out)
{
    MPI_Comm lc;
    int rc = local_dup(local, &lc);
    if (rc != FM_OK) {
        fm_ctx_free(ctx);
        return rc;
    }
    rc = fm_comm_build_inter(local->group, remote, ctx, errh_from, lc, out);
    if (rc != FM_OK) {
        fm_ctx_free(ctx);
        fm_comm_release(lc);
    }
    return rc;
}

#pragma weak MPI_Intercomm_create = PMPI_Intercomm_create
int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                         int remote_leader, int tag, MPI_Comm *newintercomm)
{
    FM_API_LOCK();
    static const char call[] = "MPI_Intercomm_create";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, local_comm);
    FM_CHECK_INTRA(call, local_comm);
    if (!newintercomm)
        return fm_raise(local_comm, call, MPI_ERR_ARG, "newintercomm=NULL");
    if (local_leader < 0 || local_leader >= local_comm->size)
        return fm_raise(local_comm, call, MPI_ERR_RANK,
                        "local_leader=%d is not a rank of local_comm (size %d)", local_leader,
                        local_comm->size);
    FM_CHECK_TAG(call, local_comm, tag, 0);
    int leader = local_comm->rank == local_leader;
    if (leader) { /* significant at the leaders only */
        FM_CHECK_COMM(call, peer_comm);
        if (remote_leader < 0 || remote_leader >= peer_comm->remote_size ||
            (!fm_comm_is_inter(peer_comm) && remote_leader == peer_comm->rank))
            return fm_raise(local_comm, call, MPI_ERR_RANK,
                            "remote_leader=%d is not another rank of peer_comm (size %d)",
                            remote_leader, peer_comm->remote_size);
    }
    struct bridge b = {.local = local_comm, .leader = local_leader, .via = peer_comm,
                       .peer = remote_leader, .tag = FM_TAG_INTERCOMM + (tag & 0xffff)};
    /* 1. The leaders swap their groups' world ranks; each broadcasts the
     *    other group to its own. */
    int n = local_comm->size, rn = 0, rc = FM_OK;
    if (leader)
        rc = fm_coll_sendrecv(&n, 1, MPI_INT, remote_leader, &rn, 1, MPI_INT, remote_leader,
                              b.tag, peer_comm);
    int rb = fm_coll_bcast(&rn, 1, MPI_INT, local_leader, local_comm);
    rc = rc != FM_OK ? rc : rb;
    int *rworld = rc == FM_OK && rn > 0 ? malloc(sizeof *rworld * (size_t)rn) : NULL;
    if (rc == FM_OK && !rworld)
        rc = FM_ERR_NOMEM;
    if (rc == FM_OK && leader)
        rc = fm_coll_sendrecv(local_comm->world, n, MPI_INT, remote_leader, rworld, rn, MPI_INT,
                              remote_leader, b.tag, peer_comm);
    if (rc == FM_OK)
        rc = fm_coll_bcast(rworld, rn, MPI_INT, local_leader, local_comm);
    struct fm_group *remote = rc == FM_OK ? fm_group_new(rn, rworld) : NULL;
    free(rworld);
    if (rc == FM_OK && !remote)
        rc = FM_ERR_NOMEM;
    for (int i = 0; rc == FM_OK && i < rn; i++)
        if (fm_group_rank_of(local_comm->group, remote->world[i]) != MPI_UNDEFINED)
            rc = FM_ERR_GROUP; /* the groups must be disjoint */
    /* 2. A context free at every member of both groups. */
    uint32_t ctx = 0;
    if (rc == FM_OK)
        rc = bridge_ctx_alloc(&b, &ctx);
    if (rc == FM_OK)
        rc = build(local_comm, remote, ctx, local_comm, newintercomm);
    if (remote)
        fm_group_release(remote);
    if (rc == FM_ERR_GROUP)
        return fm_raise(local_comm, call, MPI_ERR_COMM,
                        "the local and remote groups overlap; they must be disjoint");
    return rc == FM_OK ? MPI_SUCCESS : fm_ctx_raise(local_comm, call, rc);
}

#pragma weak MPI_Intercomm_merge = PMPI_Intercomm_merge
int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    FM_API_LOCK();
    static const char call[] = "MPI_Intercomm_merge";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, intercomm);
    if (!fm_comm_is_inter(intercomm))
        return fm_raise(intercomm, call, MPI_ERR_COMM, "%s is not an intercommunicator",
                        fm_comm_label(intercomm));
    if (!newintracomm)
        return fm_raise(intercomm, call, MPI_ERR_ARG, "newintracomm=NULL");
    struct bridge b = inter_bridge(intercomm);
    /* Which group goes first: the one that said high=false; on a tie, the
     * one whose leader has the lower world rank. */
    uint64_t mine = high ? 1 : 0, theirs = mine;
    int rc = FM_OK;
    if (intercomm->local_comm->rank == 0)
        rc = fm_coll_sendrecv(&mine, 1, MPI_UINT64_T, 0, &theirs, 1, MPI_UINT64_T, 0, b.tag,
                              intercomm);
    int rb = fm_coll_bcast(&theirs, 1, MPI_UINT64_T, 0, intercomm->local_comm);
    rc = rc != FM_OK ? rc : rb;
    struct fm_group *lg = intercomm->group, *rg = intercomm->remote_group;
    int local_first = mine != theirs ? !mine : lg->world[0] < rg->world[0];
    int n = lg->size + rg->size;
    int *world = malloc(sizeof *world * (size_t)n);
    if (rc == FM_OK && !world)
        rc = FM_ERR_NOMEM;
    if (rc == FM_OK) {
        struct fm_group *first = local_first ? lg : rg, *second = local_first ? rg : lg;
        memcpy(world, first->world, sizeof *world * (size_t)first->size);
        memcpy(world + first->size, second->world, sizeof *world * (size_t)second->size);
    }
    uint32_t ctx = 0;
    if (rc == FM_OK)
        rc = bridge_ctx_alloc(&b, &ctx);
    struct fm_group *g = rc == FM_OK ? fm_group_new(n, world) : NULL;
    free(world);
    if (rc == FM_OK && !g) {
        fm_ctx_free(ctx);
        rc = FM_ERR_NOMEM;
    }
    if (rc == FM_OK) {
        rc = fm_comm_build(g, ctx, intercomm, newintracomm);
        if (rc != FM_OK)
            fm_ctx_free(ctx);
        else if ((rc = fm_coll_comm_contexts(*newintracomm)) != FM_OK) {
            fm_comm_release(*newintracomm);
            *newintracomm = MPI_COMM_NULL;
        }
    }
    if (g)
        fm_group_release(g);
    return rc == FM_OK ? MPI_SUCCESS : fm_ctx_raise(intercomm, call, rc);
}

int fm_intercomm_dup(MPI_Comm ic, MPI_Comm *out)
{
    struct bridge b = inter_bridge(ic);
    uint32_t ctx;
    int rc = bridge_ctx_alloc(&b, &ctx);
    return rc == FM_OK ? build(ic->local_comm, ic->remote_group, ctx, ic, out) : rc;
}

#pragma weak MPI_Comm_remote_size = PMPI_Comm_remote_size
int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    FM_API_LOCK();
    static const char call[] = "MPI_Comm_remote_size";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    if (!fm_comm_is_inter(comm))
        return fm_raise(comm, call, MPI_ERR_COMM, "%s is not an intercommunicator",
                        fm_comm_label(comm));
    if (!size)
        return fm_raise(comm, call, MPI_ERR_ARG, "size=NULL");
    *size = comm->remote_size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_remote_group = PMPI_Comm_remote_group
int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    FM_API_LOCK();
    static const char call[] = "MPI_Comm_remote_group";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    if (!fm_comm_is_inter(comm))
        return fm_raise(comm, call, MPI_ERR_COMM, "%s is not an intercommunicator",
                        fm_comm_label(comm));
    if (!group)
        return fm_raise(comm, call, MPI_ERR_ARG, "group=NULL");
    fm_group_retain(comm->remote_group);
    *group = comm->remote_group;
    return MPI_SUCCESS;
}

/* (color, key) of one member; sorted by key, then rank. */
struct pick {
    int key, rank;
};

static int by_key(const void *a, const void *b)
{
    const struct pick *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The world ranks of the members of `all` (n (color, key) pairs, indexed
 * by rank in g) with `color`, in key order; returns how many. */
static int pick_color(const int *all, int n, int color, const struct fm_group *g, int *world)
{
    struct pick *p = malloc(sizeof *p * (size_t)(n ? n : 1));
    if (!p)
        return -1;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (all[2 * i] == color && color != MPI_UNDEFINED)
            p[k++] = (struct pick){all[2 * i + 1], i};
    qsort(p, (size_t)k, sizeof *p, by_key);
    for (int i = 0; i < k; i++)
        world[i] = g->world[p[i].rank];
    free(p);
    return k;
}

int fm_intercomm_split(MPI_Comm ic, int color, int key, MPI_Comm *newcomm)
{
    const int ln = ic->size, rn = ic->remote_size;
    int mine[2] = {color, key};
    int *local = malloc(sizeof(int) * 2 * (size_t)ln), *remote = malloc(sizeof(int) * 2 * (size_t)rn);
    int *lw = malloc(sizeof(int) * (size_t)ln), *rw = malloc(sizeof(int) * (size_t)rn);
    int rc = local && remote && lw && rw ? FM_OK : FM_ERR_NOMEM;
    /* Every member learns both groups' (color, key) pairs... */
    if (rc == FM_OK)
        rc = fm_coll_allgather(mine, 2, MPI_INT, local, 2, MPI_INT, ic->local_comm);
    if (rc == FM_OK && ic->local_comm->rank == 0)
        rc = fm_coll_sendrecv(local, 2 * ln, MPI_INT, 0, remote, 2 * rn, MPI_INT, 0,
                              FM_TAG_INTER_SPLIT, ic);
    if (rc == FM_OK)
        rc = fm_coll_bcast(remote, 2 * rn, MPI_INT, 0, ic->local_comm);
    /* ...then one context for every new intercommunicator (their members
     * are disjoint) and one for their local sides. */
    struct bridge b = inter_bridge(ic);
    uint32_t ctx = 0, lctx = 0;
    int have = 0, lhave = 0;
    if (rc == FM_OK && (rc = bridge_ctx_alloc(&b, &ctx)) == FM_OK)
        have = 1;
    if (rc == FM_OK && (rc = fm_ctx_alloc(ic->local_comm, &lctx)) == FM_OK)
        lhave = 1;
    int nl = rc == FM_OK ? pick_color(local, ln, color, ic->group, lw) : 0;
    int nr = rc == FM_OK ? pick_color(remote, rn, color, ic->remote_group, rw) : 0;
    if (nl < 0 || nr < 0)
        rc = FM_ERR_NOMEM;
    *newcomm = MPI_COMM_NULL;
    struct fm_group *lg = NULL, *rg = NULL;
    MPI_Comm lc = MPI_COMM_NULL;
    if (rc == FM_OK && nl > 0 && nr > 0) {
        lg = fm_group_new(nl, lw);
        rg = fm_group_new(nr, rw);
        rc = lg && rg ? fm_comm_build(lg, lctx, ic, &lc) : FM_ERR_NOMEM;
        if (rc == FM_OK) {
            lhave = 0; /* lc owns it */
            rc = fm_comm_build_inter(lg, rg, ctx, ic, lc, newcomm);
            if (rc == FM_OK)
                have = 0;
            else
                fm_comm_release(lc);
        }
    }
    if (have)
        fm_ctx_free(ctx); /* taken in step with the others; not used here */
    if (lhave)
        fm_ctx_free(lctx);
    if (lg)
        fm_group_release(lg);
    if (rg)
        fm_group_release(rg);
    free(local), free(remote), free(lw), free(rw);
    return rc;
}

/* ---- the nonblocking duplicate (MPI_Comm_idup) ----------------------------------
 * The bridged agreement of bridge_ctx_alloc as schedule steps: each group
 * reduces over its local communicator, the leaders swap and combine
 * (a reduction step), each group broadcasts; call steps walk the windows.
 * Then a context for the new local communicator, agreed over the old one
 * (fm_ctx_alloc_sched), and the intercommunicator is built. */
struct inter_idup {
    MPI_Comm ic;
    uint64_t start, theirs_start, w0;
    int pass; /* fm_ctx_next_window */
    uint64_t win[WINDOW_WORDS + 1], mine[WINDOW_WORDS], theirs[WINDOW_WORDS + 1];
    struct fm_ctx_turn turn;
    uint32_t ctx;
    fm_inter_done_fn *done;
    void *arg;
};

static fm_coll_call local_side(const fm_coll_call *cc, MPI_Comm ic)
{
    fm_coll_call l = *cc;
    l.comm = ic->local_comm;
    return l;
}

/* Both groups end with the combination (op) of their two reductions. */
static void bridged(fm_coll_call *cc, MPI_Comm ic, uint64_t *buf, uint64_t *theirs, int n,
                    MPI_Op op)
{
    fm_coll_call l = local_side(cc, ic);
    fm_cc_allreduce(&l, MPI_IN_PLACE, buf, n, MPI_UINT64_T, op);
    if (ic->local_comm->rank == 0) {
        fm_cc_sendrecv(cc, buf, n, MPI_UINT64_T, 0, theirs, n, MPI_UINT64_T, 0);
        fm_cc_op(cc, op, theirs, buf, n, MPI_UINT64_T);
    }
    fm_cc_bcast(&l, buf, n, MPI_UINT64_T, 0);
}

static void idup_built(fm_coll_call *cc, uint32_t lctx, void *arg)
{
    struct inter_idup *d = arg;
    MPI_Comm nc = MPI_COMM_NULL, lc;
    if (cc->rc != FM_OK) {
        fm_ctx_free(d->ctx);
    } else if ((cc->rc = fm_comm_build(d->ic->group, lctx, d->ic, &lc)) != FM_OK) {
        fm_ctx_free(lctx);
        fm_ctx_free(d->ctx);
    } else if ((cc->rc = fm_comm_build_inter(d->ic->group, d->ic->remote_group, d->ctx, d->ic,
                                             lc, &nc)) != FM_OK) {
        fm_comm_release(lc);
        fm_ctx_free(d->ctx);
        nc = MPI_COMM_NULL;
    }
    d->done(cc, nc, d->arg);
}

static void idup_window(fm_coll_call *cc, void *arg);

static void idup_pick(fm_coll_call *cc, void *arg)
{
    struct inter_idup *d = arg;
    int advance;
    int id = fm_ctx_turn_pick(d->w0, d->mine, d->win, WINDOW_WORDS, cc->rc == FM_OK, &advance);
    if (cc->rc != FM_OK || id >= 0)
        fm_ctx_turn_leave(&d->turn);
    if (cc->rc != FM_OK) {
        d->done(cc, MPI_COMM_NULL, d->arg);
        return;
    }
    if (id < 0) {
        if (advance) /* both groups saw the same AND: all move on */
            d->w0 = fm_ctx_next_window(d->start, d->w0, 1, &d->pass);
        else
            fm_sched_add_yield(cc); /* another agreement's turn: let it run */
        idup_window(cc, d);
        return;
    }
    d->ctx = (uint32_t)id * 2;
    /* Now the new local side's context, over the old local communicator. */
    fm_coll_call l = local_side(cc, d->ic);
    int rc = fm_ctx_alloc_sched(&l, idup_built, d);
    if (rc != FM_OK) {
        fm_ctx_free(d->ctx);
        fm_cc_fail(cc, rc);
        d->done(cc, MPI_COMM_NULL, d->arg);
    }
}

static void idup_window(fm_coll_call *cc, void *arg)
{
    struct inter_idup *d = arg;
    if (cc->rc == FM_OK && d->w0 >= FM_CTX_ID_WORDS)
        fm_cc_fail(cc, FM_ERR_NO_CONTEXT);
    if (cc->rc != FM_OK) {
        fm_ctx_turn_leave(&d->turn);
        d->done(cc, MPI_COMM_NULL, d->arg);
        return;
    }
    fm_ctx_turn_window(&d->turn, d->w0, d->mine, d->win, WINDOW_WORDS);
    bridged(cc, d->ic, d->win, d->theirs, WINDOW_WORDS + 1, MPI_BAND);
    fm_sched_add_call(cc, idup_pick, d);
}

static void idup_first(fm_coll_call *cc, void *arg)
{
    struct inter_idup *d = arg;
    d->w0 = fm_ctx_first_window(d->start, 1);
    fm_ctx_turn_enter(&d->turn, d->ic, cc->tag);
    idup_window(cc, d);
}

int fm_intercomm_dup_sched(fm_coll_call *cc, fm_inter_done_fn *done, void *arg)
{
    struct inter_idup *d = fm_sched_alloc(cc, sizeof *d);
    if (!d)
        return FM_ERR_NOMEM;
    d->ic = cc->comm;
    d->done = done;
    d->arg = arg;
    d->start = fm_ctx_ids_lowest_free_word();
    bridged(cc, d->ic, &d->start, &d->theirs_start, 1, MPI_MAX);
    fm_sched_add_call(cc, idup_first, d);
    return FM_OK;
}
