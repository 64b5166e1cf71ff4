/* mpit_cvar.c — MPI_T control variables: the rows of the knob table
 * (util/param.h), one each, same order, named as the environment variable
 * ("FABMPI_EAGER_LIMIT").
 *
 * Types: INT knobs are MPI_INT (every range fits), SIZE MPI_UNSIGNED_LONG
 * (size_t), BOOL MPI_INT 0/1, ENUM MPI_INT holding an item's index with
 * an MPI_T_enum of the accepted names, STR MPI_CHAR.  None is bound to an
 * object.  Writes are checked as an environment value is; the SET column
 * says when one is allowed:
 *   FIXED  never (MPI_T_ERR_CVAR_SET_NEVER): set by mpiexec, or read by it
 *   INIT   until MPI_Init, which uses the value; afterwards SET_NEVER
 *          (MPI cannot be initialized again)
 *   LIVE   any time.  Code that reads the knob per call sees it at once;
 *          the eager limits, which pt2pt copies per peer at MPI_Init, are
 *          copied again (fm_pt2pt_retune). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/api.h"
#include "mpi/mpit.h"
#include "pt2pt/pt2pt.h"
#include "util/param.h"

_Static_assert(sizeof(size_t) == sizeof(unsigned long), "SIZE knobs are MPI_UNSIGNED_LONG");

#define FM_MAGIC_CVAR_HANDLE 0x43564152u /* "CVAR" */

/* Bytes a string knob's handle reads and writes at least (count). */
#define STR_MIN_COUNT 256

struct fm_mpit_cvar_handle {
    unsigned magic;
    int knob;
    int count;
    struct fm_mpit_cvar_handle *next; /* every live handle */
};

static struct fm_mpit_cvar_handle *handles;

static int handle_ok(MPI_T_cvar_handle h)
{
    for (struct fm_mpit_cvar_handle *p = handles; p; p = p->next)
        if (p == h)
            return h->magic == FM_MAGIC_CVAR_HANDLE;
    return 0;
}

void fm_mpit_cvar_release_all(void)
{
    while (handles) {
        struct fm_mpit_cvar_handle *h = handles;
        handles = h->next;
        h->magic = 0;
        free(h);
    }
}

static MPI_Datatype type_of(const struct fm_param_desc *d)
{
    switch (d->type) {
    case FM_PARAM_SIZE: return MPI_UNSIGNED_LONG;
    case FM_PARAM_STR: return MPI_CHAR;
    default: return MPI_INT;
    }
}

static int verbosity_of(enum fm_param_verbosity v) { return MPI_T_VERBOSITY_USER_BASIC + (int)v; }

static int scope_of(enum fm_param_scope s)
{
    switch (s) {
    case FM_SCOPE_LOCAL: return MPI_T_SCOPE_LOCAL;
    case FM_SCOPE_ALL_EQ: return MPI_T_SCOPE_ALL_EQ;
    default: return MPI_T_SCOPE_CONSTANT;
    }
}

#pragma weak MPI_T_cvar_get_num = PMPI_T_cvar_get_num
int PMPI_T_cvar_get_num(int *num_cvar)
{
    FM_API_LOCK();
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (!num_cvar)
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    *num_cvar = fm_param_count();
    return fm_mpit_leave(MPI_SUCCESS);
}

#pragma weak MPI_T_cvar_get_info = PMPI_T_cvar_get_info
int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *scope)
{
    FM_API_LOCK();
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    const struct fm_param_desc *d = fm_param_desc(cvar_index);
    if (!d)
        return fm_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    char full[96];
    snprintf(full, sizeof full, "FABMPI_%s", d->name);
    fm_mpit_string(full, name, name_len);
    fm_mpit_string(d->doc, desc, desc_len);
    if (verbosity)
        *verbosity = verbosity_of(d->verbosity);
    if (datatype)
        *datatype = type_of(d);
    if (enumtype)
        *enumtype = fm_mpit_enum_of(cvar_index);
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (scope)
        *scope = scope_of(d->scope);
    return fm_mpit_leave(MPI_SUCCESS);
}

#pragma weak MPI_T_cvar_get_index = PMPI_T_cvar_get_index
int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    FM_API_LOCK();
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (!name || !cvar_index)
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    if (!strncmp(name, "FABMPI_", 7))
        for (int i = 0; i < fm_param_count(); i++)
            if (!strcmp(fm_param_desc(i)->name, name + 7)) {
                *cvar_index = i;
                return fm_mpit_leave(MPI_SUCCESS);
            }
    return fm_mpit_leave(MPI_T_ERR_INVALID_NAME);
}

