/* test_doorbell.c — rings plus doorbells with producers and a consumer as
 * threads: every message arrives exactly once, in order per producer, and
 * the consumer, which only visits rings whose bell is set, never misses a
 * message (a lost wakeup shows as a timeout).  Meant to run under TSan too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>

#include <cmocka.h>

#include "net/shm/doorbell.h"
#include "net/shm/ring.h"
#include "util/status.h"

#define NPROD 6
#ifndef NMSG
#define NMSG 200000
#endif
#define RING 16384

static _Alignas(64) _Atomic uint8_t bells[8];
static void *ring_mem[NPROD];
static fm_ring_rx rx[NPROD];
static uint32_t next_expected[NPROD];
static int bad;

static void deliver(int peer, const void *msg, size_t len)
{
    uint32_t v;
    if (len < sizeof v) {
        bad = 1;
        return;
    }
    memcpy(&v, msg, sizeof v);
    if (v != next_expected[peer] || len != 4 + (v % 61))
        bad = 1;
    next_expected[peer]++;
}

static int visit(void *arg, int sender, int *more)
{
    (void)arg;
    int n = fm_ring_poll(&rx[sender], sender, deliver, 8);
    *more = n == 8;
    return n;
}

static void *producer(void *arg)
{
    int id = (int)(intptr_t)arg;
    fm_ring_tx tx;
    if (fm_ring_tx_attach(&tx, ring_mem[id]) != FM_OK)
        return (void *)1;
    unsigned char buf[64];
    for (uint32_t v = 0; v < NMSG; v++) {
        memset(buf, (int)v, sizeof buf);
        memcpy(buf, &v, sizeof v);
        while (fm_ring_send(&tx, buf, 4 + (v % 61), NULL, 0) == FM_ERR_AGAIN)
            ;
        fm_bell_ring(&bells[id]);
    }
    return NULL;
}

static void no_lost_wakeups(void **state)
{
    (void)state;
    for (int i = 0; i < NPROD; i++) {
        ring_mem[i] = aligned_alloc(4096, (fm_ring_footprint(RING) + 4095) & ~(size_t)4095);
        memset(ring_mem[i], 0, fm_ring_footprint(RING));
        fm_ring_format(ring_mem[i], RING);
        assert_int_equal(fm_ring_rx_attach(&rx[i], ring_mem[i]), FM_OK);
    }
    pthread_t t[NPROD];
    for (int i = 0; i < NPROD; i++)
        pthread_create(&t[i], NULL, producer, (void *)(intptr_t)i);
    long total = 0, want = (long)NPROD * NMSG;
    time_t start = time(NULL);
    while (total < want && time(NULL) - start < 120)
        total += fm_bell_scan(bells, NPROD, visit, NULL);
    for (int i = 0; i < NPROD; i++)
        pthread_join(t[i], NULL);
    /* Everything sent has been announced: one more scan finds nothing new. */
    total += fm_bell_scan(bells, NPROD, visit, NULL);
    assert_int_equal(total, want);
    assert_int_equal(bad, 0);
    for (int i = 0; i < NPROD; i++) {
        assert_int_equal(next_expected[i], NMSG);
        assert_int_equal(atomic_load(&bells[i]), 0);
        free(ring_mem[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(no_lost_wakeups)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
