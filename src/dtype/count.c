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
static int partial_piece(void *ctx, MPI_Aint disp, MPI_Count count, MPI_Datatype child)
{
    struct fm_partial *p = ctx;
    (void)disp;
    if (count == 0 || child->size == 0)
        return 0;
    MPI_Count run = count * child->size;
    if (p->r >= run) {
        p->n += count * child->nelem;
        p->r -= run;
        return p->r == 0; /* non-zero stops the walk */
    }
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
    if (dt->combiner == MPI_COMBINER_NAMED) {
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
