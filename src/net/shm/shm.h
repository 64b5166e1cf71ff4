/* shm.h — state shared by the files of the shared-memory transport.
 *
 * Each rank owns one segment holding its inbound rings, one per rank on the
 * node (indexed by the sender's local index), and as many again for each
 * lane (core/vci.h: ring lane * nlocal + sender):
 *
 *   [ fm_shm_seg_hdr | doorbells at 1 KiB | pad to 4 KiB ][ ring 0 ][ ring 1 ]
 *   ... each ring page-aligned, `ring_stride` bytes apart; one doorbell
 *   byte per local sender (doorbell.h)
 *
 * Only offsets and sizes are stored in the segment; every process maps it at
 * its own address. */
#ifndef FM_NET_SHM_SHM_H
#define FM_NET_SHM_SHM_H

#include <stddef.h>
#include <stdint.h>

#include "net/shm/doorbell.h"
#include "net/shm/ring.h"

#define FM_SHM_MAGIC 0x6d68736d626166ULL /* "fabmshm" */
#define FM_SHM_VERSION 2
#define FM_SHM_RINGS_OFF 4096
#define FM_SHM_BELLS_OFF 1024
#define FM_SHM_BELLS_MAX 3072 /* senders with a doorbell; more ranks: no doorbells */

typedef struct fm_shm_seg_hdr {
    uint64_t magic;
    uint32_t version;
    uint32_t nrings;      /* ranks on the node = local_size */
    uint64_t ring_size;   /* data bytes of each ring */
    uint64_t ring_stride; /* bytes from one ring to the next */
    uint64_t rings_off;   /* offset of ring 0 */
    int32_t owner_rank;   /* world rank of the owner */
    int32_t owner_pid;
    uint8_t pad[16];
} fm_shm_seg_hdr;

/* One rank on this node. */
typedef struct fm_shm_peer {
    int rank;            /* world rank */
    int pid;             /* for process_vm_readv */
    uint64_t probe_addr; /* address of a word in that process... */
    uint64_t probe_val;  /* ...and what it holds (CMA probe) */
    void *seg;           /* its segment, mapped here (NULL for ourselves) */
    size_t seg_size;
    fm_ring_tx tx;       /* our ring inside its segment */
    fm_ring_tx *lane_tx; /* [nlanes + 1]: our lane rings in it ([0] unused) */
    int mapped;          /* tx usable */
} fm_shm_peer;

/* One lane's inbound rings and where it sends (lanes >= 1; lane 0 is the
 * fields of fm_shm_state itself). */
typedef struct fm_shm_lane {
    fm_ring_tx **tx;    /* [size] */
    fm_ring_rx *rx;     /* [nrx] */
    int *rx_peer;
    int nrx;
    int polling;        /* its poll() is not re-entrant */
} fm_shm_lane;

typedef struct fm_shm_state {
    int rank, size;     /* world */
    int nlocal, me;     /* ranks on this node; our index among them */
    fm_shm_peer *local; /* [nlocal], in world-rank order */
    int *local_of;      /* [size]: world rank -> local index, or -1 */
    fm_ring_tx **tx;    /* [size]: where to send, NULL if unreachable */
    fm_ring_rx *rx;     /* [nrx] inbound rings that may carry data */
    int *rx_peer;       /* [nrx] their senders' world ranks */
    int nrx;
    void *own;          /* our segment */
    size_t own_size;
    char own_name[128];
    int own_linked; /* name still in /dev/shm */
    size_t max_msg;
    /* Doorbells (FABMPI_SHM_DOORBELL): rung after each send, scanned by
     * poll() instead of every ring. */
    int doorbells;
    _Atomic uint8_t *own_bells;  /* in our segment, [nlocal] */
    _Atomic uint8_t **bell_to;   /* [size]: our byte in that peer's segment */
    int *rx_of_local;            /* [nlocal]: rx index of that sender, or -1 */
    /* Lanes (FABMPI_VCIS - 1 when this node has a peer, else 0) and
     * their rings ([0] unused). */
    int nlanes;
    fm_shm_lane *lanes;
} fm_shm_state;

extern fm_shm_state fm_shm;

/* Create, exchange and map the segments (fences three times, on every
 * rank, whatever happens, so a failing rank never leaves others hanging in
 * a fence).  Fills fm_shm.  FM_OK or an error after logging why. */
int fm_shm_segments_setup(void);
/* Unmap everything, unlink what is still linked, free the tables. */
void fm_shm_segments_teardown(void);

/* Word whose address and value every rank publishes for the CMA probe. */
extern volatile uint64_t fm_shm_probe_word;

/* 1 if process_vm_readv works against every local peer; otherwise 0 with
 * *why describing the first failure. */
int fm_shm_cma_works(char *why, size_t whylen);
struct fm_pv;
int fm_shm_cma_pull(struct fm_pv *pv, int peer, void *local, uint64_t remote_addr, size_t len);
int fm_shm_cma_push(struct fm_pv *pv, int peer, uint64_t remote_addr, const void *local,
                    size_t len);

#endif
