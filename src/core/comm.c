/* comm.c — communicator objects: the predefined MPI_COMM_WORLD and
 * MPI_COMM_SELF, building a communicator from a group and a context id,
 * and reference counting (requests in flight may hold a communicator past
 * MPI_Comm_free). */
#include <stdlib.h>
#include <string.h>

#include "core/comm.h"
#include "core/topo.h"
#include "core/vci.h"
#include "util/handle_pool.h"
#include "util/log.h"
#include "util/status.h"

struct fm_comm fab_comm_world, fab_comm_self;
struct fm_errhandler fab_errors_are_fatal = {FM_MAGIC_ERRH, 1, 1, FM_ERRH_FATAL, NULL, NULL};
struct fm_errhandler fab_errors_return = {FM_MAGIC_ERRH, 1, 1, FM_ERRH_RETURN, NULL, NULL};

static void errh_retain(struct fm_errhandler *e)
{
    if (e)
        e->refcount++;
}

/* Communicators and error handlers behind user handles (handle_pool.h). */
static fm_handle_pool comm_pool = FM_HANDLE_POOL(struct fm_comm);
static fm_handle_pool errh_pool = FM_HANDLE_POOL(struct fm_errhandler);

struct fm_errhandler *fm_errh_new(void)
{
    return fm_handle_get(&errh_pool);
}

void fm_comm_errh_release(struct fm_errhandler *e)
{
    if (!e || e->predefined)
        return;
    if (--e->refcount == 0)
        fm_handle_put(&errh_pool, e);
}

/* Fill the fields every communicator has, predefined or not. */
static int comm_setup(struct fm_comm *c, struct fm_group *group, uint32_t ctx,
                      struct fm_errhandler *errh)
{
    /* Its point-to-point context on its VCI; collectives stay on fm_vci0. */
    c->vci = fm_vci_of_ctx(ctx);
    c->mq = fm_ctx_queue(&c->vci->ctx, ctx);
    c->mq_coll = fm_ctx_queue(&fm_vci0.ctx, ctx + 1);
    if (!c->mq || !c->mq_coll)
        return FM_ERR_NOMEM;
    c->magic = FM_MAGIC_COMM;
    c->refcount = 1;
    c->rank = group->rank;
    c->size = group->size;
    c->remote_size = group->size;
    c->ctx = ctx;
    fm_group_retain(group);
    c->group = group;
    c->world = group->world;
    errh_retain(errh);
    c->errh = errh;
    c->attrs = NULL;
    c->topo = NULL; /* the topology calls attach one after building */
    return FM_OK;
}

int fm_comm_build(struct fm_group *group, uint32_t ctx, MPI_Comm parent, MPI_Comm *out)
{
    if (group->rank == MPI_UNDEFINED)
        return FM_ERR_GROUP; /* callers give non-members MPI_COMM_NULL instead */
    struct fm_comm *c = fm_handle_get(&comm_pool);
    if (!c)
        return FM_ERR_NOMEM;
    int rc = comm_setup(c, group, ctx, parent ? parent->errh : MPI_ERRORS_ARE_FATAL);
    if (rc != FM_OK) {
        fm_handle_put(&comm_pool, c);
        return rc;
    }
    *out = c;
    return FM_OK;
}

int fm_comm_build_inter(struct fm_group *local, struct fm_group *remote, uint32_t ctx,
                        MPI_Comm parent, MPI_Comm local_comm, MPI_Comm *out)
{
    int rc = fm_comm_build(local, ctx, parent, out);
    if (rc != FM_OK)
        return rc;
    MPI_Comm c = *out;
    fm_group_retain(remote);
    c->remote_group = remote;
    c->remote_size = remote->size;
    c->world = remote->world; /* point-to-point ranks name the remote group */
    c->local_comm = local_comm;
    return FM_OK;
}

/* Registered today: attributes, one-sided collective caches, info hints,
 * MPI_T events, transport contexts (coll/comm_contexts.c). */
#define MAX_DESTROY_HOOKS 8
static fm_comm_destroy_hook *destroy_hooks[MAX_DESTROY_HOOKS];
static int ndestroy_hooks;

void fm_comm_on_destroy(fm_comm_destroy_hook *hook)
{
    for (int i = 0; i < ndestroy_hooks; i++)
        if (destroy_hooks[i] == hook)
            return; /* MPI_Init after a failed one registers again */
    if (ndestroy_hooks == MAX_DESTROY_HOOKS) {
        /* A layer would keep state for freed communicators: a bug here. */
        fm_error_msg("internal: more than %d communicator destroy hooks; raise "
                     "MAX_DESTROY_HOOKS in src/core/comm.c", MAX_DESTROY_HOOKS);
        abort();
    }
    destroy_hooks[ndestroy_hooks++] = hook;
}

void fm_comm_destroy(MPI_Comm comm)
{
    /* The last reference may go on a lane (a request's): the hooks and
     * tables below are process-wide. */
    struct fm_vci *lane = fm_lane_escape();
    for (int i = 0; i < ndestroy_hooks; i++)
        destroy_hooks[i](comm);
    fm_ctx_free(comm->ctx);
    fm_group_release(comm->group);
    if (comm->remote_group)
        fm_group_release(comm->remote_group);
    if (comm->local_comm)
        fm_comm_release(comm->local_comm);
    fm_comm_errh_release(comm->errh);
    fm_topo_release(comm->topo);
    comm->topo = NULL;
    if (comm->predefined)
        comm->magic = 0;
    else
        fm_handle_put(&comm_pool, comm);
    fm_lane_back(lane);
}

int fm_comm_predefined_init(int world_rank, int world_size, int usable_ids)
{
    fm_ctx_ids_init(usable_ids);
    fm_group_set_self(world_rank);
    int *ranks = malloc((size_t)world_size * sizeof(int));
    if (!ranks)
        return FM_ERR_NOMEM;
    for (int i = 0; i < world_size; i++)
        ranks[i] = i;
    struct fm_group *gw = fm_group_new(world_size, ranks);
    struct fm_group *gs = fm_group_new(1, &world_rank);
    free(ranks);
    int rc = FM_ERR_NOMEM;
    if (gw && gs) {
        rc = comm_setup(&fab_comm_world, gw, 0, MPI_ERRORS_ARE_FATAL);
        if (rc == FM_OK)
            rc = comm_setup(&fab_comm_self, gs, 2, MPI_ERRORS_ARE_FATAL);
    }
    /* The communicators hold their own references now. */
    if (gw)
        fm_group_release(gw);
    if (gs)
        fm_group_release(gs);
    if (rc != FM_OK)
        return rc;
    fab_comm_world.predefined = fab_comm_self.predefined = 1;
    strcpy(fab_comm_world.name, "MPI_COMM_WORLD");
    strcpy(fab_comm_self.name, "MPI_COMM_SELF");
    return FM_OK;
}
