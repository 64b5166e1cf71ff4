/* op_kernels.h — private to src/coll: the table of typed reduction loops.
 *
 * fm_op_kernel[op index][basic kind] is the loop computing
 * inout[i] = in[i] op inout[i] for n basic elements, or NULL when the MPI
 * standard does not define that op for that kind.  REPLACE and NO_OP are
 * handled by op.c as byte copies and have no entries here. */
#ifndef FM_COLL_OP_KERNELS_H
#define FM_COLL_OP_KERNELS_H

#include <mpi.h>
#include <stddef.h>

#include "dtype/dtype.h"

/* FM_OPI_MPI_MAX, FM_OPI_MPI_MIN, ... in the order of FM_PREDEFINED_OPS. */
#define FM_OPI_ENUM(name) FM_OPI_##name,
enum fm_op_index { FM_PREDEFINED_OPS(FM_OPI_ENUM) FM_OPI_COUNT };
#undef FM_OPI_ENUM

typedef void fm_op_kernel_fn(const void *in, void *inout, size_t n);

extern fm_op_kernel_fn *const fm_op_kernel[FM_OPI_COUNT][FM_BK_COUNT];

/* Bytes of one basic element of each kind in packed form; pair kinds are
 * value then int with no padding between or after. */
extern const unsigned char fm_op_kind_size[FM_BK_COUNT];

#endif
