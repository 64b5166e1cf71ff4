/* boot.c — picks the bootstrap backend from the launcher's variables and
 * forwards the fm_boot_* calls to it (backend.h has the ops contract).
 *
 * The rule that matters: a process that sees any launcher's variables is
 * part of a job, so if that launcher cannot be used we stop with a message
 * rather than run as a singleton — N silent singletons are the worst way a
 * launch can go wrong. */
#include "boot/backend.h"
#include "boot/wire.h"
#include "util/log.h"
#include "util/param.h"
#include "util/status.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct fm_boot_ops *ops;

int fm_boot_fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return FM_ERR_BOOT;
}

void fm_boot_set_jobid(fm_boot_info *info, const char *id)
{
    size_t n = 0;
    for (; id[n] && n + 1 < sizeof info->jobid; n++) {
        unsigned char c = (unsigned char)id[n];
        info->jobid[n] = isalnum(c) || c == '.' || c == '_' ? (char)c : '_';
    }
    info->jobid[n] = '\0';
}

/* First launcher variable of `names` that is set, or NULL. */
static const char *first_set(const char *const *names)
{
    for (; *names; names++)
        if (fm_env_raw(*names))
            return *names;
    return NULL;
}

static long env_long(const char *name)
{
    const char *v = fm_env_raw(name);
    return v && *v ? strtol(v, NULL, 10) : -1;
}

/* Decide which backend to use.  Returns it, or NULL with err filled. */
static const struct fm_boot_ops *choose(char *why, size_t whylen, char *err, size_t errlen)
{
    if (fm_param.BOOT_ADDR[0] || fm_param.BOOT_KEY[0] || fm_param.RANK >= 0 || fm_param.SIZE >= 0) {
        snprintf(why, whylen, "FABMPI_* launcher variables are set (started by fabmpi's mpiexec)");
        return &fm_boot_mpiexec_ops;
    }
    static const char *const pmix_vars[] = {"PMIX_NAMESPACE", "PMIX_RANK", "PMIX_SERVER_URI41",
                                            "PMIX_SERVER_URI4", NULL};
    const char *v = first_set(pmix_vars);
    if (v) {
        if (!fm_boot_pmix_ops) {
            fm_boot_fail(err, errlen,
                         "%s is set, so a PMIx launcher (srun --mpi=pmix, Open MPI's mpirun) started this "
                         "process, but this fabmpi was built without PMIx (install libpmix-dev and "
                         "rebuild), or use fabmpi's mpiexec or srun --mpi=pmi2",
                         v);
            return NULL;
        }
        snprintf(why, whylen, "%s is set (a PMIx server started this process)", v);
        return fm_boot_pmix_ops;
    }
    static const char *const pmi_vars[] = {"PMI_FD", "PMI_RANK", "PMI_SIZE", "PMI_PORT", NULL};
    v = first_set(pmi_vars);
    if (v) {
        if (!fm_boot_pmi2_ops) {
            fm_boot_fail(err, errlen,
                         "%s is set, so a PMI launcher (srun --mpi=pmi2, MPICH's mpiexec) started this "
                         "process, but this fabmpi was built without PMI-2 (install libpmi2-0-dev and "
                         "rebuild), or use fabmpi's mpiexec",
                         v);
            return NULL;
        }
        snprintf(why, whylen, "%s is set (a PMI server started this process)", v);
        return fm_boot_pmi2_ops;
    }
    /* Launchers that left no PMI behind: each process would think it is
     * alone.  One task of srun (or one process of mpirun) is fine. */
    long n = env_long("SLURM_STEP_NUM_TASKS");
    if (n > 1) {
        fm_boot_fail(err, errlen,
                     "started by srun as one of %ld tasks (SLURM_STEP_NUM_TASKS=%ld) without a PMI plugin; "
                     "run with srun --mpi=pmix or srun --mpi=pmi2 (srun --mpi=list shows what this Slurm "
                     "offers)",
                     n, n);
        return NULL;
    }
    static const char *const foreign[][2] = {
        {"OMPI_COMM_WORLD_SIZE", "Open MPI's mpirun without PMIx"},
        {"MPI_LOCALNRANKS", "MPICH's mpiexec without PMI"},
        {"PMI_SIZE", "a PMI launcher"},
    };
    for (size_t i = 0; i < sizeof foreign / sizeof foreign[0]; i++) {
        n = env_long(foreign[i][0]);
        if (n > 1) {
            fm_boot_fail(err, errlen,
                         "%s=%ld: started by %s as one of %ld processes, but no launcher interface fabmpi "
                         "speaks was found (FABMPI_*, PMIX_*, PMI_FD)",
                         foreign[i][0], n, foreign[i][1], n);
            return NULL;
        }
    }
    snprintf(why, whylen, "no launcher variables (FABMPI_BOOT_*, PMIX_*, PMI_*, SLURM_STEP_NUM_TASKS > 1)");
    return &fm_boot_singleton_ops;
}

