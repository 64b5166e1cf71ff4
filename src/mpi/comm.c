/* comm.c — communicator objects: the predefined MPI_COMM_WORLD and
 * MPI_COMM_SELF, building a communicator from a group and a context id,
 * and reference counting (requests in flight may hold a communicator past
 * MPI_Comm_free). */
#include <stdlib.h>
#include <string.h>

#include "coll/rma/coll_rma.h"
#include "mpi/api.h"

struct fm_comm fm_comm_world, fm_comm_self;

static void errh_retain(struct fm_errhandler *e)
{
    if (e)
        e->refcount++;
}

void fm_comm_errh_release(struct fm_errhandler *e)
{
    if (!e || e->predefined)
        return;
    if (--e->refcount == 0) {
        e->magic = 0;
        free(e);
    }
}

/* Fill the fields every communicator has, predefined or not. */
static int comm_setup(struct fm_comm *c, struct fm_group *group, uint32_t ctx,
                      struct fm_errhandler *errh)
{
    c->mq = fm_ctx_queue(ctx);
    c->mq_coll = fm_ctx_queue(ctx + 1);
    if (!c->mq || !c->mq_coll)
        return FM_ERR_NOMEM;
    c->magic = FM_MAGIC_COMM;
    c->refcount = 1;
    c->rank = group->rank;
    c->size = group->size;
    c->ctx = ctx;
    fm_group_retain(group);
    c->group = group;
    c->world = group->world;
    errh_retain(errh);
    c->errh = errh;
    c->attrs = NULL;
    return FM_OK;
}

int fm_comm_build(struct fm_group *group, uint32_t ctx, MPI_Comm parent, MPI_Comm *out)
{
    if (group->rank == MPI_UNDEFINED)
        return FM_ERR_GROUP; /* callers give non-members MPI_COMM_NULL instead */
    struct fm_comm *c = calloc(1, sizeof(*c));
    if (!c)
        return FM_ERR_NOMEM;
    int rc = comm_setup(c, group, ctx, parent ? parent->errh : MPI_ERRORS_ARE_FATAL);
    if (rc != FM_OK) {
        free(c);
        return rc;
    }
    *out = c;
    return FM_OK;
}

void fm_comm_destroy(MPI_Comm comm)
{
    /* Normally MPI_Comm_free already ran the delete callbacks; this catches
     * a communicator released some other way.  Errors have no one to go to. */
    fm_attr_delete_all(comm);
    fm_coll_rma_free(comm);
    fm_ctx_free(comm->ctx);
    fm_group_release(comm->group);
    fm_comm_errh_release(comm->errh);
    comm->magic = 0;
    if (comm->predefined)
        return;
    /* Inlined into the finalize path, GCC cannot see that the predefined
     * communicators never get here and warns about freeing them. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wfree-nonheap-object"
    free(comm);
#pragma GCC diagnostic pop
}

int fm_comm_init(int world_rank, int world_size)
{
    fm_ctx_init();
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
        rc = comm_setup(&fm_comm_world, gw, 0, MPI_ERRORS_ARE_FATAL);
        if (rc == FM_OK)
            rc = comm_setup(&fm_comm_self, gs, 2, MPI_ERRORS_ARE_FATAL);
    }
    /* The communicators hold their own references now. */
    if (gw)
        fm_group_release(gw);
    if (gs)
        fm_group_release(gs);
    if (rc != FM_OK)
        return rc;
    fm_comm_world.predefined = fm_comm_self.predefined = 1;
    strcpy(fm_comm_world.name, "MPI_COMM_WORLD");
    strcpy(fm_comm_self.name, "MPI_COMM_SELF");
    return FM_OK;
}

void fm_comm_finalize(void)
{
    /* MPI-3.1 8.7.1: attributes of MPI_COMM_SELF go first, so libraries can
     * hook MPI_Finalize through a delete callback while MPI still works. */
    if (fm_comm_valid(MPI_COMM_SELF)) {
        fm_attr_delete_all(MPI_COMM_SELF);
        fm_comm_release(MPI_COMM_SELF);
    }
    if (fm_comm_valid(MPI_COMM_WORLD)) {
        fm_attr_delete_all(MPI_COMM_WORLD);
        fm_comm_release(MPI_COMM_WORLD);
    }
    fm_attr_finalize();
    fm_ctx_finalize();
}
