/* win_api.c — window creation and free, attributes, names, info, error
 * handlers, shared-memory queries, dynamic attach/detach; the MPI-4.0
 * large-count variants of creation and MPI_Win_shared_query (an MPI_Aint
 * disp_unit). */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "coll/coll.h"
#include "mpi/comm.h"
#include "mpi/win_api.h"
#include "util/log.h"

static const int win_model_unified = MPI_WIN_UNIFIED;

/* ---- errors --------------------------------------------------------------- */
static int win_call_errhandler(MPI_Win win, int code)
{
    struct fm_errhandler *eh = win->errh;
    if (eh->kind == FM_ERRH_RETURN)
        return code;
    if (eh->kind == FM_ERRH_USER) {
        /* stored as a comm handler type (fm_errhandler has one slot) */
        MPI_Win_errhandler_function *fn = (MPI_Win_errhandler_function *)(void (*)(void))eh->fn;
        MPI_Win w = win;
        if (eh->fortran)
            eh->fortran((void (*)(void))eh->fn, &w, &code);
        else
            fn(&w, &code);
        return code;
    }
    char text[MPI_MAX_ERROR_STRING];
    int cls = fm_error_describe(code, text);
    fm_error_msg("%s; MPI_ERRORS_ARE_FATAL on window %s: ending the job", text,
                 win->name[0] ? win->name : "(unnamed)");
    fm_boot_abort(cls > 0 ? cls : 1, "an MPI window call failed under MPI_ERRORS_ARE_FATAL");
}

int fm_win_raise(MPI_Win win, const char *call, int errclass, const char *fmt, ...)
{
    char text[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    /* The window's private communicator returns errors, so this only
     * records the message and builds the code. */
    int code = fm_raise(win->comm, call, errclass, "%s", text);
    return win_call_errhandler(win, code);
}

int fm_win_raise_status(MPI_Win win, const char *call, int status)
{
    if (status == FM_OK)
        return MPI_SUCCESS;
    return fm_win_raise(win, call, fm_status_to_mpi_class(status), "%s", fm_status_msg(status));
}

#pragma weak MPI_Win_call_errhandler = PMPI_Win_call_errhandler
int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Win_call_errhandler");
    FM_CHECK_WIN("MPI_Win_call_errhandler", win);
    win_call_errhandler(win, errorcode);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_create_errhandler = PMPI_Win_create_errhandler
int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    FM_API_LOCK();
    const char *call = "MPI_Win_create_errhandler";
    FM_CHECK_INIT(call);
    if (!fn || !errhandler)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "%s=NULL", fn ? "errhandler" : "function");
    struct fm_errhandler *e = fm_errh_new();
    if (!e)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_NO_MEM, "out of memory");
    e->magic = FM_MAGIC_ERRH;
    e->refcount = 1;
    e->kind = FM_ERRH_USER;
    e->fn = (MPI_Comm_errhandler_function *)(void (*)(void))fn;
    e->fortran = NULL;
    *errhandler = e;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_set_errhandler = PMPI_Win_set_errhandler
int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    FM_API_LOCK();
    const char *call = "MPI_Win_set_errhandler";
    FM_CHECK_INIT(call);
    FM_CHECK_WIN(call, win);
    if (!errhandler || errhandler->magic != FM_MAGIC_ERRH)
        return fm_win_raise(win, call, MPI_ERR_ARG, "errhandler=%s is not a valid error handler",
                            errhandler ? "<invalid>" : "MPI_ERRHANDLER_NULL");
    errhandler->refcount++;
    struct fm_errhandler *old = win->errh;
    win->errh = errhandler;
    fm_comm_errh_release(old);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_get_errhandler = PMPI_Win_get_errhandler
int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    FM_API_LOCK();
    const char *call = "MPI_Win_get_errhandler";
    FM_CHECK_INIT(call);
    FM_CHECK_WIN(call, win);
    if (!errhandler)
        return fm_win_raise(win, call, MPI_ERR_ARG, "errhandler=NULL");
    win->errh->refcount++;
    *errhandler = win->errh;
    return MPI_SUCCESS;
}

