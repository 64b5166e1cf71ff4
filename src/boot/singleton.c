/* singleton.c — the backend of a process started without a launcher: a job
 * of one, whose key-value store is the local table (kvs.c). */
#include "boot/backend.h"
#include "boot/kvs.h"
#include "util/log.h"
#include "util/status.h"

#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

static int s_init(fm_boot_info *info, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    /* The job id only has to be unique on this node: it names shm segments. */
    unsigned int rnd = 0;
    if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != sizeof rnd)
        rnd = (unsigned int)time(NULL);
    snprintf(info->jobid, sizeof info->jobid, "s%x-%08x", (unsigned)getpid(), rnd);
    info->size = info->local_size = 1;
    return FM_OK;
}

static int s_put(const char *key, const void *val, size_t len)
{
    return fm_kvs_put(0, key, strlen(key), val, len);
}

static int s_fence(void)
{
    return FM_OK;
}

static int s_get(int rank, const char *key, void *val, size_t *len)
{
    size_t vlen;
    const void *v = rank == 0 ? fm_kvs_get(0, key, strlen(key), &vlen) : NULL;
    if (!v)
        return FM_ERR_ARG;
    if (vlen > *len)
        return FM_ERR_TRUNCATE;
    if (vlen)
        memcpy(val, v, vlen);
    *len = vlen;
    return FM_OK;
}

static void s_abort(int code, const char *why) __attribute__((noreturn));
static void s_abort(int code, const char *why)
{
    fm_error_msg("MPI_Abort with code %d%s%s", code, why[0] ? ": " : "", why);
    _exit(code);
}

static int s_finalize(void)
{
    fm_kvs_clear();
    return FM_OK;
}

const struct fm_boot_ops fm_boot_singleton_ops = {
    .name = "singleton",
    .init = s_init,
    .put = s_put,
    .fence = s_fence,
    .get = s_get,
    .abort = s_abort,
    .finalize = s_finalize,
};
