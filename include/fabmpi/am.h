/* fabmpi/am.h — fabmpi's active messages: the GASNet-style layer under MPI,
 * usable on its own (docs/AM.md).
 *
 * Ranks are MPI_COMM_WORLD ranks; the layer is up between MPI_Init and
 * MPI_Finalize, and a program may use it alone or beside MPI calls.
 *
 * A request runs handler `handler` (registered under the same index on
 * every rank) at the target, inside the target's progress: any fab_ or MPI
 * call it makes, or fab_poll().  A request handler may send at most one
 * reply, to the requester, with the token it was given; a reply handler
 * sends nothing.  Handlers must not block or call MPI.
 *
 *   Short   arguments only.
 *   Medium  arguments and up to fab_am_max_medium() bytes, which the
 *           handler sees in a buffer valid until it returns.
 *   Long    arguments and any number of bytes, written at dest_addr in the
 *           target's segment (fab_segment) before its handler runs; the
 *           handler sees them there.
 *
 * Every request takes a flow-control credit for its target, given back by
 * the target's reply, or (when the handler sent none) in a later message
 * or a hidden reply (FABMPI_AM_CREDITS_PP, _TOTAL, _SLACK).  Without
 * FAB_FLAG_IMMEDIATE a request with no credit left, or no room in the
 * transport, makes progress until it can go; with it, the call returns
 * FAB_WOULD_BLOCK and sends nothing (a Long of several pieces waits for
 * room once it has its credit).  Replies never wait.  Source buffers may be reused as soon as a
 * call returns.
 *
 * Errors: a negative FAB_ERR_* code, with a line on stderr naming the call,
 * the argument and its value; fab_strerror() names a code. */
#ifndef FABMPI_AM_H
#define FABMPI_AM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t fab_am_arg_t;
typedef struct fab_am_token *fab_am_token_t;
typedef struct fab_event *fab_event_t;
typedef void (*fab_am_fn_t)(fab_am_token_t token, void *buf, size_t nbytes,
                            const fab_am_arg_t *args, unsigned nargs);

enum {
    FAB_OK = 0,
    FAB_WOULD_BLOCK = 1,      /* FAB_FLAG_IMMEDIATE: not sent, nothing changed */
    FAB_NOT_READY = 2,        /* fab_test: the operation has not completed yet */
    FAB_ERR_BAD_ARG = -1,     /* an argument out of range (stderr says which) */
    FAB_ERR_NOT_INIT = -2,    /* before MPI_Init or after MPI_Finalize */
    FAB_ERR_RESOURCE = -3,    /* out of memory */
    FAB_ERR_NOT_ALLOWED = -4, /* not from here: a request or a second reply in a handler */
    FAB_ERR_NET = -5,         /* a transfer failed (the peer died, or its network) */
};

/* Handler indices a program may register. */
#define FAB_AM_HANDLER_MIN 1
#define FAB_AM_HANDLER_MAX 255

/* fab_am_register flags: which messages the handler takes (none of the
 * two: both). */
#define FAB_AM_REQUEST 1u
#define FAB_AM_REPLY 2u

/* Send flags. */
#define FAB_FLAG_IMMEDIATE 1u /* return FAB_WOULD_BLOCK instead of waiting for a credit */
#define FAB_FLAG_BULK 2u      /* fab_rma_put_nb/_nbi: the source may change only after the
                               * sync (no bounce copy, no wait for it to be sent) */

int fab_am_register(unsigned index, fab_am_fn_t fn, unsigned flags, const char *name);

int fab_am_request_short(int rank, unsigned handler, unsigned flags, unsigned nargs,
                         const fab_am_arg_t *args);
int fab_am_request_medium(int rank, unsigned handler, const void *buf, size_t nbytes,
                          unsigned flags, unsigned nargs, const fab_am_arg_t *args);
int fab_am_request_long(int rank, unsigned handler, const void *buf, size_t nbytes,
                        void *dest_addr, unsigned flags, unsigned nargs, const fab_am_arg_t *args);
int fab_am_reply_short(fab_am_token_t token, unsigned handler, unsigned flags, unsigned nargs,
                       const fab_am_arg_t *args);
int fab_am_reply_medium(fab_am_token_t token, unsigned handler, const void *buf, size_t nbytes,
                        unsigned flags, unsigned nargs, const fab_am_arg_t *args);
