/* f2c.h — Fortran handles (INTEGER indices) for C handles; see f2c.c.
 * Used by the Fortran bindings (src/fortran/) and MPI_*_c2f/f2c. */
#ifndef FM_MPI_F2C_H
#define FM_MPI_F2C_H

#include <mpi.h>

#include "mpi/api.h"

enum fm_f_kind {
    FM_F_COMM,
    FM_F_GROUP,
    FM_F_TYPE,
    FM_F_OP,
    FM_F_REQUEST,
    FM_F_ERRHANDLER,
    FM_F_INFO,
    FM_F_WIN,
    FM_F_MESSAGE,
    FM_F_KINDS
};

/* The Fortran value of obj (0 for NULL); the same value while obj lives. */
MPI_Fint fm_f_index(enum fm_f_kind kind, void *obj);
/* The object a Fortran value names: NULL for 0, an object no handle check
 * accepts for a value that names none. */
void *fm_f_object(enum fm_f_kind kind, MPI_Fint index);
/* The object of index was freed: the index may name another one later
 * (predefined indices and 0 are never given back). */
void fm_f_release(enum fm_f_kind kind, MPI_Fint index);
/* The predefined objects of a kind, in the order of their indices 1, 2, ...
 * (for the generator of the Fortran constants). */
int fm_f_predefined(enum fm_f_kind kind, void *const **objs);
/* fm_f_release for the Fortran bindings' library (exported: it is the
 * one call the bindings make that is not an MPI procedure). */
void fab_f_release(enum fm_f_kind kind, MPI_Fint index);
/* MPI_Op_create with a Fortran user function (src/mpi/op_api.c). */
int fab_f_op_create(void (*fn)(void *, void *, MPI_Fint *, MPI_Fint *), int commute,
                    MPI_Op *op);
/* Free the tables (MPI_Finalize). */
void fm_f_finalize(void);

#endif
