/* memcheck.h — telling valgrind's memcheck about memory another process
 * wrote into ours.  process_vm_writev by a peer (split copies of large
 * messages, src/pt2pt/recv.c) leaves bytes that memcheck believes were never
 * written, so every read of a received message would be reported.  Without
 * valgrind's headers at build time, and outside valgrind at run time, this
 * does nothing. */
#ifndef FM_UTIL_MEMCHECK_H
#define FM_UTIL_MEMCHECK_H

#ifdef FM_HAVE_MEMCHECK
#include <valgrind/memcheck.h>
#define FM_PEER_WROTE(addr, len) ((void)VALGRIND_MAKE_MEM_DEFINED((addr), (len)))
#else
#define FM_PEER_WROTE(addr, len) ((void)(addr), (void)(len))
#endif

#endif
