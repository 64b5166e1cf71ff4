/* callbacks.c — the Fortran bindings of the procedures that take user
 * callbacks (tools/gen_fortran.py CALLBACKS), and the trampolines through
 * which the library calls those callbacks with Fortran's conventions.
 *
 * A Fortran callback takes every argument by reference: handles as
 * INTEGERs (an mpi_f08 handle type holds just that INTEGER), attribute
 * values and extra states as INTEGER(KIND=MPI_ADDRESS_KIND) (default
 * INTEGER for MPI_Keyval_create's MPI-1 callbacks), flags as LOGICAL, a
 * status as the INTEGER status (MPI_Status's layout), and it returns its
 * error code in ierror.  A callback gets an attribute value as Fortran
 * reads it (special.c): the integer a Fortran set stored, or the address
 * a C set gave; what it copies out is stored as a Fortran value.
 *
 * Error handlers and keyvals: the binding creates the object through
 * MPI_X (PMPI_X), with the Fortran procedure where C's function goes, and
 * marks it at once (fab_f_errhandler_mark, fab_f_keyval_mark; src/mpi/f2c.h)
 * with the trampolines below, the only code that calls the procedure.
 * Generalized requests need no mark: their extra_state, which C hands
 * back to every callback, is a box holding the three procedures and the
 * program's extra_state, and C trampolines are the callbacks; free_fn,
 * which MPI calls exactly once, frees the box. */
#include <stdint.h>

#include "fortran/bindings.h"

/* ---- error handlers ------------------------------------------------------------- */

typedef void f_errhandler_fn(MPI_Fint *handle, MPI_Fint *error_code);

static void call_errhandler(fm_f_proc *fn, MPI_Fint handle, int *code)
{
    MPI_Fint error_code = *code;
    ((f_errhandler_fn *)fn)(&handle, &error_code);
    *code = error_code;
}

static void comm_errhandler(fm_f_proc *fn, void *handle, int *code)
{
    call_errhandler(fn, PMPI_Comm_c2f(*(MPI_Comm *)handle), code);
}

static void win_errhandler(fm_f_proc *fn, void *handle, int *code)
{
    call_errhandler(fn, PMPI_Win_c2f(*(MPI_Win *)handle), code);
}

/* The handler is marked before the program sees its handle. */
static void errhandler_made(int rc, MPI_Errhandler c, fm_f_errh_call *call, MPI_Fint *errhandler,
                            MPI_Fint *ierror)
{
    if (rc == MPI_SUCCESS) {
        fab_f_errhandler_mark(c, call);
        *errhandler = PMPI_Errhandler_c2f(c);
    }
    fm_f_ierror(ierror, rc);
}

void mpi_comm_create_errhandler_(fm_f_proc *fn, MPI_Fint *errhandler, MPI_Fint *ierror)
{
    MPI_Errhandler c = MPI_ERRHANDLER_NULL;
    int rc = MPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)fn, &c);
    errhandler_made(rc, c, comm_errhandler, errhandler, ierror);
}

void pmpi_comm_create_errhandler_(fm_f_proc *fn, MPI_Fint *errhandler, MPI_Fint *ierror)
{
    MPI_Errhandler c = MPI_ERRHANDLER_NULL;
    int rc = PMPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)fn, &c);
    errhandler_made(rc, c, comm_errhandler, errhandler, ierror);
}

void mpi_win_create_errhandler_(fm_f_proc *fn, MPI_Fint *errhandler, MPI_Fint *ierror)
{
    MPI_Errhandler c = MPI_ERRHANDLER_NULL;
    int rc = MPI_Win_create_errhandler((MPI_Win_errhandler_function *)fn, &c);
    errhandler_made(rc, c, win_errhandler, errhandler, ierror);
}

