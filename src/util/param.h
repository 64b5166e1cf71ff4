/* param.h — every FABMPI_* knob, declared once.
 *
 * Row: X(NAME, TYPE, DEFAULT, ACCEPTED, CATEGORY, VERBOSITY, SCOPE, SET, DOC)
 *   NAME      variable is FABMPI_<NAME>; field is fm_param.NAME; MPI_T
 *             control variable "FABMPI_<NAME>" (the same name)
 *   TYPE      INT (long, ACCEPTED "lo..hi"; MPI_INT), SIZE (size_t, suffixes
 *             k/m/g, ACCEPTED "lo..hi"; MPI_UNSIGNED_LONG), BOOL (0/1/yes/no/
 *             on/off/true/false; MPI_INT), ENUM (int index into ACCEPTED
 *             "a|b|c"; MPI_INT with an MPI_T_enum of those names),
 *             STR (const char *; MPI_CHAR)
 *   DEFAULT   written as a string, exactly as a user would set it
 *   CATEGORY  MPI_T category (util/category.h)
 *   VERBOSITY MPI_T_VERBOSITY_<this>: USER_ for what users set, TUNER_ for
 *             performance, MPIDEV_ for what the launcher sets
 *   SCOPE     MPI_T_SCOPE_<this>: CONSTANT (never written), LOCAL (a write
 *             affects this process only), ALL_EQ (every process must hold
 *             the same value: write it everywhere, between the same calls)
 *   SET       when MPI_T_cvar_write may change it: FIXED never; INIT before
 *             MPI_Init only (read once there); LIVE at any time, taking
 *             effect from the next call (src/mpi/mpit_cvar.c applies the
 *             eager limits to the copies pt2pt keeps)
 *
 * The table drives parsing (fm_param_load), fabmpi_info, docs/ENV.md and
 * the MPI_T control variables.  Nothing else in fabmpi calls getenv(). */
#ifndef FM_UTIL_PARAM_H
#define FM_UTIL_PARAM_H

#include <stddef.h>
#include <stdio.h>

#include "util/category.h"