int fm_boot_init(fm_boot_info *info, char *err, size_t errlen)
{
    int rc = fm_param_load(err, errlen);
    if (rc != FM_OK)
        return rc;
    if (ops)
        return fm_boot_fail(err, errlen, "fm_boot_init called twice");
    char why[256];
    const struct fm_boot_ops *o = choose(why, sizeof why, err, errlen);
    if (!o)
        return FM_ERR_BOOT;
    fm_log(1, "bootstrap: using %s: %s", o->name, why);
    fm_boot_info in = {0};
    rc = o->init(&in, err, errlen);
    if (rc != FM_OK)
        return rc;
    in.launcher = o->name;
    in.singleton = o == &fm_boot_singleton_ops;
    ops = o;
    fm_log_rank = in.rank;
    fm_log(1, "bootstrap: rank %d of %d (local %d of %d, node %d), job %s, via %s", in.rank, in.size,
           in.local_rank, in.local_size, in.node_id, in.jobid, o->name);
    *info = in;
    return FM_OK;
}

int fm_boot_put(const char *key, const void *val, size_t len)
{
    if (!ops)
        return FM_ERR_NOT_INIT;
    size_t klen = key ? strlen(key) : 0;
    if (!klen || klen > FM_BOOT_KEY_MAX || len > FM_BOOT_VAL_MAX || (len && !val))
        return FM_ERR_ARG;
    return ops->put(key, val, len);
}

int fm_boot_fence(void)
{
    return ops ? ops->fence() : FM_ERR_NOT_INIT;
}

int fm_boot_get(int rank, const char *key, void *val, size_t *len)
{
    if (!ops)
        return FM_ERR_NOT_INIT;
    if (!key || !len || rank < 0)
        return FM_ERR_ARG;
    return ops->get(rank, key, val, len);
}

void fm_boot_abort(int code, const char *why)
{
    if (!why)
        why = "";
    if (!ops) { /* before or after the bootstrap: nobody else to tell */
        fm_error_msg("MPI_Abort with code %d%s%s", code, why[0] ? ": " : "", why);
        _exit(code);
    }
    ops->abort(code, why);
}

int fm_boot_finalize(void)
{
    if (!ops)
        return FM_ERR_NOT_INIT;
    int rc = ops->finalize();
    ops = NULL;
    return rc;
}

/* Host names are exchanged once; ranks on the same host are numbered in
 * rank order, nodes in order of their lowest rank. */
int fm_boot_locality_by_hostname(const struct fm_boot_ops *o, fm_boot_info *info, char *err, size_t errlen)
{
    char me[256] = "", other[256];
    gethostname(me, sizeof me - 1);
    int rc = o->put("fm.boot.host", me, strlen(me) + 1);
    if (rc == FM_OK)
        rc = o->fence();
    if (rc != FM_OK)
        return fm_boot_fail(err, errlen, "%s: exchanging host names failed (%d)", o->name, rc);
    info->local_rank = info->local_size = 0;
    char (*seen)[256] = calloc((size_t)info->size, sizeof *seen);
    if (!seen)
        return fm_boot_fail(err, errlen, "out of memory exchanging host names");
    for (int r = 0; r < info->size; r++) {
        size_t len = sizeof other - 1;
        if (o->get(r, "fm.boot.host", other, &len) != FM_OK) {
            free(seen);
            return fm_boot_fail(err, errlen, "%s: rank %d published no host name", o->name, r);
        }
        other[len] = '\0';
        snprintf(seen[r], sizeof seen[r], "%s", other);
        if (!strcmp(other, me)) {
            info->local_rank += r < info->rank;
            info->local_size++;
        }
    }
    /* Nodes are numbered in the order of their lowest rank. */
    for (int r = 0, n = 0; r < info->size; r++) {
        int first = 1;
        for (int q = 0; q < r && first; q++)
            first = strcmp(seen[q], seen[r]) != 0;
        if (first && !strcmp(seen[r], me)) {
            info->node_id = n;
            break;
        }
        n += first;
    }
    free(seen);
    return FM_OK;
}
