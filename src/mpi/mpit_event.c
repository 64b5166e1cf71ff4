/* mpit_event.c — MPI_T events and their source (MPI-4.0 section 15.3.8):
 * the events util/event.h lists, their elements, registrations and the
 * reading of an event inside its callback.  util/event.c keeps the
 * registrations and tells the events.
 *
 * One source, index 0: the time-stamp counter (fm_pv_ticks), ordered,
 * because every event is told synchronously under the tools lock.  Hints
 * given in info arguments are accepted and none is used, so the *_get_info
 * procedures return an empty info. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/comm.h"
#include "core/cs.h"
#include "mpi/api.h"
#include "mpi/info.h"
#include "mpi/mpit.h"
#include "util/category.h"
#include "util/event.h"
#include "util/pvar.h"

struct element {
    const char *name;
    MPI_Datatype type;
    size_t size;
    MPI_Aint disp;
};

#define MAX_ELEMENTS 3
struct event_desc {
    const char *name;
    int category;
    int bind;
    const char *desc;
    int verbosity;
    size_t size; /* of its struct fm_ev_<name>: what MPI_T_event_copy writes */
    int nelem;
    struct element el[MAX_ELEMENTS];
};

#define EL(ev, field, mpitype, ctype) {#field, mpitype, sizeof(ctype), offsetof(struct fm_ev_##ev, field)}

