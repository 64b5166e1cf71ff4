/* type_pack.c — MPI_Pack / MPI_Unpack / MPI_Pack_size, addresses, and the
 * decoding calls MPI_Type_get_envelope / MPI_Type_get_contents.
 *
 * The packed format is the datatype's packed stream (fm_dt_pack): no
 * header and no conversion, since every fabmpi process shares one data
 * representation. */
#include <limits.h>
#include <string.h>

#include "mpi/type_check.h"
#include "dtype/dtype.h"
#include "mpi/api.h"

#pragma weak MPI_Pack = PMPI_Pack
int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
             int *position, MPI_Comm comm)
{
    static const char call[] = "MPI_Pack";
    FM_CHECK_COMM(call, comm);
    FM_CHECK_COUNT(call, comm, incount);
    FM_CHECK_TYPE(call, comm, datatype);
    if (position == NULL)
        return fm_raise(comm, call, MPI_ERR_ARG, "position=NULL");
    if (*position < 0 || *position > outsize)
        return fm_raise(comm, call, MPI_ERR_ARG, "position=%d must be in 0..outsize=%d",
                        *position, outsize);
    MPI_Count need = (MPI_Count)incount * datatype->size;
    if (need > outsize - *position)
        return fm_raise(comm, call, MPI_ERR_TRUNCATE,
                        "incount=%d of %s needs %lld bytes, outsize=%d leaves %d at position",
                        incount, datatype->name[0] ? datatype->name : "<derived>", need, outsize,
                        outsize - *position);
    if (need > 0 && outbuf == NULL)
        return fm_raise(comm, call, MPI_ERR_BUFFER, "outbuf=NULL with %lld bytes to pack", need);
    fm_dt_pack(inbuf, incount, datatype, 0, (char *)outbuf + *position, (size_t)need);
    *position += (int)need;
    return MPI_SUCCESS;
}

#pragma weak MPI_Unpack = PMPI_Unpack
int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
               MPI_Datatype datatype, MPI_Comm comm)
{
    static const char call[] = "MPI_Unpack";
    FM_CHECK_COMM(call, comm);
    FM_CHECK_COUNT(call, comm, outcount);
    FM_CHECK_TYPE(call, comm, datatype);
    if (position == NULL)
        return fm_raise(comm, call, MPI_ERR_ARG, "position=NULL");
    if (*position < 0 || *position > insize)
        return fm_raise(comm, call, MPI_ERR_ARG, "position=%d must be in 0..insize=%d",
                        *position, insize);
    MPI_Count need = (MPI_Count)outcount * datatype->size;
    if (need > insize - *position)
        return fm_raise(comm, call, MPI_ERR_TRUNCATE,
                        "outcount=%d of %s needs %lld bytes, insize=%d has %d at position",
                        outcount, datatype->name[0] ? datatype->name : "<derived>", need, insize,
                        insize - *position);
    if (need > 0 && inbuf == NULL)
        return fm_raise(comm, call, MPI_ERR_BUFFER, "inbuf=NULL with %lld bytes to unpack",
                        need);
    fm_dt_unpack(outbuf, outcount, datatype, 0, (const char *)inbuf + *position, (size_t)need);
    *position += (int)need;
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack_size = PMPI_Pack_size
int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    static const char call[] = "MPI_Pack_size";
    FM_CHECK_COMM(call, comm);
    FM_CHECK_COUNT(call, comm, incount);
    FM_CHECK_TYPE(call, comm, datatype);
    if (size == NULL)
        return fm_raise(comm, call, MPI_ERR_ARG, "size=NULL");
    MPI_Count need = (MPI_Count)incount * datatype->size;
    if (need > INT_MAX)
        return fm_raise(comm, call, MPI_ERR_COUNT,
                        "incount=%d of %lld-byte elements is %lld bytes, over INT_MAX", incount,
                        (long long)datatype->size, need);
    *size = (int)need;
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_address = PMPI_Get_address
int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    FM_CHECK_PTR("MPI_Get_address", address, "address");
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}

/* Unsigned arithmetic: addresses may wrap past INTPTR_MAX on some systems,
 * and signed overflow would be undefined. */
#pragma weak MPI_Aint_add = PMPI_Aint_add
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}

#pragma weak MPI_Aint_diff = PMPI_Aint_diff
MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}

#pragma weak MPI_Type_get_envelope = PMPI_Type_get_envelope
int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                          int *num_datatypes, int *combiner)
{
    static const char call[] = "MPI_Type_get_envelope";
    FM_CHECK_DT_ARG(call, datatype, "datatype");
    FM_CHECK_PTR(call, num_integers, "num_integers");
    FM_CHECK_PTR(call, num_addresses, "num_addresses");
    FM_CHECK_PTR(call, num_datatypes, "num_datatypes");
    FM_CHECK_PTR(call, combiner, "combiner");
    const struct fm_dt_contents *c = datatype->contents;
    const int *f90;
    int nf90 = fm_type_f90_ints(datatype, &f90);
    *num_integers = c ? c->nints : nf90 > 0 ? nf90 : 0;
    *num_addresses = c ? c->naints : 0;
    *num_datatypes = c ? c->ntypes : 0;
    *combiner = datatype->combiner;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_contents = PMPI_Type_get_contents
int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                          int max_datatypes, int array_of_integers[],
                          MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
    static const char call[] = "MPI_Type_get_contents";
    FM_CHECK_DT_ARG(call, datatype, "datatype");
    const struct fm_dt_contents *c = datatype->contents;
    const int *f90;
    int nf90 = fm_type_f90_ints(datatype, &f90);
    if (nf90 > 0) {
        /* (r) or (p, r) of the MPI_Type_create_f90_* call; nothing else. */
        if (max_integers < nf90)
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                            "max_integers=%d is below the envelope's %d", max_integers, nf90);
        if (!array_of_integers)
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "array_of_integers=NULL");
        memcpy(array_of_integers, f90, sizeof(int) * (size_t)nf90);
        return MPI_SUCCESS;
    }
    if (!c)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_TYPE,
                        "datatype=%s is predefined (combiner MPI_COMBINER_NAMED)",
                        datatype->name);
    if (max_integers < c->nints || max_addresses < c->naints || max_datatypes < c->ntypes)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                        "max_integers=%d max_addresses=%d max_datatypes=%d are below the "
                        "envelope's %d %d %d",
                        max_integers, max_addresses, max_datatypes, c->nints, c->naints,
                        c->ntypes);
    if ((c->nints && !array_of_integers) || (c->naints && !array_of_addresses) ||
        (c->ntypes && !array_of_datatypes))
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "an output array is NULL");
    if (c->nints)
        memcpy(array_of_integers, c->ints, sizeof(int) * (size_t)c->nints);
    if (c->naints)
        memcpy(array_of_addresses, c->aints, sizeof(MPI_Aint) * (size_t)c->naints);
    /* Derived types handed out are new references the caller frees. */
    for (int i = 0; i < c->ntypes; i++) {
        fm_dt_retain(c->types[i]);
        array_of_datatypes[i] = c->types[i];
    }
    return MPI_SUCCESS;
}
