/* comm_create.c — communicators with new membership: MPI_Comm_split,
 * MPI_Comm_split_type, MPI_Comm_create, MPI_Comm_create_group, and the
 * same paths for the topology constructors (fm_comm_split,
 * fm_comm_first_ranks).
 *
 * The sibling communicators one split makes are disjoint, so they all share
 * the one context id agreed over the parent: a process can only address
 * members of its own piece, so their messages never meet. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll/coll.h"
#include "mpi/api.h"

struct member {
    int key, rank; /* sort key, rank in the parent */
};

static int by_key_then_rank(const void *a, const void *b)
{
    const struct member *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Sort members, build their world-rank list, agree on a context over the
 * parent (every process of the parent calls this, n = 0 for those left
 * out), and build the communicator for those included. */
static int finish(const char *call, MPI_Comm parent, struct member *m, int n, MPI_Comm *newcomm)
{
    uint32_t ctx;
    int rc = fm_ctx_alloc(parent, &ctx);
    if (rc != FM_OK)
        return fm_ctx_raise(parent, call, rc);
    if (n == 0) {
        fm_ctx_free(ctx); /* taken in step with the others; not used here */
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    qsort(m, (size_t)n, sizeof(*m), by_key_then_rank);
    int *world = malloc((size_t)n * sizeof(int));
    struct fm_group *g = NULL;
    if (world) {
        for (int i = 0; i < n; i++)
            world[i] = parent->world[m[i].rank];
        g = fm_group_new(n, world);
        free(world);
    }
    if (!g) {
        fm_ctx_free(ctx);
        return fm_raise(parent, call, MPI_ERR_NO_MEM, "no memory for a group of %d", n);
    }
    MPI_Comm nc;
    rc = fm_comm_build(g, ctx, parent, &nc);
    fm_group_release(g);
    if (rc != FM_OK) {
        fm_ctx_free(ctx);
        return fm_raise_status(parent, call, rc);
    }
    if ((rc = fm_coll_comm_contexts(nc)) != FM_OK) {
        fm_comm_release(nc);
        return fm_raise_status(parent, call, rc);
    }
    *newcomm = nc;
    return MPI_SUCCESS;
}

int fm_comm_first_ranks(const char *call, MPI_Comm parent, int n, MPI_Comm *newcomm)
{
    struct member *m = malloc((size_t)(n ? n : 1) * sizeof(*m));
    if (!m)
        return fm_raise(parent, call, MPI_ERR_NO_MEM, "no memory for %d ranks", n);
    for (int i = 0; i < n; i++)
        m[i] = (struct member){i, i};
    int rc = finish(call, parent, m, parent->rank < n ? n : 0, newcomm);
    free(m);
    return rc;
}

#pragma weak MPI_Comm_split = PMPI_Comm_split
int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    FM_API_LOCK();
    const char *call = "MPI_Comm_split";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    if (!newcomm)
        return fm_raise(comm, call, MPI_ERR_ARG, "newcomm=NULL");
    if (color < 0 && color != MPI_UNDEFINED)
        return fm_raise(comm, call, MPI_ERR_ARG, "color=%d must be >= 0 or MPI_UNDEFINED",
                        color);
    if (fm_comm_is_inter(comm)) {
        int irc = fm_intercomm_split(comm, color, key, newcomm);
        return irc == FM_OK ? MPI_SUCCESS : fm_ctx_raise(comm, call, irc);
    }
    return fm_comm_split(call, comm, color, key, newcomm);
}

int fm_comm_split(const char *call, MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    int size = comm->size, mine[2] = {color, key};
    int *all = malloc((size_t)size * 2 * sizeof(int));
    struct member *m = malloc((size_t)size * sizeof(*m));
    if (!all || !m) {
        free(all);
        free(m);
        return fm_raise(comm, call, MPI_ERR_NO_MEM, "no memory for %d (color, key) pairs", size);
    }
    int rc = fm_coll_allgather(mine, 2, MPI_INT, all, 2, MPI_INT, comm);
    if (rc != FM_OK) {
        free(all);
        free(m);
        return fm_raise_status(comm, call, rc);
    }
    int n = 0;
    for (int i = 0; color != MPI_UNDEFINED && i < size; i++)
        if (all[2 * i] == color)
            m[n++] = (struct member){all[2 * i + 1], i};
    free(all);
    rc = finish(call, comm, m, n, newcomm);
    free(m);
    return rc;
}

/* What each process tells the others in MPI_Comm_split_type.  The host
 * name travels whole (Linux caps it at 64 bytes), so processes are
 * grouped by exact name, never by a hash that could collide. */
#define HOSTLEN 72
struct node_rec {
    int type, key;
    char host[HOSTLEN];
};

#pragma weak MPI_Comm_split_type = PMPI_Comm_split_type
int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                        MPI_Comm *newcomm)
{
    FM_API_LOCK();
    const char *call = "MPI_Comm_split_type";
    (void)info; /* no info keys are interpreted */
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    FM_CHECK_INTRA(call, comm);
    if (!newcomm)
        return fm_raise(comm, call, MPI_ERR_ARG, "newcomm=NULL");
    if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED)
        return fm_raise(comm, call, MPI_ERR_ARG,
                        "split_type=%d must be MPI_COMM_TYPE_SHARED or MPI_UNDEFINED",
                        split_type);
    struct node_rec me;
    memset(&me, 0, sizeof(me));
    me.type = split_type;
    me.key = key;
    if (gethostname(me.host, HOSTLEN - 1) != 0)
        strcpy(me.host, "localhost"); /* no name: treat as one node */
    int size = comm->size;
    struct node_rec *all = malloc((size_t)size * sizeof(*all));
    struct member *m = malloc((size_t)size * sizeof(*m));
    if (!all || !m) {
        free(all);
        free(m);
        return fm_raise(comm, call, MPI_ERR_NO_MEM, "no memory for %d host records", size);
    }
    int rc = fm_coll_allgather(&me, sizeof(me), MPI_BYTE, all, sizeof(me), MPI_BYTE, comm);
    if (rc != FM_OK) {
        free(all);
        free(m);
        return fm_raise_status(comm, call, rc);
    }
    int n = 0;
    for (int i = 0; split_type != MPI_UNDEFINED && i < size; i++)
        if (all[i].type == MPI_COMM_TYPE_SHARED && strcmp(all[i].host, me.host) == 0)
            m[n++] = (struct member){all[i].key, i};
    free(all);
    rc = finish(call, comm, m, n, newcomm);
    free(m);
    return rc;
}

