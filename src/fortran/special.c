/* special.c — Fortran bindings the generator does not write
 * (tools/gen_fortran.py HAND_WRITTEN): attribute values and user
 * reduction functions, MPI_Info_get_string's lengths.
 *
 * In C an attribute value is a void * the program gave or, for the
 * predefined keys, a pointer to the library's value.  In Fortran it is an
 * INTEGER(KIND=MPI_ADDRESS_KIND) (INTEGER for the MPI-1 calls) holding the
 * value itself, also for the predefined keys (MPI-3.1 section 6.7.2).  A
 * value Fortran sets is kept as an integer C reads through a pointer
 * (src/mpi/attr.c; MPI-4.0 19.3.7); one C set reads in Fortran as its
 * address. */
#include <stdint.h>

#include "fortran/bindings.h"

typedef int (*get_attr_fn)(void *obj, int keyval, void *value, int *flag);

/* The Fortran value of an attribute the C call returned as value. */
static MPI_Aint fortran_value(enum fm_f_kind kind, void *obj, int keyval, void *value)
{
    MPI_Aint stored;
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
    default: /* MPI_WIN_BASE and keys set from C: the pointer is the value */
        if (fab_f_attr_value(kind, obj, keyval, value, &stored))
            return stored; /* set from Fortran */
        return (MPI_Aint)(intptr_t)value;
    }
}

static int get_attr(get_attr_fn fn, enum fm_f_kind kind, void *obj, MPI_Fint keyval,
                    MPI_Aint *value, MPI_Fint *flag)
{
    void *c_value = NULL;
    int c_flag = 0;
    int rc = fn(obj, keyval, &c_value, &c_flag);
    *flag = c_flag ? FM_F_TRUE : 0;
    if (rc == MPI_SUCCESS && c_flag)
        *value = fortran_value(kind, obj, keyval, c_value);
    return rc;
}

typedef int set_attr_fn(void *obj, int keyval, void *value);

/* Set a Fortran value: stored as an integer that C reads through a pointer. */
static int set_attr(set_attr_fn *fn, void *obj, int keyval, MPI_Aint value)
{
    fab_f_attr_set_next(1);
    int rc = fn(obj, keyval, (void *)(intptr_t)value);
    fab_f_attr_set_next(0);
    return rc;
}