#define FM_PARAMS(X)                                                                            \
    X(VERBOSE, INT, "0", "0..3", log, USER_BASIC, LOCAL, LIVE, "Log level on stderr: 0 errors only, 1 setup choices, 2 protocol, 3 trace") \
    X(VERBOSE_ENV, BOOL, "0", "bool", log, USER_DETAIL, LOCAL, INIT, "Print every knob's effective value and where it came from at MPI_Init (rank 0)") \
    X(NET, ENUM, "auto", "auto|shm|ofi", net, USER_BASIC, ALL_EQ, INIT, "Transport: auto = shm for ranks on this node, libfabric (OFI) for the rest; shm = shared memory only; ofi = libfabric for every other rank, node-local ones too") \
    X(OFI_PROVIDER_INCLUDE, STR, "", "comma list", ofi, USER_BASIC, ALL_EQ, INIT, "Libfabric providers fabmpi may use, e.g. net or tcp;ofi_rxm (empty: any); a name matches a whole provider or one ;-separated part") \
    X(OFI_PROVIDER_EXCLUDE, STR, "", "comma list", ofi, USER_BASIC, ALL_EQ, INIT, "Libfabric providers fabmpi must not use (same matching as OFI_PROVIDER_INCLUDE)") \
    X(OFI_DOMAIN, STR, "", "domain name", ofi, USER_DETAIL, LOCAL, INIT, "Libfabric domain (network interface) to use, e.g. lo or eth0; empty: lo when every rank is on this node, else the first other one") \
    X(OFI_PROGRESS_EVENT_CNT, INT, "100", "1..65536", ofi, TUNER_DETAIL, LOCAL, INIT, "Completions read per fi_cq_read; progress reads again while a read returns this many") \
    X(OFI_RMA, ENUM, "auto", "auto|am", rma, TUNER_BASIC, ALL_EQ, INIT, "One-sided windows over OFI: auto = fi_write/fi_read where the provider offers FI_RMA (accumulates: see FABMPI_RMA_ATOMICS), am = active messages for everything") \
    X(RMA_ATOMICS, ENUM, "auto", "auto|am", rma, TUNER_BASIC, ALL_EQ, INIT, "Accumulates on windows over OFI: auto = provider atomics (fi_fetch_atomic, fi_compare_atomic) for basic types whose every op the provider validates, when every rank of the window reaches every other over OFI (decided per window at creation; FABMPI_VERBOSE=1 says which), am = always active messages applied at the target") \
    X(RMA_HANDOFF, SIZE, "16k", "0..1m", rma, TUNER_DETAIL, LOCAL, INIT, "Accumulates (and compare-and-swaps) of at most this many bytes (of a predefined type; and at most the active-message layer's largest Medium) on Win_create and dynamic windows of this node are handed to the target to apply while it polls, instead of two CMA system calls; 0 = never") \
    X(RMA_HANDOFF_WAIT, INT, "20", "1..1000000", rma, TUNER_DETAIL, LOCAL, INIT, "Microseconds an origin waits for a target to pick up a handed-off operation before it takes it back and does it by CMA; it then uses CMA alone for that target for 4 such waits, twice as long after each further one in a row, at most 100 ms") \
    X(OFI_RMA_MR, ENUM, "basic", "basic|scalable", rma, TUNER_DETAIL, ALL_EQ, INIT, "Memory-registration modes windows ask the provider for: basic = FI_MR_VIRT_ADDR|FI_MR_PROV_KEY|FI_MR_ALLOCATED, scalable = none (offsets, keys chosen by fabmpi)") \
    X(OFI_MR_CACHE, ENUM, "auto", "auto|on|off", rma, TUNER_DETAIL, LOCAL, INIT, "Registration cache for the local buffers of one-sided transfers over OFI (fi_write, fi_read, atomics): auto = where the provider needs local registrations (FI_MR_LOCAL), on = for every transfer, off = never (such a provider then reaches peers by active messages)") \
    X(OFI_MR_CACHE_ENTRIES, INT, "256", "1..1048576", rma, TUNER_DETAIL, LOCAL, INIT, "Registrations the cache keeps before it closes the least recently used") \
    X(OFI_RNDV, ENUM, "read", "read|stream", ofi, TUNER_BASIC, ALL_EQ, INIT, "Rendezvous of the sw engine over OFI: read = the sender's RTS carries an RMA key and the receiver fi_reads the data, then sends FIN (falls back to stream when the provider has no FI_RMA, FABMPI_OFI_RMA=am, or registration fails); stream = the receiver answers CTS and the sender streams DATA chunks") \
    X(OFI_POSTED_MAX, INT, "0", "0..16777216", pt2pt, TUNER_DETAIL, LOCAL, INIT, "Receives the ofi engine keeps posted in the provider; later ones wait in a software list, in order, until slots free (0: seven eighths of the provider's rx_attr->size; the rest stays free for sync-send acks and probes)") \
    X(OFI_CONNECT, ENUM, "dynamic", "dynamic|static", ofi, TUNER_DETAIL, LOCAL, INIT, "Address-vector insertion: dynamic = on first send to a peer, static = every peer at init") \
    X(OFI_THREAD_GROUPING, BOOL, "0", "bool", ofi, USER_BASIC, ALL_EQ, INIT, "Give each communicator made by a blocking creation call (dup, split, create, merge; not idup) its own OFI transmit/receive context, so threads on different communicators do not share an endpoint: scalable-endpoint contexts where the provider has them, else an endpoint each; up to FABMPI_OFI_CONTEXTS, then shared, least used first. Software matching engine only (auto then keeps it; docs/THREADS.md)") \
    X(OFI_CONTEXTS, INT, "0", "0..32", ofi, TUNER_DETAIL, LOCAL, INIT, "Most OFI contexts a process opens under FABMPI_OFI_THREAD_GROUPING=1, context 0 included (0: the provider's scalable-endpoint limit, or 16 where it has none)") \
    X(OFI_BUF_SIZE, SIZE, "64k", "1k..16m", ofi, TUNER_DETAIL, ALL_EQ, INIT, "Bytes of each OFI bounce and receive buffer; the largest transport message (eager data and rendezvous chunks fit in it)") \
    X(OFI_TX_BUFS, INT, "64", "1..65536", ofi, TUNER_DETAIL, LOCAL, INIT, "OFI bounce buffers for sends larger than the provider's inject size; when all are in flight sends are parked") \
    X(OFI_RX_BUFS, INT, "64", "1..65536", ofi, TUNER_DETAIL, LOCAL, INIT, "OFI receive buffers kept posted") \
    X(PT2PT, ENUM, "auto", "auto|sw|ofi", pt2pt, TUNER_BASIC, ALL_EQ, INIT, "Point-to-point engine: sw = fabmpi matches messages; ofi = the libfabric provider matches them (fi_tsend/fi_trecv, needs NET=ofi); auto = ofi when NET=ofi and the provider has FI_TAGGED, except shm and net, whose libfabric 1.17 tagged matching breaks MPI semantics; else sw") \
    X(OFI_TAG_MODE, ENUM, "auto", "auto|1|2|full", pt2pt, TUNER_DETAIL, ALL_EQ, INIT, "OFI tag layout of the ofi engine: 1 = 12-bit communicator, 18-bit source, 32-bit tag; 2 = 24/18/20 bits; full = source in remote CQ data, 28-bit communicator, 32-bit tag; auto = full when the provider has CQ data and FI_DIRECTED_RECV, else 1") \
    X(EAGER_LIMIT, SIZE, "32k", "0..1m", pt2pt, TUNER_BASIC, LOCAL, LIVE, "Largest message sent eagerly through shared memory; larger ones use rendezvous. Unset: an eighth of FABMPI_SHM_RING_SIZE when that is more (64k up to 8 ranks per node, 128k on a node with up to 4 ranks and fewer usable CPUs)") \
    X(OFI_EAGER_LIMIT, SIZE, "8k", "0..1m", pt2pt, TUNER_BASIC, LOCAL, LIVE, "Largest message sent eagerly over OFI (software engine); larger ones use rendezvous. Kept below what the provider completes in order, with a warning when set above it (ofi_rxm: its eager buffer, FI_OFI_RXM_BUFFER_SIZE, 16 KiB with headers)") \
    X(SHM_RING_SIZE, SIZE, "256k", "16k..64m, power of two", shm, TUNER_DETAIL, ALL_EQ, INIT, "Bytes of each per-pair shared-memory ring. Unset: 512k up to 8 ranks per node (1m up to 4 on a node with more ranks than usable CPUs), 256k beyond") \
    X(SHM_PREFAULT, BOOL, "1", "bool", shm, TUNER_DETAIL, LOCAL, INIT, "Write to every page of this rank's shared-memory rings at MPI_Init, and of a communicator's one-sided collective caches when they are set up, so the first messages do not pay for mapping them; 0 saves init time (which grows with the ranks per node) when few pairs talk") \
    X(SHM_COPY, ENUM, "auto", "auto|cma|pipeline", shm, TUNER_BASIC, LOCAL, INIT, "Rendezvous copy: cma = process_vm_readv single copy, pipeline = chunks through the ring; auto tries CMA and falls back") \
    X(SHM_SPLIT_MIN, SIZE, "64k", "0..1g", shm, TUNER_DETAIL, LOCAL, LIVE, "Rendezvous messages this large (0 = never) are copied by both processes at once: the receiver pulls one half while the sender pushes the other. Unset on a node with more ranks than usable CPUs: 0, since both processes rarely run at once there") \
    X(SHM_DOORBELL, ENUM, "auto", "auto|on|off", shm, TUNER_DETAIL, ALL_EQ, INIT, "Doorbell bytes telling a receiver which rings have data (auto: on above 4 ranks per node)") \
    X(SHM_PIPELINE_CHUNK, SIZE, "32k", "1k..16m", shm, TUNER_DETAIL, LOCAL, LIVE, "Chunk size of the pipelined copy through shared memory") \
    X(AM_CREDITS_PP, INT, "32", "1..65536", am, TUNER_BASIC, ALL_EQ, INIT, "Active-message requests a rank may have in flight to each peer (sent, their credit not yet back); a request past it waits for a reply, or returns FAB_WOULD_BLOCK under FAB_FLAG_IMMEDIATE. Unset, a peer on this node gets one per KiB of the shared-memory ring to it when that is more (256 with 256 KiB rings; fab_am_max_credits(rank) says)") \
    X(AM_CREDITS_TOTAL, INT, "0", "0..16777216", am, TUNER_DETAIL, ALL_EQ, INIT, "Active-message requests a rank may have in flight to all peers together (0: min(256, network peers * AM_CREDITS_PP) plus the credits of the peers on this node, at least AM_CREDITS_PP)") \
    X(AM_CREDITS_SLACK, INT, "4", "0..65536", am, TUNER_DETAIL, ALL_EQ, INIT, "Credits a target may keep back when request handlers send no reply, before it returns them in a hidden reply (they also ride on its next message to the requester); lowered to AM_CREDITS_PP - 1 and to (total - 1) / ranks so no requester waits forever. 4 measured best for 8 B and 1 KiB request floods with 32 credits (bench/am_pingpong.c; 1 halves the 8 B rate gain, 16 loses the 1 KiB one). Unset, a peer on this node with more credits (AM_CREDITS_PP) gets a sixteenth of them") \
    X(AM_SEGMENT_SIZE, SIZE, "64m", "0..64g", am, USER_BASIC, ALL_EQ, INIT, "Bytes of each rank's segment (fab_segment), where active-message Long payloads land; reserved at MPI_Init without touching it, so untouched pages cost no memory") \
    X(AM_PACKED_LONG_LIMIT, SIZE, "0", "0..1g", am, TUNER_DETAIL, LOCAL, INIT, "Active-message Long payloads up to this size travel packed with the header and are copied into place on arrival; larger ones to a peer on this node are copied straight into its segment (mapped here) and only the header travels (the ibv conduit's PACKEDLONG_LIMIT). 0 measured best at every size from 512 B to 128 KiB (bench/am_long.c: 1.6x the rate at 512 B, 4.3x at 128 KiB, against packing everything)") \
    X(AM_RMA, ENUM, "auto", "auto|cma|am", am, TUNER_DETAIL, ALL_EQ, INIT, "How fab_rma_put/get reach a peer: auto = copies into and out of a peer's segment mapped here (same node), else fi_write/fi_read where the OFI provider has RMA, else active messages; cma = process_vm_writev/readv for peers on this node instead of the mapping; am = active messages always") \
    X(AM_BOUNCE_LIMIT, SIZE, "64k", "0..1g", am, TUNER_DETAIL, LOCAL, INIT, "Non-bulk fab_rma_put_nb/_nbi over the network up to this many bytes copy the source into a bounce buffer (kept for reuse) and return at once; larger ones return when the source has been sent (the ibv conduit's NONBULKPUT_BOUNCE_LIMIT). Copies within a node always finish before the call returns. 64k measured: windows of 64 KiB puts over net at 0.96x MPI_Put's rate, against 0.8x waiting for each (bench/am_rma.c)") \
    X(SPIN_COUNT, INT, "2000", "0..100000000", progress, TUNER_BASIC, LOCAL, LIVE, "Progress polls a blocking call makes before it starts yielding the CPU") \
    X(YIELD, ENUM, "auto", "auto|always|never", progress, TUNER_BASIC, LOCAL, INIT, "Yield in blocking waits: auto yields at once when ranks outnumber usable cores") \
    X(COLL_RMA, ENUM, "auto", "off|on|auto", coll, TUNER_BASIC, ALL_EQ, LIVE, "Barrier/Bcast/Reduce/Allreduce (and Reduce_scatter on 2 members) by one-sided writes into a per-communicator cache: on = whenever the message fits (over shared memory when all members are reached through it, else fi_write over OFI); auto = also only over shared memory, at sizes where measured faster, and if COLL_RMA_PRIORITY beats two-sided (10)") \
    X(COLL_RMA_PRIORITY, INT, "20", "-1000..1000", coll, TUNER_DETAIL, ALL_EQ, LIVE, "Priority of the one-sided collectives in COLL_RMA=auto; two-sided has 10, the higher wins, ties go to two-sided") \
    X(COLL_CACHE_PAGES, INT, "32", "0..65536", coll, TUNER_DETAIL, ALL_EQ, INIT, "4 KiB pages of each member's collective cache data area, allocated and touched when the cache is set up; larger bcasts (reduces: larger than half) go to the large area (COLL_CACHE_LARGE_PAGES) or two-sided") \
    X(COLL_CACHE_LARGE_PAGES, INT, "256", "0..65536", coll, TUNER_DETAIL, ALL_EQ, INIT, "4 KiB pages of each member's second cache area, on communicators within one node: calls larger than half the data area go there, up to its size (reduces: half; larger ones go in pieces of 64 KiB or a quarter of the largest area); its pages are taken only when such calls touch them") \
    X(COLL_FANOUT, INT, "2", "1..64", coll, TUNER_DETAIL, ALL_EQ, INIT, "Children per member in the one-sided broadcast tree") \
    X(COLL_VERBOSE, BOOL, "0", "bool", coll, USER_DETAIL, LOCAL, LIVE, "Print one line per Barrier/Bcast/Reduce/Allreduce (and 2-member Reduce_scatter) call (communicator rank 0 only) naming the algorithm used and why") \
    X(VCIS, INT, "1", "1..16", progress, USER_BASIC, ALL_EQ, INIT, "Virtual communication interfaces per process: VCI 0 carries collectives, one-sided and active-message traffic; every communicator's point-to-point traffic (MPI_COMM_WORLD's too) goes on one of the other n - 1, chosen by context id, each with its own shared-memory rings, OFI endpoint, queues and lock, so threads on different communicators do not share a lock at MPI_THREAD_MULTIPLE (docs/THREADS.md)") \
    X(PROGRESS_THREAD, ENUM, "off", "off|on", progress, USER_BASIC, LOCAL, INIT, "A thread that polls for incoming messages and completions while the application computes (passive-target RMA over active messages, rendezvous transfers, nonblocking collectives advance without MPI calls); on makes every MPI call take the library lock, as at MPI_THREAD_MULTIPLE") \
    X(PROGRESS_THREAD_RATE, INT, "2000", "1..1000000", progress, TUNER_DETAIL, LOCAL, INIT, "Most wake-ups per second of an idle progress thread: it sleeps 1/RATE s between polls once nothing has happened for PROGRESS_THREAD_IDLE") \
    X(PROGRESS_THREAD_IDLE, INT, "200000", "0..1000000000", progress, TUNER_DETAIL, LOCAL, INIT, "Nanoseconds the progress thread keeps polling without sleeping after its last event (0: sleep after the first empty poll)") \
    X(PROGRESS_THREAD_CPU, INT, "-1", "-1..4095", progress, TUNER_DETAIL, LOCAL, INIT, "CPU the progress thread is bound to (-1: not bound, it runs wherever the process may)") \
    X(EXIT_TIMEOUT, INT, "3", "1..3600", boot, USER_BASIC, CONSTANT, FIXED, "Seconds mpiexec waits for ranks to end after an abort or a failure before it kills them") \
    X(SSH, STR, "ssh -o BatchMode=yes", "command", boot, USER_DETAIL, CONSTANT, FIXED, "Remote shell mpiexec --launcher ssh runs as: CMD HOST fabmpi_hostd (words split on blanks)") \
    X(BOOT_ADDR, STR, "", "host:port", boot, MPIDEV_DETAIL, CONSTANT, FIXED, "Set by mpiexec: address of the bootstrap server") \
    X(BOOT_KEY, STR, "", "hex string", boot, MPIDEV_ALL, CONSTANT, FIXED, "Set by mpiexec: per-job secret that authenticates a rank to the bootstrap server") \
    X(RANK, INT, "-1", "-1..2147483647", boot, MPIDEV_BASIC, CONSTANT, FIXED, "Set by mpiexec: this process's rank in MPI_COMM_WORLD") \
    X(SIZE, INT, "-1", "-1..2147483647", boot, MPIDEV_BASIC, CONSTANT, FIXED, "Set by mpiexec: number of ranks in MPI_COMM_WORLD") \
    X(LOCAL_RANK, INT, "-1", "-1..2147483647", boot, MPIDEV_BASIC, CONSTANT, FIXED, "Set by mpiexec: rank among the processes on this node") \
    X(LOCAL_SIZE, INT, "-1", "-1..2147483647", boot, MPIDEV_BASIC, CONSTANT, FIXED, "Set by mpiexec: number of ranks on this node") \
    X(NODE_ID, INT, "-1", "-1..2147483647", boot, MPIDEV_BASIC, CONSTANT, FIXED, "Set by mpiexec: index of this rank's node in the job (nodes numbered in the order of their lowest rank)") \
    X(JOBID, STR, "", "string", boot, MPIDEV_DETAIL, CONSTANT, FIXED, "Set by mpiexec: job identifier used to name shared-memory segments")

