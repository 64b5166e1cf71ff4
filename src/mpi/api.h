/* api.h — helpers every MPI_* entry point uses: initialization state, error
 * raising through the communicator's handler, argument checks.
 *
 * Errors: fm_raise() builds an error code whose class is `errclass` and
 * whose MPI_Error_string is the detailed message ("MPI_Send: count=-1 must
 * be >= 0"), then calls comm's error handler (MPI_ERRORS_ARE_FATAL prints
 * the message and aborts the job; MPI_ERRORS_RETURN returns).  Entry points
 * do `return fm_raise(...)`. */
#ifndef FM_MPI_API_H
#define FM_MPI_API_H

#include <mpi.h>

#include "core/cs.h"
#include "mpi/comm.h"
#include "pt2pt/pt2pt.h"
#include "util/status.h"

extern int fm_mpi_state; /* 0 before MPI_Init, 1 initialized, 2 finalized */
extern int fm_thread_level;

/* Raise errclass on comm (MPI_COMM_NULL / invalid → MPI_COMM_WORLD's
 * handler, or fatal before MPI_Init).  Returns the error code to return. */
int fm_raise(MPI_Comm comm, const char *call, int errclass, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Raise an internal status (FM_ERR_*) from a lower layer; FM_OK passes. */
int fm_raise_status(MPI_Comm comm, const char *call, int status);
/* Invoke comm's handler for an existing error code (also MPI_Comm_call_errhandler). */
int fm_call_errhandler(MPI_Comm comm, int code);
/* For handlers that end the job: MPI_Error_string's text of any code (or
 * a line saying it is none) in text[MPI_MAX_ERROR_STRING]; returns its
 * class, -1 for a code that is none.  Raises nothing. */
int fm_error_describe(int code, char *text);

/* Argument checks: each returns from the calling function on failure. */
#define FM_CHECK_INIT(call)                                                          \
    do {                                                                             \
        if (fm_mpi_state != 1)                                                       \
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_OTHER, "%s",               \
                            fm_mpi_state == 0 ? "called before MPI_Init"             \
                                              : "called after MPI_Finalize");        \
    } while (0)
#define FM_CHECK_COMM(call, comm)                                                    \
    do {                                                                             \
        if (!fm_comm_valid(comm))                                                    \
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_COMM,                       \
                            "comm=%s is not a valid communicator",                   \
                            (comm) == MPI_COMM_NULL ? "MPI_COMM_NULL" : "<invalid>"); \
    } while (0)
/* Calls defined on intracommunicators only (MPI_ERR_COMM otherwise). */
#define FM_CHECK_INTRA(call, comm)                                                   \
    do {                                                                             \
        if (fm_comm_is_inter(comm))                                                  \
            return fm_raise(comm, call, MPI_ERR_COMM,                                \
                            "%s is an intercommunicator; %s takes an "              \
                            "intracommunicator", fm_comm_label(comm), call);         \
    } while (0)
#define FM_CHECK_COUNT(call, comm, count)                                            \
    do {                                                                             \
        if ((count) < 0)                                                             \
            return fm_raise(comm, call, MPI_ERR_COUNT, "count=%lld must be >= 0",    \
                            (long long)(count));                                     \
    } while (0)
#define FM_CHECK_TYPE(call, comm, dt)                                                \
    do {                                                                             \
        if (!fm_dt_valid(dt))                                                        \
            return fm_raise(comm, call, MPI_ERR_TYPE, "datatype=%s is not valid",    \
                            (dt) == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL" : "<invalid>"); \
        if (!fm_dt_usable(dt))                                                       \
            return fm_raise(comm, call, MPI_ERR_TYPE,                                \
                            "datatype %s is not committed",            \
                            (dt)->name[0] ? (dt)->name : "<unnamed derived type>");              \
    } while (0)
/* A NULL buffer (MPI_BOTTOM is NULL) holding data: erroneous unless the
 * datatype's data sits at absolute addresses (true lower bound above 0).
 * Check after FM_CHECK_TYPE. */
#define FM_CHECK_BUF(call, comm, buf, count, dt, what)                               \
    do {                                                                             \
        if ((buf) == NULL && (count) > 0 && (dt)->size > 0 && (dt)->true_lb <= 0)   \
            return fm_raise(comm, call, MPI_ERR_BUFFER,                              \
                            "%s=NULL with count=%lld of %s (MPI_BOTTOM needs a "     \
                            "datatype of absolute addresses)", what,                 \
                            (long long)(count), (dt)->name[0] ? (dt)->name : "a derived type"); \
    } while (0)
/* dest/src rank: 0..size-1, MPI_PROC_NULL, and (if any_ok) MPI_ANY_SOURCE. */
#define FM_CHECK_RANK(call, comm, r, what, any_ok)                                   \
    do {                                                                             \
        if (!((r) >= 0 && (r) < (comm)->remote_size) && (r) != MPI_PROC_NULL &&      \
            !((any_ok) && (r) == MPI_ANY_SOURCE))                                    \
            return fm_raise(comm, call, MPI_ERR_RANK,                                \
                            "%s=%d is not a rank of %s%s (size %d)", what, (int)(r), \
                            fm_comm_is_inter(comm) ? "the remote group of " : "",    \
                            fm_comm_label(comm), (comm)->remote_size);               \
    } while (0)
/* tag: 0..MPI_TAG_UB, and (if any_ok) MPI_ANY_TAG. */
#define FM_CHECK_TAG(call, comm, t, any_ok)                                          \
    do {                                                                             \
        if (((t) < 0 || (t) > FM_TAG_UB) && !((any_ok) && (t) == MPI_ANY_TAG))       \
            return fm_raise(comm, call, MPI_ERR_TAG,                                 \
                            "tag=%d must be in 0..%d%s", (int)(t), FM_TAG_UB,        \
                            (any_ok) ? " or MPI_ANY_TAG" : "");                      \
    } while (0)
#define FM_CHECK_ROOT(call, comm, root)                                              \
    do {                                                                             \
        if ((root) < 0 || (root) >= (comm)->size)                                    \
            return fm_raise(comm, call, MPI_ERR_ROOT,                                \
                            "root=%d is not a rank of %s (size %d)", (int)(root),    \
                            fm_comm_label(comm), (comm)->size);                              \
    } while (0)
#define FM_CHECK_OP(call, comm, op)                                                  \
    do {                                                                             \
        if (!fm_op_valid(op))                                                        \
            return fm_raise(comm, call, MPI_ERR_OP, "op=%s is not valid",            \
                            (op) == MPI_OP_NULL ? "MPI_OP_NULL" : "<invalid>");      \
    } while (0)

/* MPI_TAG_UB: the provider-matching engine's tag layout may lower it. */
#define FM_TAG_UB fm_pt2pt_tag_ub()

/* A communicator's name for messages ("the communicator" when unnamed). */
static inline const char *fm_comm_label(MPI_Comm comm)
{
    return comm->name[0] ? comm->name : "the communicator";
}

#endif
