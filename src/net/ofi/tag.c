/* tag.c — encoding (context, source, tag, protocol) into the 64-bit OFI tag
 * per FABMPI_OFI_TAG_MODE; the layouts are drawn in tag.h. */
#include <inttypes.h>

#include "net/ofi/tag.h"

static uint64_t ones(unsigned n) { return n >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1; }

int fm_ofi_tag_resolve(int mode, uint64_t cq_data_size, int directed_recv)
{
    if (mode != FM_OFI_TAG_AUTO)
        return mode;
    /* The source rank is 4 bytes of CQ data; a directed receive is how a
     * receive names its source once the tag no longer carries it. */
    return cq_data_size >= 4 && directed_recv ? FM_OFI_TAG_FULL : FM_OFI_TAG_1;
}

unsigned fm_ofi_tag_reserved_bits(uint64_t mem_tag_format)
{
    return mem_tag_format ? (unsigned)__builtin_clzll(mem_tag_format) : 0;
}

int fm_ofi_tag_layout_init(fm_ofi_tag_layout *l, int mode, uint64_t mem_tag_format)
{
    static const unsigned bits[3][3] = {
        {FM_OFI_TAG_BITS_1}, {FM_OFI_TAG_BITS_2}, {FM_OFI_TAG_BITS_FULL}};
    int row = mode == FM_OFI_TAG_1 ? 0 : mode == FM_OFI_TAG_2 ? 1 : mode == FM_OFI_TAG_FULL ? 2 : -1;
    if (row < 0)
        return -1;
    fm_ofi_tag_layout t = {.mode = mode};
    t.reserved = fm_ofi_tag_reserved_bits(mem_tag_format);
    unsigned ctx_nominal = bits[row][0];
    t.src_bits = bits[row][1];
    t.tag_bits = bits[row][2];
    /* Everything below the context keeps its place (full mode leaves two
     * zero bits between protocol and tag), so the context starts at the
     * same bit whatever the provider reserves. */
    unsigned below = 64 - ctx_nominal;
    if (t.reserved + 2 > ctx_nominal)
        return -1;
    t.ctx_bits = ctx_nominal - t.reserved;
    t.ctx_shift = below;
    t.proto_shift = mode == FM_OFI_TAG_FULL ? 34 : t.tag_bits + t.src_bits;
    t.src_shift = t.tag_bits;
    t.ctx_mask = ones(t.ctx_bits) << t.ctx_shift;
    t.proto_mask = ones(FM_OFI_PROTO_BITS) << t.proto_shift;
    t.src_mask = ones(t.src_bits) << t.src_shift;
    t.tag_mask = ones(t.tag_bits);
    *l = t;
    return 0;
}

/* A tag wider than the field (collective-internal tags in mode 2) is
 * folded: sender and receiver fold alike, so an exact tag still matches;
 * user tags never fold because MPI_TAG_UB is the field's limit. */
static uint64_t tag_field(const fm_ofi_tag_layout *l, int tag)
{
    uint64_t t = (uint32_t)tag;
    if (l->tag_bits < 32)
        t ^= t >> l->tag_bits;
    return t & l->tag_mask;
}

uint64_t fm_ofi_tag_make(const fm_ofi_tag_layout *l, uint32_t ctx, int src, int tag, int proto)
{
    uint64_t t = ((uint64_t)ctx << l->ctx_shift) & l->ctx_mask;
    t |= ((uint64_t)(unsigned)proto << l->proto_shift) & l->proto_mask;
    if (l->src_bits)
        t |= ((uint64_t)(uint32_t)src << l->src_shift) & l->src_mask;
    return t | tag_field(l, tag);
}

uint64_t fm_ofi_tag_ignore(const fm_ofi_tag_layout *l, int any_src, int any_tag)
{
    uint64_t ig = (uint64_t)FM_OFI_PROTO_SYNC << l->proto_shift;
    if (any_src)
        ig |= l->src_mask;
    if (any_tag)
        ig |= l->tag_mask;
    return ig;
}

uint64_t fm_ofi_tag_user_ignore(const fm_ofi_tag_layout *l)
{
    return ~(((uint64_t)1 << l->ctx_shift) | ((uint64_t)FM_OFI_PROTO_ACK << l->proto_shift));
}

uint32_t fm_ofi_tag_ctx(const fm_ofi_tag_layout *l, uint64_t t)
{
    return (uint32_t)((t & l->ctx_mask) >> l->ctx_shift);
}

int fm_ofi_tag_src(const fm_ofi_tag_layout *l, uint64_t t)
{
    return (int)((t & l->src_mask) >> l->src_shift);
}

int fm_ofi_tag_tag(const fm_ofi_tag_layout *l, uint64_t t) { return (int)(uint32_t)(t & l->tag_mask); }

int fm_ofi_tag_proto(const fm_ofi_tag_layout *l, uint64_t t)
{
    return (int)((t & l->proto_mask) >> l->proto_shift);
}

int fm_ofi_tag_ub(const fm_ofi_tag_layout *l)
{
    /* MPI tags are non-negative ints: 31 bits at most. */
    return l->tag_bits >= 31 ? INT32_MAX : (int)ones(l->tag_bits);
}

uint64_t fm_ofi_tag_contexts(const fm_ofi_tag_layout *l) { return (uint64_t)1 << l->ctx_bits; }

int64_t fm_ofi_tag_max_rank(const fm_ofi_tag_layout *l)
{
    return l->src_bits ? (int64_t)ones(l->src_bits) : INT32_MAX;
}

const char *fm_ofi_tag_mode_name(int mode)
{
    switch (mode) {
    case FM_OFI_TAG_1: return "1";
    case FM_OFI_TAG_2: return "2";
    case FM_OFI_TAG_FULL: return "full";
    default: return "auto";
    }
}

void fm_ofi_tag_print_limits(FILE *out, uint64_t mem_tag_format, uint64_t cq_data_size,
                             int directed_recv, uint64_t max_comm_ids)
{
    int pick = fm_ofi_tag_resolve(FM_OFI_TAG_AUTO, cq_data_size, directed_recv);
    for (int m = FM_OFI_TAG_1; m <= FM_OFI_TAG_FULL; m++) {
        fm_ofi_tag_layout l;
        if (fm_ofi_tag_layout_init(&l, m, mem_tag_format) != 0) {
            fprintf(out, "    tag mode %-4s unusable: the provider reserves %u high tag bits\n",
                     fm_ofi_tag_mode_name(m), fm_ofi_tag_reserved_bits(mem_tag_format));
            continue;
        }
        uint64_t comms = fm_ofi_tag_contexts(&l) / 2; /* two contexts each */
        if (comms > max_comm_ids)
            comms = max_comm_ids;
        int usable = m != FM_OFI_TAG_FULL || pick == FM_OFI_TAG_FULL;
        fprintf(out, "    tag mode %-4s MPI_TAG_UB %d, communicators %" PRIu64
                     " (context field %u bits%s), ranks up to %" PRId64 "%s%s\n",
                fm_ofi_tag_mode_name(m), fm_ofi_tag_ub(&l), comms, l.ctx_bits,
                l.reserved ? ", reduced by mem_tag_format" : "", fm_ofi_tag_max_rank(&l),
                m == pick ? "  <- auto" : "",
                usable ? "" : "  (needs CQ data and FI_DIRECTED_RECV)");
    }
}
