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

/* Types from MPI_Type_create_f90_* (type_f90.c): predefined in every way
 * but their envelope.  The number of integers MPI_Type_get_contents gives
 * for dt (1 or 2, set in *ints), or -1 when dt is not one of them. */
int fm_type_f90_ints(MPI_Datatype dt, const int **ints);
/* Free them, with their attributes (MPI_Finalize, before the keyvals go). */
void fm_type_f90_finalize(void);

#endif
