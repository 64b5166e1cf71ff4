/* bindings.h — what the Fortran bindings (bindings_*.c, generated; special.c)
 * need to turn Fortran arguments into C ones: handles through the
 * MPI_*_f2c/c2f tables, the sentinels (MPI_BOTTOM, MPI_IN_PLACE,
 * MPI_STATUS_IGNORE, ... are common-block variables whose addresses the
 * program passes; src/mpi/fortran_sentinels.c owns their storage), strings
 * (blank-padded, with a hidden length gfortran appends as size_t) and
 * LOGICALs (gfortran: .TRUE. is 1, .FALSE. is 0, so LOGICAL arrays have the
 * layout of C int flags). */
#ifndef FM_FORTRAN_BINDINGS_H
#define FM_FORTRAN_BINDINGS_H

#include <mpi.h>
#include <stddef.h>
#include <stdlib.h>

#include "mpi/f2c.h"

#define FM_F_TRUE 1

static inline void *fm_f_buffer(void *buf)
{
    if (buf == (void *)&fab_f_bottom_)
        return MPI_BOTTOM;
    if (buf == (void *)&fab_f_in_place_)
        return MPI_IN_PLACE;
    return buf;
}

static inline MPI_Status *fm_f_status(MPI_Fint *status)
{
    return status == fab_f_status_ignore_ ? MPI_STATUS_IGNORE : (MPI_Status *)status;
}

static inline MPI_Status *fm_f_statuses(MPI_Fint *statuses)
{
    return statuses == fab_f_statuses_ignore_ ? MPI_STATUSES_IGNORE : (MPI_Status *)statuses;
}

static inline const int *fm_f_weights(MPI_Fint *weights)
{
    if (weights == fab_f_unweighted_)
        return MPI_UNWEIGHTED;
    if (weights == fab_f_weights_empty_)
        return MPI_WEIGHTS_EMPTY;
    return weights;
}

/* The Fortran value *f after a call that may have freed its object: give
 * the old index back when it did (gone), then store the new value. */
static inline void fm_f_update(enum fm_f_kind kind, MPI_Fint *f, int gone, MPI_Fint value)
{
    if (gone && *f != 0)
        fab_f_release(kind, *f);
    *f = value;
}

/* ierror is OPTIONAL in mpi_f08: absent, gfortran passes NULL. */
static inline void fm_f_ierror(MPI_Fint *ierror, int rc)
{
    if (ierror)
        *ierror = rc;
}

/* n zeroed elements of size bytes (at least one); aborts when memory is out. */
void *fm_f_array(int n, size_t size);
/* A NUL-terminated copy of a Fortran string without its trailing blanks. */
char *fm_f_cstring(const char *s, size_t len);
/* The same without leading blanks either: info keys and values. */
char *fm_f_cstring_info(const char *s, size_t len);
/* Bytes of a C buffer for an output string of a Fortran length (room for
 * the longest string any MPI call writes, and the NUL). */
size_t fm_f_string_room(size_t len);
/* Copy a C string into a Fortran one, blank-padded (truncated to len). */
void fm_f_fstring(char *f, size_t len, const char *c);
/* The processes an alltoallw's type arrays list: the group size, or the
 * remote group's for an intercommunicator. */
int fm_f_comm_peers(MPI_Comm comm);
/* A topology's out (sources = 1) or in degree: neighbor_alltoallw's. */
int fm_f_neighbors(MPI_Comm comm, int out);

#endif
