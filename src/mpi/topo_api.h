/* topo_api.h — shared by the process-topology entry points
 * (src/mpi/topo_*.c): the kind check, NULL-array checks, and attaching a
 * freshly built topology to a new communicator. */
#ifndef FM_MPI_TOPO_API_H
#define FM_MPI_TOPO_API_H

#include "core/topo.h"
#include "mpi/api.h"

/* "a Cartesian", "a graph", "a distributed graph" or "no" (for messages). */
const char *fm_topo_kind_label(const struct fm_topo *t);
const char *fm_topo_kind_name(int kind);

/* comm must carry a topology of kind `want` (MPI_CART, ...). */
#define FM_CHECK_TOPO(call, comm, want)                                               \
    do {                                                                              \
        if (!(comm)->topo || (comm)->topo->kind != (want))                            \
            return fm_raise(comm, call, MPI_ERR_TOPOLOGY,                             \
                            "comm has %s topology; the call needs %s one",            \
                            fm_topo_kind_label((comm)->topo), fm_topo_kind_name(want)); \
    } while (0)
/* A pointer the call must read or write. */
#define FM_CHECK_PTR(call, comm, p, what)                                             \
    do {                                                                              \
        if (!(p))                                                                     \
            return fm_raise(comm, call, MPI_ERR_ARG, "%s=NULL", what);                \
    } while (0)
/* An array of n entries: NULL only when n is 0. */
#define FM_CHECK_ARRAY(call, comm, p, n, what)                                        \
    do {                                                                              \
        if (!(p) && (n) > 0)                                                          \
            return fm_raise(comm, call, MPI_ERR_ARG, "%s=NULL with %d entries", what, \
                            (int)(n));                                                \
    } while (0)

/* Attach t to nc (from fm_comm_first_ranks or fm_comm_split; MPI_COMM_NULL
 * passes through) and store it in *out.  t == NULL means building it ran
 * out of memory: nc is released and the error raised on parent. */
int fm_topo_attach(const char *call, MPI_Comm parent, MPI_Comm nc, struct fm_topo *t,
                   MPI_Comm *out);

#endif
