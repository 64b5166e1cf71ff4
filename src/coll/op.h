/* op.h — reduction operations: predefined ops for every basic kind, user ops. */
#ifndef FM_COLL_OP_H
#define FM_COLL_OP_H

#include <mpi.h>
#include <stddef.h>

#include "coll/op_kernels.h"
#include "util/status.h"

#define FM_MAGIC_OP 0x4f505f5fu

struct fm_op {
    uint32_t magic;
    int predefined;            /* index of the predefined op + 1, or 0 for user ops */
    int commute;
    int refcount;
    MPI_User_function *user_fn;
    /* MPI_Op_create_c's function, which takes an MPI_Count length. */
    MPI_User_function_c *user_fn_c;
    /* A Fortran user op (fab_f_op_create): the function takes the length
     * and datatype as Fortran INTEGERs, and fortran_type converts the
     * datatype (registered by the Fortran handle tables, src/mpi/f2c.c). */
    void (*fortran_fn)(void *in, void *inout, MPI_Fint *len, MPI_Fint *datatype);
    MPI_Fint (*fortran_type)(MPI_Datatype dt);
    const char *name;
};

/* fm_op_valid, fm_op_is_rma_only and fm_op_check are inline: every
 * reduction's argument checks ask all three (inline, the checks of a
 * blocking 8 B MPI_Allreduce went from 111 to 58 instructions). */
static inline int fm_op_valid(MPI_Op op)
{
    return op != MPI_OP_NULL && op->magic == FM_MAGIC_OP;
}

/* inout[i] = in[i] op inout[i] for count elements of dt (any committed
 * datatype; predefined ops apply to dt's basic kind).  Returns FM_OK, or
 * FM_ERR_OP when op is not defined for dt's kind. */
int fm_op_apply(MPI_Op op, const void *in, void *inout, MPI_Count count, MPI_Datatype dt);

/* A predefined op on a contiguous datatype, resolved once for a call made
 * again and again on the same arguments (a persistent or replayed
 * collective): its kernel and element count.  k is NULL where fm_op_apply
 * has more to decide (user ops, MPI_REPLACE, other layouts, no elements,
 * an op the kind lacks). */
typedef struct fm_op_plan {
    void (*k)(const void *in, void *inout, size_t n);
    size_t n;
} fm_op_plan;
fm_op_plan fm_op_plan_for(MPI_Op op, MPI_Count count, MPI_Datatype dt);
/* fm_op_apply(op, in, inout, count, dt), with p = fm_op_plan_for(op,
 * count, dt) and lb = dt->true_lb. */
static inline int fm_op_plan_apply(fm_op_plan p, ptrdiff_t lb, MPI_Op op, const void *in,
                                   void *inout, MPI_Count count, MPI_Datatype dt)
{
    if (__builtin_expect(p.k != NULL, 1)) {
        p.k((const char *)in + lb, (char *)inout + lb, p.n);
        return FM_OK;
    }
    return fm_op_apply(op, in, inout, count, dt);
}

/* FM_OK if MPI_Compare_and_swap may take dt: a predefined C or Fortran
 * integer, logical or byte type of at most 8 bytes (MPI-4.0 §12.3.4);
 * MPI_CHAR too, as the reductions take it.  FM_ERR_TYPE otherwise. */
int fm_op_cas_check(MPI_Datatype dt);

/* MPI_REPLACE / MPI_NO_OP: valid only in RMA accumulates, never in collectives. */
static inline int fm_op_is_rma_only(MPI_Op op) { return op == MPI_REPLACE || op == MPI_NO_OP; }

/* FM_OK if predefined op is defined for dt's basic kind (user ops: always). */
static inline int fm_op_check(MPI_Op op, MPI_Datatype dt)
{
    if (!op->predefined || fm_op_is_rma_only(op))
        return FM_OK;
    return fm_op_kernel[op->predefined - 1][dt->basic] ? FM_OK : FM_ERR_OP;
}

/* A user op (MPI_Op_create: fn; MPI_Op_create_c: fn_c, the other NULL);
 * refcount 1.  FM_ERR_NOMEM on failure. */
int fm_op_create(MPI_User_function *fn, MPI_User_function_c *fn_c, int commute, MPI_Op *out);
/* Pending operations hold a reference; predefined ops ignore both calls. */
void fm_op_retain(MPI_Op op);
void fm_op_release(MPI_Op op);

#endif
