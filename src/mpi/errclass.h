/* errclass.h — how error codes are numbered, and the error classes and
 * codes a program adds (MPI_Add_error_class/_code/_string, errclass.c).
 *
 *   0 .. FM_ERR_STRIDE-1        error classes: the predefined ones up to
 *                               MPI_ERR_LASTCODE, user classes above it
 *   class + FM_ERR_STRIDE * n   n = 1..FM_ERR_SLOTS: a code fm_raise made,
 *                               carrying a detailed message (error.c)
 *   FM_ERR_USER_CODE_BASE + k   the k-th code a program added
 *
 * Every range is disjoint, so a code names its class without a table
 * except for user codes, and no user code can alias a detailed one. */
#ifndef FM_MPI_ERRCLASS_H
#define FM_MPI_ERRCLASS_H

#include <mpi.h>

#define FM_ERR_STRIDE 256
#define FM_ERR_SLOTS 256
#define FM_ERR_USER_CODE_BASE (FM_ERR_STRIDE * (FM_ERR_SLOTS + 1))

/* The class of any valid error code or class; -1 when code is not one
 * (error.c; raises nothing). */
int fm_error_class_of(int code);
/* The class of a user class or user code; -1 when code is neither. */
int fm_errclass_user_class(int code);
/* The string MPI_Add_error_string attached to a user class or code ("" when
 * none was); NULL when code is neither. */
const char *fm_errclass_user_string(int code);

#endif
