/* param.h — every FABMPI_* knob, declared once.
 *
 * Row: X(NAME, TYPE, DEFAULT, ACCEPTED, DOC)
 *   NAME      variable is FABMPI_<NAME>; field is fm_param.NAME
 *   TYPE      INT (long, ACCEPTED "lo..hi"), SIZE (size_t, suffixes k/m/g,
 *             ACCEPTED "lo..hi"), BOOL (0/1/yes/no/on/off/true/false),
 *             ENUM (int index into ACCEPTED "a|b|c"), STR (const char *)
 *   DEFAULT   written as a string, exactly as a user would set it
 *
 * The table drives parsing (fm_param_load), fabmpi_info and docs/ENV.md.
 * Nothing else in fabmpi calls getenv(). */
#ifndef FM_UTIL_PARAM_H
#define FM_UTIL_PARAM_H

#include <stddef.h>
#include <stdio.h>

#define FM_PARAMS(X)                                                                            \
    X(VERBOSE, INT, "0", "0..3", "Log level on stderr: 0 errors only, 1 setup choices, 2 protocol, 3 trace") \
    X(VERBOSE_ENV, BOOL, "0", "bool", "Print every knob's effective value and where it came from at MPI_Init (rank 0)") \
    X(NET, ENUM, "auto", "auto|shm|ofi", "Transport: auto = shm for ranks on this node, libfabric (OFI) for the rest; shm = shared memory only; ofi = libfabric for every other rank, node-local ones too") \
    X(OFI_PROVIDER_INCLUDE, STR, "", "comma list", "Libfabric providers fabmpi may use, e.g. net or tcp;ofi_rxm (empty: any); a name matches a whole provider or one ;-separated part") \
    X(OFI_PROVIDER_EXCLUDE, STR, "", "comma list", "Libfabric providers fabmpi must not use (same matching as OFI_PROVIDER_INCLUDE)") \
    X(OFI_DOMAIN, STR, "", "domain name", "Libfabric domain (network interface) to use, e.g. lo or eth0; empty: lo when every rank is on this node, else the first other one") \
    X(OFI_PROGRESS_EVENT_CNT, INT, "100", "1..65536", "Completions read per fi_cq_read; progress repeats reads until the queue is drained") \
    X(OFI_RMA, ENUM, "auto", "auto|am", "One-sided windows over OFI: auto = fi_write/fi_read where the provider offers FI_RMA (accumulates: see FABMPI_RMA_ATOMICS), am = active messages for everything") \
    X(RMA_ATOMICS, ENUM, "auto", "auto|am", "Accumulates on windows over OFI: auto = provider atomics (fi_fetch_atomic, fi_compare_atomic) for basic types whose every op the provider validates, when every rank of the window reaches every other over OFI (decided per window at creation; FABMPI_VERBOSE=1 says which), am = always active messages applied at the target") \
    X(OFI_RMA_MR, ENUM, "basic", "basic|scalable", "Memory-registration modes windows ask the provider for: basic = FI_MR_VIRT_ADDR|FI_MR_PROV_KEY|FI_MR_ALLOCATED, scalable = none (offsets, keys chosen by fabmpi)") \
    X(OFI_RNDV, ENUM, "read", "read|stream", "Rendezvous of the sw engine over OFI: read = the sender's RTS carries an RMA key and the receiver fi_reads the data, then sends FIN (falls back to stream when the provider has no FI_RMA, FABMPI_OFI_RMA=am, or registration fails); stream = the receiver answers CTS and the sender streams DATA chunks") \
    X(OFI_POSTED_MAX, INT, "0", "0..16777216", "Receives the ofi engine keeps posted in the provider; later ones wait in a software list, in order, until slots free (0: seven eighths of the provider's rx_attr->size; the rest stays free for sync-send acks and probes)") \
    X(OFI_CONNECT, ENUM, "dynamic", "dynamic|static", "Address-vector insertion: dynamic = on first send to a peer, static = every peer at init") \
    X(OFI_BUF_SIZE, SIZE, "64k", "1k..16m", "Bytes of each OFI bounce and receive buffer; the largest transport message (eager data and rendezvous chunks fit in it)") \
    X(OFI_TX_BUFS, INT, "64", "1..65536", "OFI bounce buffers for sends larger than the provider's inject size; when all are in flight sends are parked") \
    X(OFI_RX_BUFS, INT, "64", "1..65536", "OFI receive buffers kept posted") \
    X(PT2PT, ENUM, "auto", "auto|sw|ofi", "Point-to-point engine: sw = fabmpi matches messages; ofi = the libfabric provider matches them (fi_tsend/fi_trecv, needs NET=ofi); auto = ofi when NET=ofi and the provider has FI_TAGGED, except shm and net, whose libfabric 1.17 tagged matching breaks MPI semantics; else sw") \
    X(OFI_TAG_MODE, ENUM, "auto", "auto|1|2|full", "OFI tag layout of the ofi engine: 1 = 12-bit communicator, 18-bit source, 32-bit tag; 2 = 24/18/20 bits; full = source in remote CQ data, 28-bit communicator, 32-bit tag; auto = full when the provider has CQ data and FI_DIRECTED_RECV, else 1") \
    X(EAGER_LIMIT, SIZE, "32k", "0..1m", "Largest message sent eagerly through shared memory; larger ones use rendezvous") \
    X(OFI_EAGER_LIMIT, SIZE, "8k", "0..1m", "Largest message sent eagerly over OFI (software engine); larger ones use rendezvous. A message whose payload plus headers exceeds the provider's own eager size (tcp;ofi_rxm: 16 KiB including its header) may complete out of order, which breaks MPI ordering") \
    X(SHM_RING_SIZE, SIZE, "256k", "16k..64m, power of two", "Bytes of each per-pair shared-memory ring") \
    X(SHM_COPY, ENUM, "auto", "auto|cma|pipeline", "Rendezvous copy: cma = process_vm_readv single copy, pipeline = chunks through the ring; auto tries CMA and falls back") \
    X(SHM_SPLIT_MIN, SIZE, "64k", "0..1g", "Rendezvous messages this large (0 = never) are copied by both processes at once: the receiver pulls one half while the sender pushes the other") \
    X(SHM_DOORBELL, ENUM, "auto", "auto|on|off", "Doorbell bytes telling a receiver which rings have data (auto: on above 4 ranks per node)") \
    X(SHM_PIPELINE_CHUNK, SIZE, "32k", "1k..16m", "Chunk size of the pipelined copy through shared memory") \
    X(SPIN_COUNT, INT, "2000", "0..100000000", "Progress polls a blocking call makes before it starts yielding the CPU") \
    X(YIELD, ENUM, "auto", "auto|always|never", "Yield in blocking waits: auto yields at once when ranks outnumber usable cores") \
    X(COLL_RMA, ENUM, "auto", "off|on|auto", "Barrier/Bcast/Reduce/Allreduce by one-sided writes into a per-communicator cache: on = whenever the message fits (over shared memory when all members are reached through it, else fi_write over OFI); auto = also only over shared memory, at sizes where measured faster, and if COLL_RMA_PRIORITY beats two-sided (10)") \
    X(COLL_RMA_PRIORITY, INT, "20", "-1000..1000", "Priority of the one-sided collectives in COLL_RMA=auto; two-sided has 10, the higher wins, ties go to two-sided") \
    X(COLL_CACHE_PAGES, INT, "32", "0..65536", "4 KiB pages of each member's collective cache data area; larger bcasts (reduces: larger than half) use two-sided") \
    X(COLL_FANOUT, INT, "2", "1..64", "Children per member in the one-sided broadcast tree") \
    X(COLL_VERBOSE, BOOL, "0", "bool", "Print one line per Barrier/Bcast/Reduce/Allreduce call (communicator rank 0 only) naming the algorithm used and why") \
    X(EXIT_TIMEOUT, INT, "3", "1..3600", "Seconds mpiexec waits for ranks to end after an abort or a failure before it kills them") \
    X(SSH, STR, "ssh -o BatchMode=yes", "command", "Remote shell mpiexec --launcher ssh runs as: CMD HOST fabmpi_hostd (words split on blanks)") \
    X(BOOT_ADDR, STR, "", "host:port", "Set by mpiexec: address of the bootstrap server") \
    X(BOOT_KEY, STR, "", "hex string", "Set by mpiexec: per-job secret that authenticates a rank to the bootstrap server") \
    X(RANK, INT, "-1", "-1..2147483647", "Set by mpiexec: this process's rank in MPI_COMM_WORLD") \
    X(SIZE, INT, "-1", "-1..2147483647", "Set by mpiexec: number of ranks in MPI_COMM_WORLD") \
    X(LOCAL_RANK, INT, "-1", "-1..2147483647", "Set by mpiexec: rank among the processes on this node") \
    X(LOCAL_SIZE, INT, "-1", "-1..2147483647", "Set by mpiexec: number of ranks on this node") \
    X(NODE_ID, INT, "-1", "-1..2147483647", "Set by mpiexec: index of this rank's node in the job (nodes numbered in the order of their lowest rank)") \
    X(JOBID, STR, "", "string", "Set by mpiexec: job identifier used to name shared-memory segments")

