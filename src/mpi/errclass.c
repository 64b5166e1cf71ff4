/* errclass.c — error classes, codes and strings a program adds
 * (MPI_Add_error_class, MPI_Add_error_code, MPI_Add_error_string).
 *
 * User classes take the class numbers above MPI_ERR_LASTCODE in order, so
 * processes that add them in the same order get the same values (the
 * standard's advice to implementors); user codes are numbered from
 * FM_ERR_USER_CODE_BASE (errclass.h).  Both live until the process ends:
 * MPI_Error_string and MPI_Error_class stay callable after MPI_Finalize. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/api.h"
#include "mpi/comm.h"
#include "mpi/errclass.h"

#define FIRST_USER_CLASS (MPI_ERR_LASTCODE + 1)
#define MAX_USER_CLASSES (FM_ERR_STRIDE - FIRST_USER_CLASS)
#define MAX_USER_CODES (INT_MAX - FM_ERR_USER_CODE_BASE)

struct user_code {
    int cls;
    char *str; /* NULL until MPI_Add_error_string */
};

static int nclasses;
static char *class_str[MAX_USER_CLASSES];
static struct user_code *codes;
static int ncodes, cap_codes;

int fm_errclass_user_class(int code)
{
    if (code >= FIRST_USER_CLASS && code < FIRST_USER_CLASS + nclasses)
        return code;
    if (code >= FM_ERR_USER_CODE_BASE && code - FM_ERR_USER_CODE_BASE < ncodes)
        return codes[code - FM_ERR_USER_CODE_BASE].cls;
    return -1;
}

/* The string slot of a user class or code, NULL when code is neither. */
static char **string_slot(int code)
{
    if (code >= FIRST_USER_CLASS && code < FIRST_USER_CLASS + nclasses)
        return &class_str[code - FIRST_USER_CLASS];
    if (code >= FM_ERR_USER_CODE_BASE && code - FM_ERR_USER_CODE_BASE < ncodes)
        return &codes[code - FM_ERR_USER_CODE_BASE].str;
    return NULL;
}

const char *fm_errclass_user_string(int code)
{
    char **s = string_slot(code);
    if (!s)
        return NULL;
    return *s ? *s : ""; /* the standard: no string set reads as empty */
}

#pragma weak MPI_Add_error_class = PMPI_Add_error_class
int PMPI_Add_error_class(int *errorclass)
{
    FM_API_LOCK();
    static const char call[] = "MPI_Add_error_class";
    FM_CHECK_INIT(call);
    if (!errorclass)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "errorclass=NULL");
    /* Classes must stay below FM_ERR_STRIDE: a detailed code is class +
     * FM_ERR_STRIDE * slot, and MPI_Error_class takes the class back out. */
    if (nclasses == MAX_USER_CLASSES)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_OTHER,
                        "all %d user error classes (%d..%d) are in use", MAX_USER_CLASSES,
                        FIRST_USER_CLASS, FM_ERR_STRIDE - 1);
    int cls = FIRST_USER_CLASS + nclasses++;
    /* MPI_LASTUSEDCODE is the largest error class in use (MPI-3.1 8.5). */
    fm_attr_lastusedcode = cls;
    *errorclass = cls;
    return MPI_SUCCESS;
}

#pragma weak MPI_Add_error_code = PMPI_Add_error_code
int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    FM_API_LOCK();
    static const char call[] = "MPI_Add_error_code";
    FM_CHECK_INIT(call);
    if (!errorcode)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "errorcode=NULL");
    if (errorclass == MPI_SUCCESS)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                        "errorclass=MPI_SUCCESS is not an error class to add codes to");
    if (errorclass < 0 || errorclass >= FM_ERR_STRIDE || fm_error_class_of(errorclass) != errorclass)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                        "errorclass=%d is not an error class (predefined, or from "
                        "MPI_Add_error_class)", errorclass);
    if (ncodes == MAX_USER_CODES)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_OTHER, "all %d user error codes are in use",
                        MAX_USER_CODES);
    if (ncodes == cap_codes) {
        int cap = cap_codes ? cap_codes * 2 : 64;
        if (cap > MAX_USER_CODES)
            cap = MAX_USER_CODES;
        struct user_code *c = realloc(codes, sizeof *c * (size_t)cap);
        if (!c)
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_NO_MEM,
                            "no memory for error code %d", ncodes + 1);
        codes = c;
        cap_codes = cap;
    }
    codes[ncodes] = (struct user_code){.cls = errorclass, .str = NULL};
    *errorcode = FM_ERR_USER_CODE_BASE + ncodes++;
    return MPI_SUCCESS;
}

#pragma weak MPI_Add_error_string = PMPI_Add_error_string
int PMPI_Add_error_string(int errorcode, const char *string)
{
    FM_API_LOCK();
    static const char call[] = "MPI_Add_error_string";
    FM_CHECK_INIT(call);
    if (!string)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "string=NULL");
    size_t len = strlen(string);
    /* MPI_Error_string hands it back with its terminator in a buffer of
     * MPI_MAX_ERROR_STRING characters. */
    if (len >= MPI_MAX_ERROR_STRING)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                        "string of %zu characters; at most %d", len, MPI_MAX_ERROR_STRING - 1);
    char **slot = string_slot(errorcode);
    if (!slot)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                        "errorcode=%d is %s; only classes and codes added by "
                        "MPI_Add_error_class/MPI_Add_error_code take a string",
                        errorcode,
                        errorcode >= 0 && errorcode <= MPI_ERR_LASTCODE ? "predefined"
                                                                        : "not a user error code");
    char *copy = strdup(string);
    if (!copy)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_NO_MEM, "no memory for the string");
    free(*slot); /* a new string replaces the old one */
    *slot = copy;
    return MPI_SUCCESS;
}