/* Check group is a subset of comm's group; members[i] = comm rank of
 * group rank i.  Returns MPI_SUCCESS or the raised error. */
static int members_in(const char *call, MPI_Comm comm, MPI_Group group, int *members)
{
    if (!fm_group_valid(group))
        return fm_raise(comm, call, MPI_ERR_GROUP, "group=%s is not a valid group",
                        group == MPI_GROUP_NULL ? "MPI_GROUP_NULL" : "<invalid>");
    int n = group->size;
    int *ranks = malloc((size_t)(n ? n : 1) * sizeof(int));
    if (!ranks)
        return fm_raise(comm, call, MPI_ERR_NO_MEM, "no memory for %d ranks", n);
    for (int i = 0; i < n; i++)
        ranks[i] = i;
    int rc = fm_group_translate(group, n, ranks, comm->group, members, NULL);
    free(ranks);
    if (rc != FM_OK)
        return fm_raise_status(comm, call, rc);
    for (int i = 0; i < n; i++)
        if (members[i] == MPI_UNDEFINED)
            return fm_raise(comm, call, MPI_ERR_GROUP,
                            "group rank %d (world rank %d) is not in the communicator", i,
                            group->world[i]);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_create = PMPI_Comm_create
int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    FM_API_LOCK();
    const char *call = "MPI_Comm_create";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    if (!newcomm)
        return fm_raise(comm, call, MPI_ERR_ARG, "newcomm=NULL");
    if (fm_comm_is_inter(comm)) {
        /* group is a subgroup of the local group (MPI-3.1 6.4.2): the
         * members of each side's group, in its order, face each other. */
        if (!fm_group_valid(group))
            return fm_raise(comm, call, MPI_ERR_GROUP, "group is not a valid group");
        int r = group->rank, irc = FM_OK;
        for (int i = 0; i < group->size && irc == FM_OK; i++)
            if (fm_group_rank_of(comm->group, group->world[i]) == MPI_UNDEFINED)
                irc = FM_ERR_GROUP;
        if (irc != FM_OK)
            return fm_raise(comm, call, MPI_ERR_GROUP,
                            "group has a process that is not in the local group of %s",
                            fm_comm_label(comm));
        irc = fm_intercomm_split(comm, r == MPI_UNDEFINED ? MPI_UNDEFINED : 0, r, newcomm);
        return irc == FM_OK ? MPI_SUCCESS : fm_ctx_raise(comm, call, irc);
    }
    int n = fm_group_valid(group) ? group->size : 0;
    int *members = malloc((size_t)(n ? n : 1) * sizeof(int));
    struct member *m = malloc((size_t)(n ? n : 1) * sizeof(*m));
    if (!members || !m) {
        free(members);
        free(m);
        return fm_raise(comm, call, MPI_ERR_NO_MEM, "no memory for %d ranks", n);
    }
    int rc = members_in(call, comm, group, members);
    if (rc == MPI_SUCCESS) {
        /* Keys are group ranks, so the group's order is kept.  Processes
         * may pass different (disjoint) groups, as MPI-3 allows. */
        for (int i = 0; i < n; i++)
            m[i] = (struct member){i, members[i]};
        rc = finish(call, comm, m, group->rank == MPI_UNDEFINED ? 0 : n, newcomm);
    }
    free(members);
    free(m);
    return rc;
}

#pragma weak MPI_Comm_create_group = PMPI_Comm_create_group
int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    FM_API_LOCK();
    const char *call = "MPI_Comm_create_group";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    FM_CHECK_INTRA(call, comm);
    if (!newcomm)
        return fm_raise(comm, call, MPI_ERR_ARG, "newcomm=NULL");
    FM_CHECK_TAG(call, comm, tag, 0);
    int n = fm_group_valid(group) ? group->size : 0;
    int *members = malloc((size_t)(n ? n : 1) * sizeof(int));
    if (!members)
        return fm_raise(comm, call, MPI_ERR_NO_MEM, "no memory for %d ranks", n);
    int rc = members_in(call, comm, group, members);
    free(members);
    if (rc != MPI_SUCCESS)
        return rc;
    if (group->rank == MPI_UNDEFINED) {
        /* Only members call it; a non-member gets nothing and talks to no one. */
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    uint32_t ctx;
    rc = fm_ctx_alloc_group(comm, group, tag, &ctx);
    if (rc != FM_OK)
        return fm_ctx_raise(comm, call, rc);
    MPI_Comm nc;
    rc = fm_comm_build(group, ctx, comm, &nc);
    if (rc != FM_OK) {
        fm_ctx_free(ctx);
        return fm_raise_status(comm, call, rc);
    }
    if ((rc = fm_coll_comm_contexts(nc)) != FM_OK) {
        fm_comm_release(nc);
        return fm_raise_status(comm, call, rc);
    }
    *newcomm = nc;
    return MPI_SUCCESS;
}
