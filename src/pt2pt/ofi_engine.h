/* ofi_engine.h — the provider-matching point-to-point engine
 * (FABMPI_PT2PT=ofi): sends, receives, probes and cancels map onto libfabric
 * tagged operations, the provider does the matching, and the 64-bit tag
 * carries (context, source, tag) per FABMPI_OFI_TAG_MODE (net/ofi/tag.h).
 *
 * The software engine (send.c, recv.c, probe.c) hands each call over with
 * one `if (fm_pt2pt_engine_ofi) return fm_ofi_...` line at its top.  This
 * header has no libfabric types, so the MPI layer can read the limits the
 * tag layout imposes whether or not libfabric is built in. */
#ifndef FM_PT2PT_OFI_ENGINE_H
#define FM_PT2PT_OFI_ENGINE_H

#include <mpi.h>

#include "core/request.h"

struct fm_message;

/* 1 once the provider-matching engine is in charge (set at init, the same
 * on every rank). */
extern int fm_pt2pt_engine_ofi;

/* Choose the engine after the transports are up (use_ofi: the OFI
 * transport was initialised and reaches every peer).  Collective: every
 * rank decides alike from the same knobs.  Logs why on failure. */
int fm_ofi_engine_init(int use_ofi);
void fm_ofi_engine_finalize(void);

/* Limits of the running engine: the largest tag (MPI_TAG_UB), and how many
 * communicator ids (each a pair of contexts) the tag's context field holds
 * (a large number under the software engine). */
extern int fm_pt2pt_tag_ub_value; /* read inline by every send/receive check */
static inline int fm_pt2pt_tag_ub(void) { return fm_pt2pt_tag_ub_value; }
int fm_pt2pt_comm_ids(void);
/* When communicator ids ran out because of the tag layout: one sentence
 * naming the mode and FABMPI_OFI_TAG_MODE; NULL under the software engine. */
const char *fm_pt2pt_comm_limit_why(void);

/* The engine's halves of the pt2pt.h calls (same contracts). */
int fm_ofi_isend(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                 MPI_Comm comm, int coll, int mode, struct fm_request **req);
int fm_ofi_irecv(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                 int coll, struct fm_request **req);
int fm_ofi_send_now(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                    MPI_Comm comm);
int fm_ofi_iprobe(int src, int tag, MPI_Comm comm, int *found, MPI_Status *status,
                  struct fm_message **msg);
int fm_ofi_imrecv(void *buf, MPI_Count count, MPI_Datatype dt, struct fm_message *msg,
                  struct fm_request **req);
int fm_ofi_cancel(struct fm_request *r);
/* Retry posts that met -FI_EAGAIN; returns how many went out. */
int fm_ofi_engine_progress(void);

#endif
