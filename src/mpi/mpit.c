/* mpit.c — the MPI_T interface's life (MPI_T_init_thread, MPI_T_finalize),
 * its lock, and the enumerations of ENUM knobs (MPI_T_enum_*). */
#include <stdio.h>
#include <string.h>

#include "core/cs.h"
#include "mpi/mpit.h"
#include "util/event.h"
#include "util/param.h"

static int refs; /* MPI_T_init_thread calls not yet finalized */

int fm_mpit_enter(void)
{
    pthread_mutex_lock(&fm_tools_lock);
    if (refs)
        return MPI_SUCCESS;
    pthread_mutex_unlock(&fm_tools_lock);
    return MPI_T_ERR_NOT_INITIALIZED;
}

int fm_mpit_leave(int rc)
{
    pthread_mutex_unlock(&fm_tools_lock);
    return rc;
}

void fm_mpit_string(const char *s, char *buf, int *len)
{
    if (!len)
        return;
    size_t n = strlen(s);
    if (buf && *len > 0) {
        size_t k = n < (size_t)*len - 1 ? n : (size_t)*len - 1;
        memcpy(buf, s, k);
        buf[k] = '\0';
    }
    *len = (int)n + 1;
}

#pragma weak MPI_T_init_thread = PMPI_T_init_thread
int PMPI_T_init_thread(int required, int *provided)
{
    FM_API_LOCK();
    pthread_mutex_lock(&fm_tools_lock);
    /* The knobs are the control variables: read them now if MPI_Init has
     * not (it then keeps them, and what MPI_T wrote meanwhile). */
    if (!refs && fm_param_load(NULL, 0) != 0) {
        pthread_mutex_unlock(&fm_tools_lock);
        return MPI_T_ERR_CANNOT_INIT; /* a bad FABMPI_* value: MPI_Init says which */
    }
    refs++;
    /* Every MPI_T procedure takes the lock, so any level is honest. */
    if (provided)
        *provided = required < MPI_THREAD_SINGLE     ? MPI_THREAD_SINGLE
                    : required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE
                                                     : required;
    pthread_mutex_unlock(&fm_tools_lock);
    return MPI_SUCCESS;
}

#pragma weak MPI_T_finalize = PMPI_T_finalize
int PMPI_T_finalize(void)
{
    FM_API_LOCK();
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (--refs == 0) {
        fm_mpit_cvar_release_all();
        fm_mpit_pvar_release_all();
        fm_event_release_all();
    }
    return fm_mpit_leave(MPI_SUCCESS);
}

/* ---- enumerations: one per ENUM knob, its items the names it accepts ---- */

#define FM_COUNT_ONE(...) +1
enum { NKNOBS = 0 FM_PARAMS(FM_COUNT_ONE) };
#undef FM_COUNT_ONE

struct fm_mpit_enum {
    int knob;
};
static struct fm_mpit_enum enums[NKNOBS];

MPI_T_enum fm_mpit_enum_of(int knob)
{
    const struct fm_param_desc *d = fm_param_desc(knob);
    if (!d || d->type != FM_PARAM_ENUM)
        return MPI_T_ENUM_NULL;
    enums[knob].knob = knob;
    return &enums[knob];
}

/* The knob behind e, or NULL when e is not one of ours. */
static const struct fm_param_desc *enum_knob(MPI_T_enum e)
{
    if (e < enums || e >= enums + NKNOBS)
        return NULL;
    const struct fm_param_desc *d = fm_param_desc((int)(e - enums));
    return d && d->type == FM_PARAM_ENUM ? d : NULL;
}

#pragma weak MPI_T_enum_get_info = PMPI_T_enum_get_info
int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    FM_API_LOCK();
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    const struct fm_param_desc *d = enum_knob(enumtype);
    if (!d)
        return fm_mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    if (!num)
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    char full[96];
    snprintf(full, sizeof full, "FABMPI_%s", d->name);
    *num = fm_param_enum_count(d);
    fm_mpit_string(full, name, name_len);
    return fm_mpit_leave(MPI_SUCCESS);
}

#pragma weak MPI_T_enum_get_item = PMPI_T_enum_get_item
int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len)
{
    FM_API_LOCK();
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    const struct fm_param_desc *d = enum_knob(enumtype);
    if (!d)
        return fm_mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    char item[64];
    if (fm_param_enum_name(d, index, item, sizeof item) < 0)
        return fm_mpit_leave(MPI_T_ERR_INVALID_ITEM);
    if (!value)
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    *value = index; /* the knob's value is the item's index (param.h) */
    fm_mpit_string(item, name, name_len);
    return fm_mpit_leave(MPI_SUCCESS);
}