void pmpi_win_create_errhandler_(fm_f_proc *fn, MPI_Fint *errhandler, MPI_Fint *ierror)
{
    MPI_Errhandler c = MPI_ERRHANDLER_NULL;
    int rc = PMPI_Win_create_errhandler((MPI_Win_errhandler_function *)fn, &c);
    errhandler_made(rc, c, win_errhandler, errhandler, ierror);
}

/* ---- attribute keys ---------------------------------------------------------------- */

typedef void f_copy_fn(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *extra_state,
                       MPI_Aint *attribute_val_in, MPI_Aint *attribute_val_out, MPI_Fint *flag,
                       MPI_Fint *ierror);
typedef void f_delete_fn(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *attribute_val,
                         MPI_Aint *extra_state, MPI_Fint *ierror);
/* MPI_Keyval_create's (MPI_Copy_function, MPI_Delete_function). */
typedef void f_copy1_fn(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *extra_state,
                        MPI_Fint *attribute_val_in, MPI_Fint *attribute_val_out, MPI_Fint *flag,
                        MPI_Fint *ierr);
typedef void f_delete1_fn(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *attribute_val,
                          MPI_Fint *extra_state, MPI_Fint *ierr);

/* A callback that never sets ierror has succeeded; flag starts .FALSE. */
static int copy_call(fm_f_proc *fn, MPI_Fint obj, int keyval, void *extra, void *in, void **out,
                     int *flag)
{
    MPI_Fint k = keyval, f = 0, ierror = MPI_SUCCESS;
    MPI_Aint x = (MPI_Aint)(intptr_t)extra, v_in = (MPI_Aint)(intptr_t)in, v_out = 0;
    ((f_copy_fn *)fn)(&obj, &k, &x, &v_in, &v_out, &f, &ierror);
    *flag = f != 0;
    *out = (void *)(intptr_t)v_out;
    return ierror;
}

static int delete_call(fm_f_proc *fn, MPI_Fint obj, int keyval, void *val, void *extra)
{
    MPI_Fint k = keyval, ierror = MPI_SUCCESS;
    MPI_Aint v = (MPI_Aint)(intptr_t)val, x = (MPI_Aint)(intptr_t)extra;
    ((f_delete_fn *)fn)(&obj, &k, &v, &x, &ierror);
    return ierror;
}

/* MPI-1: an INTEGER value keeps its low bits (section 17.2.7), and one
 * it gives back is sign-extended, as mpi_attr_put_ stores it. */
static int copy1_call(fm_f_proc *fn, void *obj, int keyval, void *extra, void *in, void **out,
                      int *flag)
{
    MPI_Fint c = PMPI_Comm_c2f((MPI_Comm)obj), k = keyval, f = 0, ierr = MPI_SUCCESS;
    MPI_Fint x = (MPI_Fint)(intptr_t)extra, v_in = (MPI_Fint)(intptr_t)in, v_out = 0;
    ((f_copy1_fn *)fn)(&c, &k, &x, &v_in, &v_out, &f, &ierr);
    *flag = f != 0;
    *out = (void *)(intptr_t)v_out;
    return ierr;
}

static int delete1_call(fm_f_proc *fn, void *obj, int keyval, void *val, void *extra)
{
    MPI_Fint c = PMPI_Comm_c2f((MPI_Comm)obj), k = keyval, ierr = MPI_SUCCESS;
    MPI_Fint v = (MPI_Fint)(intptr_t)val, x = (MPI_Fint)(intptr_t)extra;
    ((f_delete1_fn *)fn)(&c, &k, &v, &x, &ierr);
    return ierr;
}