enum fm_param_type { FM_PARAM_INT, FM_PARAM_SIZE, FM_PARAM_BOOL, FM_PARAM_ENUM, FM_PARAM_STR };

#define FM_PARAM_CTYPE_INT long
#define FM_PARAM_CTYPE_SIZE size_t
#define FM_PARAM_CTYPE_BOOL int
#define FM_PARAM_CTYPE_ENUM int
#define FM_PARAM_CTYPE_STR const char *
#define FM_PARAM_FIELD(name, type, def, acc, doc) FM_PARAM_CTYPE_##type name;
struct fm_params { FM_PARAMS(FM_PARAM_FIELD) };
#undef FM_PARAM_FIELD

/* Effective values; valid after fm_param_load(). */
extern struct fm_params fm_param;

/* Enum indices, e.g. FM_NET_AUTO, FM_SHM_COPY_CMA, FM_YIELD_ALWAYS. */
enum { FM_NET_AUTO, FM_NET_SHM, FM_NET_OFI };
enum { FM_OFI_CONNECT_DYNAMIC, FM_OFI_CONNECT_STATIC };
enum { FM_OFI_RMA_AUTO, FM_OFI_RMA_AM };
enum { FM_OFI_RMA_MR_BASIC, FM_OFI_RMA_MR_SCALABLE };
enum { FM_RMA_ATOMICS_AUTO, FM_RMA_ATOMICS_AM };
enum { FM_OFI_RNDV_READ, FM_OFI_RNDV_STREAM };
enum { FM_PT2PT_AUTO, FM_PT2PT_SW, FM_PT2PT_OFI };
enum { FM_SHM_COPY_AUTO, FM_SHM_COPY_CMA, FM_SHM_COPY_PIPELINE };
enum { FM_SHM_DOORBELL_AUTO, FM_SHM_DOORBELL_ON, FM_SHM_DOORBELL_OFF };
enum { FM_YIELD_AUTO, FM_YIELD_ALWAYS, FM_YIELD_NEVER };

/* Parse every FABMPI_* variable.  On a bad value returns FM_ERR_PARAM and
 * writes "FABMPI_X=value: <why>; accepted: <what>" into err.  Idempotent. */
int fm_param_load(char *err, size_t errlen);

/* Forget loaded values so the next fm_param_load() reads the environment
 * again (unit tests). */
void fm_param_reset(void);

/* Print the table: name, default, current value, doc (fabmpi_info). */
void fm_param_print(FILE *out);
/* Write docs/ENV.md (markdown table) from the table. */
void fm_param_write_markdown(FILE *out);
/* Print effective values with origin (FABMPI_VERBOSE_ENV). */
void fm_param_print_effective(FILE *out);

/* Raw environment access for the launcher (forwarding -x VAR); the only
 * other door to the environment. */
const char *fm_env_raw(const char *name);

#endif
