/* kvs.c — chained hash table of (rank, key) -> value, grown by doubling. */
#include "boot/kvs.h"
#include "util/status.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct kv {
    struct kv *next;
    uint64_t hash;
    int rank;
    size_t klen, vlen;
    unsigned char *val;
    char key[]; /* klen bytes, then a NUL for debugging convenience */
};

static struct kv **buckets;
static size_t nbuckets, count;

static uint64_t kv_hash(int rank, const char *key, size_t klen)
{
    uint64_t h = 1469598103934665603ull ^ (uint64_t)(uint32_t)rank;
    for (size_t i = 0; i < klen; i++)
        h = (h ^ (unsigned char)key[i]) * 1099511628211ull;
    return h ^ (h >> 29);
}

static struct kv **find(uint64_t h, int rank, const char *key, size_t klen)
{
    struct kv **pp = &buckets[h & (nbuckets - 1)];
    for (; *pp; pp = &(*pp)->next) {
        struct kv *e = *pp;
        if (e->hash == h && e->rank == rank && e->klen == klen && !memcmp(e->key, key, klen))
            break;
    }
    return pp;
}

/* Keep chains short: double when the load passes 1. */
static int grow(void)
{
    size_t n = nbuckets ? nbuckets * 2 : 64;
    struct kv **nb = calloc(n, sizeof *nb);
    if (!nb)
        return FM_ERR_NOMEM;
    for (size_t i = 0; i < nbuckets; i++) {
        for (struct kv *e = buckets[i], *next; e; e = next) {
            next = e->next;
            e->next = nb[e->hash & (n - 1)];
            nb[e->hash & (n - 1)] = e;
        }
    }
    free(buckets);
    buckets = nb;
    nbuckets = n;
    return FM_OK;
}

int fm_kvs_put(int rank, const char *key, size_t klen, const void *val, size_t vlen)
{
    if (count >= nbuckets && grow() != FM_OK)
        return FM_ERR_NOMEM;
    uint64_t h = kv_hash(rank, key, klen);
    struct kv **pp = find(h, rank, key, klen);
    unsigned char *copy = malloc(vlen ? vlen : 1);
    if (!copy)
        return FM_ERR_NOMEM;
    memcpy(copy, val, vlen);
    if (*pp) { /* replace the value of an existing key */
        free((*pp)->val);
        (*pp)->val = copy;
        (*pp)->vlen = vlen;
        return FM_OK;
    }
    struct kv *e = malloc(sizeof *e + klen + 1);
    if (!e) {
        free(copy);
        return FM_ERR_NOMEM;
    }
    e->next = NULL;
    e->hash = h;
    e->rank = rank;
    e->klen = klen;
    e->vlen = vlen;
    e->val = copy;
    memcpy(e->key, key, klen);
    e->key[klen] = '\0';
    *pp = e;
    count++;
    return FM_OK;
}

const void *fm_kvs_get(int rank, const char *key, size_t klen, size_t *vlen)
{
    if (!nbuckets)
        return NULL;
    struct kv *e = *find(kv_hash(rank, key, klen), rank, key, klen);
    if (!e)
        return NULL;
    *vlen = e->vlen;
    return e->val;
}

void fm_kvs_clear(void)
{
    for (size_t i = 0; i < nbuckets; i++) {
        for (struct kv *e = buckets[i], *next; e; e = next) {
            next = e->next;
            free(e->val);
            free(e);
        }
    }
    free(buckets);
    buckets = NULL;
    nbuckets = count = 0;
}
