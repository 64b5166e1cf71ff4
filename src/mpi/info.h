/* info.h — what entry points outside info.c need of MPI_Info objects. */
#ifndef FM_MPI_INFO_H
#define FM_MPI_INFO_H

#include <mpi.h>

/* 1 if info is a live MPI_Info (not MPI_INFO_NULL). */
int fm_info_valid(MPI_Info info);

/* For objects that keep hints (windows, communicators).  Each returns FM_OK
 * or FM_ERR_NOMEM and raises nothing: the caller reports on its object. */
/* Set every key of src (MPI_INFO_NULL: none) in *dst, creating *dst when
 * it is MPI_INFO_NULL; keys only in *dst keep their values. */
int fm_info_merge(MPI_Info *dst, MPI_Info src);
/* A new info holding src's keys (none when src is MPI_INFO_NULL). */
int fm_info_copy(MPI_Info src, MPI_Info *out);
/* Set key to value in a valid info (key and value not checked): FM_OK, or
 * FM_ERR_NOMEM with info unchanged. */
int fm_info_set(MPI_Info info, const char *key, const char *value);
/* Fill MPI_INFO_ENV (MPI_Init, once the world is known; info_env.c). */
void fm_info_env_init(void);
/* Free an info the library holds (MPI_INFO_NULL: nothing). */
void fm_info_release(MPI_Info info);

#endif
