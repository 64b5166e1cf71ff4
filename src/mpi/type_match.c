/* type_match.c — MPI_Type_match_size: the predefined Fortran type of a
 * type class and size (MPI-3.1 section 17.1.9), for programs that learned
 * a size from MPI_Sizeof or the compiler. */
#include "mpi/api.h"
#include "mpi/type_check.h"

#pragma weak MPI_Type_match_size = PMPI_Type_match_size
int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    FM_API_LOCK();
    static const char call[] = "MPI_Type_match_size";
    FM_CHECK_PTR(call, datatype, "datatype");
    static const struct {
        int typeclass, size;
        MPI_Datatype type;
    } table[] = {
        {MPI_TYPECLASS_REAL, 4, MPI_REAL4},
        {MPI_TYPECLASS_REAL, 8, MPI_REAL8},
#ifdef MPI_REAL16
        {MPI_TYPECLASS_REAL, 16, MPI_REAL16},
#endif
        {MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1},
        {MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2},
        {MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4},
        {MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8},
#ifdef MPI_INTEGER16
        {MPI_TYPECLASS_INTEGER, 16, MPI_INTEGER16},
#endif
        {MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8},
        {MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16},
#ifdef MPI_COMPLEX32
        {MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32},
#endif
    };
    if (typeclass != MPI_TYPECLASS_REAL && typeclass != MPI_TYPECLASS_INTEGER &&
        typeclass != MPI_TYPECLASS_COMPLEX)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                        "typeclass=%d is not MPI_TYPECLASS_REAL, _INTEGER or _COMPLEX", typeclass);
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (table[i].typeclass == typeclass && table[i].size == size) {
            *datatype = table[i].type;
            return MPI_SUCCESS;
        }
    return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                    "size=%d: no predefined %s type has that size", size,
                    typeclass == MPI_TYPECLASS_REAL      ? "REAL"
                    : typeclass == MPI_TYPECLASS_INTEGER ? "INTEGER"
                                                         : "COMPLEX");
}
