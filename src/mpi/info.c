/* info.c — MPI_Info objects: an ordered list of (key, value) strings.
 *
 * Keys keep the order they were first set in, so MPI_Info_get_nthkey is
 * stable while nothing is deleted.  Lists are short (a few hints), so a
 * linear search beats anything cleverer.  As MPI-4.0 allows, the info
 * calls work before MPI_Init and after MPI_Finalize (MPI_Info_create_env's
 * object is made to be read then); MPI_INFO_ENV is filled by MPI_Init
 * (info_env.c). */
#include <stdlib.h>
#include <string.h>

#include "mpi/api.h"
#include "mpi/info.h"
#include "util/handle_pool.h"

#define FM_MAGIC_INFO 0x494e464fu

typedef struct info_entry {
    char *key, *value;
} info_entry;

struct fm_info {
    uint32_t magic;
    int n, cap;
    info_entry *e;
};

/* Info objects behind user handles (handle_pool.h). */
static fm_handle_pool info_pool = FM_HANDLE_POOL(struct fm_info);

/* MPI_INFO_ENV: a predefined object, never freed. */
struct fm_info fab_info_env = {.magic = FM_MAGIC_INFO};

static int info_valid(MPI_Info info) { return info && info->magic == FM_MAGIC_INFO; }

#define CHECK_INFO(call, info)                                                          \
    do {                                                                                \
        if (!info_valid(info))                                                          \
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_INFO, "info=%s is not valid",  \
                            (info) == MPI_INFO_NULL ? "MPI_INFO_NULL" : "<invalid>");   \
    } while (0)

#define CHECK_PTR(call, p, what)                                                        \
    do {                                                                                \
        if (!(p))                                                                       \
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "%s=NULL", what);        \
    } while (0)

/* Keys: 1..MPI_MAX_INFO_KEY characters (the standard ignores leading and
 * trailing spaces; we keep keys as given, which every caller in practice
 * does too). */
#define CHECK_KEY(call, key)                                                            \
    do {                                                                                \
        if (!(key))                                                                     \
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_INFO_KEY, "key=NULL");        \
        size_t kl_ = strlen(key);                                                       \
        if (kl_ == 0 || kl_ > MPI_MAX_INFO_KEY)                                         \
            return fm_raise(MPI_COMM_NULL, call, MPI_ERR_INFO_KEY,                      \
                            "key of %zu characters; must be 1..%d", kl_, MPI_MAX_INFO_KEY); \
    } while (0)

static int find(MPI_Info info, const char *key)
{
    for (int i = 0; i < info->n; i++)
        if (strcmp(info->e[i].key, key) == 0)
            return i;
    return -1;
}

#pragma weak MPI_Info_create = PMPI_Info_create
int PMPI_Info_create(MPI_Info *info)
{
    FM_API_LOCK();
    CHECK_PTR("MPI_Info_create", info, "info");
    struct fm_info *in = fm_handle_get(&info_pool);
    if (!in)
        return fm_raise(MPI_COMM_NULL, "MPI_Info_create", MPI_ERR_NO_MEM, "out of memory");
    in->magic = FM_MAGIC_INFO;
    *info = in;
    return MPI_SUCCESS;
}

/* Set key (checked) to value; FM_OK, or FM_ERR_NOMEM with info unchanged. */
int fm_info_set(MPI_Info info, const char *key, const char *value)
{
    char *v = strdup(value);
    if (!v)
        return FM_ERR_NOMEM;
    int i = find(info, key);
    if (i >= 0) {
        free(info->e[i].value);
        info->e[i].value = v;
        return FM_OK;
    }
    if (info->n == info->cap) {
        int cap = info->cap ? info->cap * 2 : 8;
        info_entry *e = realloc(info->e, (size_t)cap * sizeof *e);
        if (!e) {
            free(v);
            return FM_ERR_NOMEM;
        }
        info->e = e;
        info->cap = cap;
    }
    char *k = strdup(key);
    if (!k) {
        free(v);
        return FM_ERR_NOMEM;
    }
    info->e[info->n].key = k;
    info->e[info->n].value = v;
    info->n++;
    return FM_OK;
}

#pragma weak MPI_Info_set = PMPI_Info_set
int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    FM_API_LOCK();
    const char *call = "MPI_Info_set";
    CHECK_INFO(call, info);
    CHECK_KEY(call, key);
    if (!value)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_INFO_VALUE, "value=NULL");
    size_t vl = strlen(value);
    if (vl > MPI_MAX_INFO_VAL)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_INFO_VALUE,
                        "value of %zu characters; at most %d", vl, MPI_MAX_INFO_VAL);
    if (fm_info_set(info, key, value) != FM_OK)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_NO_MEM, "out of memory");
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get = PMPI_Info_get
int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    FM_API_LOCK();
    const char *call = "MPI_Info_get";
    CHECK_INFO(call, info);
    CHECK_KEY(call, key);
    CHECK_PTR(call, flag, "flag");
    if (valuelen < 0)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "valuelen=%d must be >= 0", valuelen);
    int i = find(info, key);
    if (i < 0) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    CHECK_PTR(call, value, "value");
    /* valuelen excludes the terminator: up to valuelen characters + '\0' */
    size_t n = strlen(info->e[i].value);
    if (n > (size_t)valuelen)
        n = (size_t)valuelen;
    memcpy(value, info->e[i].value, n);
    value[n] = 0;
    *flag = 1;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_string = PMPI_Info_get_string