static const struct event_desc *desc_of(int i)
{
    static struct event_desc events[FM_NEVENTS];
    static int filled;
    if (!filled) { /* MPI datatypes are addresses: filled at run time */
#define BIND_COMM MPI_T_BIND_MPI_COMM
#define BIND_NO_OBJECT MPI_T_BIND_NO_OBJECT
#define FM_EVENT_ROW(n, cat, b, d)                                                            \
    events[FM_EV_##n] = (struct event_desc){                                                  \
        .name = #n, .category = FM_CAT_##cat, .bind = BIND_##b, .desc = d,                    \
        .size = sizeof(struct fm_ev_##n)};
        FM_EVENTS(FM_EVENT_ROW)
#undef BIND_COMM
#undef BIND_NO_OBJECT
#undef FM_EVENT_ROW
        struct event_desc *e = &events[FM_EV_pt2pt_unexpected];
        e->verbosity = MPI_T_VERBOSITY_TUNER_BASIC;
        e->nelem = 3;
        e->el[0] = (struct element)EL(pt2pt_unexpected, source, MPI_INT, int);
        e->el[1] = (struct element)EL(pt2pt_unexpected, tag, MPI_INT, int);
        e->el[2] = (struct element)EL(pt2pt_unexpected, bytes, MPI_COUNT, long long);
        e = &events[FM_EV_pt2pt_send_parked];
        e->verbosity = MPI_T_VERBOSITY_TUNER_BASIC;
        e->nelem = 2;
        e->el[0] = (struct element)EL(pt2pt_send_parked, peer, MPI_INT, int);
        e->el[1] = (struct element)EL(pt2pt_send_parked, bytes, MPI_COUNT, long long);
        e = &events[FM_EV_error_raised];
        e->verbosity = MPI_T_VERBOSITY_USER_BASIC;
        e->nelem = 2;
        e->el[0] = (struct element)EL(error_raised, code, MPI_INT, int);
        e->el[1] = (struct element)EL(error_raised, errclass, MPI_INT, int);
        filled = 1;
    }
    return &events[i];
}

int fm_mpit_event_category(int i) { return desc_of(i)->category; }

#pragma weak MPI_T_event_get_num = PMPI_T_event_get_num
int PMPI_T_event_get_num(int *num_events)
{
    FM_API_LOCK();
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (!num_events)
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    *num_events = FM_NEVENTS;
    return fm_mpit_leave(MPI_SUCCESS);
}

/* A new empty info into *info (NULL: not wanted); 0 or MPI_T_ERR_MEMORY. */
static int empty_info(MPI_Info *info)
{
    if (info && fm_info_copy(MPI_INFO_NULL, info) != 0)
        return MPI_T_ERR_MEMORY;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_event_get_info = PMPI_T_event_get_info
int PMPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                          MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                          int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                          int *desc_len, int *bind)
{
    FM_API_LOCK();
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (event_index < 0 || event_index >= FM_NEVENTS)
        return fm_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    const struct event_desc *e = desc_of(event_index);
    if (num_elements) {
        /* In: the arrays' length; out: the event's number of elements. */
        int room = *num_elements;
        if (room > 0 && (!array_of_datatypes || !array_of_displacements))
            return fm_mpit_leave(MPI_T_ERR_INVALID);
        for (int i = 0; i < e->nelem && i < room; i++) {
            array_of_datatypes[i] = e->el[i].type;
            array_of_displacements[i] = e->el[i].disp;
        }
        *num_elements = e->nelem;
    }
    /* The description ends with the elements, in order. */
    char full[1024];
    int n = snprintf(full, sizeof full, "%s. Elements:", e->desc);
    for (int i = 0; i < e->nelem && n > 0 && (size_t)n < sizeof full; i++)
        n += snprintf(full + n, sizeof full - (size_t)n, "%s %s (%s)", i ? "," : "", e->el[i].name,
                      e->el[i].type == MPI_INT ? "MPI_INT" : "MPI_COUNT");
    if ((rc = empty_info(info)) != MPI_SUCCESS)
        return fm_mpit_leave(rc);
    fm_mpit_string(e->name, name, name_len);
    fm_mpit_string(full, desc, desc_len);
    if (verbosity)
        *verbosity = e->verbosity;
    if (enumtype)
        *enumtype = MPI_T_ENUM_NULL;
    if (bind)
        *bind = e->bind;
    return fm_mpit_leave(MPI_SUCCESS);
}

#pragma weak MPI_T_event_get_index = PMPI_T_event_get_index
int PMPI_T_event_get_index(const char *name, int *event_index)
{
    FM_API_LOCK();
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (!name || !event_index)
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    for (int i = 0; i < FM_NEVENTS; i++)
        if (!strcmp(desc_of(i)->name, name)) {
            *event_index = i;
            return fm_mpit_leave(MPI_SUCCESS);
        }
    return fm_mpit_leave(MPI_T_ERR_INVALID_NAME);
}

/* A freed communicator's context may come back for another: its
 * registrations stop hearing anything. */
static void comm_destroyed(MPI_Comm comm)
{
    pthread_mutex_lock(&fm_tools_lock);
    fm_event_unbind_ctx(comm->ctx);
    pthread_mutex_unlock(&fm_tools_lock);
}

static int info_ok(MPI_Info info) { return info == MPI_INFO_NULL || fm_info_valid(info); }

#pragma weak MPI_T_event_handle_alloc = PMPI_T_event_handle_alloc
int PMPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                              MPI_T_event_registration *event_registration)
{
    FM_API_LOCK();
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (event_index < 0 || event_index >= FM_NEVENTS)
        return fm_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    if (!event_registration || !info_ok(info))
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    int bound = desc_of(event_index)->bind == MPI_T_BIND_MPI_COMM;
    uint32_t ctx = 0;
    if (bound) {
        if (fm_mpi_state != 1 || !obj_handle || !fm_comm_valid(*(MPI_Comm *)obj_handle))
            return fm_mpit_leave(MPI_T_ERR_INVALID);
        ctx = (*(MPI_Comm *)obj_handle)->ctx;
        fm_comm_on_destroy(comm_destroyed);
    }
    struct fm_event_registration *r = fm_event_reg_new((enum fm_event)event_index, bound, ctx);
    if (!r)
        return fm_mpit_leave(MPI_T_ERR_MEMORY);
    *event_registration = r;
    return fm_mpit_leave(MPI_SUCCESS);
}

/* Enter and check the registration; its event or an MPI_T error class
 * (negative: the lock is not held). */
static int enter_reg(MPI_T_event_registration reg)
{
    int rc = fm_mpit_enter();
    if (rc)
        return -rc;
    if (fm_event_reg_event(reg) < 0) {
        fm_mpit_leave(0);
        return -MPI_T_ERR_INVALID_HANDLE;
    }
    return 0;
}

#pragma weak MPI_T_event_handle_set_info = PMPI_T_event_handle_set_info
int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info)
{
    FM_API_LOCK();
    int rc = enter_reg(event_registration);
    if (rc < 0)
        return -rc;
    return fm_mpit_leave(info_ok(info) ? MPI_SUCCESS : MPI_T_ERR_INVALID);
}

