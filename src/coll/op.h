/* op.h — reduction operations: predefined ops for every basic kind, user ops. */
#ifndef FM_COLL_OP_H
#define FM_COLL_OP_H

#include <mpi.h>

#define FM_MAGIC_OP 0x4f505f5fu

struct fm_op {
    uint32_t magic;
    int predefined;            /* index of the predefined op + 1, or 0 for user ops */
    int commute;
    int refcount;
    MPI_User_function *user_fn;
    const char *name;
};

int fm_op_valid(MPI_Op op);

/* inout[i] = in[i] op inout[i] for count elements of dt (any committed
 * datatype; predefined ops apply to dt's basic kind).  Returns FM_OK, or
 * FM_ERR_OP when op is not defined for dt's kind. */
int fm_op_apply(MPI_Op op, const void *in, void *inout, MPI_Count count, MPI_Datatype dt);

/* FM_OK if predefined op is defined for dt's basic kind (user ops: always). */
int fm_op_check(MPI_Op op, MPI_Datatype dt);

#endif
