/* op.c — reduction operation objects and fm_op_apply's dispatch.
 *
 * Predefined ops are static objects (never freed); user ops are malloc'ed
 * and reference counted so an Op_free during a pending operation is safe. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll_util.h"
#include "coll/op.h"
#include "coll/op_kernels.h"
#include "dtype/dtype.h"
#include "util/status.h"
#include "util/handle_pool.h"

/* MPI_REPLACE is not commutative (the target takes the origin's value);
 * every other predefined op is. */
#define FM_DEFINE_OP(OPN)                                                           \
    struct fm_op fab_op_##OPN = {                                                    \
        .magic = FM_MAGIC_OP,                                                       \
        .predefined = FM_OPI_##OPN + 1,                                             \
        .commute = FM_OPI_##OPN != FM_OPI_MPI_REPLACE,                              \
        .refcount = 1,                                                              \
        .user_fn = NULL,                                                            \
        .name = #OPN,                                                               \
    };
FM_PREDEFINED_OPS(FM_DEFINE_OP)
#undef FM_DEFINE_OP

/* User-defined ops behind user handles (handle_pool.h). */
static fm_handle_pool op_pool = FM_HANDLE_POOL(struct fm_op);

int fm_op_create(MPI_User_function *fn, MPI_User_function_c *fn_c, int commute, MPI_Op *out)
{
    struct fm_op *op = fm_handle_get(&op_pool);
    if (!op)
        return FM_ERR_NOMEM;
    op->magic = FM_MAGIC_OP;
    op->commute = commute != 0;
    op->refcount = 1;
    op->user_fn = fn;
    op->user_fn_c = fn_c;
    op->name = "user-defined op";
    *out = op;
    return FM_OK;
}

void fm_op_retain(MPI_Op op)
{
    if (!op->predefined)
        op->refcount++;
}

void fm_op_release(MPI_Op op)
{
    if (op->predefined || --op->refcount > 0)
        return;
    fm_handle_put(&op_pool, op); /* a stale handle then fails fm_op_valid instead of running */
}

/* Exactly the kinds some bitwise op (integers, byte) or logical op
 * (integers, logicals) is defined on; the pairs, floating and complex
 * kinds take neither. */
int fm_op_cas_check(MPI_Datatype dt)
{
    if (!(dt->flags & FM_DT_PREDEFINED) || dt->size > 8)
        return FM_ERR_TYPE;
    return fm_op_kernel[FM_OPI_MPI_BAND][dt->basic] || fm_op_kernel[FM_OPI_MPI_LAND][dt->basic]
               ? FM_OK
               : FM_ERR_TYPE;
}

/* User functions take an int count, so large counts go in INT_MAX chunks
 * (MPI_Op_create_c's take the whole MPI_Count at once); they see the
 * caller's layout (not packed data), as the standard says. */
static int fm_op_apply_user(MPI_Op op, const void *in, void *inout, MPI_Count count,
                            MPI_Datatype dt)
{
    if (op->user_fn_c) {
        MPI_Datatype d = dt;
        MPI_Count len = count;
        if (len > 0)
            op->user_fn_c((void *)(uintptr_t)in, inout, &len, &d);
        return FM_OK;
    }
    MPI_Count done = 0;
    while (done < count) {
        int len = count - done > INT_MAX ? INT_MAX : (int)(count - done);
        MPI_Datatype d = dt;
        MPI_Aint skip = (MPI_Aint)done * dt->extent;
        if (op->fortran_fn) {
            MPI_Fint flen = len, fdt = op->fortran_type(dt);
            op->fortran_fn((char *)(uintptr_t)in + skip, (char *)inout + skip, &flen, &fdt);
        } else {
            op->user_fn((char *)(uintptr_t)in + skip, (char *)inout + skip, &len, &d);
        }
        done += len;
    }
    return FM_OK;
}

/* Non-contiguous layouts: pack both sides a chunk at a time into aligned
 * stack buffers, reduce the packed runs, unpack the result. */
static void fm_op_apply_packed(fm_op_kernel_fn *k, size_t esz, const void *in, void *inout,
                               MPI_Count count, MPI_Datatype dt)
{
    _Alignas(64) unsigned char tin[8192], tio[8192];
    const size_t chunk = sizeof tin / esz * esz;
    const size_t total = (size_t)count * (size_t)dt->size;
    for (size_t off = 0; off < total; off += chunk) {
        size_t len = total - off < chunk ? total - off : chunk;
        fm_dt_pack(in, count, dt, off, tin, len);
        fm_dt_pack(inout, count, dt, off, tio, len);
        k(tin, tio, len / esz);
        fm_dt_unpack(inout, count, dt, off, tio, len);
    }
}

/* Elements of esz bytes in count contiguous dt: a predefined type is one
 * element, with no division for it. */
static size_t contig_elems(MPI_Count count, MPI_Datatype dt, size_t esz)
{
    return (size_t)dt->size == esz ? (size_t)count : (size_t)count * (size_t)dt->size / esz;
}

int fm_op_apply(MPI_Op op, const void *in, void *inout, MPI_Count count, MPI_Datatype dt)
{
    if (!op->predefined)
        return fm_op_apply_user(op, in, inout, count, dt);
    if (op == MPI_NO_OP)
        return FM_OK;
    if (op == MPI_REPLACE)
        return fm_dt_copy(in, count, dt, inout, count, dt);

    fm_op_kernel_fn *k = fm_op_kernel[op->predefined - 1][dt->basic];
    if (!k)
        return FM_ERR_OP;
    if (count <= 0 || dt->size == 0)
        return FM_OK;
    size_t esz = fm_op_kind_size[dt->basic];
    if (fm_dt_is_contig(dt))
        k((const char *)in + dt->true_lb, (char *)inout + dt->true_lb, contig_elems(count, dt, esz));
    else
        fm_op_apply_packed(k, esz, in, inout, count, dt);
    return FM_OK;
}

fm_op_plan fm_op_plan_for(MPI_Op op, MPI_Count count, MPI_Datatype dt)
{
    fm_op_plan p = {NULL, 0};
    if (!op->predefined || op == MPI_NO_OP || op == MPI_REPLACE || count <= 0 || dt->size == 0 ||
        !fm_dt_is_contig(dt))
        return p;
    p.k = fm_op_kernel[op->predefined - 1][dt->basic];
    if (p.k)
        p.n = contig_elems(count, dt, fm_op_kind_size[dt->basic]);
    return p;
}
