/* group_api.c — MPI_Group_* entry points: argument checks, then the
 * operations of group.c.  Groups are local objects, so errors go to
 * MPI_COMM_WORLD's handler (fm_raise with MPI_COMM_NULL). */
#include <string.h>

#include "mpi/api.h"

#define CHECK_GROUP(call, g, what)                                                     \
    do {                                                                               \
        if (!fm_group_valid(g))                                                        \
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_GROUP,                        \
                            "%s=%s is not a valid group", what,                        \
                            (g) == MPI_GROUP_NULL ? "MPI_GROUP_NULL" : "<invalid>");   \
    } while (0)
#define CHECK_PTR(call, p, what)                                                       \
    do {                                                                               \
        if (!(p))                                                                      \
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "%s=NULL", what);        \
    } while (0)

/* Raise status rc with the detail group.c wrote, or the status message. */
static int raise_why(const char *call, int rc, const char *why)
{
    return fm_raise(MPI_COMM_NULL, call, fm_status_to_mpi_class(rc), "%s",
                    why[0] ? why : fm_status_msg(rc));
}

#pragma weak MPI_Group_size = PMPI_Group_size
int PMPI_Group_size(MPI_Group group, int *size)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Group_size");
    CHECK_GROUP("MPI_Group_size", group, "group");
    CHECK_PTR("MPI_Group_size", size, "size");
    *size = group->size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_rank = PMPI_Group_rank
int PMPI_Group_rank(MPI_Group group, int *rank)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Group_rank");
    CHECK_GROUP("MPI_Group_rank", group, "group");
    CHECK_PTR("MPI_Group_rank", rank, "rank");
    *rank = group->rank;
    return MPI_SUCCESS;
}

/* incl / excl share everything but the operation. */
static int incl_excl(const char *call, MPI_Group group, int n, const int ranks[],
                     MPI_Group *newgroup, int excl)
{
    FM_CHECK_INIT(call);
    CHECK_GROUP(call, group, "group");
    CHECK_PTR(call, newgroup, "newgroup");
    char why[FM_WHY_LEN] = "";
    int rc = excl ? fm_group_excl(group, n, ranks, newgroup, why)
                  : fm_group_incl(group, n, ranks, newgroup, why);
    return rc == FM_OK ? MPI_SUCCESS : raise_why(call, rc, why);
}

#pragma weak MPI_Group_incl = PMPI_Group_incl
int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    FM_API_LOCK();
    return incl_excl("MPI_Group_incl", group, n, ranks, newgroup, 0);
}

#pragma weak MPI_Group_excl = PMPI_Group_excl
int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    FM_API_LOCK();
    return incl_excl("MPI_Group_excl", group, n, ranks, newgroup, 1);
}

static int range(const char *call, MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup,
                 int excl)
{
    FM_CHECK_INIT(call);
    CHECK_GROUP(call, group, "group");
    CHECK_PTR(call, newgroup, "newgroup");
    char why[FM_WHY_LEN] = "";
    int rc = fm_group_range(group, n, ranges, excl, newgroup, why);
    return rc == FM_OK ? MPI_SUCCESS : raise_why(call, rc, why);
}

#pragma weak MPI_Group_range_incl = PMPI_Group_range_incl
int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    FM_API_LOCK();
    return range("MPI_Group_range_incl", group, n, ranges, newgroup, 0);
}

#pragma weak MPI_Group_range_excl = PMPI_Group_range_excl
int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    FM_API_LOCK();
    return range("MPI_Group_range_excl", group, n, ranges, newgroup, 1);
}

static int set_op(const char *call, MPI_Group a, MPI_Group b, MPI_Group *newgroup,
                  int (*op)(struct fm_group *, struct fm_group *, struct fm_group **))
{
    FM_CHECK_INIT(call);
    CHECK_GROUP(call, a, "group1");
    CHECK_GROUP(call, b, "group2");
    CHECK_PTR(call, newgroup, "newgroup");
    int rc = op(a, b, newgroup);
    return rc == FM_OK ? MPI_SUCCESS : fm_raise_status(MPI_COMM_NULL, call, rc);
}

#pragma weak MPI_Group_union = PMPI_Group_union
int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    FM_API_LOCK();
    return set_op("MPI_Group_union", group1, group2, newgroup, fm_group_union);
}

#pragma weak MPI_Group_intersection = PMPI_Group_intersection
int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    FM_API_LOCK();
    return set_op("MPI_Group_intersection", group1, group2, newgroup, fm_group_intersection);
}

#pragma weak MPI_Group_difference = PMPI_Group_difference
int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    FM_API_LOCK();
    return set_op("MPI_Group_difference", group1, group2, newgroup, fm_group_difference);
}

#pragma weak MPI_Group_compare = PMPI_Group_compare
int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Group_compare");
    CHECK_GROUP("MPI_Group_compare", group1, "group1");
    CHECK_GROUP("MPI_Group_compare", group2, "group2");
    CHECK_PTR("MPI_Group_compare", result, "result");
    *result = fm_group_compare(group1, group2);
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_translate_ranks = PMPI_Group_translate_ranks
int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                              int ranks2[])
{
    FM_API_LOCK();
    const char *call = "MPI_Group_translate_ranks";
    FM_CHECK_INIT(call);
    CHECK_GROUP(call, group1, "group1");
    CHECK_GROUP(call, group2, "group2");
    char why[FM_WHY_LEN] = "";
    int rc = fm_group_translate(group1, n, ranks1, group2, ranks2, why);
    return rc == FM_OK ? MPI_SUCCESS : raise_why(call, rc, why);
}

#pragma weak MPI_Group_free = PMPI_Group_free
int PMPI_Group_free(MPI_Group *group)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Group_free");
    CHECK_PTR("MPI_Group_free", group, "group");
    CHECK_GROUP("MPI_Group_free", *group, "*group");
    /* Freeing MPI_GROUP_EMPTY (also what empty results are) is accepted:
     * predefined groups ignore the release, the handle still becomes NULL. */
    fm_group_release(*group);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}
