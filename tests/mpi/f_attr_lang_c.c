/* f_attr_lang_c.c - the C half of f_attr_lang.f90: reads and sets
 * attributes from C on communicators the Fortran program passes as
 * INTEGER handles. */
#include <stdint.h>

#include "mpi.h"

static int c_target = 42; /* what c_set_pointer's attribute points to */
static MPI_Aint copy_saw = -1;

/* A value Fortran set is an MPI_Aint C reads through the pointer. */
void c_read_aint(MPI_Fint comm, MPI_Fint keyval, MPI_Aint *value, MPI_Fint *flag)
{
    MPI_Aint *p = NULL;
    int f = 0;
    MPI_Comm_get_attr(MPI_Comm_f2c(comm), keyval, &p, &f);
    *flag = f;
    *value = f ? *p : 0;
}

/* An MPI_Attr_put INTEGER reads as an int through the pointer. */
void c_read_int(MPI_Fint comm, MPI_Fint keyval, MPI_Fint *value, MPI_Fint *flag)
{
    int *p = NULL;
    int f = 0;
    MPI_Attr_get(MPI_Comm_f2c(comm), keyval, &p, &f);
    *flag = f;
    *value = f ? *p : 0;
}

void c_set_pointer(MPI_Fint comm, MPI_Fint keyval, MPI_Aint *address)
{
    MPI_Comm_set_attr(MPI_Comm_f2c(comm), keyval, &c_target);
    *address = (MPI_Aint)(intptr_t)&c_target;
}

static int copy_fn(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)keyval, (void)extra;
    copy_saw = *(MPI_Aint *)in;
    *(void **)out = &c_target;
    *flag = 1;
    return MPI_SUCCESS;
}

MPI_Fint c_keyval_with_copy(void)
{
    int k = MPI_KEYVAL_INVALID;
    MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &k, NULL);
    return k;
}

/* C's MPI_COMM_DUP_FN copies the pointer it is given. */
MPI_Fint c_keyval_dup_fn(void)
{
    int k = MPI_KEYVAL_INVALID;
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &k, NULL);
    return k;
}

MPI_Aint c_copy_saw(void)
{
    return copy_saw;
}
