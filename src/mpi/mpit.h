/* mpit.h — what the MPI_T files share (mpit.c, mpit_cvar.c, mpit_pvar.c,
 * mpit_event.c, mpit_category.c): the one lock, the init count, string
 * returns.
 *
 * MPI_T procedures work before MPI_Init and after MPI_Finalize, from any
 * thread: each takes the tools lock (util/event.h's fm_tools_lock,
 * recursive, so an event callback may call them) for its whole body (none
 * is on a hot path).  They return MPI_T_ERR_* classes and never call an error
 * handler, as the standard says. */
#ifndef FM_MPI_MPIT_H
#define FM_MPI_MPIT_H

#include <mpi.h>
#include <pthread.h>

/* Take the lock; MPI_T_ERR_NOT_INITIALIZED (lock released) unless
 * MPI_T_init_thread was called more often than MPI_T_finalize. */
int fm_mpit_enter(void);
/* Release the lock and return rc. */
int fm_mpit_leave(int rc);

/* The standard's string convention: at most *len - 1 characters and a
 * null into buf (nothing when buf is NULL or *len is 0), and *len set to
 * strlen(s) + 1.  len NULL: nothing at all. */
void fm_mpit_string(const char *s, char *buf, int *len);

/* The enumeration of ENUM knob `knob` (its items: the names it accepts),
 * MPI_T_ENUM_NULL for other knobs (mpit.c). */
MPI_T_enum fm_mpit_enum_of(int knob);

/* The counts of each kind (mpit_cvar.c, mpit_pvar.c), and which category
 * each belongs to, for mpit_category.c. */
int fm_mpit_pvar_count(void);
int fm_mpit_pvar_category(int i);
int fm_mpit_event_category(int i); /* FM_NEVENTS of them (util/event.h) */
/* Drop every session and handle (the last MPI_T_finalize). */
void fm_mpit_cvar_release_all(void);
void fm_mpit_pvar_release_all(void);

#endif