/* ---- creation ------------------------------------------------------------- */
/* The accumulate_ordering hint of info, or `cur` when info does not set it
 * (a value that is not one is ignored, as hints may be, but said). */
static unsigned acc_order_hint(MPI_Info info, unsigned cur, const char *call)
{
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    if (info == MPI_INFO_NULL ||
        PMPI_Info_get(info, "accumulate_ordering", MPI_MAX_INFO_VAL, v, &flag) != MPI_SUCCESS ||
        !flag)
        return cur;
    if (!fm_rma_parse_order(v, &cur))
        fm_warn("%s: accumulate_ordering=\"%s\" ignored (want \"none\" or a comma list of "
                "rar, raw, war, waw)", call, v);
    return cur;
}

/* The alloc_shared_noncontig hint: 1 for "true", 0 when absent or "false"
 * (another value is ignored, as hints may be, but said). */
static int noncontig_hint(MPI_Info info, const char *call)
{
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    if (info == MPI_INFO_NULL ||
        PMPI_Info_get(info, "alloc_shared_noncontig", MPI_MAX_INFO_VAL, v, &flag) != MPI_SUCCESS ||
        !flag)
        return 0;
    if (!strcmp(v, "true"))
        return 1;
    if (strcmp(v, "false"))
        fm_warn("%s: alloc_shared_noncontig=\"%s\" ignored (want \"true\" or \"false\")", call, v);
    return 0;
}

/* disp_unit: an int, or the _c calls' MPI_Aint.  Windows keep it as an int
 * (MPI_WIN_DISP_UNIT is an int attribute), so a larger one is refused. */
static int win_make(const char *call, int flavor, void *base, MPI_Aint size, MPI_Aint disp_unit,
                    MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    FM_CHECK_INTRA(call, comm);
    if (!win)
        return fm_raise(comm, call, MPI_ERR_ARG, "win=NULL");
    if (size < 0)
        return fm_raise(comm, call, MPI_ERR_SIZE, "size=%lld must be >= 0", (long long)size);
    if (disp_unit <= 0)
        return fm_raise(comm, call, MPI_ERR_DISP, "disp_unit=%lld must be > 0",
                        (long long)disp_unit);
    if (disp_unit > INT_MAX)
        return fm_raise(comm, call, MPI_ERR_DISP,
                        "disp_unit=%lld is more than a window keeps (INT_MAX: the "
                        "MPI_WIN_DISP_UNIT attribute is an int)", (long long)disp_unit);
    if (info != MPI_INFO_NULL && !fm_info_valid(info))
        return fm_raise(comm, call, MPI_ERR_INFO, "info is not a valid info object");
    char why[FM_RMA_WHY];
    struct fm_win *w;
    struct fm_win_hints hints = {
        .acc_order = acc_order_hint(info, FM_RMA_ORDER_ALL, call),
        .shared_noncontig = flavor == MPI_WIN_FLAVOR_SHARED && noncontig_hint(info, call),
    };
    MPI_Comm dup;
    int rc = fm_comm_dup_private(comm, &dup);
    if (rc != FM_OK)
        snprintf(why, FM_RMA_WHY, "cannot duplicate the communicator: %s", fm_status_msg(rc));
    else
        rc = fm_win_setup(flavor, base, size, (int)disp_unit, &hints, dup, &w, why);
    if (rc != FM_OK) {
        int cls = rc == FM_ERR_NOMEM ? MPI_ERR_NO_MEM
                  : flavor == MPI_WIN_FLAVOR_SHARED ? MPI_ERR_RMA_SHARED
                                                    : fm_status_to_mpi_class(rc);
        return fm_raise(comm, call, cls, "%s", why);
    }
    fab_errors_are_fatal.refcount++;
    w->errh = &fab_errors_are_fatal;
    if (info != MPI_INFO_NULL)
        PMPI_Info_dup(info, &w->info);
    *win = w;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_create = PMPI_Win_create
int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                   MPI_Win *win)
{
    FM_API_LOCK();
    return win_make("MPI_Win_create", MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm, win);
}

