/* ofi_engine.h — the provider-matching point-to-point engine
 * (FABMPI_PT2PT=ofi): sends, receives, probes and cancels map onto libfabric
 * tagged operations, the provider does the matching, and the 64-bit tag
 * carries (context, source, tag) per FABMPI_OFI_TAG_MODE (net/ofi/tag.h).
 *
 * Its calls sit behind the engine table of pt2pt.h (fm_pt2pt_ofi, defined
 * only when libfabric is built in); the limits its tag layout puts on
 * MPI_TAG_UB and on communicators are pt2pt.h's fm_pt2pt_tag_ub() and
 * friends.  This header has no libfabric types. */
#ifndef FM_PT2PT_OFI_ENGINE_H
#define FM_PT2PT_OFI_ENGINE_H

#include "pt2pt/pt2pt.h"

/* Choose the engine after the transports are up (use_ofi: the OFI
 * transport was initialised and reaches every peer): *engine becomes
 * fm_pt2pt_ofi when provider matching is asked for (or `auto` picks it),
 * else stays.  Collective: every rank decides alike from the same knobs.
 * Logs why on failure. */
int fm_ofi_engine_init(int use_ofi, const fm_pt2pt_engine **engine);
void fm_ofi_engine_finalize(void);

#endif
