/* gen_constants.c - writes mpif-constants.h, the Fortran constants of
 * mpif.h and the mpi module, from mpi.h itself (run at build time, so the
 * Fortran values cannot drift from C's).  Handles are the Fortran indices
 * of the predefined objects (MPI_Comm_c2f, ...).  The output is valid fixed
 * and free form: statements from column 7, at most 72 columns.  With f08,
 * the mpi_f08 module's: handles of their types (MPI_Comm(1), ...), status
 * sentinels of TYPE(MPI_Status).
 *
 *     gen_constants > mpif-constants.h
 *     gen_constants f08 > mpi_f08-constants.h */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int f08; /* writing the mpi_f08 module's constants */

/* Integer constants of mpi.h with the same name in Fortran. */
#define INT_CONSTANTS(X)                                                                     \
    X(MPI_VERSION) X(MPI_SUBVERSION) X(MPI_ANY_SOURCE) X(MPI_PROC_NULL) X(MPI_ROOT)          \
    X(MPI_ANY_TAG) X(MPI_UNDEFINED) X(MPI_KEYVAL_INVALID) X(MPI_BSEND_OVERHEAD)              \
    X(MPI_STATUS_SIZE) X(MPI_MAX_PROCESSOR_NAME) X(MPI_MAX_ERROR_STRING)                     \
    X(MPI_MAX_OBJECT_NAME) X(MPI_MAX_LIBRARY_VERSION_STRING) X(MPI_MAX_INFO_KEY)            \
    X(MPI_MAX_INFO_VAL) X(MPI_MAX_PORT_NAME) X(MPI_MAX_DATAREP_STRING)                      \
    X(MPI_THREAD_SINGLE) X(MPI_THREAD_FUNNELED) X(MPI_THREAD_SERIALIZED)                     \
    X(MPI_THREAD_MULTIPLE) X(MPIX_TASK_MULTIPLE) X(MPI_IDENT) X(MPI_CONGRUENT) X(MPI_SIMILAR)  \
    X(MPI_UNEQUAL)                                                                           \
    X(MPI_COMM_TYPE_SHARED) X(MPI_GRAPH) X(MPI_CART) X(MPI_DIST_GRAPH) X(MPI_TAG_UB)         \
    X(MPI_HOST) X(MPI_IO) X(MPI_WTIME_IS_GLOBAL) X(MPI_UNIVERSE_SIZE) X(MPI_LASTUSEDCODE)    \
    X(MPI_APPNUM) X(MPI_COMBINER_NAMED) X(MPI_COMBINER_DUP) X(MPI_COMBINER_CONTIGUOUS)       \
    X(MPI_COMBINER_VECTOR) X(MPI_COMBINER_HVECTOR) X(MPI_COMBINER_INDEXED)                   \
    X(MPI_COMBINER_HINDEXED) X(MPI_COMBINER_INDEXED_BLOCK) X(MPI_COMBINER_HINDEXED_BLOCK)    \
    X(MPI_COMBINER_STRUCT) X(MPI_COMBINER_SUBARRAY) X(MPI_COMBINER_DARRAY)                   \
    X(MPI_COMBINER_F90_REAL) X(MPI_COMBINER_F90_COMPLEX) X(MPI_COMBINER_F90_INTEGER)         \
    X(MPI_COMBINER_RESIZED) X(MPI_ORDER_C) X(MPI_ORDER_FORTRAN) X(MPI_DISTRIBUTE_BLOCK)      \
    X(MPI_TYPECLASS_REAL) X(MPI_TYPECLASS_INTEGER) X(MPI_TYPECLASS_COMPLEX)                 \
    X(MPI_DISTRIBUTE_CYCLIC) X(MPI_DISTRIBUTE_NONE) X(MPI_DISTRIBUTE_DFLT_DARG)              \
    X(MPI_WIN_FLAVOR_CREATE) X(MPI_WIN_FLAVOR_ALLOCATE) X(MPI_WIN_FLAVOR_DYNAMIC)            \
    X(MPI_WIN_FLAVOR_SHARED) X(MPI_WIN_SEPARATE) X(MPI_WIN_UNIFIED) X(MPI_WIN_BASE)          \
    X(MPI_WIN_SIZE) X(MPI_WIN_DISP_UNIT) X(MPI_WIN_CREATE_FLAVOR) X(MPI_WIN_MODEL)           \
    X(MPI_LOCK_EXCLUSIVE) X(MPI_LOCK_SHARED) X(MPI_MODE_NOCHECK) X(MPI_MODE_NOSTORE)         \
    X(MPI_MODE_NOPUT) X(MPI_MODE_NOPRECEDE) X(MPI_MODE_NOSUCCEED)

static void integer(const char *name, long long value)
{
    printf("      INTEGER %s\n      PARAMETER (%s=%lld)\n", name, name, value);
}

static void handle(const char *type, const char *name, MPI_Fint value)
{
    if (f08)
        printf("      TYPE(%s), PARAMETER :: %s = %s(%d)\n", type, name, type, value);
    else
        integer(name, value);
}