#define FM_F_KEYVAL_CALLS(lower, Name, CType)                                               \
    static int lower##_copy(fm_f_proc *fn, void *obj, int keyval, void *extra, void *in,    \
                            void **out, int *flag)                                          \
    {                                                                                       \
        return copy_call(fn, PMPI_##Name##_c2f((CType)obj), keyval, extra, in, out, flag);  \
    }                                                                                       \
    static int lower##_delete(fm_f_proc *fn, void *obj, int keyval, void *val, void *extra) \
    {                                                                                       \
        return delete_call(fn, PMPI_##Name##_c2f((CType)obj), keyval, val, extra);          \
    }                                                                                       \
    static const struct fm_f_keyval_calls lower##_calls = {lower##_copy, lower##_delete};
FM_F_KEYVAL_CALLS(comm, Comm, MPI_Comm)
FM_F_KEYVAL_CALLS(type, Type, MPI_Datatype)
FM_F_KEYVAL_CALLS(win, Win, MPI_Win)
#undef FM_F_KEYVAL_CALLS
static const struct fm_f_keyval_calls mpi1_calls = {copy1_call, delete1_call};

static void keyval_made(int rc, int k, const struct fm_f_keyval_calls *calls, MPI_Fint *keyval,
                        MPI_Fint *ierror)
{
    if (rc == MPI_SUCCESS) {
        fab_f_keyval_mark(k, calls);
        *keyval = k;
    }
    fm_f_ierror(ierror, rc);
}

static void *extra_of(MPI_Aint *extra_state) { return (void *)(intptr_t)*extra_state; }

static void comm_create_keyval(int profiled, fm_f_proc *copy_fn, fm_f_proc *delete_fn,
                               MPI_Fint *keyval, MPI_Aint *extra_state, MPI_Fint *ierror)
{
    int k = MPI_KEYVAL_INVALID;
    int rc = (profiled ? PMPI_Comm_create_keyval : MPI_Comm_create_keyval)(
        (MPI_Comm_copy_attr_function *)copy_fn, (MPI_Comm_delete_attr_function *)delete_fn, &k,
        extra_of(extra_state));
    keyval_made(rc, k, &comm_calls, keyval, ierror);
}

static void type_create_keyval(int profiled, fm_f_proc *copy_fn, fm_f_proc *delete_fn,
                               MPI_Fint *keyval, MPI_Aint *extra_state, MPI_Fint *ierror)
{
    int k = MPI_KEYVAL_INVALID;
    int rc = (profiled ? PMPI_Type_create_keyval : MPI_Type_create_keyval)(
        (MPI_Type_copy_attr_function *)copy_fn, (MPI_Type_delete_attr_function *)delete_fn, &k,
        extra_of(extra_state));
    keyval_made(rc, k, &type_calls, keyval, ierror);
}

static void win_create_keyval(int profiled, fm_f_proc *copy_fn, fm_f_proc *delete_fn,
                              MPI_Fint *keyval, MPI_Aint *extra_state, MPI_Fint *ierror)
{
    int k = MPI_KEYVAL_INVALID;
    int rc = (profiled ? PMPI_Win_create_keyval : MPI_Win_create_keyval)(
        (MPI_Win_copy_attr_function *)copy_fn, (MPI_Win_delete_attr_function *)delete_fn, &k,
        extra_of(extra_state));
    keyval_made(rc, k, &win_calls, keyval, ierror);
}

static void keyval_create(int profiled, fm_f_proc *copy_fn, fm_f_proc *delete_fn,
                          MPI_Fint *keyval, MPI_Fint *extra_state, MPI_Fint *ierror)
{
    int k = MPI_KEYVAL_INVALID;
    int rc = (profiled ? PMPI_Keyval_create : MPI_Keyval_create)(
        (MPI_Copy_function *)copy_fn, (MPI_Delete_function *)delete_fn, &k,
        (void *)(intptr_t)*extra_state);
    keyval_made(rc, k, &mpi1_calls, keyval, ierror);
}

/* gfortran's names of each, through MPI_ and PMPI_. */
#define FM_F_TWINS(fn, ExtraT)                                                              \
    void mpi_##fn##_(fm_f_proc *copy_fn, fm_f_proc *delete_fn, MPI_Fint *keyval,            \
                     ExtraT *extra_state, MPI_Fint *ierror)                                 \
    {                                                                                       \
        fn(0, copy_fn, delete_fn, keyval, extra_state, ierror);                             \
    }                                                                                       \
    void pmpi_##fn##_(fm_f_proc *copy_fn, fm_f_proc *delete_fn, MPI_Fint *keyval,           \
                      ExtraT *extra_state, MPI_Fint *ierror)                                \
    {                                                                                       \
        fn(1, copy_fn, delete_fn, keyval, extra_state, ierror);                             \
    }
