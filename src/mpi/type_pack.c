/* type_pack.c — MPI_Pack / MPI_Unpack / MPI_Pack_size, addresses, and the
 * decoding calls MPI_Type_get_envelope / MPI_Type_get_contents, each with
 * its MPI-4.0 large-count variant (MPI_Pack_c, MPI_Type_get_contents_c).
 *
 * The packed format is the datatype's packed stream (fm_dt_pack): no
 * header and no conversion, since every fabmpi process shares one data
 * representation. */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "mpi/type_check.h"
#include "dtype/dtype.h"
#include "mpi/api.h"

/* Pack, Unpack and Pack_size in both widths: the int calls' positions and
 * sizes are the same numbers as the _c calls' MPI_Count ones. */
static int pack(const char *call, const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
                void *outbuf, MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    FM_CHECK_COMM(call, comm);
    FM_CHECK_COUNT(call, comm, incount);
    FM_CHECK_TYPE(call, comm, datatype);
    if (position == NULL)
        return fm_raise(comm, call, MPI_ERR_ARG, "position=NULL");
    if (*position < 0 || *position > outsize)
        return fm_raise(comm, call, MPI_ERR_ARG, "position=%lld must be in 0..outsize=%lld",
                        (long long)*position, (long long)outsize);
    MPI_Count need;
    if (__builtin_mul_overflow(incount, datatype->size, &need) || need > outsize - *position)
        return fm_raise(comm, call, MPI_ERR_TRUNCATE,
                        "incount=%lld of %s needs %lld bytes, outsize=%lld leaves %lld at "
                        "position", (long long)incount,
                        datatype->name[0] ? datatype->name : "<derived>",
                        (long long)incount * (long long)datatype->size, (long long)outsize,
                        (long long)(outsize - *position));
    if (need > 0 && outbuf == NULL)
        return fm_raise(comm, call, MPI_ERR_BUFFER, "outbuf=NULL with %lld bytes to pack", need);
    fm_dt_pack(inbuf, incount, datatype, 0, (char *)outbuf + *position, (size_t)need);
    *position += need;
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack = PMPI_Pack
int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
             int *position, MPI_Comm comm)
{
    FM_API_LOCK();
    MPI_Count pos = position ? *position : 0;
    int rc = pack("MPI_Pack", inbuf, incount, datatype, outbuf, outsize, position ? &pos : NULL,
                  comm);
    if (rc == MPI_SUCCESS)
        *position = (int)pos; /* at most outsize */
    return rc;
}

#pragma weak MPI_Pack_c = PMPI_Pack_c
int PMPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    FM_API_LOCK();
    return pack("MPI_Pack_c", inbuf, incount, datatype, outbuf, outsize, position, comm);
}

static int unpack(const char *call, const void *inbuf, MPI_Count insize, MPI_Count *position,
                  void *outbuf, MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    FM_CHECK_COMM(call, comm);
    FM_CHECK_COUNT(call, comm, outcount);
    FM_CHECK_TYPE(call, comm, datatype);
    if (position == NULL)
        return fm_raise(comm, call, MPI_ERR_ARG, "position=NULL");
    if (*position < 0 || *position > insize)
        return fm_raise(comm, call, MPI_ERR_ARG, "position=%lld must be in 0..insize=%lld",
                        (long long)*position, (long long)insize);
    MPI_Count need;
    if (__builtin_mul_overflow(outcount, datatype->size, &need) || need > insize - *position)
        return fm_raise(comm, call, MPI_ERR_TRUNCATE,
                        "outcount=%lld of %s needs %lld bytes, insize=%lld has %lld at position",
                        (long long)outcount, datatype->name[0] ? datatype->name : "<derived>",
                        (long long)outcount * (long long)datatype->size, (long long)insize,
                        (long long)(insize - *position));
    if (need > 0 && inbuf == NULL)
        return fm_raise(comm, call, MPI_ERR_BUFFER, "inbuf=NULL with %lld bytes to unpack",
                        need);
    fm_dt_unpack(outbuf, outcount, datatype, 0, (const char *)inbuf + *position, (size_t)need);
    *position += need;
    return MPI_SUCCESS;
}

#pragma weak MPI_Unpack = PMPI_Unpack
int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
               MPI_Datatype datatype, MPI_Comm comm)
{
    FM_API_LOCK();
    MPI_Count pos = position ? *position : 0;
    int rc = unpack("MPI_Unpack", inbuf, insize, position ? &pos : NULL, outbuf, outcount,
                    datatype, comm);
    if (rc == MPI_SUCCESS)
        *position = (int)pos; /* at most insize */
    return rc;
}