#pragma weak MPI_Win_create_c = PMPI_Win_create_c
int PMPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                      MPI_Comm comm, MPI_Win *win)
{
    FM_API_LOCK();
    return win_make("MPI_Win_create_c", MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm,
                    win);
}

/* Win_allocate and Win_allocate_shared, in both widths. */
static int win_allocate(const char *call, int flavor, MPI_Aint size, MPI_Aint disp_unit,
                        MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    if (!baseptr && fm_mpi_state == 1)
        return fm_raise(comm, call, MPI_ERR_ARG, "baseptr=NULL");
    int rc = win_make(call, flavor, NULL, size, disp_unit, info, comm, win);
    if (rc == MPI_SUCCESS)
        *(void **)baseptr = (*win)->base;
    return rc;
}

#pragma weak MPI_Win_allocate = PMPI_Win_allocate
int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                     MPI_Win *win)
{
    FM_API_LOCK();
    return win_allocate("MPI_Win_allocate", MPI_WIN_FLAVOR_ALLOCATE, size, disp_unit, info, comm,
                        baseptr, win);
}

#pragma weak MPI_Win_allocate_c = PMPI_Win_allocate_c
int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                        void *baseptr, MPI_Win *win)
{
    FM_API_LOCK();
    return win_allocate("MPI_Win_allocate_c", MPI_WIN_FLAVOR_ALLOCATE, size, disp_unit, info,
                        comm, baseptr, win);
}

#pragma weak MPI_Win_allocate_shared = PMPI_Win_allocate_shared
int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                            void *baseptr, MPI_Win *win)
{
    FM_API_LOCK();
    return win_allocate("MPI_Win_allocate_shared", MPI_WIN_FLAVOR_SHARED, size, disp_unit, info,
                        comm, baseptr, win);
}

#pragma weak MPI_Win_allocate_shared_c = PMPI_Win_allocate_shared_c
int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                               void *baseptr, MPI_Win *win)
{
    FM_API_LOCK();
    return win_allocate("MPI_Win_allocate_shared_c", MPI_WIN_FLAVOR_SHARED, size, disp_unit,
                        info, comm, baseptr, win);
}

#pragma weak MPI_Win_create_dynamic = PMPI_Win_create_dynamic
int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    FM_API_LOCK();
    return win_make("MPI_Win_create_dynamic", MPI_WIN_FLAVOR_DYNAMIC, NULL, 0, 1, info, comm, win);
}

/* Memory of allocate and allocate_shared windows is mapped by every rank,
 * so both answer (MPI-4 allows any window whose memory is shared). */
/* disp_unit is an int *, or MPI_Win_shared_query_c's MPI_Aint * (wide). */
static int win_shared_query(const char *call, MPI_Win win, int rank, MPI_Aint *size,
                            void *disp_unit, int wide, void *baseptr)
{
    FM_CHECK_INIT(call);
    FM_CHECK_WIN(call, win);
    FM_CHECK_WIN_RANK(call, win, rank);
    if (!size || !disp_unit || !baseptr)
        return fm_win_raise(win, call, MPI_ERR_ARG, "size, disp_unit and baseptr must not be NULL");
    if (win->flavor != MPI_WIN_FLAVOR_SHARED && win->flavor != MPI_WIN_FLAVOR_ALLOCATE)
        return fm_win_raise(win, call, MPI_ERR_RMA_FLAVOR,
                            "the window's memory is not shared (created by %s)",
                            win->flavor == MPI_WIN_FLAVOR_CREATE ? "MPI_Win_create"
                                                                 : "MPI_Win_create_dynamic");
    if (rank == MPI_PROC_NULL) {
        rank = 0; /* the lowest rank with memory, or rank 0 when nobody has any */
        for (int i = 0; i < win->size; i++)
            if (win->peer[i].size > 0) {
                rank = i;
                break;
            }
    }
    *size = win->peer[rank].size;
    if (wide)
        *(MPI_Aint *)disp_unit = win->peer[rank].disp_unit;
    else
        *(int *)disp_unit = win->peer[rank].disp_unit;
    *(void **)baseptr = fm_win_segment_base(win, rank);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_shared_query = PMPI_Win_shared_query
int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    FM_API_LOCK();
    return win_shared_query("MPI_Win_shared_query", win, rank, size, disp_unit, 0, baseptr);
}

