/* predefined.c — the library-owned datatypes, statically initialized.
 *
 * Static initialization (rather than filling them in at MPI_Init) lets
 * MPI_Type_size and friends work before MPI_Init and costs nothing at start.
 * Every entry of FM_PREDEFINED_DATATYPES gets its basic kind from a
 * FM_DT_INFO_<name> row below; a missing row is a compile error, so a type
 * added to mpi.h cannot be forgotten here. */
#include <stdalign.h>
#include <stddef.h>
#include <wchar.h>

#include "dtype/dtype.h"

/* A named C type per datatype, so offsetof/alignof can see the pair
 * structs' members. */
#define FM_CT_TYPEDEF(name, ctype) typedef ctype fm_ct_##name;
FM_PREDEFINED_DATATYPES(FM_CT_TYPEDEF)
#undef FM_CT_TYPEDEF

/* Integer kinds by size, for the typedef'd integers of mpi.h. */
#define FM_BK_INT_OF(T) (sizeof(T) == 8 ? FM_BK_INT64 : sizeof(T) == 4 ? FM_BK_INT32 : FM_BK_INT16)

#define FM_DT_INFO_MPI_CHAR(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_CHAR)
#define FM_DT_INFO_MPI_SHORT(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_SHORT)
#define FM_DT_INFO_MPI_INT(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_INT)
#define FM_DT_INFO_MPI_LONG(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_LONG)
#define FM_DT_INFO_MPI_LONG_LONG_INT(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_LLONG)
#define FM_DT_INFO_MPI_LONG_LONG(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_LLONG)
#define FM_DT_INFO_MPI_SIGNED_CHAR(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_SCHAR)
#define FM_DT_INFO_MPI_UNSIGNED_CHAR(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_UCHAR)
#define FM_DT_INFO_MPI_UNSIGNED_SHORT(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_USHORT)
#define FM_DT_INFO_MPI_UNSIGNED(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_UINT)
#define FM_DT_INFO_MPI_UNSIGNED_LONG(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_ULONG)
#define FM_DT_INFO_MPI_UNSIGNED_LONG_LONG(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_ULLONG)
#define FM_DT_INFO_MPI_FLOAT(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_FLOAT)
#define FM_DT_INFO_MPI_DOUBLE(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_DOUBLE)
#define FM_DT_INFO_MPI_LONG_DOUBLE(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_LDOUBLE)
#define FM_DT_INFO_MPI_WCHAR(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_WCHAR)
#define FM_DT_INFO_MPI_C_BOOL(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_BOOL)
#define FM_DT_INFO_MPI_INT8_T(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_INT8)
#define FM_DT_INFO_MPI_INT16_T(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_INT16)
#define FM_DT_INFO_MPI_INT32_T(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_INT32)
#define FM_DT_INFO_MPI_INT64_T(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_INT64)
#define FM_DT_INFO_MPI_UINT8_T(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_UINT8)
#define FM_DT_INFO_MPI_UINT16_T(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_UINT16)
#define FM_DT_INFO_MPI_UINT32_T(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_UINT32)
#define FM_DT_INFO_MPI_UINT64_T(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_UINT64)
#define FM_DT_INFO_MPI_AINT(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_INT_OF(MPI_Aint))
#define FM_DT_INFO_MPI_COUNT(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_INT_OF(MPI_Count))
#define FM_DT_INFO_MPI_OFFSET(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_INT_OF(MPI_Offset))
#define FM_DT_INFO_MPI_C_COMPLEX(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_FCOMPLEX)
#define FM_DT_INFO_MPI_C_FLOAT_COMPLEX(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_FCOMPLEX)
#define FM_DT_INFO_MPI_C_DOUBLE_COMPLEX(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_DCOMPLEX)
#define FM_DT_INFO_MPI_C_LONG_DOUBLE_COMPLEX(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_LDCOMPLEX)
#define FM_DT_INFO_MPI_BYTE(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_BYTE)
#define FM_DT_INFO_MPI_PACKED(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_BYTE)
#define FM_DT_INFO_MPI_FLOAT_INT(ct, var, str) FM_DT_PAIR(ct, var, str, FM_BK_FLOAT_INT)
#define FM_DT_INFO_MPI_DOUBLE_INT(ct, var, str) FM_DT_PAIR(ct, var, str, FM_BK_DOUBLE_INT)
#define FM_DT_INFO_MPI_LONG_INT(ct, var, str) FM_DT_PAIR(ct, var, str, FM_BK_LONG_INT)
#define FM_DT_INFO_MPI_2INT(ct, var, str) FM_DT_PAIR(ct, var, str, FM_BK_2INT)
#define FM_DT_INFO_MPI_SHORT_INT(ct, var, str) FM_DT_PAIR(ct, var, str, FM_BK_SHORT_INT)
#define FM_DT_INFO_MPI_LONG_DOUBLE_INT(ct, var, str) FM_DT_PAIR(ct, var, str, FM_BK_LDOUBLE_INT)
/* Fortran types reduce as the C types of their layout, except where the
 * standard's table sets them apart: Fortran integers take no logical op,
 * LOGICAL only logical ones, CHARACTER none. */
