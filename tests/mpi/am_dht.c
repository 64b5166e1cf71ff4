/* am_dht — a small distributed hash table on the public layer, as a PGAS
 * runtime would build one: each key belongs to rank hash(key) % size,
 * whose segment holds an open-addressing table of slots and a heap of
 * values.  Insert is a Medium request carrying the value (the owner's
 * handler stores it and replies with where); lookup is a Short request
 * answered by a Short reply with the value's address and length, and the
 * value itself is then read with fab_rma_get.  Every rank inserts
 * FM_DHT_KEYS keys (default 2000) with values of 1 to 300 bytes, then
 * overwrites a third of them with new values, then looks up every key of
 * every rank and as many absent ones: each value is checked byte for byte,
 * each absent key must be reported absent. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <fabmpi/am.h>

#include "testutil.h"

enum { H_INSERT = 10, H_INSERT_R, H_LOOKUP, H_LOOKUP_R };

struct slot {
    uint64_t key; /* 0: empty */
    uint64_t val; /* address of the value in this segment */
    uint64_t len;
};

static int rank, size, nkeys;
static char *seg;
static size_t seg_size, nslots;
static struct slot *table; /* at the start of our segment */
static size_t heap_used;   /* values follow the table */
/* Set by reply handlers, which may run on the progress thread: answer is
 * written before answered is released. */
static _Atomic int answered;
static fab_am_arg_t answer[2];

static uint64_t key_of(int r, int i) { return ((uint64_t)(r + 1) << 32) | (uint64_t)(i + 1); }
static int owner(uint64_t k) { return (int)((k * 0x9e3779b97f4a7c15ull >> 33) % (uint64_t)size); }
static size_t len_of(uint64_t k, int version) { return 1 + (k * 7 + (uint64_t)version * 13) % 300; }
static unsigned seed_of(uint64_t k, int version) { return (unsigned)(k ^ (k >> 32)) + 101u * (unsigned)version; }

static struct slot *find(uint64_t k, int claim)
{
    for (size_t i = (size_t)(k * 0x2545f4914f6cdd1dull % nslots), n = 0; n < nslots;
         i = (i + 1) % nslots, n++) {
        if (table[i].key == k)
            return &table[i];
        if (table[i].key == 0)
            return claim ? &table[i] : NULL;
    }
    return NULL;
}

static void on_insert(fab_am_token_t t, void *buf, size_t n, const fab_am_arg_t *a, unsigned na)
{
    CHECK_EQ(na, 1);
    struct slot *s = find(a[0], 1);
    CHECKF(s != NULL, "table of rank %d full", rank);
    if (!s->key || s->len < n) { /* new key, or a longer value: fresh heap bytes */
        size_t at = nslots * sizeof *table + heap_used;
        CHECKF(at + n <= seg_size, "heap of rank %d full", rank);
        s->val = (uint64_t)(uintptr_t)(seg + at);
        heap_used += (n + 7) & ~(size_t)7;
    }
    s->key = a[0];
    s->len = n;
    memcpy((void *)(uintptr_t)s->val, buf, n);
    fab_am_arg_t back = a[0];
    CHECK_EQ(fab_am_reply_short(t, H_INSERT_R, 0, 1, &back), FAB_OK);
}

static void on_insert_reply(fab_am_token_t t, void *b, size_t n, const fab_am_arg_t *a, unsigned na)
{
    (void)t, (void)b, (void)n, (void)a, (void)na;
    answered++;
}

static void on_lookup(fab_am_token_t t, void *b, size_t n, const fab_am_arg_t *a, unsigned na)
{
    (void)b, (void)n, (void)na;
    const struct slot *s = find(a[0], 0);
    fab_am_arg_t back[2] = {s ? s->val : 0, s ? s->len : 0};
    CHECK_EQ(fab_am_reply_short(t, H_LOOKUP_R, 0, 2, back), FAB_OK);
}

