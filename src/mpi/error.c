/* error.c — error codes with detail, error handlers, MPI_Error_*.
 *
 * An error code fm_raise makes is class + FM_ERR_STRIDE * slot
 * (errclass.h): the slot indexes a ring of recent detailed messages, so
 * MPI_Error_string(code) can say "MPI_Send: count=-1 must be >= 0" while
 * MPI_Error_class(code) stays a plain class.  When the ring wraps, an old
 * code still maps to its class and generic text.  Classes and codes a
 * program adds are errclass.c's. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "core/vci.h"
#include "mpi/api.h"
#include "mpi/errclass.h"
#include "mpi/f2c.h"
#include "util/event.h"
#include "util/log.h"

static char err_text[FM_ERR_SLOTS][MPI_MAX_ERROR_STRING];
static int err_code_of_slot[FM_ERR_SLOTS];
static unsigned next_slot;

_Static_assert(MPI_ERR_LASTCODE < FM_ERR_STRIDE, "predefined classes must fit below the stride");

#define FM_CLASS_TEXT(name, value, text) [value] = text,
static const char *class_text[MPI_ERR_LASTCODE + 1] = {FM_ERROR_CLASSES(FM_CLASS_TEXT)};
#define FM_CLASS_NAME(name, value, text) [value] = #name,
static const char *class_name[MPI_ERR_LASTCODE + 1] = {FM_ERROR_CLASSES(FM_CLASS_NAME)};

int fm_error_class_of(int code)
{
    if (code < 0)
        return -1;
    if (code >= FM_ERR_USER_CODE_BASE || (code > MPI_ERR_LASTCODE && code < FM_ERR_STRIDE))
        return fm_errclass_user_class(code);
    int cls = code % FM_ERR_STRIDE; /* a predefined class, or one fm_raise detailed */
    return cls <= MPI_ERR_LASTCODE && class_text[cls] ? cls : -1;
}

/* MPI_Error_string's text for a valid code (see fm_error_class_of). */
static int error_text(int code, int cls, char *string)
{
    const char *user = fm_errclass_user_string(code);
    if (user)
        return snprintf(string, MPI_MAX_ERROR_STRING, "%s", user);
    int slot = code / FM_ERR_STRIDE - 1;
    if (slot >= 0 && err_code_of_slot[slot] == code)
        return snprintf(string, MPI_MAX_ERROR_STRING, "%s", err_text[slot]);
    return snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s", class_name[cls], class_text[cls]);
}

int fm_error_describe(int code, char *text)
{
    int cls = fm_error_class_of(code);
    if (cls < 0)
        snprintf(text, MPI_MAX_ERROR_STRING, "error code %d (not an fabmpi error code)", code);
    else if (error_text(code, cls, text) == 0)
        snprintf(text, MPI_MAX_ERROR_STRING, "error code %d of error class %d", code, cls);
    return cls;
}

/* The class's name for messages. */
static const char *class_label(int cls)
{
    if (cls < 0)
        return "unknown class";
    return cls <= MPI_ERR_LASTCODE ? class_name[cls] : "an error class the program added";
}

int fm_call_errhandler(MPI_Comm comm, int code)
{
    struct fm_errhandler *eh = &fab_errors_are_fatal;
    if (fm_mpi_state == 1) {
        if (fm_comm_valid(comm))
            eh = comm->errh;
        else
            eh = fab_comm_world.errh;
    }
    if (eh->kind == FM_ERRH_RETURN)
        return code;
    if (eh->kind == FM_ERRH_USER) {
        MPI_Comm c = fm_comm_valid(comm) ? comm : MPI_COMM_WORLD;
        if (eh->fortran)
            eh->fortran((void (*)(void))eh->fn, &c, &code);
        else
            eh->fn(&c, &code);
        return code;
    }
    char text[MPI_MAX_ERROR_STRING];
    int cls = fm_error_describe(code, text);
    fm_error_msg("%s (%s); MPI_ERRORS_ARE_FATAL: ending the job", text, class_label(cls));
    fm_boot_abort(cls > 0 ? cls : 1, "an MPI call failed under MPI_ERRORS_ARE_FATAL");
}

static int raise_v(MPI_Comm comm, const char *call, int errclass, const char *fmt, va_list ap);

int fm_raise(MPI_Comm comm, const char *call, int errclass, const char *fmt, ...)
{
    /* A call on a lane (core/vci.h) raises under the library lock: the
     * error slots and the program's handler are process-wide. */
    struct fm_vci *lane = fm_lane_escape();
    va_list ap;
    va_start(ap, fmt);
    int code = raise_v(comm, call, errclass, fmt, ap);
    va_end(ap);
    fm_lane_back(lane);
    return code;
}