#pragma weak MPI_T_cvar_handle_alloc = PMPI_T_cvar_handle_alloc
int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                             int *count)
{
    FM_API_LOCK();
    (void)obj_handle; /* no knob is bound to an object */
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    const struct fm_param_desc *d = fm_param_desc(cvar_index);
    if (!d)
        return fm_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    if (!handle || !count)
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    struct fm_mpit_cvar_handle *h = calloc(1, sizeof *h);
    if (!h)
        return fm_mpit_leave(MPI_T_ERR_MEMORY);
    h->magic = FM_MAGIC_CVAR_HANDLE;
    h->knob = cvar_index;
    h->count = 1;
    if (d->type == FM_PARAM_STR) {
        size_t n = strlen(*(const char *const *)d->field) + 1;
        h->count = n > STR_MIN_COUNT ? (int)n : STR_MIN_COUNT;
    }
    h->next = handles;
    handles = h;
    *handle = h;
    *count = h->count;
    return fm_mpit_leave(MPI_SUCCESS);
}

#pragma weak MPI_T_cvar_handle_free = PMPI_T_cvar_handle_free
int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    FM_API_LOCK();
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (!handle || !handle_ok(*handle))
        return fm_mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    for (struct fm_mpit_cvar_handle **p = &handles; *p; p = &(*p)->next)
        if (*p == *handle) {
            *p = (*handle)->next;
            break;
        }
    (*handle)->magic = 0;
    free(*handle);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return fm_mpit_leave(MPI_SUCCESS);
}

#pragma weak MPI_T_cvar_read = PMPI_T_cvar_read
int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    FM_API_LOCK();
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (!handle_ok(handle))
        return fm_mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    if (!buf)
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    const struct fm_param_desc *d = fm_param_desc(handle->knob);
    switch (d->type) {
    case FM_PARAM_INT: *(int *)buf = (int)*(const long *)d->field; break;
    case FM_PARAM_SIZE: *(unsigned long *)buf = *(const size_t *)d->field; break;
    case FM_PARAM_BOOL:
    case FM_PARAM_ENUM: *(int *)buf = *(const int *)d->field; break;
    case FM_PARAM_STR: {
        const char *s = *(const char *const *)d->field;
        size_t n = strlen(s), cap = (size_t)handle->count - 1;
        memcpy(buf, s, n < cap ? n : cap);
        ((char *)buf)[n < cap ? n : cap] = '\0';
        break;
    }
    }
    return fm_mpit_leave(MPI_SUCCESS);
}

#pragma weak MPI_T_cvar_write = PMPI_T_cvar_write
int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    FM_API_LOCK();
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (!handle_ok(handle))
        return fm_mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    if (!buf)
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    const struct fm_param_desc *d = fm_param_desc(handle->knob);
    if (d->set == FM_SET_FIXED || (d->set == FM_SET_INIT && fm_mpi_state != 0))
        return fm_mpit_leave(MPI_T_ERR_CVAR_SET_NEVER);
    char err[256];
    switch (d->type) {
    case FM_PARAM_SIZE: {
        unsigned long v = *(const unsigned long *)buf;
        rc = v > LLONG_MAX ? FM_ERR_ARG : fm_param_set_number(handle->knob, (long long)v, err, sizeof err);
        break;
    }
    case FM_PARAM_STR:
        if (strnlen(buf, (size_t)handle->count) == (size_t)handle->count)
            return fm_mpit_leave(MPI_T_ERR_INVALID); /* no terminator within count */
        rc = fm_param_set_string(handle->knob, buf, err, sizeof err);
        break;
    default:
        rc = fm_param_set_number(handle->knob, *(const int *)buf, err, sizeof err);
        break;
    }
    if (rc != FM_OK)
        return fm_mpit_leave(rc == FM_ERR_NOMEM ? MPI_T_ERR_MEMORY : MPI_T_ERR_INVALID);
    /* A LIVE knob copied somewhere at MPI_Init: copy it again. */
    if (d->set == FM_SET_LIVE && fm_mpi_state == 1)
        fm_pt2pt_retune();
    return fm_mpit_leave(MPI_SUCCESS);
}
