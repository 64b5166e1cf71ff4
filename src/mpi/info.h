/* info.h — what entry points outside info.c need of MPI_Info objects. */
#ifndef FM_MPI_INFO_H
#define FM_MPI_INFO_H

#include <mpi.h>

/* 1 if info is a live MPI_Info (not MPI_INFO_NULL). */
int fm_info_valid(MPI_Info info);

#endif
