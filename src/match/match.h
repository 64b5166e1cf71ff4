/* match.h — the MPI tag-matching engine for one communicator context.
 *
 * Posted receives and unexpected messages are fm_match_entry structs
 * embedded in the caller's objects (requests, unexpected-message records);
 * the engine links them but never allocates or frees them.
 *
 * Queues: per-source bins (grown on demand; a queue does not know the
 * communicator size, because messages may arrive for a context before this
 * process has created the communicator) plus one wildcard list for
 * ANY_SOURCE receives and one arrival-ordered list of all unexpected
 * messages.  Every entry gets a sequence number when queued, so the
 * earliest-posted receive wins between its source bin and the wildcard list.
 * Matching an arriving message costs O(entries in its source bin + wildcard
 * list), independent of how many other sources have entries queued. */
#ifndef FM_MATCH_MATCH_H
#define FM_MATCH_MATCH_H

#include <stddef.h>
#include <stdint.h>

typedef struct fm_match_entry {
    struct fm_match_entry *next, *prev;   /* in the source bin or the wildcard list */
    struct fm_match_entry *anext, *aprev; /* unexpected only: arrival order, all sources */
    uint64_t seq;                         /* set by the engine when queued */
    int32_t src;                          /* posted: rank or MPI_ANY_SOURCE; arrived: rank */
    int32_t tag;                          /* posted: tag or MPI_ANY_TAG; arrived: tag */
    int queued;                           /* 1 while linked in a queue */
} fm_match_entry;

typedef struct fm_match_queue fm_match_queue;

fm_match_queue *fm_match_queue_create(void);
/* Frees the queue itself; entries still queued are left untouched. */
void fm_match_queue_destroy(fm_match_queue *q);

/* A receive (src/tag may be wildcards) is posted.  Returns the earliest
 * unexpected message it matches, removed from the queue, or NULL after
 * appending `recv` to the posted queue. */
fm_match_entry *fm_match_post(fm_match_queue *q, fm_match_entry *recv);

/* A message (concrete src and tag >= 0) arrives.  Returns the earliest
 * posted receive it matches, removed from the queue, or NULL after
 * appending `msg` to the unexpected queue. */
fm_match_entry *fm_match_arrive(fm_match_queue *q, fm_match_entry *msg);

/* The two halves of fm_match_arrive, for callers that want to build the
 * unexpected record only when no receive waits: remove and return the
 * earliest posted receive matching (src, tag), or NULL ... */
fm_match_entry *fm_match_take_posted(fm_match_queue *q, int32_t src, int32_t tag);
/* ... and then queue the message as unexpected. */
void fm_match_add_unexpected(fm_match_queue *q, fm_match_entry *msg);

/* Whether any message waits unexpected: one load (the queue begins with
 * its arrival-ordered list of them). */
static inline int fm_match_any_unexpected(const fm_match_queue *q)
{
    return *(fm_match_entry *const *)(const void *)q != NULL;
}

/* The earliest unexpected message matching (src, tag) (wildcards allowed),
 * left in the queue; NULL if none.  For Probe/Iprobe. */
fm_match_entry *fm_match_peek(fm_match_queue *q, int src, int tag);

/* Walk the unexpected messages in arrival order: the first (after NULL)
 * or the one after `after`; NULL at the end.  For cancelling a send, rare. */
fm_match_entry *fm_match_unexpected_next(const fm_match_queue *q, const fm_match_entry *after);

/* Remove an unexpected message returned by fm_match_peek (Mprobe) or
 * fm_match_unexpected_next. */
void fm_match_remove_unexpected(fm_match_queue *q, fm_match_entry *msg);

/* Remove a posted receive.  Returns 1 if it was still queued (so a cancel
 * succeeds), 0 if it had already matched. */
int fm_match_cancel(fm_match_queue *q, fm_match_entry *recv);

/* Queue lengths, for tests, diagnostics and MPI_T: now, and the most
 * each queue has held since it was created. */
size_t fm_match_posted_count(const fm_match_queue *q);
size_t fm_match_unexpected_count(const fm_match_queue *q);
size_t fm_match_posted_hwm(const fm_match_queue *q);
size_t fm_match_unexpected_hwm(const fm_match_queue *q);

#endif
