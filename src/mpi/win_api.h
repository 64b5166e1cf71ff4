/* win_api.h — shared by the window entry points (src/mpi/win_*.c):
 * raising errors through a window's handler, and the checks they share. */
#ifndef FM_MPI_WIN_API_H
#define FM_MPI_WIN_API_H

#include <mpi.h>

#include "mpi/api.h"
#include "mpi/info.h"
#include "rma/rma.h"

/* Like fm_raise, but through win's error handler (MPI_ERRORS_ARE_FATAL by
 * default, as the standard says for windows). */
int fm_win_raise(MPI_Win win, const char *call, int errclass, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int fm_win_raise_status(MPI_Win win, const char *call, int status);

#define FM_CHECK_WIN(call, win)                                                       \
    do {                                                                              \
        if (!fm_win_valid(win))                                                       \
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_WIN, "win=%s is not a valid window", \
                            (win) == MPI_WIN_NULL ? "MPI_WIN_NULL" : "<invalid>");    \
    } while (0)

/* Target rank: 0..size-1 or MPI_PROC_NULL. */
#define FM_CHECK_WIN_RANK(call, win, r)                                               \
    do {                                                                              \
        if (!((r) >= 0 && (r) < (win)->size) && (r) != MPI_PROC_NULL)                 \
            return fm_win_raise(win, call, MPI_ERR_RANK,                              \
                                "rank=%d is not a rank of the window (size %d)", (int)(r), \
                                (win)->size);                                         \
    } while (0)

#endif