enum fm_param_type { FM_PARAM_INT, FM_PARAM_SIZE, FM_PARAM_BOOL, FM_PARAM_ENUM, FM_PARAM_STR };

#define FM_PARAM_CTYPE_INT long
#define FM_PARAM_CTYPE_SIZE size_t
#define FM_PARAM_CTYPE_BOOL int
#define FM_PARAM_CTYPE_ENUM int
#define FM_PARAM_CTYPE_STR const char *
#define FM_PARAM_FIELD(name, type, ...) FM_PARAM_CTYPE_##type name;
struct fm_params { FM_PARAMS(FM_PARAM_FIELD) };
#undef FM_PARAM_FIELD

/* Effective values; valid after fm_param_load(). */
extern struct fm_params fm_param;
/* Knob writes through MPI_T so far: state derived from knobs (a collective
 * schedule kept for replay, coll/sched.c) is stale once this moves. */
extern unsigned long fm_param_writes;

/* Enum indices, e.g. FM_NET_AUTO, FM_SHM_COPY_CMA, FM_YIELD_ALWAYS. */
enum { FM_NET_AUTO, FM_NET_SHM, FM_NET_OFI };
enum { FM_OFI_CONNECT_DYNAMIC, FM_OFI_CONNECT_STATIC };
enum { FM_OFI_RMA_AUTO, FM_OFI_RMA_AM };
enum { FM_OFI_RMA_MR_BASIC, FM_OFI_RMA_MR_SCALABLE };
enum { FM_OFI_MR_CACHE_AUTO, FM_OFI_MR_CACHE_ON, FM_OFI_MR_CACHE_OFF };
enum { FM_RMA_ATOMICS_AUTO, FM_RMA_ATOMICS_AM };
enum { FM_OFI_RNDV_READ, FM_OFI_RNDV_STREAM };
enum { FM_PT2PT_AUTO, FM_PT2PT_SW, FM_PT2PT_OFI };
enum { FM_SHM_COPY_AUTO, FM_SHM_COPY_CMA, FM_SHM_COPY_PIPELINE };
enum { FM_SHM_DOORBELL_AUTO, FM_SHM_DOORBELL_ON, FM_SHM_DOORBELL_OFF };
enum { FM_YIELD_AUTO, FM_YIELD_ALWAYS, FM_YIELD_NEVER };
enum { FM_PROGRESS_THREAD_OFF, FM_PROGRESS_THREAD_ON };
enum { FM_AM_RMA_AUTO, FM_AM_RMA_CMA, FM_AM_RMA_AM };

