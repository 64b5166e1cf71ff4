/* doorbell.h — which inbound rings have data, without scanning them all.
 *
 * The receiver's segment holds one byte per local sender.  After publishing
 * a record, a sender stores 1 into its byte (a plain store: no atomic
 * read-modify-write, no lock).  The receiver reads the bytes a word at a
 * time; for each set byte it stores 0, then a full fence, then drains that
 * ring.  The fence orders "clear" before "look at the ring": a record the
 * drain misses was published after the drain looked, so its sender's store
 * of 1 lands after our 0 and the byte stays set for the next scan — no
 * message waits for a later one to wake it.  (The sender's record-then-bell
 * order is a release store; on x86 stores are never reordered with each
 * other, which is what the argument needs.)
 *
 * Worth it only with many peers: with a few, reading each ring's next
 * header costs no more than reading the bells (FABMPI_SHM_DOORBELL=auto
 * turns it on above 4 ranks on the node). */
#ifndef FM_NET_SHM_DOORBELL_H
#define FM_NET_SHM_DOORBELL_H

#include <stdatomic.h>
#include <stdint.h>

/* Sender side: announce a record published in our ring. */
static inline void fm_bell_ring(_Atomic uint8_t *bell)
{
    atomic_store_explicit(bell, 1, memory_order_release);
}

/* Receiver side: call visit(arg, i) for every sender i whose bell is set,
 * clearing it first.  `nbells` bytes at `bells`, padded to a multiple of 8
 * with bytes nobody rings.  visit returns 1 if the ring may still hold data
 * (it stopped at a batch limit): the bell is then set again so the next scan
 * comes back.  Returns the sum of visit's message counts (>> 1). */
static inline int fm_bell_scan(_Atomic uint8_t *bells, int nbells,
                               int (*visit)(void *arg, int sender, int *more), void *arg)
{
    int n = 0;
    for (int base = 0; base < nbells; base += 8) {
        /* One relaxed look at 8 bells (the area is 8-byte aligned); a set
         * byte is taken with its own exchange below. */
        uint64_t word = __atomic_load_n((const uint64_t *)(const void *)(bells + base),
                                        __ATOMIC_RELAXED);
        if (!word)
            continue;
        for (int i = base; i < base + 8 && i < nbells; i++) {
            if (!atomic_exchange_explicit(&bells[i], 0, memory_order_acq_rel))
                continue;
            int more = 0;
            n += visit(arg, i, &more);
            if (more)
                atomic_store_explicit(&bells[i], 1, memory_order_relaxed);
        }
    }
    return n;
}

#endif