#pragma weak MPI_Win_shared_query_c = PMPI_Win_shared_query_c
int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                            void *baseptr)
{
    FM_API_LOCK();
    return win_shared_query("MPI_Win_shared_query_c", win, rank, size, disp_unit, 1, baseptr);
}

#pragma weak MPI_Win_attach = PMPI_Win_attach
int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    FM_API_LOCK();
    const char *call = "MPI_Win_attach";
    FM_CHECK_INIT(call);
    FM_CHECK_WIN(call, win);
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return fm_win_raise(win, call, MPI_ERR_RMA_FLAVOR, "the window is not dynamic");
    if (size < 0)
        return fm_win_raise(win, call, MPI_ERR_SIZE, "size=%lld must be >= 0", (long long)size);
    if (!base && size > 0)
        return fm_win_raise(win, call, MPI_ERR_RMA_ATTACH, "base=NULL");
    fm_rma_region *r = malloc(sizeof *r);
    if (!r)
        return fm_win_raise(win, call, MPI_ERR_NO_MEM, "out of memory");
    r->base = base;
    r->size = size;
    r->next = win->regions;
    win->regions = r;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_detach = PMPI_Win_detach
int PMPI_Win_detach(MPI_Win win, const void *base)
{
    FM_API_LOCK();
    const char *call = "MPI_Win_detach";
    FM_CHECK_INIT(call);
    FM_CHECK_WIN(call, win);
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return fm_win_raise(win, call, MPI_ERR_RMA_FLAVOR, "the window is not dynamic");
    for (fm_rma_region **pp = &win->regions; *pp; pp = &(*pp)->next)
        if ((*pp)->base == base) {
            fm_rma_region *r = *pp;
            *pp = r->next;
            free(r);
            return MPI_SUCCESS;
        }
    return fm_win_raise(win, call, MPI_ERR_RMA_ATTACH, "base=%p was not attached to the window",
                        base);
}

#pragma weak MPI_Win_free = PMPI_Win_free
int PMPI_Win_free(MPI_Win *win)
{
    FM_API_LOCK();
    const char *call = "MPI_Win_free";
    FM_CHECK_INIT(call);
    if (!win)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "win=NULL");
    MPI_Win w = *win;
    FM_CHECK_WIN(call, w);
    int locked = w->lock_all;
    for (int i = 0; i < w->size; i++)
        locked |= w->held[i];
    if (locked || w->naccess >= 0 || w->nexpose >= 0)
        return fm_win_raise(w, call, MPI_ERR_RMA_SYNC,
                            "an epoch is still open (unlock, complete or wait first)");
    /* Attributes first (MPI-3.1 6.7.3): a failing delete callback keeps the
     * window. */
    int rc = fm_attr_win_free(w);
    if (rc != FM_OK) {
        int keyval, code = fm_attr_last_failure(&keyval);
        return rc == FM_ERR_OTHER
                   ? fm_win_raise(w, call, MPI_ERR_OTHER,
                                  "attribute delete callback of keyval=%d returned %d", keyval,
                                  code)
                   : fm_win_raise_status(w, call, rc);
    }
    /* Collective: nobody unmaps while a peer may still be reading our
     * memory (CMA) or writing into it. */
    rc = fm_coll_barrier(w->comm);
    if (rc != FM_OK)
        return fm_win_raise_status(w, call, rc);
    if (w->info != MPI_INFO_NULL)
        PMPI_Info_free(&w->info);
    fm_comm_errh_release(w->errh);
    fm_win_teardown(w);
    *win = MPI_WIN_NULL;
    return MPI_SUCCESS;
}

