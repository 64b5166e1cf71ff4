/* pvar.h — the performance counters MPI_T reads (src/mpi/mpit_pvar.c).
 *
 * Each is a process-wide 64-bit count that the layer doing the work bumps
 * where it does it: one add to a global on the hot path, no branch, lock or
 * call.  Tools see a counter through an MPI_T session (start, stop, read,
 * reset: the session keeps its own base; nothing here is ever reset).
 * Matching-queue lengths are not here: each queue keeps its own
 * (match/match.h), so they can be read per communicator.
 *
 * Row: X(NAME, CLASS, CATEGORY, DESC)
 *   NAME      field fm_pv.NAME and the MPI_T performance variable NAME
 *   CLASS     COUNTER (MPI_UNSIGNED_LONG_LONG, events or bytes) or TIMER
 *             (counted in fm_pv_ticks(); MPI_T reads it as MPI_DOUBLE seconds)
 *   CATEGORY  util/category.h
 *
 * Plain increments under the lock that guards the state they count: fm_pv
 * for process-wide work (the library lock), and a block in each VCI for
 * its traffic (core/vci.h: a lane's under its own lock); MPI_T reads the
 * sum.  A tool thread reading one may see
 * it a few events late, never torn (aligned 64-bit words). */
#ifndef FM_UTIL_PVAR_H
#define FM_UTIL_PVAR_H

#include <time.h>

