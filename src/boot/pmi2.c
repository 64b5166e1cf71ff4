/* pmi2.c — the bootstrap backend for PMI-2 servers through Slurm's libpmi2:
 * srun --mpi=pmi2, and MPICH's hydra mpiexec (which speaks the same wire
 * protocol on PMI_FD).
 *
 * The PMI-2 key-value space is one flat namespace of short text values
 * (PMI2_MAX_KEYLEN 64, PMI2_MAX_VALLEN 1024), so a value is stored hex
 * encoded under "<key>@<rank>", split into chunks "<key>@<rank>.<i>" when
 * longer than one PMI value; chunk 0 starts with "<bytes>:". */
#include "boot/backend.h"
#include "boot/wire.h"
#include "util/log.h"
#include "util/status.h"

#include <slurm/pmi2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK_HEX 960 /* hex digits per PMI value: below PMI2_MAX_VALLEN with room for "<len>:" */

static struct {
    int rank, size;
    char jobid[PMI2_MAX_VALLEN];
} P;
static const struct fm_boot_ops ops;

/* Ranks per node from PMI_process_mapping, "(vector,(start,nodes,ppn),...)"
 * (block distribution; the list repeats if ranks remain).  Returns 0 and
 * fills info, or -1 if the mapping is absent or unreadable. */
static int locality_from_mapping(fm_boot_info *info)
{
    char map[PMI2_MAX_ATTRVALUE + 1];
    int found = 0;
    if (PMI2_Info_GetJobAttr("PMI_process_mapping", map, sizeof map - 1, &found) != PMI2_SUCCESS || !found)
        return -1;
    int blocks[64][3], nb = 0;
    const char *p = strstr(map, "vector");
    if (!p)
        return -1;
    while (nb < 64 && (p = strchr(p, '(')) != NULL) {
        if (sscanf(p, "(%d,%d,%d)", &blocks[nb][0], &blocks[nb][1], &blocks[nb][2]) != 3)
            return -1;
        if (blocks[nb][1] < 1 || blocks[nb][2] < 1 || blocks[nb][0] < 0)
            return -1;
        nb++;
        p++;
    }
    if (!nb)
        return -1;
    int mynode = -1, lrank = 0, lsize = 0;
    int *node = calloc((size_t)info->size, sizeof *node);
    if (!node)
        return -1;
    for (int r = 0; r < info->size;) /* fill node[r] block by block */
        for (int b = 0; b < nb && r < info->size; b++)
            for (int n = 0; n < blocks[b][1] && r < info->size; n++)
                for (int k = 0; k < blocks[b][2] && r < info->size; k++)
                    node[r++] = blocks[b][0] + n;
    mynode = node[info->rank];
    for (int r = 0; r < info->size; r++)
        if (node[r] == mynode) {
            lrank += r < info->rank;
            lsize++;
        }
    free(node);
    info->node_id = mynode;
    info->local_rank = lrank;
    info->local_size = lsize;
    return 0;
}

static int p_init(fm_boot_info *info, char *err, size_t errlen)
{
    int spawned = 0, size = 0, rank = 0, appnum = 0;
    int rc = PMI2_Init(&spawned, &size, &rank, &appnum);
    if (rc != PMI2_SUCCESS)
        return fm_boot_fail(err, errlen,
                            "PMI_FD/PMI_RANK are set, but PMI2_Init failed (error %d); does this launcher speak "
                            "PMI-2? (srun --mpi=pmi2 and MPICH's mpiexec do)",
                            rc);
    if (size < 1 || rank < 0 || rank >= size) {
        PMI2_Finalize();
        return fm_boot_fail(err, errlen, "PMI2_Init returned rank %d of %d", rank, size);
    }
    P.rank = info->rank = rank;
    P.size = info->size = size;
    if (PMI2_Job_GetId(P.jobid, sizeof P.jobid) != PMI2_SUCCESS || !P.jobid[0]) {
        PMI2_Finalize();
        return fm_boot_fail(err, errlen, "PMI2_Job_GetId failed");
    }
    /* The job id names shm segments: the prefix keeps PMI-2 ids apart from
     * those of other launchers. */
    char id[64 + 8];
    snprintf(id, sizeof id, "p2.%.60s", P.jobid);
    fm_boot_set_jobid(info, id);
    if (locality_from_mapping(info) == 0)
        return FM_OK;
    return fm_boot_locality_by_hostname(&ops, info, err, errlen);
}

