/* type_f90.c — MPI_Type_create_f90_integer, _real and _complex (MPI-3.1
 * section 17.1.9): the datatype of the Fortran kind that
 * SELECTED_INT_KIND(r) or SELECTED_REAL_KIND(p, r) gives, as gfortran
 * answers them on this machine.
 *
 * The standard makes these types predefined (they cannot be freed) yet
 * asks MPI_Type_get_envelope for combiner MPI_COMBINER_F90_* and
 * MPI_Type_get_contents for the (p, r) of the call.  So each (kind, p, r)
 * gets one library-owned copy of the predefined type of its layout
 * (MPI_INTEGER8, MPI_REAL4, ...): flagged predefined, so every layer
 * below treats it exactly as that type (reductions by its basic kind,
 * no contents to walk), with the combiner and (p, r) kept here.  The copy
 * is made on the first call and the same handle returned by every later
 * one with the same arguments (MPICH's createf90types calls them 13,000
 * times); the copies are freed at MPI_Finalize.
 *
 * gfortran's kinds (checked with gfortran 12 on x86-64):
 *   INTEGER  kind 1, 2, 4, 8, 16   decimal range 2, 4, 9, 18, 38
 *   REAL     kind 4   p 6,  r 37    MPI_REAL4    / MPI_COMPLEX8
 *            kind 8   p 15, r 307   MPI_REAL8    / MPI_COMPLEX16
 *            kind 10  p 18, r 4931  x87 80-bit extended in 16 bytes: C's
 *                                   long double (MPI_LONG_DOUBLE /
 *                                   MPI_C_LONG_DOUBLE_COMPLEX), named
 *                                   REAL(KIND=10) / COMPLEX(KIND=10)
 *            kind 16  p 33, r 4931  IEEE quad: MPI_REAL16 / MPI_COMPLEX32
 * A kind is listed only where the C compiler has the same layout (kind 10
 * where long double is the x87 format; 16 where mpi.h has MPI_INTEGER16 or
 * MPI_REAL16).  The first kind, in that order, whose precision is at least
 * p and whose range is at least r is chosen, as the intrinsics do;
 * MPI_UNDEFINED (for p or r of a REAL, not both) means "any".  A negative
 * p or r other than MPI_UNDEFINED asks nothing either, as with the
 * intrinsics. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>

#include "dtype/dtype.h"
#include "mpi/api.h"
#include "mpi/type_check.h"

struct f90_type {
    struct fm_datatype dt; /* first: the handle points here */
    int nints, ints[2];    /* as MPI_Type_get_contents returns them */
    struct f90_type *next;
};

static struct f90_type *made; /* every type handed out, newest first */

struct real_kind {
    int kind, precision, range;
    MPI_Datatype real, complex;
    const char *real_name, *complex_name; /* NULL: the base type's own */
};

static const struct real_kind real_kinds[] = {
    {4, 6, 37, MPI_REAL4, MPI_COMPLEX8, NULL, NULL},
    {8, 15, 307, MPI_REAL8, MPI_COMPLEX16, NULL, NULL},
#if LDBL_MANT_DIG == 64 && LDBL_MAX_EXP == 16384
    {10, 18, 4931, MPI_LONG_DOUBLE, MPI_C_LONG_DOUBLE_COMPLEX, "REAL(KIND=10)",
     "COMPLEX(KIND=10)"},
#endif
#ifdef MPI_REAL16
    {16, 33, 4931, MPI_REAL16, MPI_COMPLEX32, NULL, NULL},
#endif
};
#define N_REAL_KINDS ((int)(sizeof real_kinds / sizeof *real_kinds))

static const struct {
    int range;
    MPI_Datatype type;
} int_kinds[] = {
    {2, MPI_INTEGER1}, {4, MPI_INTEGER2}, {9, MPI_INTEGER4}, {18, MPI_INTEGER8},
#ifdef MPI_INTEGER16
    {38, MPI_INTEGER16},
#endif
};
#define N_INT_KINDS ((int)(sizeof int_kinds / sizeof *int_kinds))

/* The cached type of (combiner, ints), made from base on first use;
 * NULL when memory is out. */
static MPI_Datatype f90_type(int combiner, int nints, int p, int r, MPI_Datatype base,
                             const char *name)
{
    int ints[2] = {nints == 1 ? r : p, r};
    for (struct f90_type *t = made; t; t = t->next)
        if (t->dt.combiner == combiner && t->ints[0] == ints[0] && t->ints[1] == ints[1])
            return &t->dt;
    struct f90_type *t = malloc(sizeof *t);
    if (!t)
        return NULL;
    t->dt = *base;
    t->dt.blocks = &t->dt.one_block; /* the base's points into the base */
    t->dt.combiner = combiner;
    t->dt.attrs = NULL;
    if (name)
        snprintf(t->dt.name, sizeof t->dt.name, "%s", name);
    t->nints = nints;
    t->ints[0] = ints[0];
    t->ints[1] = ints[1];
    t->next = made;
    made = t;
    return &t->dt;
}

