/* int_array.h — an array argument of either integer width, as the MPI
 * calls and their MPI-4.0 large-count variants pass it: `int` counts and
 * displacements (MPI_Gatherv, MPI_Type_indexed), or 8-byte ones
 * (MPI_Gatherv_c's MPI_Count counts and MPI_Aint displacements, MPI_Alltoallw's
 * MPI_Aint byte displacements of the neighbourhood form).  One algorithm
 * then serves both calls, reading element i through fm_iarr_at, instead
 * of the large calls copying their arrays into int ones (which cannot
 * hold their values) or the int calls widening theirs (a copy per call). */
#ifndef FM_UTIL_INT_ARRAY_H
#define FM_UTIL_INT_ARRAY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct fm_iarr {
    const void *p; /* NULL: no array (the fixed-count forms) */
    int wide;      /* elements are int64_t (MPI_Count, MPI_Aint), else int */
} fm_iarr;

_Static_assert(sizeof(long long) == 8 && sizeof(intptr_t) == 8,
               "MPI_Count and MPI_Aint are the 8-byte elements fm_iarr reads");

static inline fm_iarr fm_iarr_int(const int *p) { return (fm_iarr){p, 0}; }
static inline fm_iarr fm_iarr_wide(const void *p) { return (fm_iarr){p, 1}; }
#define FM_IARR_NONE ((fm_iarr){NULL, 0})

static inline int fm_iarr_null(fm_iarr a) { return a.p == NULL; }

static inline long long fm_iarr_at(fm_iarr a, long long i)
{
    if (!a.wide)
        return ((const int *)a.p)[i];
    /* memcpy, one load: MPI_Count (long long) and MPI_Aint (long) are
     * distinct types to the aliasing rules, whichever this reads. */
    long long v;
    memcpy(&v, (const char *)a.p + 8 * i, sizeof v);
    return v;
}

#endif
