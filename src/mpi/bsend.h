/* bsend.h — buffered sends through the buffer the user attached. */
#ifndef FM_MPI_BSEND_H
#define FM_MPI_BSEND_H

#include <mpi.h>

/* Copy the message into the attached buffer and start sending it from
 * there.  Returns MPI_SUCCESS or raises (MPI_ERR_BUFFER when it does not fit). */
int fm_bsend(const char *call, const void *buf, MPI_Count count, MPI_Datatype dt, int dest,
             int tag, MPI_Comm comm);

#endif