#define FM_PVAR_COUNTERS(X)                                                                    \
    X(pt2pt_eager_sent, COUNTER, pt2pt, "Messages the software matching engine sent eagerly (payload inside the first message), collectives' messages included") \
    X(pt2pt_eager_sent_bytes, COUNTER, pt2pt, "Payload bytes of those eager messages")          \
    X(pt2pt_rndv_sent, COUNTER, pt2pt, "Messages the software matching engine sent by rendezvous (RTS, then a single copy or streamed chunks)") \
    X(pt2pt_rndv_sent_bytes, COUNTER, pt2pt, "Payload bytes of those rendezvous messages")      \
    X(pt2pt_stream_chunks, COUNTER, pt2pt, "Rendezvous DATA chunks streamed by the sender (pipelined copy: non-contiguous data, no CMA, or OFI stream mode)") \
    X(pt2pt_stream_bytes, COUNTER, pt2pt, "Bytes of those streamed chunks")                     \
    X(pt2pt_unexpected, COUNTER, pt2pt, "Messages that arrived before a matching receive was posted (software matching)") \
    X(pt2pt_coll_recv_arrived, COUNTER, pt2pt, "Receives of blocking collectives whose eager message had already arrived unexpected: copied out with no request") \
    X(pt2pt_ofi_engine_sent, COUNTER, pt2pt, "Messages the provider-matching engine (FABMPI_PT2PT=ofi) handed to fi_tsend/fi_tinject") \
    X(pt2pt_ofi_engine_sent_bytes, COUNTER, pt2pt, "Payload bytes of those messages")           \
    X(shm_cma_copies, COUNTER, shm, "Rendezvous single copies by CMA (process_vm_readv pulls and process_vm_writev pushes of split copies)") \
    X(shm_cma_bytes, COUNTER, shm, "Bytes moved by those CMA copies")                            \
    X(ofi_sent, COUNTER, ofi, "Messages the OFI transport sent (fi_inject or fi_send: eager data, RTS, control messages, chunks)") \
    X(ofi_sent_bytes, COUNTER, ofi, "Bytes of those messages, headers included")                \
    X(ofi_grouped_sent, COUNTER, ofi, "Messages sent from a communicator's own OFI context (FABMPI_OFI_THREAD_GROUPING=1); the rest leave from context 0") \
    X(ofi_grouped_received, COUNTER, ofi, "Messages that arrived on a communicator's own OFI context (FABMPI_OFI_THREAD_GROUPING=1)") \
    X(ofi_contexts_opened, COUNTER, ofi, "OFI transmit/receive contexts opened beyond the first, for communicators of their own (FABMPI_OFI_THREAD_GROUPING=1)") \
    X(ofi_rndv_reads, COUNTER, ofi, "Rendezvous payloads the receiver pulled with fi_read (FABMPI_OFI_RNDV=read)") \
    X(ofi_rndv_read_bytes, COUNTER, ofi, "Bytes of those reads")                                \
    X(ofi_mr_cache_hits, COUNTER, ofi, "One-sided transfers over OFI whose local buffer had a cached registration (FABMPI_OFI_MR_CACHE)") \
    X(ofi_mr_cache_misses, COUNTER, ofi, "Local buffers registered because none cached covered them") \
    X(ofi_mr_cache_invalidated, COUNTER, ofi, "Cached registrations dropped because their pages left the address space (munmap, mremap, madvise, mmap over them)") \
    X(ofi_mr_cache_evicted, COUNTER, ofi, "Cached registrations closed to stay within FABMPI_OFI_MR_CACHE_ENTRIES") \
    X(coll_barrier_two_sided, COUNTER, coll, "Blocking MPI_Barrier calls run by the two-sided dissemination algorithm") \
    X(coll_barrier_rma, COUNTER, coll, "Blocking MPI_Barrier calls run by dissemination on one-sided flags") \
    X(coll_barrier_flat, COUNTER, coll, "MPI_Barrier calls (blocking, or nonblocking schedules) run flat: one round of flags") \
    X(coll_bcast_two_sided, COUNTER, coll, "Blocking MPI_Bcast calls run by the two-sided binomial tree") \
    X(coll_bcast_rma, COUNTER, coll, "Blocking MPI_Bcast calls run by the one-sided fan-out tree") \
    X(coll_bcast_flat, COUNTER, coll, "Blocking MPI_Bcast calls run flat (crowded nodes): the root publishes once, every member copies out of its segment") \
    X(coll_bcast_pair, COUNTER, coll, "MPI_Bcast calls on 2 members with a block past the eager size (blocking, or each start of a nonblocking or persistent one) run one-sided: the root writes it into the other member's cache") \
    X(coll_reduce_two_sided, COUNTER, coll, "Blocking MPI_Reduce calls run by the two-sided binomial tree") \
    X(coll_reduce_rma, COUNTER, coll, "Blocking MPI_Reduce calls run by the one-sided binary tree") \
    X(coll_alltoall_flat, COUNTER, coll, "Blocking MPI_Alltoall calls run flat (crowded nodes): every member publishes its send buffer, each copies its block out of every one") \
    X(coll_reduce_flat, COUNTER, coll, "Blocking MPI_Reduce calls run flat (crowded nodes): every member publishes its vector, the root reduces all") \
    X(coll_reduce_pieces, COUNTER, coll, "One-sided reduces (MPI_Reduce, or the reduce step of a one-sided MPI_Allreduce of 3 or more members) run in pieces of 64 KiB or less, each a call of its own: a child writes the next piece while its parent folds the last") \
    X(coll_allreduce_two_sided, COUNTER, coll, "Blocking MPI_Allreduce calls run two-sided")     \
    X(coll_allreduce_rma, COUNTER, coll, "Blocking MPI_Allreduce calls run by the one-sided reduce and fan-out bcast") \
    X(coll_allreduce_flat, COUNTER, coll, "MPI_Allreduce calls (blocking, or nonblocking schedules) run flat: every member reduces all") \
    X(coll_allgather_flat, COUNTER, coll, "Blocking MPI_Allgather and MPI_Allgatherv calls run flat: every member copies every block out of its owner's segment") \
    X(coll_allgather_pair, COUNTER, coll, "MPI_Allgather and MPI_Allgatherv calls on 2 members (blocking, or each start of a nonblocking or persistent one) run one-sided: each writes its block into the other's cache") \
    X(coll_gather_scatter_pair, COUNTER, coll, "MPI_Gather(v) and MPI_Scatter(v) calls on 2 members with blocks past the eager size (blocking, or each start of a nonblocking or persistent one) run one-sided: the block crosses through the receiver's cache") \
    X(coll_alltoall_pair, COUNTER, coll, "MPI_Alltoall, MPI_Alltoallv and MPI_Alltoallw calls on 2 members (blocking, or each start of a nonblocking or persistent one) run one-sided: each writes its block into the other's cache") \
    X(coll_allreduce_doubling, COUNTER, coll, "Two-sided allreduces (blocking, nonblocking or persistent, counted when recorded) by recursive doubling") \
    X(coll_allreduce_halving, COUNTER, coll, "Two-sided allreduces by recursive halving and doubling (Rabenseifner)") \
    X(coll_sched_replayed, COUNTER, coll, "Nonblocking collectives with fixed counts that replayed the schedule the last call with the same arguments recorded") \
    X(coll_sched_direct, COUNTER, coll, "Runs of nonblocking and persistent collectives made by their schedule's direct form (the flat and pair calls: begun by the call or MPI_Start itself, ended there or in MPI_Wait)") \
    X(rma_loadstore, COUNTER, rma, "Put, Get, Accumulate and Compare_and_swap operations done by loads and stores into a mapped window") \
    X(rma_cma, COUNTER, rma, "Window operations done by CMA (process_vm_readv/writev into a peer's window)") \
    X(rma_handoff, COUNTER, rma, "Accumulates and compare-and-swaps on Win_create and dynamic windows of this node applied by the target while it polled (FABMPI_RMA_HANDOFF)") \
    X(rma_handoff_withdrawn, COUNTER, rma, "Handed-off accumulates taken back because the target did not pick them up in time (done by CMA; counted in rma_cma too)") \
    X(rma_net, COUNTER, rma, "Put and Get operations done by provider RMA (fi_write, fi_read)") \
    X(rma_net_atomic, COUNTER, rma, "Accumulate and Compare_and_swap operations done by provider atomics") \
    X(rma_am, COUNTER, rma, "Window operations sent as active messages applied by the target")   \
    X(am_rma_copy, COUNTER, am, "fab_rma transfers done by a copy into or out of a segment mapped here (this rank's, or a peer's on this node)") \
    X(am_rma_cma, COUNTER, am, "fab_rma transfers done by CMA (process_vm_writev/readv into a peer's segment)") \
    X(am_rma_net, COUNTER, am, "fab_rma transfers done by provider RMA (fi_write, fi_read)") \
    X(am_rma_msg, COUNTER, am, "fab_rma transfers sent as active messages") \
    X(vci_lane_messages, COUNTER, progress, "Messages that arrived on a lane: a VCI other than 0, carrying communicators' point-to-point traffic (FABMPI_VCIS > 1)") \
    X(progress_polls, COUNTER, progress, "Progress polls (each polls every transport once)")      \
    X(progress_waits, COUNTER, progress, "Blocking waits that found their condition unmet and polled") \
    X(progress_wait_time, TIMER, progress, "Time spent in those waits, in seconds")

#define FM_PV_FIELD(name, cls, cat, desc) unsigned long long name;
struct fm_pv {
    FM_PVAR_COUNTERS(FM_PV_FIELD)
};
#undef FM_PV_FIELD

/* Hidden: one add at a known offset, not a load of its address first. */
extern struct fm_pv fm_pv __attribute__((visibility("hidden")));

#define FM_PV_INC(name) ((void)(fm_pv.name++))
#define FM_PV_ADD(name, n) ((void)(fm_pv.name += (unsigned long long)(n)))
/* The same into another VCI's block (core/vci.h: a lane counts its own
 * traffic, which a thread on another lane may be counting meanwhile). */
#define FM_PV_INC_AT(pv, name) ((void)((pv)->name++))
#define FM_PV_ADD_AT(pv, name, n) ((void)((pv)->name += (unsigned long long)(n)))

/* The TIMER clock: the time-stamp counter where there is one (a single
 * instruction), else CLOCK_MONOTONIC nanoseconds. */
static inline unsigned long long fm_pv_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#else
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
#endif
}

/* Seconds per fm_pv_ticks() tick (measured once, a few milliseconds, on
 * first use: a tool's read, never the hot path). */
double fm_pv_tick_seconds(void);

#endif