FM_F_TWINS(comm_create_keyval, MPI_Aint)
FM_F_TWINS(type_create_keyval, MPI_Aint)
FM_F_TWINS(win_create_keyval, MPI_Aint)
FM_F_TWINS(keyval_create, MPI_Fint)
#undef FM_F_TWINS

/* ---- generalized requests -------------------------------------------------------- */

typedef void f_query_fn(MPI_Aint *extra_state, MPI_Fint *status, MPI_Fint *ierror);
typedef void f_free_fn(MPI_Aint *extra_state, MPI_Fint *ierror);
typedef void f_cancel_fn(MPI_Aint *extra_state, MPI_Fint *complete, MPI_Fint *ierror);

/* C's extra_state for a request from Fortran: a copy of the program's
 * value, not its address, since mpi_f08 declares extra_state INTENT(IN)
 * and a program may pass an expression (MPICH's greqf, which expects its
 * free_fn's change to the variable to show, is disputed: pmodels/mpich
 * issue 7922). */
struct greq_box {
    fm_f_proc *query_fn, *free_fn, *cancel_fn;
    MPI_Aint extra_state; /* a callback may change it */
};

static int greq_query(void *extra_state, MPI_Status *status)
{
    struct greq_box *b = extra_state;
    MPI_Fint ierror = MPI_SUCCESS;
    ((f_query_fn *)b->query_fn)(&b->extra_state, (MPI_Fint *)status, &ierror);
    return ierror;
}

static int greq_free(void *extra_state)
{
    struct greq_box *b = extra_state;
    MPI_Fint ierror = MPI_SUCCESS;
    ((f_free_fn *)b->free_fn)(&b->extra_state, &ierror);
    free(b);
    return ierror;
}

static int greq_cancel(void *extra_state, int complete)
{
    struct greq_box *b = extra_state;
    MPI_Fint ierror = MPI_SUCCESS, done = complete ? FM_F_TRUE : 0;
    ((f_cancel_fn *)b->cancel_fn)(&b->extra_state, &done, &ierror);
    return ierror;
}

static void grequest_start(int profiled, fm_f_proc *query_fn, fm_f_proc *free_fn,
                           fm_f_proc *cancel_fn, MPI_Aint *extra_state, MPI_Fint *request,
                           MPI_Fint *ierror)
{
    struct greq_box *b = fm_f_array(1, sizeof *b);
    *b = (struct greq_box){query_fn, free_fn, cancel_fn, *extra_state};
    MPI_Request c = MPI_REQUEST_NULL;
    int rc = (profiled ? PMPI_Grequest_start : MPI_Grequest_start)(greq_query, greq_free,
                                                                    greq_cancel, b, &c);
    if (rc == MPI_SUCCESS)
        *request = PMPI_Request_c2f(c);
    else
        free(b);
    fm_f_ierror(ierror, rc);
}

void mpi_grequest_start_(fm_f_proc *query_fn, fm_f_proc *free_fn, fm_f_proc *cancel_fn,
                         MPI_Aint *extra_state, MPI_Fint *request, MPI_Fint *ierror)
{
    grequest_start(0, query_fn, free_fn, cancel_fn, extra_state, request, ierror);
}

void pmpi_grequest_start_(fm_f_proc *query_fn, fm_f_proc *free_fn, fm_f_proc *cancel_fn,
                          MPI_Aint *extra_state, MPI_Fint *request, MPI_Fint *ierror)
{
    grequest_start(1, query_fn, free_fn, cancel_fn, extra_state, request, ierror);
}
