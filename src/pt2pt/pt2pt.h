/* pt2pt.h — internal point-to-point: eager, rendezvous (pull + FIN or
 * pipelined CTS/DATA), synchronous sends, probe, cancel.  Used by the
 * MPI_* entry points and by the collectives (with coll = 1, which matches on
 * the communicator's collective context so user traffic never interferes).
 * Arguments are assumed valid: checking is the API layer's job. */
#ifndef FM_PT2PT_PT2PT_H
#define FM_PT2PT_PT2PT_H

#include <mpi.h>

#include "core/progress.h"
#include "core/request.h"

enum { FM_SEND_STD = 0, FM_SEND_SYNC = 1, FM_SEND_READY = 2 };

/* Start a send / receive; *req is the new request.  dest/src are comm
 * ranks; MPI_PROC_NULL gives a request that is already complete. */
int fm_isend(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
             int coll, int mode, struct fm_request **req);
int fm_irecv(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
             int coll, struct fm_request **req);

/* Blocking standard send, fast path: a contiguous message that fits one
 * eager record goes straight to the transport with no request.  Returns
 * FM_OK when sent, FM_ERR_AGAIN when the caller must take the general path
 * (too large, non-contiguous, or the peer's queue is busy). */
int fm_send_eager_now(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                      MPI_Comm comm);

/* Block until r completes (progressing, then yielding), copy its status,
 * and free it.  Returns the request's error (FM_OK or FM_ERR_TRUNCATE ...). */
int fm_wait(struct fm_request *r, MPI_Status *status);
int fm_waitall(int n, struct fm_request **reqs);

/* Blocking helpers for collectives (coll = 1 always). */
int fm_coll_send(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm);
int fm_coll_recv(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag, MPI_Comm comm);
int fm_coll_sendrecv(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, int dest,
                     void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int src, int tag,
                     MPI_Comm comm);

/* Probe: *found = 1 and status filled when a matching message waits. */
int fm_iprobe(int src, int tag, MPI_Comm comm, int *found, MPI_Status *status,
              struct fm_message **msg /* NULL: leave it queued */);
int fm_imrecv(void *buf, MPI_Count count, MPI_Datatype dt, struct fm_message *msg,
              struct fm_request **req);
/* Cancel a posted receive (sends cannot be cancelled: returns FM_OK, no effect). */
int fm_cancel(struct fm_request *r);

/* Bring up / tear down transports (called from MPI_Init / MPI_Finalize). */
int fm_pt2pt_init(int world_rank, int world_size);
void fm_pt2pt_finalize(void);

#endif
