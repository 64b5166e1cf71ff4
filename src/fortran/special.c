/* special.c — Fortran bindings the generator does not write
 * (tools/gen_fortran.py HAND_WRITTEN): attribute values and user
 * reduction functions.
 *
 * In C an attribute value is a void * the program gave or, for the
 * predefined keys, a pointer to the library's value.  In Fortran it is an
 * INTEGER(KIND=MPI_ADDRESS_KIND) (INTEGER for the MPI-1 calls) holding the
 * value itself, also for the predefined keys (MPI-3.1 section 6.7.2). */
#include <stdint.h>

#include "fortran/bindings.h"

typedef int (*get_attr_fn)(void *obj, int keyval, void *value, int *flag);

/* The Fortran value of an attribute the C call returned as value. */
static MPI_Aint fortran_value(int keyval, void *value)
{
    switch (keyval) {
    case MPI_TAG_UB:
    case MPI_HOST:
    case MPI_IO:
    case MPI_WTIME_IS_GLOBAL:
    case MPI_UNIVERSE_SIZE:
    case MPI_LASTUSEDCODE:
    case MPI_APPNUM:
    case MPI_WIN_DISP_UNIT:
    case MPI_WIN_CREATE_FLAVOR:
    case MPI_WIN_MODEL:
        return *(int *)value;
    case MPI_WIN_SIZE:
        return *(MPI_Aint *)value;
    default: /* MPI_WIN_BASE and user keys: the pointer is the value */
        return (MPI_Aint)(intptr_t)value;
    }
}

static int get_attr(get_attr_fn fn, void *obj, MPI_Fint keyval, MPI_Aint *value, MPI_Fint *flag)
{
    void *c_value = NULL;
    int c_flag = 0;
    int rc = fn(obj, keyval, &c_value, &c_flag);
    *flag = c_flag ? FM_F_TRUE : 0;
    if (rc == MPI_SUCCESS && c_flag)
        *value = fortran_value(keyval, c_value);
    return rc;
}

/* Each kind's four bindings: get through MPI_ or PMPI_ (get_fn), set
 * with the value as the attribute pointer. */
#define FM_F_ATTR(lower, Name, CType)                                                      \
    static int lower##_get_m(void *o, int k, void *v, int *f)                              \
    {                                                                                      \
        return MPI_##Name##_get_attr((CType)o, k, v, f);                                   \
    }                                                                                      \
    static int lower##_get_p(void *o, int k, void *v, int *f)                              \
    {                                                                                      \
        return PMPI_##Name##_get_attr((CType)o, k, v, f);                                  \
    }                                                                                      \
    void mpi_##lower##_get_attr_(MPI_Fint *h, MPI_Fint *k, MPI_Aint *v, MPI_Fint *flag,    \
                                 MPI_Fint *ierror)                                         \
    {                                                                                      \
        fm_f_ierror(ierror, get_attr(lower##_get_m, PMPI_##Name##_f2c(*h), *k, v, flag));  \
    }                                                                                      \
    void pmpi_##lower##_get_attr_(MPI_Fint *h, MPI_Fint *k, MPI_Aint *v, MPI_Fint *flag,   \
                                  MPI_Fint *ierror)                                        \
    {                                                                                      \
        fm_f_ierror(ierror, get_attr(lower##_get_p, PMPI_##Name##_f2c(*h), *k, v, flag));  \
    }                                                                                      \
    void mpi_##lower##_set_attr_(MPI_Fint *h, MPI_Fint *k, MPI_Aint *v, MPI_Fint *ierror)  \
    {                                                                                      \
        fm_f_ierror(ierror,                                                                \
                    MPI_##Name##_set_attr(PMPI_##Name##_f2c(*h), *k, (void *)(intptr_t)*v)); \
    }                                                                                      \
    void pmpi_##lower##_set_attr_(MPI_Fint *h, MPI_Fint *k, MPI_Aint *v, MPI_Fint *ierror) \
    {                                                                                      \
        fm_f_ierror(ierror,                                                                \
                    PMPI_##Name##_set_attr(PMPI_##Name##_f2c(*h), *k, (void *)(intptr_t)*v)); \
    }
FM_F_ATTR(comm, Comm, MPI_Comm)
FM_F_ATTR(type, Type, MPI_Datatype)
FM_F_ATTR(win, Win, MPI_Win)
#undef FM_F_ATTR

/* MPI-1 forms: the value is a default INTEGER. */
static int attr_get_m(void *o, int k, void *v, int *f) { return MPI_Attr_get((MPI_Comm)o, k, v, f); }
static int attr_get_p(void *o, int k, void *v, int *f) { return PMPI_Attr_get((MPI_Comm)o, k, v, f); }

static void attr_get(get_attr_fn fn, MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value,
                     MPI_Fint *flag, MPI_Fint *ierror)
{
    MPI_Aint v = 0;
    int rc = get_attr(fn, PMPI_Comm_f2c(*comm), *keyval, &v, flag);
    if (rc == MPI_SUCCESS && *flag)
        *value = (MPI_Fint)v;
    fm_f_ierror(ierror, rc);
}

void mpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value, MPI_Fint *flag,
                   MPI_Fint *ierror)
{
    attr_get(attr_get_m, comm, keyval, value, flag, ierror);
}

void pmpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value, MPI_Fint *flag,
                    MPI_Fint *ierror)
{
    attr_get(attr_get_p, comm, keyval, value, flag, ierror);
}

void mpi_attr_put_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value, MPI_Fint *ierror)
{
    fm_f_ierror(ierror, MPI_Attr_put(PMPI_Comm_f2c(*comm), *keyval, (void *)(intptr_t)*value));
}

void pmpi_attr_put_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value, MPI_Fint *ierror)
{
    fm_f_ierror(ierror, PMPI_Attr_put(PMPI_Comm_f2c(*comm), *keyval, (void *)(intptr_t)*value));
}

/* A Fortran reduction function takes its length and datatype as INTEGERs;
 * libfabmpi converts the datatype for it (fab_f_op_create).  Profiling
 * libraries do not see this call as MPI_Op_create: its callback type
 * differs. */
typedef void fortran_user_fn(void *in, void *inout, MPI_Fint *len, MPI_Fint *datatype);

void mpi_op_create_(fortran_user_fn *fn, MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierror)
{
    MPI_Op c_op = MPI_OP_NULL;
    fm_f_ierror(ierror, fab_f_op_create(fn, *commute, &c_op));
    *op = PMPI_Op_c2f(c_op);
}

void pmpi_op_create_(fortran_user_fn *fn, MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierror)
{
    mpi_op_create_(fn, commute, op, ierror);
}
