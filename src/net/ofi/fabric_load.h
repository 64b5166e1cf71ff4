/* fabric_load.h — libfabric is opened with dlopen on first use, not linked
 * (loading Debian's libfabric 1.17 costs ~0.2 s of constructors in the PSM
 * libraries it pulls in, which a single-node job never needs).
 * fabric_load.c defines the few exported libfabric functions fabmpi calls
 * (fi_getinfo, fi_freeinfo, fi_dupinfo, fi_fabric, fi_strerror, fi_version)
 * as hidden forwarders; everything else in the API is inline through the
 * providers' ops tables. */
#ifndef FM_NET_OFI_FABRIC_LOAD_H
#define FM_NET_OFI_FABRIC_LOAD_H

/* The library file opened. */
#define FM_FABRIC_SONAME "libfabric.so.1"

/* Opens libfabric once per process (thread-safe; later calls only look).
 * Returns 0 when it is loaded; otherwise -1 with *why (if why) pointing at
 * dlerror()'s text, valid for the life of the process.  The forwarders call
 * it themselves and fail with -FI_ENOSYS (NULL, "not loaded") when it
 * fails; callers that must say why call it first. */
int fm_fabric_load(const char **why);

#endif