static int chunk_key(char *out, size_t cap, const char *key, int rank, int chunk)
{
    int n = chunk ? snprintf(out, cap, "%s@%d.%d", key, rank, chunk) : snprintf(out, cap, "%s@%d", key, rank);
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

static int p_put(const char *key, const void *val, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *v = val;
    size_t done = 0;
    for (int chunk = 0; chunk == 0 || done < len; chunk++) {
        char k[PMI2_MAX_KEYLEN], s[PMI2_MAX_VALLEN];
        if (chunk_key(k, sizeof k, key, P.rank, chunk)) {
            fm_error_msg("PMI-2 put: key %s is too long for PMI-2 (%d characters with the rank)", key,
                         PMI2_MAX_KEYLEN - 1);
            return FM_ERR_ARG;
        }
        size_t o = chunk ? 0 : (size_t)snprintf(s, sizeof s, "%zu:", len);
        for (size_t i = 0; i < CHUNK_HEX / 2 && done < len; i++, done++) {
            s[o++] = hex[v[done] >> 4];
            s[o++] = hex[v[done] & 15];
        }
        s[o] = '\0';
        int rc = PMI2_KVS_Put(k, s);
        if (rc != PMI2_SUCCESS) {
            fm_error_msg("PMI2_KVS_Put(%s): error %d", k, rc);
            return FM_ERR_BOOT;
        }
    }
    return FM_OK;
}

static int p_fence(void)
{
    int rc = PMI2_KVS_Fence();
    if (rc != PMI2_SUCCESS) {
        fm_error_msg("PMI2_KVS_Fence: error %d", rc);
        return FM_ERR_BOOT;
    }
    /* PMI-2 lets a fence be lazy, and hydra's is: it returns at once and
     * only a get of a missing key waits for every rank to fence.  Callers
     * rely on the fence being a barrier (shm unlinks segments after one),
     * so ask for a key nobody puts; Slurm answers "absent" at once. */
    static unsigned epoch;
    char k[PMI2_MAX_KEYLEN], v[8];
    int vlen = 0;
    snprintf(k, sizeof k, "fm.barrier.%u", epoch++);
    PMI2_KVS_Get(P.jobid, PMI2_ID_NULL, k, v, sizeof v, &vlen);
    return FM_OK;
}

static int unhex(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int p_get(int rank, const char *key, void *val, size_t *len)
{
    if (rank >= P.size)
        return FM_ERR_ARG;
    unsigned char *out = val;
    size_t total = 0, done = 0;
    for (int chunk = 0; chunk == 0 || done < total; chunk++) {
        char k[PMI2_MAX_KEYLEN], s[PMI2_MAX_VALLEN + 1];
        int vlen = 0;
        if (chunk_key(k, sizeof k, key, rank, chunk))
            return FM_ERR_ARG;
        if (PMI2_KVS_Get(P.jobid, rank, k, s, PMI2_MAX_VALLEN, &vlen) != PMI2_SUCCESS || vlen < 0)
            return FM_ERR_ARG;
        s[vlen < PMI2_MAX_VALLEN ? vlen : PMI2_MAX_VALLEN] = '\0';
        const char *h = s;
        if (chunk == 0) {
            char *end;
            total = strtoul(s, &end, 10);
            if (*end != ':' || total > FM_BOOT_VAL_MAX)
                return FM_ERR_BOOT;
            if (total > *len)
                return FM_ERR_TRUNCATE;
            h = end + 1;
        }
        for (; h[0] && h[1] && done < total; h += 2) {
            int hi = unhex(h[0]), lo = unhex(h[1]);
            if (hi < 0 || lo < 0)
                return FM_ERR_BOOT;
            out[done++] = (unsigned char)(hi << 4 | lo);
        }
        if (chunk > (int)(FM_BOOT_VAL_MAX / (CHUNK_HEX / 2)) + 1)
            return FM_ERR_BOOT; /* chunks that never fill the value */
    }
    *len = total;
    return FM_OK;
}

static void p_abort(int code, const char *why) __attribute__((noreturn));
static void p_abort(int code, const char *why)
{
    /* PMI-2 carries no exit code: say it here, then let the launcher end
     * every rank (flag 1 = the whole job). */
    fm_error_msg("MPI_Abort with code %d%s%s; asking the PMI-2 launcher to end the job", code,
                 why[0] ? ": " : "", why);
    PMI2_Abort(1, why);
    _exit(code);
}

static int p_finalize(void)
{
    int rc = PMI2_Finalize();
    if (rc != PMI2_SUCCESS) {
        fm_error_msg("PMI2_Finalize: error %d", rc);
        return FM_ERR_BOOT;
    }
    return FM_OK;
}

static const struct fm_boot_ops ops = {
    .name = "pmi2",
    .init = p_init,
    .put = p_put,
    .fence = p_fence,
    .get = p_get,
    .abort = p_abort,
    .finalize = p_finalize,
};
const struct fm_boot_ops *const fm_boot_pmi2_ops = &ops;