/* Each kind's four bindings: get and set through MPI_ or PMPI_. */
#define FM_F_ATTR(lower, Name, CType, kind)                                                \
    static int lower##_get_m(void *o, int k, void *v, int *f)                              \
    {                                                                                      \
        return MPI_##Name##_get_attr((CType)o, k, v, f);                                   \
    }                                                                                      \
    static int lower##_get_p(void *o, int k, void *v, int *f)                              \
    {                                                                                      \
        return PMPI_##Name##_get_attr((CType)o, k, v, f);                                  \
    }                                                                                      \
    static int lower##_set_m(void *o, int k, void *v)                                      \
    {                                                                                      \
        return MPI_##Name##_set_attr((CType)o, k, v);                                      \
    }                                                                                      \
    static int lower##_set_p(void *o, int k, void *v)                                      \
    {                                                                                      \
        return PMPI_##Name##_set_attr((CType)o, k, v);                                     \
    }                                                                                      \
    void mpi_##lower##_get_attr_(MPI_Fint *h, MPI_Fint *k, MPI_Aint *v, MPI_Fint *flag,    \
                                 MPI_Fint *ierror)                                         \
    {                                                                                      \
        fm_f_ierror(ierror,                                                                \
                    get_attr(lower##_get_m, kind, PMPI_##Name##_f2c(*h), *k, v, flag));    \
    }                                                                                      \
    void pmpi_##lower##_get_attr_(MPI_Fint *h, MPI_Fint *k, MPI_Aint *v, MPI_Fint *flag,   \
                                  MPI_Fint *ierror)                                        \
    {                                                                                      \
        fm_f_ierror(ierror,                                                                \
                    get_attr(lower##_get_p, kind, PMPI_##Name##_f2c(*h), *k, v, flag));    \
    }                                                                                      \
    void mpi_##lower##_set_attr_(MPI_Fint *h, MPI_Fint *k, MPI_Aint *v, MPI_Fint *ierror)  \
    {                                                                                      \
        fm_f_ierror(ierror, set_attr(lower##_set_m, PMPI_##Name##_f2c(*h), *k, *v));       \
    }                                                                                      \
    void pmpi_##lower##_set_attr_(MPI_Fint *h, MPI_Fint *k, MPI_Aint *v, MPI_Fint *ierror) \
    {                                                                                      \
        fm_f_ierror(ierror, set_attr(lower##_set_p, PMPI_##Name##_f2c(*h), *k, *v));       \
    }
FM_F_ATTR(comm, Comm, MPI_Comm, FM_F_COMM)
FM_F_ATTR(type, Type, MPI_Datatype, FM_F_TYPE)
FM_F_ATTR(win, Win, MPI_Win, FM_F_WIN)
#undef FM_F_ATTR

/* MPI-1 forms: the value is a default INTEGER. */
static int attr_get_m(void *o, int k, void *v, int *f) { return MPI_Attr_get((MPI_Comm)o, k, v, f); }
static int attr_get_p(void *o, int k, void *v, int *f) { return PMPI_Attr_get((MPI_Comm)o, k, v, f); }

static void attr_get(get_attr_fn fn, MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value,
                     MPI_Fint *flag, MPI_Fint *ierror)
{
    MPI_Aint v = 0;
    int rc = get_attr(fn, FM_F_COMM, PMPI_Comm_f2c(*comm), *keyval, &v, flag);
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

static int attr_put_m(void *o, int k, void *v) { return MPI_Attr_put((MPI_Comm)o, k, v); }
static int attr_put_p(void *o, int k, void *v) { return PMPI_Attr_put((MPI_Comm)o, k, v); }

/* The INTEGER is stored sign-extended: C reads it as an int or MPI_Aint. */
void mpi_attr_put_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value, MPI_Fint *ierror)
{
    fm_f_ierror(ierror, set_attr(attr_put_m, PMPI_Comm_f2c(*comm), *keyval, *value));
}

void pmpi_attr_put_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value, MPI_Fint *ierror)
{
    fm_f_ierror(ierror, set_attr(attr_put_p, PMPI_Comm_f2c(*comm), *keyval, *value));
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

/* MPI_Info_get_string counts characters without C's terminator in Fortran
 * (MPI-4.0 10): buflen is the room given in, the value's length out; the
 * value is cut to that room and blank-padded, and not touched at all when
 * the room is 0 or the key is absent. */
static void info_get_string(int profiled, MPI_Fint *info, char *key, MPI_Fint *buflen,
                            char *value, MPI_Fint *flag, MPI_Fint *ierror, size_t key_len,
                            size_t value_len)
{
    char *c_key = fm_f_cstring_info(key, key_len);
    MPI_Fint room = *buflen;
    if (room > 0 && (size_t)room > value_len)
        room = (MPI_Fint)value_len;
    int c_buflen = room > 0 ? room + 1 : room; /* a negative one is the C call's error */
    char *c_value = fm_f_array(c_buflen > 0 ? c_buflen : 1, 1);
    int c_flag = 0;
    int rc = (profiled ? PMPI_Info_get_string : MPI_Info_get_string)(
        PMPI_Info_f2c(*info), c_key, &c_buflen, c_value, &c_flag);
    if (rc == MPI_SUCCESS) {
        *flag = c_flag ? FM_F_TRUE : 0;
        if (c_flag) {
            if (room > 0)
                fm_f_fstring(value, value_len, c_value);
            *buflen = c_buflen - 1;
        }
    }
    free(c_value);
    free(c_key);
    fm_f_ierror(ierror, rc);
}

void mpi_info_get_string_(MPI_Fint *info, char *key, MPI_Fint *buflen, char *value,
                          MPI_Fint *flag, MPI_Fint *ierror, size_t key_len, size_t value_len)
{
    info_get_string(0, info, key, buflen, value, flag, ierror, key_len, value_len);
}

void pmpi_info_get_string_(MPI_Fint *info, char *key, MPI_Fint *buflen, char *value,
                           MPI_Fint *flag, MPI_Fint *ierror, size_t key_len, size_t value_len)
{
    info_get_string(1, info, key, buflen, value, flag, ierror, key_len, value_len);
}

/* MPI_F_sync_reg (MPI-4.0 19.1.17): nothing to do but be a call the
 * compiler cannot see into (fortran_only.f90 declares it). */
void mpi_f_sync_reg_(void *buf)
{
    (void)buf;
}

void pmpi_f_sync_reg_(void *buf)
{
    (void)buf;
}
