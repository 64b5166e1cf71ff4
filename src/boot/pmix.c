/* pmix.c — the bootstrap backend for PMIx servers: Slurm's srun --mpi=pmix
 * and Open MPI's mpirun (OpenPMIx 4.2 on both sides here).
 *
 * Values are put as byte objects in the global scope and exchanged by a
 * fence that collects data, so every get after it is answered from the
 * local PMIx client's cache. */
#include "boot/backend.h"
#include "util/log.h"
#include "util/status.h"

#include <pmix.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pmix_proc_t me;
static const struct fm_boot_ops ops;

/* One job-level or rank-level number; -1 if the server does not say. */
static long get_num(pmix_rank_t rank, const char *key)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, me.nspace, rank);
    pmix_value_t *v = NULL;
    if (PMIx_Get(&p, key, NULL, 0, &v) != PMIX_SUCCESS || !v)
        return -1;
    long n = -1;
    switch (v->type) {
    case PMIX_UINT32: n = (long)v->data.uint32; break;
    case PMIX_UINT16: n = (long)v->data.uint16; break;
    case PMIX_INT: n = (long)v->data.integer; break;
    case PMIX_UINT: n = (long)v->data.uint; break;
    case PMIX_PROC_RANK: n = (long)v->data.rank; break;
    default: break;
    }
    PMIX_VALUE_RELEASE(v);
    return n;
}

static int x_init(fm_boot_info *info, char *err, size_t errlen)
{
    pmix_status_t st = PMIx_Init(&me, NULL, 0);
    if (st != PMIX_SUCCESS)
        return fm_boot_fail(err, errlen,
                            "PMIX_NAMESPACE/PMIX_RANK are set, but PMIx_Init failed: %s (is the PMIx server "
                            "of the launcher a compatible version? OpenPMIx %s here)",
                            PMIx_Error_string(st), PMIx_Get_version());
    long size = get_num(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
    long lrank = get_num(me.rank, PMIX_LOCAL_RANK);
    long lsize = get_num(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE);
    long node = get_num(me.rank, PMIX_NODEID);
    if (size < 1 || me.rank >= (pmix_rank_t)size) {
        PMIx_Finalize(NULL, 0);
        return fm_boot_fail(err, errlen, "PMIx server in namespace %s gave no usable job size (%ld) for rank %u",
                            me.nspace, size, (unsigned)me.rank);
    }
    info->rank = (int)me.rank;
    info->size = (int)size;
    fm_boot_set_jobid(info, me.nspace);
    if (lrank >= 0 && lsize > lrank) {
        info->local_rank = (int)lrank;
        info->local_size = (int)lsize;
        info->node_id = node >= 0 ? (int)node : 0;
        return FM_OK;
    }
    return fm_boot_locality_by_hostname(&ops, info, err, errlen);
}

static int x_put(const char *key, const void *val, size_t len)
{
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *)val; /* PMIx_Put copies; it does not write */
    v.data.bo.size = len;
    pmix_status_t st = PMIx_Put(PMIX_GLOBAL, key, &v);
    if (st != PMIX_SUCCESS) {
        fm_error_msg("PMIx_Put(%s): %s", key, PMIx_Error_string(st));
        return FM_ERR_BOOT;
    }
    return FM_OK;
}

static int x_fence(void)
{
    pmix_status_t st = PMIx_Commit();
    if (st == PMIX_SUCCESS) {
        pmix_info_t info;
        bool collect = true;
        PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
        st = PMIx_Fence(NULL, 0, &info, 1);
        PMIX_INFO_DESTRUCT(&info);
    }
    if (st != PMIX_SUCCESS) {
        fm_error_msg("PMIx fence: %s", PMIx_Error_string(st));
        return FM_ERR_BOOT;
    }
    return FM_OK;
}

static int x_get(int rank, const char *key, void *val, size_t *len)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, me.nspace, (pmix_rank_t)rank);
    /* After a collecting fence the data is local; never wait for a key that
     * nobody put. */
    pmix_info_t info;
    bool imm = true;
    PMIX_INFO_LOAD(&info, PMIX_IMMEDIATE, &imm, PMIX_BOOL);
    pmix_value_t *v = NULL;
    pmix_status_t st = PMIx_Get(&p, key, &info, 1, &v);
    PMIX_INFO_DESTRUCT(&info);
    if (st != PMIX_SUCCESS || !v)
        return FM_ERR_ARG;
    int rc = FM_OK;
    if (v->type != PMIX_BYTE_OBJECT)
        rc = FM_ERR_BOOT;
    else if (v->data.bo.size > *len)
        rc = FM_ERR_TRUNCATE;
    else {
        if (v->data.bo.size)
            memcpy(val, v->data.bo.bytes, v->data.bo.size);
        *len = v->data.bo.size;
    }
    PMIX_VALUE_RELEASE(v);
    return rc;
}

static void x_abort(int code, const char *why) __attribute__((noreturn));
static void x_abort(int code, const char *why)
{
    /* Said here first: not every PMIx server prints `why` (Slurm's may not
     * before it cancels the step, which then cuts the output short).  NULL
     * procs: the whole namespace; if PMIx_Abort returns, we still must not
     * live on. */
    fm_error_msg("MPI_Abort with code %d%s%s; asking the PMIx launcher to end the job", code,
                 why[0] ? ": " : "", why);
    pmix_status_t st = PMIx_Abort(code, why, NULL, 0);
    if (st != PMIX_SUCCESS)
        fm_error_msg("MPI_Abort with code %d: %s (PMIx_Abort failed: %s)", code, why, PMIx_Error_string(st));
    _exit(code);
}

static int x_finalize(void)
{
    pmix_status_t st = PMIx_Finalize(NULL, 0);
    if (st != PMIX_SUCCESS) {
        fm_error_msg("PMIx_Finalize: %s", PMIx_Error_string(st));
        return FM_ERR_BOOT;
    }
    return FM_OK;
}

static const struct fm_boot_ops ops = {
    .name = "pmix",
    .init = x_init,
    .put = x_put,
    .fence = x_fence,
    .get = x_get,
    .abort = x_abort,
    .finalize = x_finalize,
};
const struct fm_boot_ops *const fm_boot_pmix_ops = &ops;