#define FM_DT_INFO_MPI_CHARACTER(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_FCHARACTER)
#define FM_DT_INFO_MPI_LOGICAL(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_FLOGICAL)
#define FM_DT_INFO_MPI_INTEGER(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_FINT4)
#define FM_DT_INFO_MPI_REAL(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_FLOAT)
#define FM_DT_INFO_MPI_DOUBLE_PRECISION(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_DOUBLE)
#define FM_DT_INFO_MPI_COMPLEX(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_FCOMPLEX)
#define FM_DT_INFO_MPI_DOUBLE_COMPLEX(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_DCOMPLEX)
#define FM_DT_INFO_MPI_INTEGER1(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_FINT1)
#define FM_DT_INFO_MPI_INTEGER2(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_FINT2)
#define FM_DT_INFO_MPI_INTEGER4(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_FINT4)
#define FM_DT_INFO_MPI_INTEGER8(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_FINT8)
#define FM_DT_INFO_MPI_INTEGER16(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_FINT16)
#define FM_DT_INFO_MPI_REAL4(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_FLOAT)
#define FM_DT_INFO_MPI_REAL8(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_DOUBLE)
#define FM_DT_INFO_MPI_REAL16(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_FLOAT128)
#define FM_DT_INFO_MPI_COMPLEX8(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_FCOMPLEX)
#define FM_DT_INFO_MPI_COMPLEX16(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_DCOMPLEX)
#define FM_DT_INFO_MPI_COMPLEX32(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_F128COMPLEX)
#define FM_DT_INFO_MPI_2REAL(ct, var, str) FM_DT_PAIR(ct, var, str, FM_BK_2REAL)
#define FM_DT_INFO_MPI_2DOUBLE_PRECISION(ct, var, str) FM_DT_PAIR(ct, var, str, FM_BK_2DOUBLE)
#define FM_DT_INFO_MPI_2INTEGER(ct, var, str) FM_DT_PAIR(ct, var, str, FM_BK_2INT)
/* C++ types reduce as the C types of their layout. */
#define FM_DT_INFO_MPI_CXX_BOOL(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_BOOL)
#define FM_DT_INFO_MPI_CXX_FLOAT_COMPLEX(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_FCOMPLEX)
#define FM_DT_INFO_MPI_CXX_DOUBLE_COMPLEX(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_DCOMPLEX)
#define FM_DT_INFO_MPI_CXX_LONG_DOUBLE_COMPLEX(ct, var, str) FM_DT_PLAIN(ct, var, str, FM_BK_LDCOMPLEX)

#define FM_DT_COMMON(ct, str)                                                              \
    .magic = FM_MAGIC_DTYPE, .refcount = 1, .lb = 0, .extent = sizeof(ct),   \
    .true_lb = 0, .combiner = MPI_COMBINER_NAMED, .inner = NULL, .inner_count = 0, \
    .name = str, .contents = NULL, .align = alignof(ct)

/* A plain type is one block of sizeof bytes. */
#define FM_DT_PLAIN(ct, var, str, kind)                                                         \
    {                                                                                \
        FM_DT_COMMON(ct, str), .flags = FM_DT_PREDEFINED | FM_DT_COMMITTED | FM_DT_CONTIG, \
        .size = sizeof(ct), .true_extent = sizeof(ct), .nblocks = 1,  \
        .blocks = &var.one_block, .one_block = {0, sizeof(ct), 1, 0},   \
        .basic = (kind), .nbasic = 1, .basic_size = sizeof(ct), .pos = NULL,  \
        .nelem = 1,                                                                  \
    }

