/* type_check.h — argument checks shared by the datatype entry points
 * (src/mpi/type_*.c). */
#ifndef FM_MPI_TYPE_CHECK_H
#define FM_MPI_TYPE_CHECK_H

#include <mpi.h>

#include "dtype/dtype.h"
#include "mpi/api.h"

/* A datatype argument that need not be committed (constructors, queries). */
#define FM_CHECK_DT_ARG(call, dt, what)                                              \
    do {                                                                             \
        if (!fm_dt_valid(dt))                                                        \
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_TYPE,                       \
                            "%s=%s is not a valid datatype", what,                   \
                            (dt) == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL" : "<invalid>"); \
    } while (0)
/* A pointer argument that must not be NULL. */
#define FM_CHECK_PTR(call, p, what)                                                  \
    do {                                                                             \
        if ((p) == NULL)                                                             \
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "%s=NULL", what);      \
    } while (0)
#define FM_CHECK_NONNEG(call, v, what, errclass)                                     \
    do {                                                                             \
        if ((v) < 0)                                                                 \
            return fm_raise(MPI_COMM_NULL, call, errclass, "%s=%lld must be >= 0",   \
                            what, (long long)(v));                                   \
    } while (0)

#endif