/* ---- attributes, group, name, info ---------------------------------------- */
#pragma weak MPI_Win_get_attr = PMPI_Win_get_attr
int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    FM_API_LOCK();
    const char *call = "MPI_Win_get_attr";
    FM_CHECK_INIT(call);
    FM_CHECK_WIN(call, win);
    if (!attribute_val || !flag)
        return fm_win_raise(win, call, MPI_ERR_ARG, "attribute_val and flag must not be NULL");
    void **out = attribute_val;
    *flag = 1;
    switch (win_keyval) {
    case MPI_WIN_BASE: *out = win->base; break;
    case MPI_WIN_SIZE: *out = &win->win_size; break;
    case MPI_WIN_DISP_UNIT: *out = &win->disp_unit; break;
    case MPI_WIN_CREATE_FLAVOR: *out = &win->flavor; break;
    case MPI_WIN_MODEL: *out = (void *)(uintptr_t)&win_model_unified; break;
    default: return fm_attr_win_get(win, win_keyval, attribute_val, flag);
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_get_group = PMPI_Win_get_group
int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Win_get_group");
    FM_CHECK_WIN("MPI_Win_get_group", win);
    if (!group)
        return fm_win_raise(win, "MPI_Win_get_group", MPI_ERR_ARG, "group=NULL");
    fm_group_retain(win->comm->group);
    *group = win->comm->group;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_set_name = PMPI_Win_set_name
int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Win_set_name");
    FM_CHECK_WIN("MPI_Win_set_name", win);
    if (!win_name)
        return fm_win_raise(win, "MPI_Win_set_name", MPI_ERR_ARG, "win_name=NULL");
    snprintf(win->name, sizeof win->name, "%s", win_name);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_get_name = PMPI_Win_get_name
int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Win_get_name");
    FM_CHECK_WIN("MPI_Win_get_name", win);
    if (!win_name || !resultlen)
        return fm_win_raise(win, "MPI_Win_get_name", MPI_ERR_ARG,
                            "win_name and resultlen must not be NULL");
    strcpy(win_name, win->name);
    *resultlen = (int)strlen(win->name);
    return MPI_SUCCESS;
}

/* Hints are kept so Win_get_info returns them as given; the one that
 * changes behaviour is accumulate_ordering (origin side only, so it may
 * change at any time: later accumulates follow the new value).  Keys not in
 * info keep their values (MPI-4.0 12.2.7). */
#pragma weak MPI_Win_set_info = PMPI_Win_set_info
int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    FM_API_LOCK();
    const char *call = "MPI_Win_set_info";
    FM_CHECK_INIT(call);
    FM_CHECK_WIN(call, win);
    if (!fm_info_valid(info))
        return fm_win_raise(win, call, MPI_ERR_INFO, "info is not a valid info object");
    int rc = fm_info_merge(&win->info, info);
    if (rc != FM_OK)
        return fm_win_raise_status(win, call, rc);
    win->acc_order = acc_order_hint(info, win->acc_order, call);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_get_info = PMPI_Win_get_info
int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    FM_API_LOCK();
    const char *call = "MPI_Win_get_info";
    FM_CHECK_INIT(call);
    FM_CHECK_WIN(call, win);
    if (!info_used)
        return fm_win_raise(win, call, MPI_ERR_ARG, "info_used=NULL");
    if (win->info != MPI_INFO_NULL)
        return PMPI_Info_dup(win->info, info_used);
    return PMPI_Info_create(info_used);
}
