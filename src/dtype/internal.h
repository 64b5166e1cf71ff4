/* internal.h — private to src/dtype: helpers shared by its files. */
#ifndef FM_DTYPE_INTERNAL_H
#define FM_DTYPE_INTERNAL_H

#include <stdint.h>

#include "dtype/dtype.h"

/* Bytes of the value part of a pair kind (before the int); 0 otherwise. */
MPI_Count fm_dt_pair_value_size(enum fm_basic_kind k);

/* Address arithmetic through uintptr_t: buffers may be MPI_BOTTOM (NULL)
 * with absolute displacements, and displacements may be negative; pointer
 * arithmetic would be undefined in both cases. */
static inline char *fm_dt_addr(const void *base, MPI_Aint off)
{
    return (char *)((uintptr_t)base + (uintptr_t)off);
}

/* Free a derived type's storage (refcount reached zero). */
void fm_dt_destroy(MPI_Datatype dt);

#endif
