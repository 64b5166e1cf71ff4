/* type_args.h — a derived datatype constructor's arguments, laid out as
 * MPI_Type_get_contents (or, for the MPI-4.0 large-count constructors,
 * MPI_Type_get_contents_c) will return them, then the type built from
 * them.  One constructor body serves a call and its _c variant: it pushes
 * each argument as what the int call has it (an integer, an address, or
 * an integer in either form: ndims, order, distributions), and the
 * layout follows — the int form splits integers from addresses, the
 * large form keeps both, in the same order, as large counts. */
#ifndef FM_MPI_TYPE_ARGS_H
#define FM_MPI_TYPE_ARGS_H

#include <limits.h>
#include <stdlib.h>

#include "dtype/dtype.h"
#include "mpi/api.h"
#include "util/status.h"

struct fm_type_args {
    int large;
    int ni, na, nc;
    int *ints;
    MPI_Aint *aints;
    MPI_Count *counts;
};

/* Room for n arguments: FM_OK, or FM_ERR_NOMEM.  n beyond INT_MAX (an
 * envelope could not count them) is the caller's check (fm_type_args_fit). */
static inline int fm_type_args_init(struct fm_type_args *a, int large, MPI_Count n)
{
    *a = (struct fm_type_args){.large = large};
    size_t k = n > 0 ? (size_t)n : 1;
    a->ints = malloc(sizeof(int) * k);
    a->aints = large ? NULL : malloc(sizeof(MPI_Aint) * k);
    a->counts = large ? malloc(sizeof(MPI_Count) * k) : NULL;
    if (!a->ints || (!a->aints && !a->counts)) {
        free(a->ints);
        free(a->aints);
        free(a->counts);
        return FM_ERR_NOMEM;
    }
    return FM_OK;
}

/* An integer argument (a count, a blocklength, an element displacement). */
static inline void fm_type_arg_int(struct fm_type_args *a, MPI_Count v)
{
    if (a->large)
        a->counts[a->nc++] = v;
    else
        a->ints[a->ni++] = (int)v;
}
/* An address argument (a byte displacement or stride, a bound). */
static inline void fm_type_arg_addr(struct fm_type_args *a, MPI_Count v)
{
    if (a->large)
        a->counts[a->nc++] = v;
    else
        a->aints[a->na++] = (MPI_Aint)v;
}
/* An integer in both forms. */
static inline void fm_type_arg_plain(struct fm_type_args *a, int v) { a->ints[a->ni++] = v; }

/* Build the type and free the arrays; an FM_* status. */
static inline int fm_type_args_create(struct fm_type_args *a, int combiner, int ntypes,
                                      const MPI_Datatype *types, MPI_Datatype *newtype)
{
    /* An array with nothing pushed is passed as NULL, as the form without
     * such arguments always did (and nothing reads it). */
    const int *ints = a->ni ? a->ints : NULL;
    int rc = a->large ? fm_dt_create_c(combiner, a->ni, ints, a->nc, a->nc ? a->counts : NULL,
                                       ntypes, types, newtype)
                      : fm_dt_create(combiner, a->ni, ints, a->na, a->na ? a->aints : NULL,
                                     ntypes, types, newtype);
    free(a->ints);
    free(a->aints);
    free(a->counts);
    return rc;
}

/* An array constructor of `count` entries takes per + extra * count
 * arguments, which the envelope counts in an int: raise MPI_ERR_COUNT
 * when they would not fit (several GB of arguments, in practice never). */
#define FM_CHECK_ARGS_FIT(call, count, per, extra)                                          \
    do {                                                                                    \
        if ((count) > (INT_MAX - (extra)) / (per))                                          \
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_COUNT,                             \
                            "count=%lld: more constructor arguments than "                  \
                            "MPI_Type_get_envelope counts", (long long)(count));            \
    } while (0)

#endif
