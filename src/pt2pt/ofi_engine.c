/* ofi_engine.c — choosing the point-to-point engine (FABMPI_PT2PT), the
 * tag layout of the provider-matching one (FABMPI_OFI_TAG_MODE), and the
 * limits that layout puts on MPI_TAG_UB and on communicators.  Built with
 * or without libfabric: without it the software engine is the only one. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "core/world.h"
#include "net/ofi/quirks.h"
#include "pt2pt/ofi_engine.h"
#include "util/log.h"
#include "util/param.h"
#include "util/status.h"

#ifdef FM_HAVE_OFI
#include "pt2pt/ofi_engine_int.h"
#endif

static int in_charge; /* fm_pt2pt_ofi was chosen */

int fm_pt2pt_tag_ub_value = INT_MAX;
static int comm_ids = INT_MAX;
static char limit_why[256];

int fm_pt2pt_comm_ids(void) { return comm_ids; }
const char *fm_pt2pt_comm_limit_why(void) { return in_charge ? limit_why : NULL; }

#ifdef FM_HAVE_OFI

/* Nonblocking sends always get a request of their own under this engine
 * (the request-less fast path of MPI_Isend is the software engine's). */
static int no_isend_now(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                        MPI_Comm comm)
{
    (void)buf, (void)count, (void)dt, (void)dest, (void)tag, (void)comm;
    return FM_ERR_AGAIN;
}

static const fm_pt2pt_engine fm_pt2pt_ofi = {
    .name = "ofi",
    .isend = fm_ofi_isend,
    .irecv = fm_ofi_irecv,
    .send_now = fm_ofi_send_now,
    .isend_now = no_isend_now,
    .coll_send_now = fm_ofi_coll_send_now,
    .coll_recv_now = fm_ofi_coll_recv_now,
    .iprobe = fm_ofi_iprobe,
    .imrecv = fm_ofi_imrecv,
    .cancel = fm_ofi_cancel,
    .progress = fm_ofi_engine_progress,
};

static int refuse(const char *why)
{
    fm_error_msg("ofi engine: FABMPI_PT2PT=ofi cannot be used: %s; set FABMPI_PT2PT=sw (or auto)",
                 why);
    return FM_ERR_UNSUPPORTED;
}

/* Which layout, or an error: FABMPI_OFI_TAG_MODE=full on a provider that
 * cannot carry the source in CQ data is refused rather than degraded. */
static int choose_layout(const struct fi_info *i)
{
    uint64_t cqd = i->domain_attr->cq_data_size;
    int directed = (i->caps & FI_DIRECTED_RECV) != 0;
    int mode = fm_ofi_tag_resolve(fm_param.OFI_TAG_MODE, cqd, directed);
    char why[200];
    if (mode == FM_OFI_TAG_FULL && (cqd < 4 || !directed)) {
        snprintf(why, sizeof why, "FABMPI_OFI_TAG_MODE=full needs 4 bytes of remote CQ data and "
                 "FI_DIRECTED_RECV; provider %s has %zu bytes%s (use mode 1 or 2)",
                 i->fabric_attr->prov_name, (size_t)cqd, directed ? "" : " and no directed receive");
        return refuse(why);
    }
    if (fm_ofi_tag_layout_init(&fm_ofi_eng.lay, mode, i->ep_attr->mem_tag_format) != 0) {
        snprintf(why, sizeof why, "provider %s reserves %u high tag bits, leaving no room for the "
                 "communicator in tag mode %s", i->fabric_attr->prov_name,
                 fm_ofi_tag_reserved_bits(i->ep_attr->mem_tag_format), fm_ofi_tag_mode_name(mode));
        return refuse(why);
    }
    if (fm_world_size - 1 > fm_ofi_tag_max_rank(&fm_ofi_eng.lay)) {
        snprintf(why, sizeof why, "tag mode %s carries ranks up to %lld, this job has %d ranks "
                 "(use FABMPI_OFI_TAG_MODE=full)", fm_ofi_tag_mode_name(mode),
                 (long long)fm_ofi_tag_max_rank(&fm_ofi_eng.lay), fm_world_size);
        return refuse(why);
    }
    fm_ofi_eng.full = mode == FM_OFI_TAG_FULL;
    /* The sync flag goes in CQ data when there is room beside the source
     * rank, so receives need no ignore bit for it.  Besides saving a tag
     * bit's worth of matching work, this keeps named receives clear of a
     * libfabric 1.17 shm bug: unexpected messages are matched without the
     * receive's ignore mask (net/ofi/quirks.c). */
    fm_ofi_eng.sync_in_data = cqd >= (fm_ofi_eng.full ? 8u : 4u);
    fm_ofi_eng.use_data = fm_ofi_eng.full || fm_ofi_eng.sync_in_data;
    return FM_OK;
}