#pragma weak MPI_T_event_handle_get_info = PMPI_T_event_handle_get_info
int PMPI_T_event_handle_get_info(MPI_T_event_registration event_registration, MPI_Info *info_used)
{
    FM_API_LOCK();
    int rc = enter_reg(event_registration);
    if (rc < 0)
        return -rc;
    if (!info_used)
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    return fm_mpit_leave(empty_info(info_used));
}

static int level_ok(MPI_T_cb_safety s)
{
    return (int)s >= MPI_T_CB_REQUIRE_NONE && (int)s <= MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE;
}

#pragma weak MPI_T_event_register_callback = PMPI_T_event_register_callback
int PMPI_T_event_register_callback(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
                                   MPI_T_event_cb_function *event_cb_function)
{
    FM_API_LOCK();
    int rc = enter_reg(event_registration);
    if (rc < 0)
        return -rc;
    if (!level_ok(cb_safety) || !info_ok(info))
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    /* NULL removes the level's callback. */
    fm_event_reg_set_callback(event_registration, (int)cb_safety, (void *)event_cb_function,
                              user_data);
    return fm_mpit_leave(MPI_SUCCESS);
}

#pragma weak MPI_T_event_callback_set_info = PMPI_T_event_callback_set_info
int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info)
{
    FM_API_LOCK();
    int rc = enter_reg(event_registration);
    if (rc < 0)
        return -rc;
    if (!level_ok(cb_safety) || !info_ok(info) ||
        !fm_event_reg_has_callback(event_registration, (int)cb_safety))
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    return fm_mpit_leave(MPI_SUCCESS);
}

#pragma weak MPI_T_event_callback_get_info = PMPI_T_event_callback_get_info
int PMPI_T_event_callback_get_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info *info_used)
{
    FM_API_LOCK();
    int rc = enter_reg(event_registration);
    if (rc < 0)
        return -rc;
    if (!level_ok(cb_safety) || !info_used ||
        !fm_event_reg_has_callback(event_registration, (int)cb_safety))
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    return fm_mpit_leave(empty_info(info_used));
}

#pragma weak MPI_T_event_set_dropped_handler = PMPI_T_event_set_dropped_handler
int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                     MPI_T_event_dropped_cb_function *dropped_cb_function)
{
    FM_API_LOCK();
    int rc = enter_reg(event_registration);
    if (rc < 0)
        return -rc;
    fm_event_reg_set_dropped(event_registration, (void *)dropped_cb_function);
    return fm_mpit_leave(MPI_SUCCESS);
}

#pragma weak MPI_T_event_handle_free = PMPI_T_event_handle_free
int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                             MPI_T_event_free_cb_function *free_cb_function)
{
    FM_API_LOCK();
    int rc = enter_reg(event_registration);
    if (rc < 0)
        return -rc;
    fm_event_reg_free(event_registration, (void *)free_cb_function, user_data);
    return fm_mpit_leave(MPI_SUCCESS);
}

/* ---- inside a callback: the event being told ---- */

