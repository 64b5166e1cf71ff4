/* backend.h — the ops table every bootstrap backend fills (private to
 * src/boot).  boot.c picks one backend at fm_boot_init and forwards the
 * public fm_boot_* calls to it.
 *
 * Contract, for every backend:
 *   init      blocks until this rank knows rank/size/locality/jobid; on
 *             failure writes a message naming the launcher variables into
 *             err and returns FM_ERR_BOOT (never falls back to a singleton).
 *   put       key <= FM_BOOT_KEY_MAX bytes, value <= FM_BOOT_VAL_MAX bytes
 *             (already checked by boot.c); visible to others after fence.
 *   fence     collective over all ranks; may block; after it every put made
 *             before it by any rank is visible to get.
 *   get       FM_ERR_ARG if absent, FM_ERR_TRUNCATE if *len is too small.
 *   abort     asks the launcher to end the whole job; never returns.
 *   finalize  tells the launcher this rank is done; no calls after it. */
#ifndef FM_BOOT_BACKEND_H
#define FM_BOOT_BACKEND_H

#include "boot/boot.h"

#include <stddef.h>

struct fm_boot_ops {
    const char *name; /* as printed at FABMPI_VERBOSE=1: "mpiexec", "pmix", ... */
    int (*init)(fm_boot_info *info, char *err, size_t errlen);
    int (*put)(const char *key, const void *val, size_t len);
    int (*fence)(void);
    int (*get)(int rank, const char *key, void *val, size_t *len);
    void (*abort)(int code, const char *why) __attribute__((noreturn));
    int (*finalize)(void);
};

extern const struct fm_boot_ops fm_boot_mpiexec_ops;   /* mpiexec_client.c */
extern const struct fm_boot_ops fm_boot_singleton_ops; /* singleton.c */
/* NULL when fabmpi was built without the client library (no_pmix.c, no_pmi2.c). */
extern const struct fm_boot_ops *const fm_boot_pmix_ops;
extern const struct fm_boot_ops *const fm_boot_pmi2_ops;

/* printf into err (if given) and return FM_ERR_BOOT. */
int fm_boot_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Copy a launcher's job name into info->jobid, keeping only characters that
 * are safe in a /dev/shm file name. */
void fm_boot_set_jobid(fm_boot_info *info, const char *launcher_id);

/* Fill local_rank/local_size/node_id by exchanging host names through the
 * backend's own put/fence/get (for launchers that do not say). */
int fm_boot_locality_by_hostname(const struct fm_boot_ops *ops, fm_boot_info *info, char *err,
                                 size_t errlen);

#endif