static void on_lookup_reply(fab_am_token_t t, void *b, size_t n, const fab_am_arg_t *a, unsigned na)
{
    (void)t, (void)b, (void)n;
    CHECK_EQ(na, 2);
    answer[0] = a[0];
    answer[1] = a[1];
    answered = 1;
}

static void insert(uint64_t k, int version, char *buf)
{
    size_t len = len_of(k, version);
    tu_fill(buf, len, seed_of(k, version));
    fab_am_arg_t a = k;
    CHECK_EQ(fab_am_request_medium(owner(k), H_INSERT, buf, len, 0, 1, &a), FAB_OK);
}

/* 1 and the value in buf (*len bytes) when found. */
static int lookup(uint64_t k, char *buf, size_t *len)
{
    answered = 0;
    fab_am_arg_t a = k;
    CHECK_EQ(fab_am_request_short(owner(k), H_LOOKUP, 0, 1, &a), FAB_OK);
    while (!answered)
        CHECK_EQ(fab_poll(), FAB_OK);
    if (!answer[0])
        return 0;
    *len = (size_t)answer[1];
    CHECK_EQ(fab_rma_get(buf, owner(k), (void *)(uintptr_t)answer[0], *len, 0), FAB_OK);
    return 1;
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    nkeys = getenv("FM_DHT_KEYS") ? atoi(getenv("FM_DHT_KEYS")) : 2000;
    void *b;
    CHECK_EQ(fab_segment(rank, &b, &seg_size), FAB_OK);
    seg = b;
    table = b;
    nslots = 4 * (size_t)nkeys + 1; /* a quarter full when keys spread evenly */
    CHECK(nslots * sizeof *table < seg_size);
    CHECK_EQ(fab_am_register(H_INSERT, on_insert, FAB_AM_REQUEST, "insert"), FAB_OK);
    CHECK_EQ(fab_am_register(H_INSERT_R, on_insert_reply, FAB_AM_REPLY, "inserted"), FAB_OK);
    CHECK_EQ(fab_am_register(H_LOOKUP, on_lookup, FAB_AM_REQUEST, "lookup"), FAB_OK);
    CHECK_EQ(fab_am_register(H_LOOKUP_R, on_lookup_reply, FAB_AM_REPLY, "found"), FAB_OK);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* handlers registered everywhere */

    char buf[512];
    answered = 0;
    for (int i = 0; i < nkeys; i++)
        insert(key_of(rank, i), 0, buf);
    while (answered < nkeys)
        CHECK_EQ(fab_poll(), FAB_OK);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    /* Overwrite every third key with its version 1. */
    answered = 0;
    int over = 0;
    for (int i = 0; i < nkeys; i += 3, over++)
        insert(key_of(rank, i), 1, buf);
    while (answered < over)
        CHECK_EQ(fab_poll(), FAB_OK);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    long found = 0;
    for (int r = 0; r < size; r++)
        for (int i = 0; i < nkeys; i++) {
            uint64_t k = key_of((rank + r) % size, i);
            int version = i % 3 == 0;
            size_t len = 0;
            CHECKF(lookup(k, buf, &len), "key %llx not found", (unsigned long long)k);
            CHECKF(len == len_of(k, version), "key %llx: %zu bytes, not %zu", (unsigned long long)k,
                   len, len_of(k, version));
            long bad = tu_verify(buf, len, seed_of(k, version));
            CHECKF(bad < 0, "key %llx: byte %ld differs", (unsigned long long)k, bad);
            found++;
            size_t none;
            CHECKF(!lookup(key_of(size + rank, i), buf, &none), "absent key %d found", i);
        }
    CHECK_EQ(found, (long)size * nkeys);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("am_dht: %d ranks x %d keys inserted, a third overwritten, all found exactly\n", size,
               nkeys);
    CHECK_MPI(MPI_Finalize());
    return 0;
}
