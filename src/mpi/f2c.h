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
/* Callbacks written in Fortran (their trampolines: src/fortran/callbacks.c).
 * A Fortran binding creates the error handler or keyval through the MPI
 * call, as C does (so a profiling library sees it), with the Fortran
 * procedure where C's function goes, then marks the object before anyone
 * else can know it: from then on the library calls that procedure only
 * through the mark's trampoline, which converts handles to INTEGERs,
 * attribute values and extra states to INTEGER(KIND=MPI_ADDRESS_KIND)
 * (default INTEGER for MPI_Keyval_create's), flags to LOGICAL, and takes
 * ierror as the result.  Objects from C carry no mark. */
typedef void fm_f_proc(void);
/* handle: the MPI_Comm or MPI_Win the error is on; code: in and out. */
typedef void fm_f_errh_call(fm_f_proc *fn, void *handle, int *code);
/* obj: the MPI_Comm, MPI_Datatype or MPI_Win; the rest as in C's callbacks. */
struct fm_f_keyval_calls {
    int (*copy)(fm_f_proc *fn, void *obj, int keyval, void *extra, void *in, void **out,
                int *flag);
    int (*del)(fm_f_proc *fn, void *obj, int keyval, void *val, void *extra);
};
/* MPI_SUCCESS, or MPI_ERR_ARG / MPI_ERR_KEYVAL for an object that is
 * not a user's error handler / a live keyval (nothing is raised). */
int fab_f_errhandler_mark(MPI_Errhandler errhandler, fm_f_errh_call *call);
int fab_f_keyval_mark(int keyval, const struct fm_f_keyval_calls *calls);
/* Attribute values from Fortran (the bindings' set_attr and attr_put):
 * after fab_f_attr_set_next(1), the next MPI_X_set_attr on this thread
 * stores its value as an integer C reads through a pointer (MPI-4.0
 * 19.3.7); the binding says 0 after its call, in case a profiling
 * library's MPI_X_set_attr made no set. */
void fab_f_attr_set_next(int from_fortran);
/* 1 and the integer when c_value, which the get call on (kind, h, keyval)
 * returned, points to a value stored from Fortran; else 0. */
int fab_f_attr_value(enum fm_f_kind kind, void *h, int keyval, const void *c_value,
                     MPI_Aint *value);
/* Free the tables (MPI_Finalize); Info handles outlive it (MPI-4.0 10). */
void fm_f_finalize(void);

#endif
