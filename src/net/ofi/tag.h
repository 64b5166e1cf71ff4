/* tag.h — the 64-bit libfabric tag of the provider-matching engine.
 *
 * MPI matches on (communicator context, source rank, tag): 96 bits, but a
 * libfabric tag has 64.  FABMPI_OFI_TAG_MODE picks how they are squeezed:
 *
 *  mode 1   (12-bit context, 18-bit source, 32-bit tag)
 *   63          52 51 50 49              32 31                             0
 *  +--------------+-----+------------------+--------------------------------+
 *  |  context 12  |proto|    source 18     |             tag 32             |
 *  +--------------+-----+------------------+--------------------------------+
 *
 *  mode 2   (24-bit context, 18-bit source, 20-bit tag)
 *   63                      40 39 38 37              20 19                 0
 *  +--------------------------+-----+------------------+--------------------+
 *  |        context 24        |proto|    source 18     |       tag 20       |
 *  +--------------------------+-----+------------------+--------------------+
 *
 *  mode full  (source rank in remote CQ data; needs FI_DIRECTED_RECV)
 *   63                          36 35 34 33 32 31                          0
 *  +------------------------------+-----+-----+-----------------------------+
 *  |          context 28          |proto|  0  |           tag 32            |
 *  +------------------------------+-----+-----+-----------------------------+
 *
 * proto: the two bits of the synchronous-send protocol (FM_OFI_PROTO_*):
 * SYNC marks a synchronous send (receives ignore it, so they take both
 * kinds), ACK marks the receiver's answer (receives require it clear, so
 * an ack never lands in a user receive).  Where the provider carries 8
 * bytes of CQ data the engine moves the sync flag there and leaves the
 * SYNC bit clear (src/pt2pt/ofi_engine.c says why).
 * The context sits at the top in every mode, so when the provider reserves
 * high bits (mem_tag_format has leading zero bits) only the context field
 * shrinks.  A wildcard receive sets the field's bits in the ignore mask.
 *
 * No libfabric types here: the encoder is plain arithmetic and its unit
 * test needs no provider. */
#ifndef FM_NET_OFI_TAG_H
#define FM_NET_OFI_TAG_H

#include <stdint.h>
#include <stdio.h>

/* FABMPI_OFI_TAG_MODE values (the order of the knob's ACCEPTED list). */
enum { FM_OFI_TAG_AUTO = 0, FM_OFI_TAG_1 = 1, FM_OFI_TAG_2 = 2, FM_OFI_TAG_FULL = 3 };

/* The two protocol bits, as a value of the proto field. */
enum {
    FM_OFI_PROTO_DATA = 0, /* ordinary message */
    FM_OFI_PROTO_SYNC = 1, /* synchronous send: the receiver acks on completion */
    FM_OFI_PROTO_ACK = 2,  /* the ack: same context and tag, source = the acking rank */
};

#define FM_OFI_TAG_BITS_1 12, 18, 32  /* context, source, tag */
#define FM_OFI_TAG_BITS_2 24, 18, 20
#define FM_OFI_TAG_BITS_FULL 28, 0, 32
#define FM_OFI_PROTO_BITS 2

typedef struct fm_ofi_tag_layout {
    int mode;              /* FM_OFI_TAG_1, _2 or _FULL (never AUTO) */
    unsigned ctx_bits;     /* after mem_tag_format reduction */
    unsigned src_bits;     /* 0 in full mode: the source travels in CQ data */
    unsigned tag_bits;
    unsigned ctx_shift, proto_shift, src_shift; /* the tag field is at bit 0 */
    unsigned reserved;     /* high bits the provider keeps for itself */
    uint64_t ctx_mask, proto_mask, src_mask, tag_mask; /* in place */
} fm_ofi_tag_layout;

/* The mode `auto` resolves to: full when the provider carries remote CQ
 * data of at least 4 bytes and directed receives, else 1.  Other modes are
 * returned as they are. */
int fm_ofi_tag_resolve(int mode, uint64_t cq_data_size, int directed_recv);

/* High bits the provider reserves: leading zero bits of mem_tag_format
 * (0 when the format is 0, i.e. the provider says nothing). */
unsigned fm_ofi_tag_reserved_bits(uint64_t mem_tag_format);

/* Fill l for a resolved mode.  Returns 0, or -1 when the reserved bits
 * leave fewer than 2 context bits (not even WORLD's two contexts fit). */
int fm_ofi_tag_layout_init(fm_ofi_tag_layout *l, int mode, uint64_t mem_tag_format);

/* Encode a send tag.  ctx, src and tag must fit (see the limits below);
 * tags beyond the field (library-internal collective tags in mode 2) are
 * folded, deterministically on both sides. */
uint64_t fm_ofi_tag_make(const fm_ofi_tag_layout *l, uint32_t ctx, int src, int tag, int proto);

/* Ignore mask of a receive: any_src ignores the source field, any_tag the
 * tag field.  The SYNC bit is always ignored (a receive takes ordinary and
 * synchronous messages alike); the ACK bit never is. */
uint64_t fm_ofi_tag_ignore(const fm_ofi_tag_layout *l, int any_src, int any_tag);

/* Ignore mask that, with tag 0, matches every point-to-point user message
 * and nothing else: all bits ignored but the lowest context bit (user
 * contexts are even, a communicator's collective context is the odd one
 * above) and the ACK bit.  The engine drains unexpected messages with it
 * while user receives wait in software. */
uint64_t fm_ofi_tag_user_ignore(const fm_ofi_tag_layout *l);

/* Fields of a received tag. */
uint32_t fm_ofi_tag_ctx(const fm_ofi_tag_layout *l, uint64_t t);
int fm_ofi_tag_src(const fm_ofi_tag_layout *l, uint64_t t);
int fm_ofi_tag_tag(const fm_ofi_tag_layout *l, uint64_t t);
int fm_ofi_tag_proto(const fm_ofi_tag_layout *l, uint64_t t);

/* Limits: largest MPI tag (MPI_TAG_UB), number of context values (each
 * communicator takes two), largest source rank. */
int fm_ofi_tag_ub(const fm_ofi_tag_layout *l);
uint64_t fm_ofi_tag_contexts(const fm_ofi_tag_layout *l);
int64_t fm_ofi_tag_max_rank(const fm_ofi_tag_layout *l);

/* Name of a mode for messages ("1", "2", "full", "auto"). */
const char *fm_ofi_tag_mode_name(int mode);

/* fabmpi_info: the limits of every mode for a provider with these
 * attributes, marking the one `auto` picks. */
void fm_ofi_tag_print_limits(FILE *out, uint64_t mem_tag_format, uint64_t cq_data_size,
                             int directed_recv, uint64_t max_comm_ids);

#endif
