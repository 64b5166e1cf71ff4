/* pack_external.c — MPI_Pack_external, MPI_Unpack_external and
 * MPI_Pack_external_size, and their large-count variants (_c): MPI_Pack's
 * calls for the portable "external32" representation, the only datarep
 * they know (src/dtype/external32.c converts).  Checks and error classes
 * follow MPI_Pack (type_pack.c). */
#include <string.h>

#include "dtype/dtype.h"
#include "mpi/api.h"
#include "mpi/type_check.h"

static int check_datarep(const char *call, const char *datarep)
{
    if (!datarep)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "datarep=NULL");
    if (strcmp(datarep, "external32") != 0)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                        "datarep=\"%.64s\" is not a data representation these calls know; "
                        "the one there is is \"external32\"", datarep);
    return MPI_SUCCESS;
}

/* count elements of dt in external32 bytes. */
static int external_bytes(const char *call, MPI_Count count, MPI_Datatype dt, MPI_Count *bytes)
{
    MPI_Count one, n;
    int rc = fm_dt_external32_size(dt, &one);
    if (rc != FM_OK)
        return fm_raise_status(MPI_COMM_NULL, call, rc);
    if (__builtin_mul_overflow(count, one, &n) || n > (MPI_Count)INTPTR_MAX)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_COUNT,
                        "count=%lld of %lld external32 bytes each does not fit an MPI_Aint",
                        count, one);
    *bytes = n;
    return MPI_SUCCESS;
}

static const char *type_label(MPI_Datatype dt)
{
    return dt->name[0] ? dt->name : "<derived>";
}

/* Each call and its large-count variant: one body over MPI_Count
 * positions and sizes (MPI_Aint in the int calls, the same 8 bytes). */
static int pack_external(const char *call, const char *datarep, const void *inbuf,
                         MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                         MPI_Count outsize, MPI_Count *position)
{
    MPI_Count need = 0;
    int rc = check_datarep(call, datarep);
    if (rc)
        return rc;
    FM_CHECK_COUNT(call, MPI_COMM_NULL, incount);
    FM_CHECK_TYPE(call, MPI_COMM_NULL, datatype);
    FM_CHECK_BUF(call, MPI_COMM_NULL, inbuf, incount, datatype, "inbuf");
    FM_CHECK_PTR(call, position, "position");
    if (*position < 0 || *position > outsize)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                        "position=%lld must be in 0..outsize=%lld", (long long)*position,
                        (long long)outsize);
    if ((rc = external_bytes(call, incount, datatype, &need)))
        return rc;
    if (need > outsize - *position)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_TRUNCATE,
                        "incount=%lld of %s needs %lld bytes, outsize=%lld leaves %lld at "
                        "position", (long long)incount, type_label(datatype), need,
                        (long long)outsize, (long long)(outsize - *position));
    if (need > 0 && outbuf == NULL)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_BUFFER,
                        "outbuf=NULL with %lld bytes to pack", need);
    rc = fm_dt_pack_external32(inbuf, incount, datatype, (char *)outbuf + *position);
    if (rc != FM_OK)
        return fm_raise_status(MPI_COMM_NULL, call, rc);
    *position += need;
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack_external = PMPI_Pack_external
int PMPI_Pack_external(const char *datarep, const void *inbuf, int incount, MPI_Datatype datatype,
                       void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    FM_API_LOCK();
    MPI_Count pos = position ? *position : 0;
    int rc = pack_external("MPI_Pack_external", datarep, inbuf, incount, datatype, outbuf,
                           outsize, position ? &pos : NULL);
    if (rc == MPI_SUCCESS)
        *position = (MPI_Aint)pos;
    return rc;
}

#pragma weak MPI_Pack_external_c = PMPI_Pack_external_c
int PMPI_Pack_external_c(const char *datarep, const void *inbuf, MPI_Count incount,
                         MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                         MPI_Count *position)
{
    FM_API_LOCK();
    return pack_external("MPI_Pack_external_c", datarep, inbuf, incount, datatype, outbuf,
                         outsize, position);
}