static int raise_v(MPI_Comm comm, const char *call, int errclass, const char *fmt, va_list ap)
{
    unsigned slot = next_slot++ % FM_ERR_SLOTS;
    int code = errclass + FM_ERR_STRIDE * (int)(slot + 1);
    char *t = err_text[slot];
    int n = snprintf(t, MPI_MAX_ERROR_STRING, "%s: ", call);
    vsnprintf(t + n, MPI_MAX_ERROR_STRING - (size_t)n, fmt, ap);
    err_code_of_slot[slot] = code;
    if (fm_event_wanted(FM_EV_error_raised)) {
        struct fm_ev_error_raised d = {code, errclass};
        fm_event_raise(FM_EV_error_raised, 0, &d);
    }
    return fm_call_errhandler(comm, code);
}

int fm_raise_status(MPI_Comm comm, const char *call, int status)
{
    if (status == FM_OK)
        return MPI_SUCCESS;
    return fm_raise(comm, call, fm_status_to_mpi_class(status), "%s", fm_status_msg(status));
}

#pragma weak MPI_Error_class = PMPI_Error_class
int PMPI_Error_class(int errorcode, int *errorclass)
{
    FM_API_LOCK();
    int cls = fm_error_class_of(errorcode);
    if (cls < 0)
        return fm_raise(MPI_COMM_NULL, "MPI_Error_class", MPI_ERR_ARG,
                        "errorcode=%d is not an fabmpi error code", errorcode);
    *errorclass = cls;
    return MPI_SUCCESS;
}

#pragma weak MPI_Error_string = PMPI_Error_string
int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    FM_API_LOCK();
    int cls = fm_error_class_of(errorcode);
    if (cls < 0)
        return fm_raise(MPI_COMM_NULL, "MPI_Error_string", MPI_ERR_ARG,
                        "errorcode=%d is not an fabmpi error code", errorcode);
    *resultlen = error_text(errorcode, cls, string);
    if (*resultlen >= MPI_MAX_ERROR_STRING)
        *resultlen = MPI_MAX_ERROR_STRING - 1;
    return MPI_SUCCESS;
}

static int errh_valid(MPI_Errhandler e) { return e && e->magic == FM_MAGIC_ERRH; }

#pragma weak MPI_Comm_set_errhandler = PMPI_Comm_set_errhandler
int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Comm_set_errhandler");
    FM_CHECK_COMM("MPI_Comm_set_errhandler", comm);
    if (!errh_valid(errhandler))
        return fm_raise(comm, "MPI_Comm_set_errhandler", MPI_ERR_ARG,
                        "errhandler=%s is not a valid error handler",
                        errhandler ? "<invalid>" : "MPI_ERRHANDLER_NULL");
    errhandler->refcount++;
    struct fm_errhandler *old = comm->errh;
    comm->errh = errhandler;
    if (old)
        fm_comm_errh_release(old);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_errhandler = PMPI_Comm_get_errhandler
int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Comm_get_errhandler");
    FM_CHECK_COMM("MPI_Comm_get_errhandler", comm);
    comm->errh->refcount++;
    *errhandler = comm->errh;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_create_errhandler = PMPI_Comm_create_errhandler
int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Comm_create_errhandler");
    if (!fn)
        return fm_raise(MPI_COMM_NULL, "MPI_Comm_create_errhandler", MPI_ERR_ARG,
                        "function=NULL");
    struct fm_errhandler *e = fm_errh_new();
    if (!e)
        return fm_raise(MPI_COMM_NULL, "MPI_Comm_create_errhandler", MPI_ERR_NO_MEM,
                        "out of memory");
    e->magic = FM_MAGIC_ERRH;
    e->refcount = 1;
    e->kind = FM_ERRH_USER;
    e->fn = fn;
    e->fortran = NULL;
    *errhandler = e;
    return MPI_SUCCESS;
}

int fab_f_errhandler_mark(MPI_Errhandler errhandler, fm_f_errh_call *call)
{
    FM_API_LOCK();
    if (!errh_valid(errhandler) || errhandler->kind != FM_ERRH_USER)
        return MPI_ERR_ARG;
    errhandler->fortran = call;
    return MPI_SUCCESS;
}

#pragma weak MPI_Errhandler_free = PMPI_Errhandler_free
int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Errhandler_free");
    if (!errhandler || !errh_valid(*errhandler))
        return fm_raise(MPI_COMM_NULL, "MPI_Errhandler_free", MPI_ERR_ARG,
                        "errhandler is not a valid error handler");
    struct fm_errhandler *e = *errhandler;
    /* Freeing a handle releases the user's reference; a communicator still
     * using the handler keeps it alive. */
    fm_comm_errh_release(e);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_call_errhandler = PMPI_Comm_call_errhandler
int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    FM_API_LOCK();
    FM_CHECK_INIT("MPI_Comm_call_errhandler");
    FM_CHECK_COMM("MPI_Comm_call_errhandler", comm);
    fm_call_errhandler(comm, errorcode);
    return MPI_SUCCESS;
}