int fab_am_reply_long(fab_am_token_t token, unsigned handler, const void *buf, size_t nbytes,
                      void *dest_addr, unsigned flags, unsigned nargs, const fab_am_arg_t *args);

/* Negotiated-payload Medium: prepare hands out a buffer the library owns,
 * of *size bytes (at least `least`, at most `most` and
 * fab_am_max_medium()); the caller builds the payload in it and commits
 * nbytes <= *size of it.  A request's credit is taken at prepare (which
 * waits for it, or returns FAB_WOULD_BLOCK under FAB_FLAG_IMMEDIATE), so
 * the commit never waits for one.  One prepared request and one prepared
 * reply at a time per process; a prepared reply is committed before its
 * handler returns. */
int fab_am_prepare_request_medium(int rank, size_t least, size_t most, unsigned flags, void **buf,
                                  size_t *size);
int fab_am_commit_request_medium(unsigned handler, size_t nbytes, unsigned nargs,
                                 const fab_am_arg_t *args);
int fab_am_prepare_reply_medium(fab_am_token_t token, size_t least, size_t most, unsigned flags,
                                void **buf, size_t *size);
int fab_am_commit_reply_medium(unsigned handler, size_t nbytes, unsigned nargs,
                               const fab_am_arg_t *args);

/* The rank that sent the message a handler runs for. */
int fab_am_token_rank(fab_am_token_t token);
size_t fab_am_max_medium(void);
unsigned fab_am_max_args(void);
/* Requests this rank may have in flight to `rank` (sent, their credits
 * not back) before the next one waits, or returns FAB_WOULD_BLOCK under
 * FAB_FLAG_IMMEDIATE: FABMPI_AM_CREDITS_PP, or for a rank on this node
 * while that is not set, one per KiB of the ring to it.  0 for this rank
 * itself (requests to oneself take none); FAB_ERR_BAD_ARG for no rank,
 * FAB_ERR_NOT_INIT outside MPI_Init .. MPI_Finalize. */
int fab_am_max_credits(int rank);

/* Rank `rank`'s segment: where Long payloads land and what one-sided
 * transfers reach (FABMPI_AM_SEGMENT_SIZE bytes, page-aligned, zeroed). */
int fab_segment(int rank, void **base, size_t *size);

/* One-sided transfers between any memory of this rank and `rank`'s
 * segment (the remote range must lie inside it; the local one may be
 * anywhere, and may be unmapped or remapped between transfers).
 *   blocking  returns when the data has landed (put: at the target);
 *   _nb       returns an event for fab_wait / fab_test (NULL when the
 *             transfer finished already: both take NULL as done);
 *   _nbi      counts into this rank's implicit set, synced by fab_nbi_wait.
 * The source of a put may be reused as soon as the call returns, unless
 * FAB_FLAG_BULK says it stays untouched until the sync; a get's
 * destination holds the data only after the sync.  With
 * FAB_FLAG_IMMEDIATE a transfer that would first wait for a credit or for
 * room returns FAB_WOULD_BLOCK and starts nothing.  Not from handlers. */
int fab_rma_put(int rank, void *dst, const void *src, size_t n, unsigned flags);
int fab_rma_get(void *dst, int rank, const void *src, size_t n, unsigned flags);
int fab_rma_put_nb(int rank, void *dst, const void *src, size_t n, unsigned flags,
                   fab_event_t *ev);
int fab_rma_get_nb(void *dst, int rank, const void *src, size_t n, unsigned flags,
                   fab_event_t *ev);
int fab_rma_put_nbi(int rank, void *dst, const void *src, size_t n, unsigned flags);
int fab_rma_get_nbi(void *dst, int rank, const void *src, size_t n, unsigned flags);
/* Wait for (or test) an event; it is gone once either returns other than
 * FAB_NOT_READY.  The return is the operation's outcome. */
int fab_wait(fab_event_t ev);
int fab_test(fab_event_t ev);
/* Wait for every _nbi transfer this rank started; the first failure. */
int fab_nbi_wait(void);

/* Run handlers of arrived messages and send what waits; never blocks. */
int fab_poll(void);

const char *fab_strerror(int rc);

#ifdef __cplusplus
}
#endif

#endif