int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    FM_API_LOCK();
    const char *call = "MPI_Info_get_string";
    CHECK_INFO(call, info);
    CHECK_KEY(call, key);
    CHECK_PTR(call, buflen, "buflen");
    CHECK_PTR(call, flag, "flag");
    if (*buflen < 0)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "*buflen=%d must be >= 0", *buflen);
    int i = find(info, key);
    if (i < 0) {
        *flag = 0; /* value and buflen untouched */
        return MPI_SUCCESS;
    }
    /* buflen counts the terminator both ways: in, the room in value; out,
     * the room the whole value needs.  A value too long for the room is
     * cut to *buflen - 1 characters; with no room, value is not touched. */
    size_t n = strlen(info->e[i].value);
    if (*buflen > 0) {
        CHECK_PTR(call, value, "value");
        size_t room = (size_t)*buflen - 1, k = n < room ? n : room;
        memcpy(value, info->e[i].value, k);
        value[k] = 0;
    }
    *buflen = (int)n + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_valuelen = PMPI_Info_get_valuelen
int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    FM_API_LOCK();
    const char *call = "MPI_Info_get_valuelen";
    CHECK_INFO(call, info);
    CHECK_KEY(call, key);
    CHECK_PTR(call, valuelen, "valuelen");
    CHECK_PTR(call, flag, "flag");
    int i = find(info, key);
    *flag = i >= 0;
    if (i >= 0)
        *valuelen = (int)strlen(info->e[i].value);
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_nkeys = PMPI_Info_get_nkeys
int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    FM_API_LOCK();
    CHECK_INFO("MPI_Info_get_nkeys", info);
    CHECK_PTR("MPI_Info_get_nkeys", nkeys, "nkeys");
    *nkeys = info->n;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_nthkey = PMPI_Info_get_nthkey
int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    FM_API_LOCK();
    const char *call = "MPI_Info_get_nthkey";
    CHECK_INFO(call, info);
    CHECK_PTR(call, key, "key");
    if (n < 0 || n >= info->n)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "n=%d; the info holds %d keys", n,
                        info->n);
    strcpy(key, info->e[n].key);
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_delete = PMPI_Info_delete
int PMPI_Info_delete(MPI_Info info, const char *key)
{
    FM_API_LOCK();
    const char *call = "MPI_Info_delete";
    CHECK_INFO(call, info);
    CHECK_KEY(call, key);
    int i = find(info, key);
    if (i < 0)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_INFO_NOKEY, "key \"%s\" is not set", key);
    free(info->e[i].key);
    free(info->e[i].value);
    memmove(&info->e[i], &info->e[i + 1], (size_t)(info->n - i - 1) * sizeof *info->e);
    info->n--;
    return MPI_SUCCESS;
}

static void info_destroy(MPI_Info info)
{
    for (int i = 0; i < info->n; i++) {
        free(info->e[i].key);
        free(info->e[i].value);
    }
    free(info->e);
    fm_handle_put(&info_pool, info);
}

int fm_info_merge(MPI_Info *dst, MPI_Info src)
{
    if (src == MPI_INFO_NULL)
        return FM_OK;
    if (*dst == MPI_INFO_NULL) {
        struct fm_info *d = fm_handle_get(&info_pool);
        if (!d)
            return FM_ERR_NOMEM;
        d->magic = FM_MAGIC_INFO;
        *dst = d;
    }
    for (int i = 0; i < src->n; i++)
        if (fm_info_set(*dst, src->e[i].key, src->e[i].value) != FM_OK)
            return FM_ERR_NOMEM;
    return FM_OK;
}

int fm_info_copy(MPI_Info src, MPI_Info *out)
{
    MPI_Info d = MPI_INFO_NULL;
    struct fm_info empty = {.magic = FM_MAGIC_INFO};
    int rc = fm_info_merge(&d, src != MPI_INFO_NULL ? src : &empty);
    if (rc != FM_OK) {
        if (d)
            info_destroy(d);
        return rc;
    }
    *out = d;
    return FM_OK;
}

void fm_info_release(MPI_Info info)
{
    if (info != MPI_INFO_NULL)
        info_destroy(info);
}

#pragma weak MPI_Info_dup = PMPI_Info_dup
int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    FM_API_LOCK();
    const char *call = "MPI_Info_dup";
    CHECK_INFO(call, info);
    CHECK_PTR(call, newinfo, "newinfo");
    if (fm_info_copy(info, newinfo) != FM_OK)
        return fm_raise(MPI_COMM_NULL, call, MPI_ERR_NO_MEM, "out of memory");
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_free = PMPI_Info_free
int PMPI_Info_free(MPI_Info *info)
{
    FM_API_LOCK();
    CHECK_PTR("MPI_Info_free", info, "info");
    CHECK_INFO("MPI_Info_free", *info);
    if (*info == &fab_info_env)
        return fm_raise(MPI_COMM_NULL, "MPI_Info_free", MPI_ERR_INFO,
                        "info=MPI_INFO_ENV is predefined and cannot be freed");
    info_destroy(*info);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

int fm_info_valid(MPI_Info info) { return info_valid(info); }
