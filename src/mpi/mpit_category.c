/* mpit_category.c — MPI_T categories (util/category.h): one per layer,
 * holding the control variables whose knob names it, the performance
 * variables counted there and the events raised there (util/event.h); shm and ofi sit inside net.  The set never
 * changes while a program runs, so MPI_T_category_changed always answers
 * the same number. */
#include <string.h>

#include "core/cs.h"
#include "mpi/mpit.h"
#include "util/category.h"
#include "util/event.h"
#include "util/param.h"

struct category {
    const char *name;
    int parent; /* FM_CAT_top: none */
    const char *desc;
};

#define FM_CATEGORY_ROW(name, parent, desc) {#name, FM_CAT_##parent, desc},
static const struct category cats[] = {FM_CATEGORIES(FM_CATEGORY_ROW)};
#undef FM_CATEGORY_ROW

enum member { CVARS, PVARS, EVENTS, SUBCATEGORIES };

/* Fill indices[0..len) with the first len members of category c of a
 * kind; returns how many there are in all. */
static int members(int c, enum member kind, int len, int *indices)
{
    int n = 0, total = kind == CVARS    ? fm_param_count()
                       : kind == PVARS  ? fm_mpit_pvar_count()
                       : kind == EVENTS ? FM_NEVENTS
                                        : FM_NCATEGORIES;
    for (int i = 0; i < total; i++) {
        int of = kind == CVARS ? (int)fm_param_desc(i)->category
                 : kind == PVARS  ? fm_mpit_pvar_category(i)
                 : kind == EVENTS ? fm_mpit_event_category(i)
                                  : cats[i].parent;
        if (of != c)
            continue;
        if (indices && n < len)
            indices[n] = i;
        n++;
    }
    return n;
}

#pragma weak MPI_T_category_get_num = PMPI_T_category_get_num
int PMPI_T_category_get_num(int *num_cat)
{
    FM_API_LOCK();
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (!num_cat)
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    *num_cat = FM_NCATEGORIES;
    return fm_mpit_leave(MPI_SUCCESS);
}

#pragma weak MPI_T_category_get_info = PMPI_T_category_get_info
int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                             int *num_cvars, int *num_pvars, int *num_categories)
{
    FM_API_LOCK();
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (cat_index < 0 || cat_index >= FM_NCATEGORIES)
        return fm_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    fm_mpit_string(cats[cat_index].name, name, name_len);
    fm_mpit_string(cats[cat_index].desc, desc, desc_len);
    if (num_cvars)
        *num_cvars = members(cat_index, CVARS, 0, NULL);
    if (num_pvars)
        *num_pvars = members(cat_index, PVARS, 0, NULL);
    if (num_categories)
        *num_categories = members(cat_index, SUBCATEGORIES, 0, NULL);
    return fm_mpit_leave(MPI_SUCCESS);
}

#pragma weak MPI_T_category_get_index = PMPI_T_category_get_index
int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    FM_API_LOCK();
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (!name || !cat_index)
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    for (int i = 0; i < FM_NCATEGORIES; i++)
        if (!strcmp(cats[i].name, name)) {
            *cat_index = i;
            return fm_mpit_leave(MPI_SUCCESS);
        }
    return fm_mpit_leave(MPI_T_ERR_INVALID_NAME);
}

static int get_members(int cat_index, enum member kind, int len, int indices[])
{
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (cat_index < 0 || cat_index >= FM_NCATEGORIES)
        return fm_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    if (len < 0 || (len > 0 && !indices))
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    members(cat_index, kind, len, indices);
    return fm_mpit_leave(MPI_SUCCESS);
}

#pragma weak MPI_T_category_get_cvars = PMPI_T_category_get_cvars
int PMPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    FM_API_LOCK();
    return get_members(cat_index, CVARS, len, indices);
}

#pragma weak MPI_T_category_get_pvars = PMPI_T_category_get_pvars
int PMPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    FM_API_LOCK();
    return get_members(cat_index, PVARS, len, indices);
}

#pragma weak MPI_T_category_get_events = PMPI_T_category_get_events
int PMPI_T_category_get_events(int cat_index, int len, int indices[])
{
    FM_API_LOCK();
    return get_members(cat_index, EVENTS, len, indices);
}

#pragma weak MPI_T_category_get_num_events = PMPI_T_category_get_num_events
int PMPI_T_category_get_num_events(int cat_index, int *num_events)
{
    FM_API_LOCK();
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (cat_index < 0 || cat_index >= FM_NCATEGORIES)
        return fm_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    if (!num_events)
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    *num_events = members(cat_index, EVENTS, 0, NULL);
    return fm_mpit_leave(MPI_SUCCESS);
}

#pragma weak MPI_T_category_get_categories = PMPI_T_category_get_categories
int PMPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    FM_API_LOCK();
    return get_members(cat_index, SUBCATEGORIES, len, indices);
}

#pragma weak MPI_T_category_changed = PMPI_T_category_changed
int PMPI_T_category_changed(int *update_number)
{
    FM_API_LOCK();
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (!update_number)
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    *update_number = 0;
    return fm_mpit_leave(MPI_SUCCESS);
}