/* Enter, and check the instance: 0 (the lock held), or an MPI_T error
 * class (not held). */
static int enter_instance(MPI_T_event_instance inst)
{
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (!inst || (int)inst->event < 0 || inst->event >= FM_NEVENTS || !inst->data)
        return fm_mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    return MPI_SUCCESS;
}

#pragma weak MPI_T_event_read = PMPI_T_event_read
int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer)
{
    FM_API_LOCK();
    int rc = enter_instance(event_instance);
    if (rc)
        return rc;
    const struct event_desc *e = desc_of(event_instance->event);
    if (element_index < 0 || element_index >= e->nelem)
        return fm_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    if (!buffer)
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    const struct element *el = &e->el[element_index];
    memcpy(buffer, (const char *)event_instance->data + el->disp, el->size);
    return fm_mpit_leave(MPI_SUCCESS);
}

#pragma weak MPI_T_event_copy = PMPI_T_event_copy
int PMPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer)
{
    FM_API_LOCK();
    int rc = enter_instance(event_instance);
    if (rc)
        return rc;
    if (!buffer)
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    /* The elements at the displacements MPI_T_event_get_info gave. */
    memcpy(buffer, event_instance->data, desc_of(event_instance->event)->size);
    return fm_mpit_leave(MPI_SUCCESS);
}

#pragma weak MPI_T_event_get_timestamp = PMPI_T_event_get_timestamp
int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp)
{
    FM_API_LOCK();
    int rc = enter_instance(event_instance);
    if (rc)
        return rc;
    if (!event_timestamp)
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    *event_timestamp = event_instance->timestamp;
    return fm_mpit_leave(MPI_SUCCESS);
}

#pragma weak MPI_T_event_get_source = PMPI_T_event_get_source
int PMPI_T_event_get_source(MPI_T_event_instance event_instance, int *source_index)
{
    FM_API_LOCK();
    int rc = enter_instance(event_instance);
    if (rc)
        return rc;
    if (!source_index)
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    *source_index = 0;
    return fm_mpit_leave(MPI_SUCCESS);
}

/* ---- the source ---- */

#pragma weak MPI_T_source_get_num = PMPI_T_source_get_num
int PMPI_T_source_get_num(int *num_sources)
{
    FM_API_LOCK();
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (!num_sources)
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    *num_sources = 1;
    return fm_mpit_leave(MPI_SUCCESS);
}

#pragma weak MPI_T_source_get_info = PMPI_T_source_get_info
int PMPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc, int *desc_len,
                           MPI_T_source_order *ordering, MPI_Count *ticks_per_second,
                           MPI_Count *max_ticks, MPI_Info *info)
{
    FM_API_LOCK();
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (source_index != 0)
        return fm_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    if ((rc = empty_info(info)) != MPI_SUCCESS)
        return fm_mpit_leave(rc);
    fm_mpit_string("tsc", name, name_len);
    fm_mpit_string("The process's time-stamp counter (CLOCK_MONOTONIC nanoseconds where there is "
                   "none); every event of this process, in the order told",
                   desc, desc_len);
    if (ordering)
        *ordering = MPI_T_SOURCE_ORDERED;
    if (ticks_per_second)
        *ticks_per_second = (MPI_Count)(1.0 / fm_pv_tick_seconds() + 0.5);
    if (max_ticks)
        *max_ticks = (MPI_Count)(~0ull >> 1);
    return fm_mpit_leave(MPI_SUCCESS);
}

#pragma weak MPI_T_source_get_timestamp = PMPI_T_source_get_timestamp
int PMPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp)
{
    FM_API_LOCK();
    int rc = fm_mpit_enter();
    if (rc)
        return rc;
    if (source_index != 0)
        return fm_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    if (!timestamp)
        return fm_mpit_leave(MPI_T_ERR_INVALID);
    *timestamp = fm_event_now();
    return fm_mpit_leave(MPI_SUCCESS);
}
