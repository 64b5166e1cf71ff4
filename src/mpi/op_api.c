/* op_api.c — MPI entry points for reduction operations, with the MPI-4.0
 * large-count MPI_Op_create_c (a function taking an MPI_Count length) and
 * MPI_Reduce_local_c. */
#include "coll/op.h"
#include "dtype/dtype.h"
#include "mpi/api.h"
#include "mpi/coll_check.h"
#include "mpi/f2c.h"

/* Either function (the other NULL): MPI_Op_create's or MPI_Op_create_c's. */
static int op_create(const char *call, MPI_User_function *fn, MPI_User_function_c *fn_c,
                     int commute, MPI_Op *op)
{
    FM_CHECK_INIT(call);
    if ((!fn && !fn_c) || !op)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "%s=NULL", !op ? "op" : "user_fn");
    int rc = fm_op_create(fn, fn_c, commute, op);
    return rc == FM_OK ? MPI_SUCCESS : fm_raise_status(MPI_COMM_NULL, call, rc);
}

#pragma weak MPI_Op_create = PMPI_Op_create
int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    FM_API_LOCK();
    return op_create("MPI_Op_create", user_fn, NULL, commute, op);
}

#pragma weak MPI_Op_create_c = PMPI_Op_create_c
int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    FM_API_LOCK();
    return op_create("MPI_Op_create_c", NULL, user_fn, commute, op);
}

static MPI_Fint fortran_type(MPI_Datatype dt)
{
    return fm_f_index(FM_F_TYPE, dt);
}

/* MPI_Op_create for the Fortran bindings: a Fortran subroutine
 * (invec, inoutvec, len, datatype) with INTEGER len and datatype. */
int fab_f_op_create(void (*fn)(void *, void *, MPI_Fint *, MPI_Fint *), int commute, MPI_Op *op)
{
    FM_API_LOCK();
    static const char call[] = "MPI_Op_create";
    FM_CHECK_INIT(call);
    if (!fn || !op)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "%s=NULL", !op ? "op" : "user_fn");
    int rc = fm_op_create(NULL, NULL, commute, op);
    if (rc != FM_OK)
        return fm_raise_status(MPI_COMM_NULL, call, rc);
    (*op)->fortran_fn = fn;
    (*op)->fortran_type = fortran_type;
    return MPI_SUCCESS;
}

#pragma weak MPI_Op_free = PMPI_Op_free
int PMPI_Op_free(MPI_Op *op)
{
    FM_API_LOCK();
    static const char call[] = "MPI_Op_free";
    FM_CHECK_INIT(call);
    if (!op)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "op=NULL");
    FM_CHECK_OP(call, MPI_COMM_NULL, *op);
    if ((*op)->predefined)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_OP, "%s is predefined and cannot be freed",
                        (*op)->name);
    fm_op_release(*op);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

/* Allowed before MPI_Init and after MPI_Finalize: it only reads the object. */
#pragma weak MPI_Op_commutative = PMPI_Op_commutative
int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    FM_API_LOCK();
    static const char call[] = "MPI_Op_commutative";
    FM_CHECK_OP(call, MPI_COMM_NULL, op);
    if (!commute)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "commute=NULL");
    *commute = op->commute;
    return MPI_SUCCESS;
}

static int reduce_local(const char *call, const void *inbuf, void *inoutbuf, MPI_Count count,
                        MPI_Datatype dt, MPI_Op op)
{
    FM_CHECK_INIT(call);
    FM_CHECK_COUNT(call, MPI_COMM_NULL, count);
    FM_CHECK_TYPE(call, MPI_COMM_NULL, dt);
    FM_CHECK_OP(call, MPI_COMM_NULL, op);
    if (fm_op_check(op, dt) != FM_OK)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_OP, "op %s is not defined for datatype %s",
                        op->name, dt->name);
    if (count > 0 && (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE))
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed here");
    int err = fm_check_no_alias(call, inbuf, inoutbuf, count, dt);
    if (err != MPI_SUCCESS)
        return err;
    int rc = fm_op_apply(op, inbuf, inoutbuf, count, dt);
    return rc == FM_OK ? MPI_SUCCESS : fm_raise_status(MPI_COMM_NULL, call, rc);
}

#pragma weak MPI_Reduce_local = PMPI_Reduce_local
int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype dt, MPI_Op op)
{
    FM_API_LOCK();
    return reduce_local("MPI_Reduce_local", inbuf, inoutbuf, count, dt, op);
}

#pragma weak MPI_Reduce_local_c = PMPI_Reduce_local_c
int PMPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype dt,
                        MPI_Op op)
{
    FM_API_LOCK();
    return reduce_local("MPI_Reduce_local_c", inbuf, inoutbuf, count, dt, op);
}
