/* request.h — the request object shared by point-to-point and collectives. */
#ifndef FM_CORE_REQUEST_H
#define FM_CORE_REQUEST_H

#include <mpi.h>
#include <stdint.h>

#include "match/match.h"

#define FM_MAGIC_REQ 0x52455155u

enum fm_req_kind {
    FM_REQ_SEND = 1,
    FM_REQ_RECV,
    FM_REQ_DONE,      /* complete from the start (PROC_NULL, Comm_idup, ...) */
    FM_REQ_COLL,      /* nonblocking or persistent collective: runs `sched` (coll/sched.h) */
    FM_REQ_SENDRECV,  /* MPI_Isendrecv(_replace): a point-to-point `sched` */
    FM_REQ_GREQ,      /* generalized request: the program's callbacks in `greq`
                       * (mpi/grequest.c, which also releases it) */
};

enum {
    FM_REQF_SYNC = 1,       /* synchronous send: complete only once matched */
    FM_REQF_FREED = 2,      /* MPI_Request_free called: release on completion */
    FM_REQF_CANCEL_ASKED = 4, /* send: MPI_Cancel asked the receiver to drop it */
    FM_REQF_PERSISTENT = 8,
    FM_REQF_ACTIVE = 16,    /* persistent request started and not yet waited */
    FM_REQF_ANY_SOURCE = 32,
    FM_REQF_INTERNAL = 64,  /* created by the library (collectives); never seen by users */
    FM_REQF_PACK = 128,     /* send: sbuf/count/dt is non-contiguous; DATA chunks are packed */
    FM_REQF_PULLED = 256,   /* send: counted in fm_rndv_out[peer] until FIN or cancel */
};

struct fm_sched;
struct fm_greq;

struct fm_request {
    fm_match_entry me;       /* posted receive: linked in the comm's queue */
    uint32_t magic;
    uint8_t kind;
    uint8_t vci;             /* index of the VCI whose pool and traffic it belongs to (core/vci.h) */
    uint16_t flags;
    volatile int done;       /* 1 once complete; status valid */
    int acked;               /* sync send: ACK received */
    int sent;                /* send: data left the buffer (eager sent / FIN) */
    uint32_t ctx;            /* context the request matches on */
    MPI_Status status;
    MPI_Comm comm;
    fm_match_queue *mq;
    const void *sbuf;        /* send buffer */
    void *rbuf;              /* receive buffer */
    MPI_Count count;
    MPI_Datatype dt;
    int peer;                /* comm rank (dest or source; may be ANY_SOURCE) */
    int tag;
    void *tmp;               /* packed copy of non-contiguous data, owned */
    uint64_t bytes;          /* message length in bytes */
    uint64_t offset;         /* pipelined rendezvous: bytes moved so far */
    uint64_t limit;          /* pipelined rendezvous: bytes to move (receiver's capacity) */
    uint64_t msg_bytes;      /* receive: length of the matched message (truncation report) */
    uint64_t peer_req;       /* the other side's request cookie */
    struct fm_request *next; /* free list / pending list */
    /* Persistent requests: the user's handle (`parent`) stays; each Start
     * creates an ordinary request (`inner`) whose completion is copied up. */
    struct fm_request *parent;
    struct fm_request *inner;
    union {
        const void *user_buf;    /* persistent send: the user's buffer as given */
        struct fm_sched *sched;  /* collective (FM_REQ_COLL): its schedule */
        struct fm_greq *greq;    /* generalized request (FM_REQ_GREQ) */
    };
    int peer_world;          /* world rank of the matched peer */
    union {
        int mode;            /* persistent send: FM_SEND_* */
        int coll_status;     /* collective: the FM_* status behind status.MPI_ERROR */
    };
};

/* fm_req_alloc zeroes a whole request per message.  Up to 256 bytes gcc
 * does that with vector stores; above, with `rep stos`, whose start-up
 * alone costs tens of cycles.  Keep new fields in the holes. */
_Static_assert(sizeof(struct fm_request) <= 256, "struct fm_request outgrew 256 bytes");

/* The request every MPI_Isend/MPI_Irsend that completed on the spot
 * returns (its data went into the transport at once): shared, immutable,
 * always done with an empty status, never freed.  Saves the allocation,
 * the communicator reference and the release of a request per small send. */
extern struct fm_request fm_req_sent;

/* Allocate a zeroed request of `kind` (from a free list; no malloc in the
 * steady state).  Returns NULL when memory is exhausted.  fm_req_alloc
 * takes it from fm_vci0's pool, fm_req_alloc_on from v's (a lane's
 * point-to-point traffic: core/vci.h). */
struct fm_vci;
struct fm_request *fm_req_alloc(int kind);
struct fm_request *fm_req_alloc_on(struct fm_vci *v, int kind);
/* Return a request to its VCI's free list; releases tmp and datatype reference. */
void fm_req_free(struct fm_request *r);
/* Mark complete; a freed (MPI_Request_free) request is released here.  An
 * inner request of a persistent one hands its status to the parent and is
 * released. */
void fm_req_complete(struct fm_request *r);
/* Attach a freshly started inner request to persistent request p (which
 * becomes active), or copy its result at once if it already completed. */
void fm_req_adopt(struct fm_request *p, struct fm_request *inner);

#endif