#pragma weak MPI_Unpack_c = PMPI_Unpack_c
int PMPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                  MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    FM_API_LOCK();
    return unpack("MPI_Unpack_c", inbuf, insize, position, outbuf, outcount, datatype, comm);
}

/* max: the largest size the caller's type holds. */
static int pack_size(const char *call, MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
                     MPI_Count max, MPI_Count *size)
{
    FM_CHECK_COMM(call, comm);
    FM_CHECK_COUNT(call, comm, incount);
    FM_CHECK_TYPE(call, comm, datatype);
    if (size == NULL)
        return fm_raise(comm, call, MPI_ERR_ARG, "size=NULL");
    MPI_Count need;
    if (__builtin_mul_overflow(incount, datatype->size, &need))
        return fm_raise(comm, call, MPI_ERR_COUNT,
                        "incount=%lld of %lld-byte elements is more bytes than an MPI_Count "
                        "holds", (long long)incount, (long long)datatype->size);
    if (need > max)
        return fm_raise(comm, call, MPI_ERR_COUNT,
                        "incount=%lld of %lld-byte elements is %lld bytes, over INT_MAX "
                        "(MPI_Pack_size_c takes it)", (long long)incount,
                        (long long)datatype->size, (long long)need);
    *size = need;
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack_size = PMPI_Pack_size
int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    FM_API_LOCK();
    MPI_Count n = 0;
    int rc = pack_size("MPI_Pack_size", incount, datatype, comm, INT_MAX, size ? &n : NULL);
    if (rc == MPI_SUCCESS)
        *size = (int)n;
    return rc;
}

#pragma weak MPI_Pack_size_c = PMPI_Pack_size_c
int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
    FM_API_LOCK();
    return pack_size("MPI_Pack_size_c", incount, datatype, comm, INT64_MAX, size);
}

#pragma weak MPI_Get_address = PMPI_Get_address
int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    FM_API_LOCK();
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

/* The decoding calls.  A type made by a large-count constructor
 * (MPI_Type_vector_c) has its arguments in large counts, which only the
 * _c calls can return: the int calls refuse it with MPI_ERR_TYPE, as
 * MPICH does; the _c calls describe every type. */
static const char *constructor_name(int combiner)
{
    switch (combiner) {
    case MPI_COMBINER_CONTIGUOUS: return "MPI_Type_contiguous";
    case MPI_COMBINER_VECTOR: return "MPI_Type_vector";
    case MPI_COMBINER_HVECTOR: return "MPI_Type_create_hvector";
    case MPI_COMBINER_INDEXED: return "MPI_Type_indexed";
    case MPI_COMBINER_HINDEXED: return "MPI_Type_create_hindexed";
    case MPI_COMBINER_INDEXED_BLOCK: return "MPI_Type_create_indexed_block";
    case MPI_COMBINER_HINDEXED_BLOCK: return "MPI_Type_create_hindexed_block";
    case MPI_COMBINER_STRUCT: return "MPI_Type_create_struct";
    case MPI_COMBINER_SUBARRAY: return "MPI_Type_create_subarray";
    case MPI_COMBINER_DARRAY: return "MPI_Type_create_darray";
    case MPI_COMBINER_RESIZED: return "MPI_Type_create_resized";
    default: return "MPI_Type_*";
    }
}

static int refuse_large(const char *call, MPI_Datatype datatype)
{
    return fm_raise(MPI_COMM_NULL, call, MPI_ERR_TYPE,
                    "datatype %s was made by a large-count constructor (%s_c): its arguments "
                    "are large counts, which %s_c returns",
                    datatype->name[0] ? datatype->name : "<unnamed derived type>",
                    constructor_name(datatype->combiner), call);
}

