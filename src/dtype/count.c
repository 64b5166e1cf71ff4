/* count.c — how many elements, and basic elements, a byte count holds
 * (MPI_Get_count, MPI_Get_elements).  Partial elements of derived types are
 * resolved by walking the type's pieces in type-map order, which is also
 * the packed-stream order. */
#include "dtype/dtype.h"
#include "dtype/internal.h"

MPI_Count fm_dt_count_of(MPI_Datatype dt, MPI_Count bytes)
{
    if (dt->size == 0)
        return 0; /* MPI: a zero-size type received "zero elements" */
    if (bytes < 0 || bytes % dt->size)
        return MPI_UNDEFINED;
    return bytes / dt->size;
}

static MPI_Count partial_elements(MPI_Datatype dt, MPI_Count r);

struct fm_partial {
    MPI_Count r, n;
};

/* Consume whole runs until the remaining bytes end inside one. */
static int partial_piece(void *ctx, const fm_dt_piece *pc)
{
    struct fm_partial *p = ctx;
    MPI_Count count = pc->count;
    MPI_Datatype child = pc->child;
    if (count == 0 || child->size == 0)
        return 0;
    MPI_Count run = count * child->size;
    /* The remaining bytes cover r < size of the parent: no overflow. */
    MPI_Count whole = p->r / run < pc->reps ? p->r / run : pc->reps;
    p->n += whole * count * child->nelem;
    p->r -= whole * run;
    if (whole == pc->reps || p->r == 0)
        return p->r == 0; /* non-zero stops the walk */
    MPI_Count sub = partial_elements(child, p->r % child->size);
    p->n = sub == MPI_UNDEFINED ? MPI_UNDEFINED : p->n + (p->r / child->size) * child->nelem + sub;
    p->r = 0;
    return 1;
}

/* Basic elements in the first r packed bytes of one element (r < size). */
static MPI_Count partial_elements(MPI_Datatype dt, MPI_Count r)
{
    if (r == 0)
        return 0;
    if (dt->flags & FM_DT_PREDEFINED) { /* also MPI_Type_create_f90_* types */
        /* Only a pair can be cut between basic elements: after its value. */
        MPI_Count v = fm_dt_pair_value_size(dt->basic);
        return v && r == v ? 1 : MPI_UNDEFINED;
    }
    struct fm_partial p = {r, 0};
    if (fm_dt_for_each_piece(dt, partial_piece, &p) < 0)
        return MPI_UNDEFINED;
    return p.r ? MPI_UNDEFINED : p.n;
}

MPI_Count fm_dt_elements_of(MPI_Datatype dt, MPI_Count bytes)
{
    if (dt->size == 0)
        return 0;
    if (bytes < 0)
        return MPI_UNDEFINED;
    MPI_Count sub = partial_elements(dt, bytes % dt->size);
    if (sub == MPI_UNDEFINED)
        return MPI_UNDEFINED;
    return (bytes / dt->size) * dt->nelem + sub;
}

static MPI_Count prefix_bytes(MPI_Datatype dt, MPI_Count e);

struct fm_prefix {
    MPI_Count e, bytes;
};

/* Consume whole runs until the remaining elements end inside one. */
static int prefix_piece(void *ctx, const fm_dt_piece *pc)
{
    struct fm_prefix *p = ctx;
    MPI_Datatype child = pc->child;
    if (pc->count == 0 || child->nelem == 0)
        return 0;
    MPI_Count run = pc->count * child->nelem; /* elements per run */
    MPI_Count whole = p->e / run < pc->reps ? p->e / run : pc->reps;
    p->bytes += whole * pc->count * child->size;
    p->e -= whole * run;
    if (whole == pc->reps || p->e == 0)
        return p->e == 0; /* non-zero stops the walk */
    MPI_Count sub = prefix_bytes(child, p->e % child->nelem);
    p->bytes = sub < 0 ? -1 : p->bytes + (p->e / child->nelem) * child->size + sub;
    p->e = 0;
    return 1;
}

/* Packed bytes of the first e basic elements of one element (e < nelem),
 * or -1 when they end inside something that is not an element (the int
 * of a pair cannot come first). */
static MPI_Count prefix_bytes(MPI_Datatype dt, MPI_Count e)
{
    if (e == 0)
        return 0;
    if (dt->flags & FM_DT_PREDEFINED) { /* also MPI_Type_create_f90_* types */
        MPI_Count v = fm_dt_pair_value_size(dt->basic);
        return v && e == 1 ? v : -1;
    }
    struct fm_prefix p = {e, 0};
    if (fm_dt_for_each_piece(dt, prefix_piece, &p) < 0)
        return -1;
    return p.e ? -1 : p.bytes;
}

MPI_Count fm_dt_bytes_of_elements(MPI_Datatype dt, MPI_Count elements)
{
    if (elements < 0)
        return -1;
    if (dt->nelem == 0)
        return 0;
    MPI_Count sub = prefix_bytes(dt, elements % dt->nelem), whole;
    if (sub < 0 || __builtin_mul_overflow(elements / dt->nelem, dt->size, &whole) ||
        __builtin_add_overflow(whole, sub, &whole))
        return -1;
    return whole;
}
