/* status.h — the one list of internal status codes.
 *
 * Each row: X(code name, value, MPI error class, message).  The list expands
 * into the enum below, fm_status_name(), fm_status_msg() and the mapping to
 * MPI error classes used once, at the API boundary (src/mpi/error.c). */
#ifndef FM_UTIL_STATUS_H
#define FM_UTIL_STATUS_H

#include <mpi.h>

#define FM_STATUS_LIST(X)                                                          \
    X(FM_OK, 0, MPI_SUCCESS, "success")                                            \
    X(FM_ERR_AGAIN, -1, MPI_ERR_OTHER, "resource temporarily busy, try again")     \
    X(FM_ERR_NOMEM, -2, MPI_ERR_NO_MEM, "out of memory")                           \
    X(FM_ERR_ARG, -3, MPI_ERR_ARG, "invalid argument")                             \
    X(FM_ERR_COUNT, -4, MPI_ERR_COUNT, "invalid count")                            \
    X(FM_ERR_TYPE, -5, MPI_ERR_TYPE, "invalid datatype")                           \
    X(FM_ERR_TAG, -6, MPI_ERR_TAG, "invalid tag")                                  \
    X(FM_ERR_COMM, -7, MPI_ERR_COMM, "invalid communicator")                       \
    X(FM_ERR_RANK, -8, MPI_ERR_RANK, "invalid rank")                               \
    X(FM_ERR_ROOT, -9, MPI_ERR_ROOT, "invalid root")                               \
    X(FM_ERR_GROUP, -10, MPI_ERR_GROUP, "invalid group")                           \
    X(FM_ERR_OP, -11, MPI_ERR_OP, "invalid reduction operation")                   \
    X(FM_ERR_REQUEST, -12, MPI_ERR_REQUEST, "invalid request")                     \
    X(FM_ERR_BUFFER, -13, MPI_ERR_BUFFER, "invalid buffer")                        \
    X(FM_ERR_TRUNCATE, -14, MPI_ERR_TRUNCATE, "message truncated")                 \
    X(FM_ERR_KEYVAL, -15, MPI_ERR_KEYVAL, "invalid attribute key")                 \
    X(FM_ERR_PENDING, -16, MPI_ERR_PENDING, "operation still pending")             \
    X(FM_ERR_NO_CONTEXT, -17, MPI_ERR_OTHER, "out of communicator context ids")    \
    X(FM_ERR_PARAM, -18, MPI_ERR_OTHER, "bad FABMPI_* environment value")          \
    X(FM_ERR_BOOT, -19, MPI_ERR_OTHER, "bootstrap with the launcher failed")       \
    X(FM_ERR_NET, -20, MPI_ERR_OTHER, "transport failure")                         \
    X(FM_ERR_PEER_DEAD, -21, MPI_ERR_OTHER, "peer process is gone")                \
    X(FM_ERR_UNSUPPORTED, -22, MPI_ERR_UNSUPPORTED_OPERATION, "unsupported operation") \
    X(FM_ERR_NOT_INIT, -23, MPI_ERR_OTHER, "MPI is not initialized")               \
    X(FM_ERR_INTERN, -24, MPI_ERR_INTERN, "internal error")                        \
    X(FM_ERR_INFO, -25, MPI_ERR_INFO, "invalid info object")                       \
    X(FM_ERR_OTHER, -26, MPI_ERR_OTHER, "other error")                             \
    X(FM_ERR_COLL_PEER, -27, MPI_ERR_OTHER,                                        \
      "the collective failed on another rank, or a peer's count differs from this rank's") \
    X(FM_ERR_TOPOLOGY, -28, MPI_ERR_TOPOLOGY, "the communicator has no process topology")

#define FM_STATUS_ENUM(name, value, mpiclass, msg) name = value,
enum fm_status { FM_STATUS_LIST(FM_STATUS_ENUM) };
#undef FM_STATUS_ENUM

/* "FM_ERR_NOMEM" for FM_ERR_NOMEM; "FM_UNKNOWN" for values not in the list. */
const char *fm_status_name(int status);
/* One-line human message for a status. */
const char *fm_status_msg(int status);
/* The MPI error class a status maps to (MPI_ERR_INTERN for unknown values). */
int fm_status_to_mpi_class(int status);

#endif