/* A pair {value v; index i} (the index an int, or for the Fortran pairs
 * the value's type) is the value block then the index block, merged into
 * one when no padding separates them; it is contiguous only when no
 * padding follows either (MPI_FLOAT_INT, MPI_2INT, MPI_2REAL on common
 * ABIs).  The whole pair is one basic element: MINLOC/MAXLOC reduce pairs. */
#define FM_PAIR_VSZ(ct) sizeof(((ct *)0)->v)
#define FM_PAIR_ISZ(ct) sizeof(((ct *)0)->i)
#define FM_PAIR_IOFF(ct) offsetof(ct, i)
#define FM_PAIR_SIZE(ct) (FM_PAIR_VSZ(ct) + FM_PAIR_ISZ(ct))
#define FM_PAIR_JOINED(ct) (FM_PAIR_IOFF(ct) == FM_PAIR_VSZ(ct))
#define FM_DT_PAIR(ct, var, str, kind)                                                          \
    {                                                                                \
        FM_DT_COMMON(ct, str),                                                             \
        .flags = FM_DT_PREDEFINED | FM_DT_COMMITTED |                                \
                 (FM_PAIR_JOINED(ct) && FM_PAIR_SIZE(ct) == sizeof(ct) ? FM_DT_CONTIG \
                                                                             : 0),   \
        .size = FM_PAIR_SIZE(ct), .true_extent = FM_PAIR_IOFF(ct) + FM_PAIR_ISZ(ct),  \
        .nblocks = FM_PAIR_JOINED(ct) ? 1 : 2,                                         \
        .blocks = (fm_dt_block[]){{0, FM_PAIR_JOINED(ct) ? FM_PAIR_SIZE(ct) : FM_PAIR_VSZ(ct), 1, 0}, \
                                  {FM_PAIR_IOFF(ct), FM_PAIR_ISZ(ct), 1, 0}},        \
        .one_block = {0, FM_PAIR_SIZE(ct), 1, 0}, .basic = (kind), .nbasic = 1,       \
        .basic_size = FM_PAIR_SIZE(ct),                                               \
        .pos = FM_PAIR_JOINED(ct) ? NULL : (MPI_Aint[]){0, FM_PAIR_VSZ(ct), FM_PAIR_SIZE(ct)}, \
        .nelem = 2,                                                                  \
    }

#define FM_DT_DEFINE(n, ctype) struct fm_datatype fab_dt_##n = FM_DT_INFO_##n(fm_ct_##n, fab_dt_##n, #n);
FM_PREDEFINED_DATATYPES(FM_DT_DEFINE)
#undef FM_DT_DEFINE

void fm_dt_init(void)
{
    /* Nothing to do: every predefined datatype is statically initialized. */
}

/* Value size of a pair kind (the bytes before the int), for partial-element
 * counts; 0 for other kinds. */
MPI_Count fm_dt_pair_value_size(enum fm_basic_kind k)
{
    switch (k) {
    case FM_BK_FLOAT_INT: return FM_PAIR_VSZ(fm_ct_MPI_FLOAT_INT);
    case FM_BK_DOUBLE_INT: return FM_PAIR_VSZ(fm_ct_MPI_DOUBLE_INT);
    case FM_BK_LONG_INT: return FM_PAIR_VSZ(fm_ct_MPI_LONG_INT);
    case FM_BK_2INT: return FM_PAIR_VSZ(fm_ct_MPI_2INT);
    case FM_BK_SHORT_INT: return FM_PAIR_VSZ(fm_ct_MPI_SHORT_INT);
    case FM_BK_LDOUBLE_INT: return FM_PAIR_VSZ(fm_ct_MPI_LONG_DOUBLE_INT);
    case FM_BK_2REAL: return FM_PAIR_VSZ(fm_ct_MPI_2REAL);
    case FM_BK_2DOUBLE: return FM_PAIR_VSZ(fm_ct_MPI_2DOUBLE_PRECISION);
    default: return 0;
    }
}