enum fm_param_verbosity {
    FM_VERB_USER_BASIC, FM_VERB_USER_DETAIL, FM_VERB_USER_ALL,
    FM_VERB_TUNER_BASIC, FM_VERB_TUNER_DETAIL, FM_VERB_TUNER_ALL,
    FM_VERB_MPIDEV_BASIC, FM_VERB_MPIDEV_DETAIL, FM_VERB_MPIDEV_ALL
};
enum fm_param_scope { FM_SCOPE_CONSTANT, FM_SCOPE_LOCAL, FM_SCOPE_ALL_EQ };
enum fm_param_set { FM_SET_FIXED, FM_SET_INIT, FM_SET_LIVE };

/* One row of the table, as the accessors below hand it out. */
struct fm_param_desc {
    const char *name; /* without FABMPI_ */
    enum fm_param_type type;
    const char *def;
    const char *accepted;
    enum fm_category category;
    enum fm_param_verbosity verbosity;
    enum fm_param_scope scope;
    enum fm_param_set set;
    const char *doc;
    void *field; /* in fm_param */
    int origin;  /* FM_PARAM_FROM_* */
};
enum { FM_PARAM_FROM_DEFAULT, FM_PARAM_FROM_ENV, FM_PARAM_FROM_MPIT };

/* Parse every FABMPI_* variable.  On a bad value returns FM_ERR_PARAM and
 * writes "FABMPI_X=value: <why>; accepted: <what>" into err.  Idempotent:
 * once loaded, values (and what MPI_T wrote since) stay. */