int fm_type_f90_ints(MPI_Datatype dt, const int **ints)
{
    if (dt->combiner != MPI_COMBINER_F90_INTEGER && dt->combiner != MPI_COMBINER_F90_REAL &&
        dt->combiner != MPI_COMBINER_F90_COMPLEX)
        return -1;
    const struct f90_type *t = (const struct f90_type *)dt;
    *ints = t->ints;
    return t->nints;
}

void fm_type_f90_finalize(void)
{
    while (made) {
        struct f90_type *t = made;
        made = t->next;
        fm_attr_type_free(&t->dt); /* attributes set on it, while keyvals exist */
        free(t);
    }
}

#pragma weak MPI_Type_create_f90_integer = PMPI_Type_create_f90_integer
int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    FM_API_LOCK();
    static const char call[] = "MPI_Type_create_f90_integer";
    FM_CHECK_PTR(call, newtype, "newtype");
    if (r == MPI_UNDEFINED)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                        "r=MPI_UNDEFINED: an INTEGER kind needs its decimal range");
    for (int i = 0; i < N_INT_KINDS; i++)
        if (r <= int_kinds[i].range) {
            MPI_Datatype t = f90_type(MPI_COMBINER_F90_INTEGER, 1, 0, r, int_kinds[i].type, NULL);
            if (!t)
                return fm_raise(MPI_COMM_NULL, call, MPI_ERR_NO_MEM, "no memory for r=%d", r);
            *newtype = t;
            return MPI_SUCCESS;
        }
    return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                    "r=%d: no INTEGER kind has a decimal range of %d digits "
                    "(SELECTED_INT_KIND(%d) is -1; the widest, %s, has %d)",
                    r, r, r, int_kinds[N_INT_KINDS - 1].type->name,
                    int_kinds[N_INT_KINDS - 1].range);
}

/* _real and _complex: the kind, or an error naming what no kind has. */
static int real_type(const char *call, int combiner, int p, int r, MPI_Datatype *newtype)
{
    FM_CHECK_PTR(call, newtype, "newtype");
    if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                        "p=MPI_UNDEFINED and r=MPI_UNDEFINED: give a precision, a range or "
                        "both");
    int any_p = 0, any_r = 0;
    for (int i = 0; i < N_REAL_KINDS; i++) {
        const struct real_kind *k = &real_kinds[i];
        int p_ok = p == MPI_UNDEFINED || p <= k->precision;
        int r_ok = r == MPI_UNDEFINED || r <= k->range;
        any_p |= p_ok;
        any_r |= r_ok;
        if (!p_ok || !r_ok)
            continue;
        int cplx = combiner == MPI_COMBINER_F90_COMPLEX;
        MPI_Datatype t = f90_type(combiner, 2, p, r, cplx ? k->complex : k->real,
                                  cplx ? k->complex_name : k->real_name);
        if (!t)
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_NO_MEM, "no memory for p=%d, r=%d",
                            p, r);
        *newtype = t;
        return MPI_SUCCESS;
    }
    const struct real_kind *widest = &real_kinds[N_REAL_KINDS - 1];
    char what[96];
    if (!any_p && !any_r)
        snprintf(what, sizeof what, "p=%d and r=%d", p, r);
    else if (!any_p)
        snprintf(what, sizeof what, "p=%d", p);
    else if (!any_r)
        snprintf(what, sizeof what, "r=%d", r);
    else
        snprintf(what, sizeof what, "p=%d with r=%d", p, r);
    return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                    "%s: no %s kind has a precision of at least p and a decimal range of at "
                    "least r (the widest, KIND=%d, has p=%d, r=%d)",
                    what, combiner == MPI_COMBINER_F90_COMPLEX ? "COMPLEX" : "REAL", widest->kind,
                    widest->precision, widest->range);
}

#pragma weak MPI_Type_create_f90_real = PMPI_Type_create_f90_real
int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    FM_API_LOCK();
    return real_type("MPI_Type_create_f90_real", MPI_COMBINER_F90_REAL, p, r, newtype);
}

#pragma weak MPI_Type_create_f90_complex = PMPI_Type_create_f90_complex
int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    FM_API_LOCK();
    return real_type("MPI_Type_create_f90_complex", MPI_COMBINER_F90_COMPLEX, p, r, newtype);
}
