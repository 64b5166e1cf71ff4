/* fabric_load.c — libfabric on demand (see fabric_load.h).
 *
 * Each libfabric function fabmpi calls by name is defined here with hidden
 * visibility, so the references in select.c, ofi.c, rma.c, ... bind to these
 * definitions inside libfabmpi.so and nothing named fi_* is exported: a
 * program that links libfabric itself keeps its own.  Each forwards through
 * a pointer resolved with dlvsym at the symbol version a direct link binds
 * today (the versions whose struct layouts our 1.17 headers describe),
 * dlsym when that version is absent. */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "net/ofi/fabric_load.h"

#define FM_HIDDEN __attribute__((visibility("hidden")))

static struct {
    int (*getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *,
                   struct fi_info **);
    void (*freeinfo)(struct fi_info *);
    struct fi_info *(*dupinfo)(const struct fi_info *);
    int (*fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
    const char *(*strerror)(int);
    uint32_t (*version)(void);
    int ok;
    char why[512];
} L;

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void *sym(void *h, const char *name, const char *ver, int *missing)
{
    void *p = dlvsym(h, name, ver);
    if (!p)
        p = dlsym(h, name);
    if (!p && !*missing) {
        *missing = 1;
        const char *e = dlerror();
        snprintf(L.why, sizeof L.why, "%s has no %s: %s", FM_FABRIC_SONAME, name,
                 e ? e : "symbol not found");
    }
    return p;
}

/* Signals that mean the process crashed.  libpsm2, which Debian's
 * libfabric links, installs handlers for them from a constructor that
 * print a backtrace and exit(1): mpiexec would then report "exited with
 * status 1" instead of the signal, and the job would end 1, not 128+sig.
 * The dispositions the program had before libfabric loaded are put back. */
static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
#define NCRASH (sizeof crash_signals / sizeof crash_signals[0])

static void load(void)
{
    struct sigaction before[NCRASH];
    for (size_t i = 0; i < NCRASH; i++)
        sigaction(crash_signals[i], NULL, &before[i]);
    void *h = dlopen(FM_FABRIC_SONAME, RTLD_NOW | RTLD_LOCAL);
    for (size_t i = 0; i < NCRASH; i++)
        sigaction(crash_signals[i], &before[i], NULL);
    if (!h) {
        const char *e = dlerror();
        snprintf(L.why, sizeof L.why, "%s", e ? e : FM_FABRIC_SONAME ": dlopen failed");
        return;
    }
    int missing = 0;
    /* dlsym gives object pointers; POSIX makes them valid function
     * pointers.  memcpy says so without a cast ISO C or aliasing frowns on. */
#define RESOLVE(field, name, ver)                                        \
    do {                                                                 \
        void *p_ = sym(h, name, ver, &missing);                          \
        _Static_assert(sizeof p_ == sizeof L.field, "function pointer size"); \
        memcpy(&L.field, &p_, sizeof p_);                                \
    } while (0)
    RESOLVE(getinfo, "fi_getinfo", "FABRIC_1.3");
    RESOLVE(freeinfo, "fi_freeinfo", "FABRIC_1.3");
    RESOLVE(dupinfo, "fi_dupinfo", "FABRIC_1.3");
    RESOLVE(fabric, "fi_fabric", "FABRIC_1.1");
    RESOLVE(strerror, "fi_strerror", "FABRIC_1.0");
    RESOLVE(version, "fi_version", "FABRIC_1.0");
#undef RESOLVE
    if (missing) {
        dlclose(h);
        return;
    }
    /* Never closed: providers and their threads live until exit. */
    L.ok = 1;
}

int fm_fabric_load(const char **why)
{
    pthread_once(&once, load);
    if (!L.ok && why)
        *why = L.why;
    return L.ok ? 0 : -1;
}

FM_HIDDEN int fi_getinfo(uint32_t version, const char *node, const char *service, uint64_t flags,
                         const struct fi_info *hints, struct fi_info **info)
{
    if (fm_fabric_load(NULL))
        return -FI_ENOSYS;
    return L.getinfo(version, node, service, flags, hints, info);
}

FM_HIDDEN void fi_freeinfo(struct fi_info *info)
{
    /* Without libfabric no fi_info was ever made, so there is nothing to free. */
    if (!fm_fabric_load(NULL))
        L.freeinfo(info);
}

FM_HIDDEN struct fi_info *fi_dupinfo(const struct fi_info *info)
{
    return fm_fabric_load(NULL) ? NULL : L.dupinfo(info);
}

FM_HIDDEN int fi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context)
{
    if (fm_fabric_load(NULL))
        return -FI_ENOSYS;
    return L.fabric(attr, fabric, context);
}

FM_HIDDEN const char *fi_strerror(int errnum)
{
    if (fm_fabric_load(NULL))
        return "error (" FM_FABRIC_SONAME " not loaded, so no message)";
    return L.strerror(errnum);
}

FM_HIDDEN uint32_t fi_version(void)
{
    return fm_fabric_load(NULL) ? 0 : L.version();
}
