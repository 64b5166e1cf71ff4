/* quirks.h — what each libfabric provider can be trusted with: the one
 * table of provider bugs and design limits fabmpi works around (libfabric
 * 1.17 as Debian 12 ships it), each with its reason and its reproducer.
 * Code asks for a quirk by flag; no other file compares provider names. */
#ifndef FM_NET_OFI_QUIRKS_H
#define FM_NET_OFI_QUIRKS_H

#include <stddef.h>

enum {
    /* Its tagged matching loses MPI semantics: FABMPI_PT2PT=auto keeps
     * fabmpi's own matching over it (=ofi forces it, with a warning). */
    FM_OFI_QUIRK_TAGGED_MATCH = 1u << 0,
    /* A connection stalls behind an unexpected tagged message until that
     * is received: the provider engine drains unexpected messages when idle. */
    FM_OFI_QUIRK_UNEXPECTED_STALLS = 1u << 1,
    /* An eager message meeting a receive too small for it kills the
     * connection: tagged receives get a spill buffer. */
    FM_OFI_QUIRK_TRUNCATION_KILLS = 1u << 2,
    /* A completed fi_write may not have landed, but a later fi_read is
     * ordered behind it: a flush after writes ends with a 1-byte read. */
    FM_OFI_QUIRK_WRITE_LANDS_LATE = 1u << 3,
    /* Its atomics cannot be used (even where fi_atomicvalid says yes):
     * windows do accumulates by active messages. */
    FM_OFI_QUIRK_ATOMICS = 1u << 4,
    /* It loses, reorders or corrupts plain messages: never used
     * (fm_ofi_choose leaves it out and says why when nothing else fits). */
    FM_OFI_QUIRK_UNRELIABLE = 1u << 5,
    /* A message above its own eager size may complete after later ones:
     * fabmpi's eager sends stay below fm_ofi_ordered_bytes(). */
    FM_OFI_QUIRK_ORDER_LIMITED = 1u << 6,
};

/* The quirks of a provider named as fi_info's fabric_attr->prov_name
 * ("shm", "tcp;ofi_rxm", ...): the union over its ';'-separated parts. */
unsigned fm_ofi_quirks(const char *prov_name);
/* Why prov_name has quirk (one sentence, naming the reproducer), or NULL
 * when it does not have it. */
const char *fm_ofi_quirk_why(const char *prov_name, unsigned quirk);
/* Largest message (bytes handed to fi_send) prov_name completes in the
 * order it was sent, whatever follows it; (size_t)-1 when any size is. */
size_t fm_ofi_ordered_bytes(const char *prov_name);

#endif