static int unpack_external(const char *call, const char *datarep, const void *inbuf,
                           MPI_Count insize, MPI_Count *position, void *outbuf,
                           MPI_Count outcount, MPI_Datatype datatype)
{
    MPI_Count need = 0;
    int rc = check_datarep(call, datarep);
    if (rc)
        return rc;
    FM_CHECK_COUNT(call, MPI_COMM_NULL, outcount);
    FM_CHECK_TYPE(call, MPI_COMM_NULL, datatype);
    FM_CHECK_BUF(call, MPI_COMM_NULL, outbuf, outcount, datatype, "outbuf");
    FM_CHECK_PTR(call, position, "position");
    if (*position < 0 || *position > insize)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                        "position=%lld must be in 0..insize=%lld", (long long)*position,
                        (long long)insize);
    if ((rc = external_bytes(call, outcount, datatype, &need)))
        return rc;
    if (need > insize - *position)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_TRUNCATE,
                        "outcount=%lld of %s needs %lld bytes, insize=%lld has %lld at position",
                        (long long)outcount, type_label(datatype), need, (long long)insize,
                        (long long)(insize - *position));
    if (need > 0 && inbuf == NULL)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_BUFFER,
                        "inbuf=NULL with %lld bytes to unpack", need);
    rc = fm_dt_unpack_external32((const char *)inbuf + *position, outbuf, outcount, datatype);
    if (rc != FM_OK)
        return fm_raise_status(MPI_COMM_NULL, call, rc);
    *position += need;
    return MPI_SUCCESS;
}

#pragma weak MPI_Unpack_external = PMPI_Unpack_external
int PMPI_Unpack_external(const char *datarep, const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype)
{
    FM_API_LOCK();
    MPI_Count pos = position ? *position : 0;
    int rc = unpack_external("MPI_Unpack_external", datarep, inbuf, insize,
                             position ? &pos : NULL, outbuf, outcount, datatype);
    if (rc == MPI_SUCCESS)
        *position = (MPI_Aint)pos;
    return rc;
}

#pragma weak MPI_Unpack_external_c = PMPI_Unpack_external_c
int PMPI_Unpack_external_c(const char *datarep, const void *inbuf, MPI_Count insize,
                           MPI_Count *position, void *outbuf, MPI_Count outcount,
                           MPI_Datatype datatype)
{
    FM_API_LOCK();
    return unpack_external("MPI_Unpack_external_c", datarep, inbuf, insize, position, outbuf,
                           outcount, datatype);
}

static int pack_external_size(const char *call, const char *datarep, MPI_Count incount,
                              MPI_Datatype datatype, MPI_Count *size)
{
    int rc = check_datarep(call, datarep);
    if (rc)
        return rc;
    FM_CHECK_COUNT(call, MPI_COMM_NULL, incount);
    FM_CHECK_TYPE(call, MPI_COMM_NULL, datatype);
    FM_CHECK_PTR(call, size, "size");
    return external_bytes(call, incount, datatype, size);
}

#pragma weak MPI_Pack_external_size = PMPI_Pack_external_size
int PMPI_Pack_external_size(const char *datarep, int incount, MPI_Datatype datatype,
                            MPI_Aint *size)
{
    FM_API_LOCK();
    MPI_Count n = 0;
    int rc = pack_external_size("MPI_Pack_external_size", datarep, incount, datatype,
                                size ? &n : NULL);
    if (rc == MPI_SUCCESS)
        *size = (MPI_Aint)n;
    return rc;
}

#pragma weak MPI_Pack_external_size_c = PMPI_Pack_external_size_c
int PMPI_Pack_external_size_c(const char *datarep, MPI_Count incount, MPI_Datatype datatype,
                              MPI_Count *size)
{
    FM_API_LOCK();
    return pack_external_size("MPI_Pack_external_size_c", datarep, incount, datatype, size);
}
