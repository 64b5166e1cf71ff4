/* api_check.h — argument checks shared by the datatype entry points
 * (src/mpi/type_*.c), and prototypes of those entry points that mpi.h does
 * not declare yet (identical redeclarations are harmless once it does). */
#ifndef FM_DTYPE_API_CHECK_H
#define FM_DTYPE_API_CHECK_H

#include <mpi.h>

#include "dtype/dtype.h"
#include "mpi/api.h"

/* A datatype argument that need not be committed (constructors, queries). */
#define FM_CHECK_DT_ARG(call, dt, what)                                              \
    do {                                                                             \
        if (!fm_dt_valid(dt))                                                        \
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_TYPE,                       \
                            "%s=%s is not a valid datatype", what,                   \
                            (dt) == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL" : "<invalid>"); \
    } while (0)
/* A pointer argument that must not be NULL. */
#define FM_CHECK_PTR(call, p, what)                                                  \
    do {                                                                             \
        if ((p) == NULL)                                                             \
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "%s=NULL", what);      \
    } while (0)
#define FM_CHECK_NONNEG(call, v, what, errclass)                                     \
    do {                                                                             \
        if ((v) < 0)                                                                 \
            return fm_raise(MPI_COMM_NULL, call, errclass, "%s=%lld must be >= 0",   \
                            what, (long long)(v));                                   \
    } while (0)

/* Not yet in mpi.h. */
int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                    MPI_Datatype *newtype);
int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype);
int MPI_Type_indexed(int count, const int array_of_blocklengths[],
                     const int array_of_displacements[], MPI_Datatype oldtype,
                     MPI_Datatype *newtype);
int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                             const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                             MPI_Datatype *newtype);
int MPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_hindexed_block(int count, int blocklength,
                                   const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype *newtype);
int MPI_Type_create_struct(int count, const int array_of_blocklengths[],
                           const MPI_Aint array_of_displacements[],
                           const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                            MPI_Datatype *newtype);
int MPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                             const int array_of_starts[], int order, MPI_Datatype oldtype,
                             MPI_Datatype *newtype);
int MPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                          int *num_datatypes, int *combiner);
int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                          int max_datatypes, int array_of_integers[],
                          MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]);
int MPI_Get_address(const void *location, MPI_Aint *address);
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp);
MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);
int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
             int *position, MPI_Comm comm);
int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
               MPI_Datatype datatype, MPI_Comm comm);
int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size);

#endif