int main(int argc, char **argv)
{
    f08 = argc > 1 && !strcmp(argv[1], "f08");
    printf("! %s - MPI's Fortran constants for fabmpi.\n"
           "! GENERATED at build time by src/fortran/gen_constants.c from mpi.h.\n",
           f08 ? "mpi_f08-constants.h" : "mpif-constants.h");
#define X(name) integer(#name, (long long)(name));
    INT_CONSTANTS(X)
#undef X
#define X(name, value, text) integer(#name, (long long)(name));
    FM_ERROR_CLASSES(X)
#undef X
    /* Status elements (1-based), and the kinds of address, offset and count
     * integers (bytes: gfortran's KIND values). */
    integer("MPI_SOURCE", 1);
    integer("MPI_TAG", 2);
    integer("MPI_ERROR", 3);
    integer("MPI_ADDRESS_KIND", (long long)sizeof(MPI_Aint));
    integer("MPI_OFFSET_KIND", (long long)sizeof(MPI_Offset));
    integer("MPI_COUNT_KIND", (long long)sizeof(MPI_Count));
    integer("MPI_INTEGER_KIND", (long long)sizeof(MPI_Fint));

    handle("MPI_Comm", "MPI_COMM_NULL", PMPI_Comm_c2f(MPI_COMM_NULL));
    handle("MPI_Comm", "MPI_COMM_WORLD", PMPI_Comm_c2f(MPI_COMM_WORLD));
    handle("MPI_Comm", "MPI_COMM_SELF", PMPI_Comm_c2f(MPI_COMM_SELF));
    handle("MPI_Group", "MPI_GROUP_NULL", PMPI_Group_c2f(MPI_GROUP_NULL));
    handle("MPI_Group", "MPI_GROUP_EMPTY", PMPI_Group_c2f(MPI_GROUP_EMPTY));
    handle("MPI_Datatype", "MPI_DATATYPE_NULL", PMPI_Type_c2f(MPI_DATATYPE_NULL));
#define X(name, ctype) handle("MPI_Datatype", #name, PMPI_Type_c2f(name));
    FM_PREDEFINED_DATATYPES(X)
#undef X
    handle("MPI_Op", "MPI_OP_NULL", PMPI_Op_c2f(MPI_OP_NULL));
#define X(name) handle("MPI_Op", #name, PMPI_Op_c2f(name));
    FM_PREDEFINED_OPS(X)
#undef X
    handle("MPI_Request", "MPI_REQUEST_NULL", PMPI_Request_c2f(MPI_REQUEST_NULL));
    handle("MPI_Errhandler", "MPI_ERRHANDLER_NULL", PMPI_Errhandler_c2f(MPI_ERRHANDLER_NULL));
    handle("MPI_Errhandler", "MPI_ERRORS_ARE_FATAL", PMPI_Errhandler_c2f(MPI_ERRORS_ARE_FATAL));
    handle("MPI_Errhandler", "MPI_ERRORS_RETURN", PMPI_Errhandler_c2f(MPI_ERRORS_RETURN));
    handle("MPI_Message", "MPI_MESSAGE_NULL", PMPI_Message_c2f(MPI_MESSAGE_NULL));
    handle("MPI_Message", "MPI_MESSAGE_NO_PROC", PMPI_Message_c2f(MPI_MESSAGE_NO_PROC));
    handle("MPI_Info", "MPI_INFO_NULL", PMPI_Info_c2f(MPI_INFO_NULL));
    handle("MPI_Info", "MPI_INFO_ENV", PMPI_Info_c2f(MPI_INFO_ENV));
    handle("MPI_Win", "MPI_WIN_NULL", PMPI_Win_c2f(MPI_WIN_NULL));

    /* The sentinels: variables in common blocks whose storage is
     * libfabmpi's fab_f_*_ (src/mpi/fortran_sentinels.c). */
    static const struct {
        const char *name, *block, *type, *dims, *f08_type, *f08_dims;
    } sentinels[] = {
        {"MPI_BOTTOM", "fab_f_bottom", "INTEGER", "", "INTEGER", ""},
        {"MPI_IN_PLACE", "fab_f_in_place", "INTEGER", "", "INTEGER", ""},
        {"MPI_STATUS_IGNORE", "fab_f_status_ignore", "INTEGER", "(MPI_STATUS_SIZE)",
         "TYPE(MPI_Status)", ""},
        {"MPI_STATUSES_IGNORE", "fab_f_statuses_ignore", "INTEGER", "(MPI_STATUS_SIZE,1)",
         "TYPE(MPI_Status)", "(1)"},
        {"MPI_UNWEIGHTED", "fab_f_unweighted", "INTEGER", "(1)", "INTEGER", "(1)"},
        {"MPI_WEIGHTS_EMPTY", "fab_f_weights_empty", "INTEGER", "(1)", "INTEGER", "(1)"},
        {"MPI_ERRCODES_IGNORE", "fab_f_errcodes_ignore", "INTEGER", "(1)", "INTEGER", "(1)"},
    };
    for (size_t i = 0; i < sizeof sentinels / sizeof *sentinels; i++)
        printf("      %s %s%s\n      COMMON /%s/ %s\n      SAVE /%s/\n",
               f08 ? sentinels[i].f08_type : sentinels[i].type, sentinels[i].name,
               f08 ? sentinels[i].f08_dims : sentinels[i].dims, sentinels[i].block,
               sentinels[i].name, sentinels[i].block);
    return 0;
}
