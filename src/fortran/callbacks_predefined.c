/* callbacks_predefined.c — MPI_COMM_NULL_COPY_FN, MPI_COMM_DUP_FN and the
 * other predefined attribute callbacks as Fortran procedures (gfortran's
 * names: mpi_comm_dup_fn_, ...), which Fortran programs pass to
 * MPI_Comm_create_keyval & co.  mpif.h and the mpi module declare them
 * EXTERNAL; the mpi_f08 module gives them the standard's abstract
 * interfaces (tools/gen_fortran.py).  The library calls them through the
 * keyval's trampoline (callbacks.c) like a program's own: values are
 * INTEGER(KIND=MPI_ADDRESS_KIND), for MPI-1's MPI_NULL_COPY_FN, MPI_DUP_FN
 * and MPI_NULL_DELETE_FN default INTEGERs; flag is a LOGICAL.  C's own
 * versions (attr.c) take C's arguments and cannot stand in for these. */
#include "fortran/bindings.h"

#define FM_F_NULL_COPY(name, V)                                                       \
    void name(MPI_Fint *obj, MPI_Fint *keyval, V *extra_state, V *in, V *out,           \
              MPI_Fint *flag, MPI_Fint *ierror)                                       \
    {                                                                                 \
        (void)obj, (void)keyval, (void)extra_state, (void)in, (void)out;              \
        *flag = 0;                                                                    \
        *ierror = MPI_SUCCESS;                                                        \
    }
#define FM_F_DUP(name, V)                                                             \
    void name(MPI_Fint *obj, MPI_Fint *keyval, V *extra_state, V *in, V *out,           \
              MPI_Fint *flag, MPI_Fint *ierror)                                       \
    {                                                                                 \
        (void)obj, (void)keyval, (void)extra_state;                                   \
        *out = *in;                                                                   \
        *flag = FM_F_TRUE;                                                            \
        *ierror = MPI_SUCCESS;                                                        \
    }
#define FM_F_NULL_DELETE(name, V)                                                     \
    void name(MPI_Fint *obj, MPI_Fint *keyval, V *val, V *extra_state, MPI_Fint *ierror) \
    {                                                                                 \
        (void)obj, (void)keyval, (void)val, (void)extra_state;                        \
        *ierror = MPI_SUCCESS;                                                        \
    }

#define FM_F_PREDEFINED(X)                                                            \
    X(FM_F_NULL_COPY, mpi_comm_null_copy_fn_, MPI_Aint)                               \
    X(FM_F_DUP, mpi_comm_dup_fn_, MPI_Aint)                                           \
    X(FM_F_NULL_DELETE, mpi_comm_null_delete_fn_, MPI_Aint)                           \
    X(FM_F_NULL_COPY, mpi_type_null_copy_fn_, MPI_Aint)                               \
    X(FM_F_DUP, mpi_type_dup_fn_, MPI_Aint)                                           \
    X(FM_F_NULL_DELETE, mpi_type_null_delete_fn_, MPI_Aint)                           \
    X(FM_F_NULL_COPY, mpi_win_null_copy_fn_, MPI_Aint)                                \
    X(FM_F_DUP, mpi_win_dup_fn_, MPI_Aint)                                            \
    X(FM_F_NULL_DELETE, mpi_win_null_delete_fn_, MPI_Aint)                            \
    X(FM_F_NULL_COPY, mpi_null_copy_fn_, MPI_Fint)                                    \
    X(FM_F_DUP, mpi_dup_fn_, MPI_Fint)                                                \
    X(FM_F_NULL_DELETE, mpi_null_delete_fn_, MPI_Fint)
#define FM_F_DEFINE(kind, name, V) kind(name, V)
FM_F_PREDEFINED(FM_F_DEFINE)
#undef FM_F_DEFINE