/* Providers whose tagged matching cannot carry MPI's semantics
 * (FM_OFI_QUIRK_TAGGED_MATCH in net/ofi/quirks.c, each with its reason and
 * reproducer): `auto` keeps the software engine on them; FABMPI_PT2PT=ofi
 * still uses them, with a warning (tests exercise what does work). */
static int auto_avoids(const char *prov)
{
    return (fm_ofi_quirks(prov) & FM_OFI_QUIRK_TAGGED_MATCH) != 0;
}

/* FABMPI_PT2PT=ofi forced on one of those: say what goes wrong, once. */
static void warn_forced(const char *prov)
{
    if (fm_world_rank == 0)
        fm_warn("ofi engine: FABMPI_PT2PT=ofi over provider %s: %s; set FABMPI_PT2PT=sw (or "
                "auto) to avoid it", prov, fm_ofi_quirk_why(prov, FM_OFI_QUIRK_TAGGED_MATCH));
}

int fm_ofi_engine_init(int use_ofi, const fm_pt2pt_engine **engine)
{
    in_charge = 0;
    fm_pt2pt_tag_ub_value = comm_ids = INT_MAX;
    int want = fm_param.PT2PT;
    int all_ofi = use_ofi && fm_param.NET == FM_NET_OFI;
    if (want == FM_PT2PT_SW || (want == FM_PT2PT_AUTO && !all_ofi))
        return FM_OK;
    if (!all_ofi)
        return refuse("the provider must reach every rank, node-local ones too "
                      "(set FABMPI_NET=ofi)");
    if (fm_param.OFI_THREAD_GROUPING) {
        /* Grouping routes the software engine's messages (net/ofi/groups.c). */
        if (want == FM_PT2PT_OFI)
            return refuse("FABMPI_OFI_THREAD_GROUPING=1 gives communicators contexts of the "
                          "software engine's transport (or set FABMPI_OFI_THREAD_GROUPING=0)");
        fm_log(1, "ofi engine: FABMPI_PT2PT=auto keeps software matching, whose messages "
                  "FABMPI_OFI_THREAD_GROUPING=1 routes per communicator");
        return FM_OK;
    }
    if (fm_nlanes) {
        /* Lanes carry the software engine's messages on endpoints of their
         * own (net/ofi/lanes.c). */
        if (want == FM_PT2PT_OFI)
            return refuse("FABMPI_VCIS > 1 gives lanes endpoints of the software engine's "
                          "transport (or set FABMPI_VCIS=1)");
        fm_log(1, "ofi engine: FABMPI_PT2PT=auto keeps software matching, whose messages "
                  "FABMPI_VCIS=%d spreads over lanes", fm_nlanes + 1);
        return FM_OK;
    }
    const struct fi_info *i = fm_ofi_provider();
    if (!(i->caps & FI_TAGGED)) {
        if (want == FM_PT2PT_AUTO)
            return FM_OK;
        return refuse("the provider has no FI_TAGGED");
    }
    if (want == FM_PT2PT_AUTO && auto_avoids(i->fabric_attr->prov_name)) {
        fm_log(1, "ofi engine: FABMPI_PT2PT=auto keeps software matching over provider %s "
                  "(its tagged matching loses MPI semantics: %s; FABMPI_PT2PT=ofi forces it)",
               i->fabric_attr->prov_name,
               fm_ofi_quirk_why(i->fabric_attr->prov_name, FM_OFI_QUIRK_TAGGED_MATCH));
        return FM_OK;
    }
    memset(&fm_ofi_eng, 0, sizeof fm_ofi_eng);
    if (auto_avoids(i->fabric_attr->prov_name))
        warn_forced(i->fabric_attr->prov_name);
    unsigned quirks = fm_ofi_quirks(i->fabric_attr->prov_name);
    fm_ofi_eng.drain_idle = (quirks & FM_OFI_QUIRK_UNEXPECTED_STALLS) != 0;
    if ((quirks & FM_OFI_QUIRK_TRUNCATION_KILLS) && i->rx_attr->iov_limit >= 2) {
        /* 256 KiB covers rxm's eager and segmented sizes (16 KiB and
         * 128 KiB by default); pages nobody touches cost nothing. */
        fm_ofi_eng.spill_len = 256 * 1024;
        fm_ofi_eng.spill = mmap(NULL, fm_ofi_eng.spill_len, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (fm_ofi_eng.spill == MAP_FAILED) {
            fm_ofi_eng.spill = NULL;
            fm_ofi_eng.spill_len = 0;
        }
    }
    int rc = choose_layout(i);
    if (rc != FM_OK)
        return rc;
    fm_ofi_eng.drain_tag = fm_ofi_tag_make(&fm_ofi_eng.lay, 0, 0, 0, FM_OFI_PROTO_DATA);
    fm_ofi_eng.drain_ignore = fm_ofi_tag_user_ignore(&fm_ofi_eng.lay);
    fm_ofi_eng.inject = i->tx_attr->inject_size;
    fm_ofi_eng.max_msg = i->ep_attr->max_msg_size ? i->ep_attr->max_msg_size : SIZE_MAX;
    /* Receives kept in the provider: its rx queue less an eighth, which
     * stays free for sync-send acks and probes. */
    size_t rx = i->rx_attr->size;
    fm_ofi_eng.posted_max = fm_param.OFI_POSTED_MAX ? (int)fm_param.OFI_POSTED_MAX
                            : rx == 0 || rx > INT_MAX ? INT_MAX
                                                      : (int)(rx - rx / 8 > 0 ? rx - rx / 8 : 1);
    /* Every peer's address up front: a directed receive (full mode) can
     * only name a source the address vector already holds. */
    for (int p = 0; p < fm_world_size; p++)
        if (fm_ofi_peer_addr(p) == FI_ADDR_NOTAVAIL && (rc = fm_ofi_connect(p)) != FM_OK)
            return rc;
    fm_ofi_set_tagged_handlers(fm_ofi_tagged_event, fm_ofi_tagged_error);
    const fm_ofi_tag_layout *l = &fm_ofi_eng.lay;
    fm_pt2pt_tag_ub_value = fm_ofi_tag_ub(l);
    uint64_t ids = fm_ofi_tag_contexts(l) / 2;
    comm_ids = ids > INT_MAX ? INT_MAX : (int)ids;
    const char *mode = fm_ofi_tag_mode_name(l->mode);
    snprintf(limit_why, sizeof limit_why,
             "OFI tag mode %s (provider %s) has a %u-bit communicator field: at most %d "
             "communicators; %s",
             mode, i->fabric_attr->prov_name, l->ctx_bits, comm_ids,
             l->mode == FM_OFI_TAG_1   ? "set FABMPI_OFI_TAG_MODE=2 or full for more"
             : l->mode == FM_OFI_TAG_2 ? "set FABMPI_OFI_TAG_MODE=full for more"
                                       : "free some with MPI_Comm_free (FABMPI_OFI_TAG_MODE=full)");
    in_charge = 1;
    *engine = &fm_pt2pt_ofi;
    fm_log(1, "ofi engine: provider matching over %s, tag mode %s%s: MPI_TAG_UB %d, %d "
              "communicators, context field %u bits (%u reserved by the provider), inject %zu, "
              "%d receives posted in the provider (more wait in order in software)",
           i->fabric_attr->prov_name, mode, fm_param.OFI_TAG_MODE == FM_OFI_TAG_AUTO ? " (auto)" : "",
           fm_pt2pt_tag_ub_value, comm_ids, l->ctx_bits, l->reserved, fm_ofi_eng.inject,
           fm_ofi_eng.posted_max);
    return FM_OK;
}

void fm_ofi_engine_finalize(void)
{
    if (!in_charge)
        return;
    /* Parked acks are owed to senders still waiting in Ssend. */
    for (int n = 0; n < 100000 && fm_ofi_eng.parked[FM_OFI_Q_SEND]; n++) {
        fm_ofi_engine_progress();
        fm_ofi_poll(NULL);
    }
    in_charge = 0;
    fm_pt2pt_tag_ub_value = comm_ids = INT_MAX;
    if (fm_ofi_eng.spill)
        munmap(fm_ofi_eng.spill, fm_ofi_eng.spill_len);
    fm_ofi_eng.spill = NULL;
}

#else /* no libfabric: the software engine always */

int fm_ofi_engine_init(int use_ofi, const fm_pt2pt_engine **engine)
{
    (void)use_ofi, (void)engine;
    if (fm_param.PT2PT == FM_PT2PT_OFI) {
        fm_error_msg("ofi engine: FABMPI_PT2PT=ofi needs libfabric, which this fabmpi was built "
                     "without; install libfabric-dev and rebuild, or set FABMPI_PT2PT=sw");
        return FM_ERR_UNSUPPORTED;
    }
    return FM_OK;
}
void fm_ofi_engine_finalize(void) {}

#endif