static int get_envelope(const char *call, MPI_Datatype datatype, MPI_Count *num_integers,
                        MPI_Count *num_addresses, MPI_Count *num_large_counts,
                        MPI_Count *num_datatypes, int *combiner)
{
    FM_CHECK_DT_ARG(call, datatype, "datatype");
    FM_CHECK_PTR(call, num_integers, "num_integers");
    FM_CHECK_PTR(call, num_addresses, "num_addresses");
    FM_CHECK_PTR(call, num_large_counts, "num_large_counts");
    FM_CHECK_PTR(call, num_datatypes, "num_datatypes");
    FM_CHECK_PTR(call, combiner, "combiner");
    const struct fm_dt_contents *c = datatype->contents;
    const int *f90;
    int nf90 = fm_type_f90_ints(datatype, &f90);
    *num_integers = c ? c->nints : nf90 > 0 ? nf90 : 0;
    *num_addresses = c ? c->naints : 0;
    *num_large_counts = c ? c->ncounts : 0;
    *num_datatypes = c ? c->ntypes : 0;
    *combiner = datatype->combiner;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_envelope = PMPI_Type_get_envelope
int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                          int *num_datatypes, int *combiner)
{
    FM_API_LOCK();
    static const char call[] = "MPI_Type_get_envelope";
    MPI_Count ni = 0, na = 0, nc = 0, nd = 0, *none = NULL;
    int rc = get_envelope(call, datatype, num_integers ? &ni : none,
                          num_addresses ? &na : none, &nc, num_datatypes ? &nd : none, combiner);
    if (rc != MPI_SUCCESS)
        return rc;
    if (nc > 0)
        return refuse_large(call, datatype);
    *num_integers = (int)ni;
    *num_addresses = (int)na;
    *num_datatypes = (int)nd;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_envelope_c = PMPI_Type_get_envelope_c
int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                             MPI_Count *num_addresses, MPI_Count *num_large_counts,
                             MPI_Count *num_datatypes, int *combiner)
{
    FM_API_LOCK();
    return get_envelope("MPI_Type_get_envelope_c", datatype, num_integers, num_addresses,
                        num_large_counts, num_datatypes, combiner);
}

static int get_contents(const char *call, MPI_Datatype datatype, MPI_Count max_integers,
                        MPI_Count max_addresses, MPI_Count max_large_counts,
                        MPI_Count max_datatypes, int array_of_integers[],
                        MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                        MPI_Datatype array_of_datatypes[])
{
    FM_CHECK_DT_ARG(call, datatype, "datatype");
    const struct fm_dt_contents *c = datatype->contents;
    const int *f90;
    int nf90 = fm_type_f90_ints(datatype, &f90);
    if (nf90 > 0) {
        /* (r) or (p, r) of the MPI_Type_create_f90_* call; nothing else. */
        if (max_integers < nf90)
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                            "max_integers=%lld is below the envelope's %d",
                            (long long)max_integers, nf90);
        if (!array_of_integers)
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "array_of_integers=NULL");
        memcpy(array_of_integers, f90, sizeof(int) * (size_t)nf90);
        return MPI_SUCCESS;
    }
    if (!c)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_TYPE,
                        "datatype=%s is predefined (combiner MPI_COMBINER_NAMED)",
                        datatype->name);
    if (max_integers < c->nints || max_addresses < c->naints ||
        max_large_counts < c->ncounts || max_datatypes < c->ntypes)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                        "max_integers=%lld max_addresses=%lld %smax_datatypes=%lld are below "
                        "the envelope's %d %d %d",
                        (long long)max_integers, (long long)max_addresses,
                        max_large_counts < c->ncounts ? "max_large_counts (too few) " : "",
                        (long long)max_datatypes, c->nints, c->naints, c->ntypes);
    if ((c->nints && !array_of_integers) || (c->naints && !array_of_addresses) ||
        (c->ncounts && !array_of_large_counts) || (c->ntypes && !array_of_datatypes))
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "an output array is NULL");
    if (c->nints)
        memcpy(array_of_integers, c->ints, sizeof(int) * (size_t)c->nints);
    if (c->naints)
        memcpy(array_of_addresses, c->aints, sizeof(MPI_Aint) * (size_t)c->naints);
    if (c->ncounts)
        memcpy(array_of_large_counts, c->counts, sizeof(MPI_Count) * (size_t)c->ncounts);
    /* Derived types handed out are new references the caller frees. */
    for (int i = 0; i < c->ntypes; i++) {
        fm_dt_retain(c->types[i]);
        array_of_datatypes[i] = c->types[i];
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_contents = PMPI_Type_get_contents
int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                          int max_datatypes, int array_of_integers[],
                          MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
    FM_API_LOCK();
    static const char call[] = "MPI_Type_get_contents";
    if (fm_dt_valid(datatype) && datatype->contents && datatype->contents->ncounts)
        return refuse_large(call, datatype);
    return get_contents(call, datatype, max_integers, max_addresses, 0, max_datatypes,
                        array_of_integers, array_of_addresses, NULL, array_of_datatypes);
}

#pragma weak MPI_Type_get_contents_c = PMPI_Type_get_contents_c
int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers,
                             MPI_Count max_addresses, MPI_Count max_large_counts,
                             MPI_Count max_datatypes, int array_of_integers[],
                             MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                             MPI_Datatype array_of_datatypes[])
{
    FM_API_LOCK();
    return get_contents("MPI_Type_get_contents_c", datatype, max_integers, max_addresses,
                        max_large_counts, max_datatypes, array_of_integers, array_of_addresses,
                        array_of_large_counts, array_of_datatypes);
}