int fm_param_load(char *err, size_t errlen);

/* Forget loaded values so the next fm_param_load() reads the environment
 * again (unit tests). */
void fm_param_reset(void);

/* 1 while the knob whose fm_param field is `field` holds its default (set
 * neither in the environment nor by MPI_T): a layer may then pick a value
 * that suits the machine better, as the shm transport does on a crowded
 * node. */
int fm_param_is_default(const void *field);

/* The rows, in table order; fm_param_desc(i) is NULL outside 0..count-1. */
int fm_param_count(void);
const struct fm_param_desc *fm_param_desc(int i);
/* An ENUM knob's names: how many, and the idx-th copied into buf (returns
 * its length, or -1 when idx is out of range). */
int fm_param_enum_count(const struct fm_param_desc *d);
int fm_param_enum_name(const struct fm_param_desc *d, int idx, char *buf, size_t len);
/* Store a new value of knob i, checked against ACCEPTED as a value from the
 * environment would be: v for INT, SIZE, BOOL (0/1) and ENUM (an index),
 * s for STR (copied).  FM_OK, or FM_ERR_ARG with the reason in err.  Says
 * nothing about whether it may change now (the caller's SET check) or who
 * must learn of it (src/mpi/mpit_cvar.c). */
int fm_param_set_number(int i, long long v, char *err, size_t errlen);
int fm_param_set_string(int i, const char *s, char *err, size_t errlen);
/* The current value as text (an ENUM's name). */
void fm_param_format(const struct fm_param_desc *d, char *buf, size_t len);
/* Names of the MPI_T-side columns, for fabmpi_info and docs/ENV.md. */
const char *fm_param_verbosity_name(enum fm_param_verbosity v);
const char *fm_param_scope_name(enum fm_param_scope s);
const char *fm_param_set_name(enum fm_param_set s);
const char *fm_category_name(enum fm_category c);

/* Print the table: name, default, current value, doc (fabmpi_info). */
void fm_param_print(FILE *out);
/* Write docs/ENV.md (markdown table) from the table. */
void fm_param_write_markdown(FILE *out);
/* Print effective values with origin (FABMPI_VERBOSE_ENV). */
void fm_param_print_effective(FILE *out);

/* Raw environment access for the launcher (forwarding -x VAR) and for what
 * another library reads from it (libfabric's FI_OFI_RXM_BUFFER_SIZE); the
 * only other door to the environment. */
const char *fm_env_raw(const char *name);

#endif
