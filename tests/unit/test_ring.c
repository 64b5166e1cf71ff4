/* test_ring.c — the shm ring over ordinary memory, producer and consumer as
 * two threads.  Also meant to run clean under -fsanitize=thread. */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "net/shm/ring.h"
#include "util/status.h"

#ifndef RING_TEST_MSGS
#define RING_TEST_MSGS 1000000
#endif

static void *ring_alloc(size_t size)
{
    void *mem = NULL;
    if (posix_memalign(&mem, 64, fm_ring_footprint(size)) != 0)
        return NULL;
    memset(mem, 0, fm_ring_footprint(size));
    fm_ring_format(mem, size);
    return mem;
}

/* Byte i of message seq: anything that differs between neighbours. */
static inline uint8_t pattern(uint64_t seq, size_t i) { return (uint8_t)(seq * 131 + i * 7 + (i >> 8)); }

/* Sizes cycle through small, cell-boundary and near-maximal values so that
 * records of every shape meet the end of the ring. */
static size_t msg_len(uint64_t seq, size_t max)
{
    static const size_t fixed[] = {0, 1, 7, 8, 24, 25, 55, 56, 57, 63, 64, 120, 121, 1000};
    enum { NFIXED = sizeof fixed / sizeof *fixed };
    uint64_t k = seq % (NFIXED + 4);
    if (k < NFIXED)
        return fixed[k] > max ? max : fixed[k];
    if (k == NFIXED)
        return max;
    return (size_t)((seq * 2654435761u) % (max + 1));
}

/* Consumer state (the deliver callback has no user pointer). */
static struct {
    uint64_t expect; /* next sequence number */
    size_t max;
    int bad;
} rx_state;

static void check_msg(int peer, const void *msg, size_t len)
{
    const uint8_t *p = msg;
    uint64_t seq = rx_state.expect++;
    size_t want = msg_len(seq, rx_state.max);
    if (peer != 7 || len != want) {
        rx_state.bad++;
        return;
    }
    if (len >= 8) {
        uint64_t got;
        memcpy(&got, p, 8);
        if (got != seq)
            rx_state.bad++;
    }
    for (size_t i = 8; i < len; i++)
        if (p[i] != pattern(seq, i)) {
            rx_state.bad++;
            return;
        }
}

/* Build message seq: 8-byte sequence number as "header", pattern after. */
static size_t build_msg(uint8_t *buf, uint64_t seq, size_t max)
{
    size_t len = msg_len(seq, max);
    uint8_t s8[8];
    memcpy(s8, &seq, 8);
    memcpy(buf, s8, len < 8 ? len : 8);
    for (size_t i = 8; i < len; i++)
        buf[i] = pattern(seq, i);
    return len;
}

struct producer_arg {
    void *mem;
    uint64_t count;
    uint64_t again; /* how often the ring was full */
};

static void *producer(void *arg)
{
    struct producer_arg *pa = arg;
    fm_ring_tx tx;
    if (fm_ring_tx_attach(&tx, pa->mem) != FM_OK)
        return (void *)1;
    uint8_t *buf = malloc(tx.max_msg);
    for (uint64_t seq = 0; seq < pa->count; seq++) {
        size_t len = build_msg(buf, seq, tx.max_msg);
        /* split into a "header" and a payload to exercise both copies */
        size_t hlen = len < 24 ? len : 24;
        int rc;
        while ((rc = fm_ring_send(&tx, buf, hlen, len > hlen ? buf + hlen : NULL, len - hlen)) ==
               FM_ERR_AGAIN) {
            pa->again++;
            sched_yield();
        }
        if (rc != FM_OK) {
            free(buf);
            return (void *)2;
        }
    }
    free(buf);
    return NULL;
}

static void run_threads(size_t ring_size, uint64_t count)
{
    void *mem = ring_alloc(ring_size);
    assert_non_null(mem);
    fm_ring_rx rx;
    assert_int_equal(fm_ring_rx_attach(&rx, mem), FM_OK);
    rx_state.expect = 0;
    rx_state.bad = 0;
    rx_state.max = fm_ring_max_msg(ring_size);

    struct producer_arg pa = {mem, count, 0};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, producer, &pa), 0);
    while (rx_state.expect < count) {
        if (fm_ring_poll(&rx, 7, check_msg, 1 + (int)(rx_state.expect % 32)) == 0)
            sched_yield();
    }
    void *res;
    assert_int_equal(pthread_join(th, &res), 0);
    assert_null(res);
    assert_int_equal(rx_state.bad, 0);
    assert_int_equal(fm_ring_poll(&rx, 7, check_msg, 100), 0);
    assert_true(pa.again > 0); /* the small ring did fill up */
    free(mem);
}

static void test_layout(void **state)
{
    (void)state;
    assert_int_equal(sizeof(fm_ring_ctl), 128);
    assert_int_equal(offsetof(fm_ring_ctl, tail), 64);
    assert_int_equal(fm_ring_round_size(16384), 16384);
    assert_int_equal(fm_ring_round_size(16385), 32768);
    assert_int_equal(fm_ring_max_msg(16384), 4096 - 8);
}

static void test_threads_small_ring(void **state)
{
    (void)state;
    run_threads(16384, RING_TEST_MSGS);
}

static void test_threads_default_ring(void **state)
{
    (void)state;
    run_threads(256 * 1024, RING_TEST_MSGS / 4);
}

static int count_cb_n;
static void count_cb(int peer, const void *msg, size_t len)
{
    (void)peer;
    (void)msg;
    (void)len;
    count_cb_n++;
}

static void test_full_then_drain(void **state)
{
    (void)state;
    size_t size = 16384;
    void *mem = ring_alloc(size);
    fm_ring_tx tx;
    fm_ring_rx rx;
    assert_int_equal(fm_ring_tx_attach(&tx, mem), FM_OK);
    assert_int_equal(fm_ring_rx_attach(&rx, mem), FM_OK);
    uint8_t buf[1000];
    memset(buf, 0xab, sizeof buf);
    int sent = 0;
    while (fm_ring_send(&tx, buf, 24, buf, sizeof buf - 24) == FM_OK)
        sent++;
    /* 1000 bytes + header word = 16 cells; one cell stays free */
    assert_int_equal(sent, (int)((size - 64) / 1024));
    assert_int_equal(fm_ring_send(&tx, buf, 24, buf, sizeof buf - 24), FM_ERR_AGAIN);
    /* AGAIN wrote nothing: the consumer sees exactly `sent` messages */
    count_cb_n = 0;
    assert_int_equal(fm_ring_poll(&rx, 0, count_cb, 1), 1);
    /* one freed record makes room for exactly one more */
    assert_int_equal(fm_ring_send(&tx, buf, 24, buf, sizeof buf - 24), FM_OK);
    assert_int_equal(fm_ring_send(&tx, buf, 24, buf, sizeof buf - 24), FM_ERR_AGAIN);
    assert_int_equal(fm_ring_poll(&rx, 0, count_cb, 1000), sent);
    assert_int_equal(count_cb_n, sent + 1);
    /* drained: a maximal message fits again, and again after wrapping */
    for (int i = 0; i < 20; i++) {
        uint8_t big[4088];
        memset(big, i, sizeof big);
        assert_int_equal(fm_ring_send(&tx, big, 8, big + 8, sizeof big - 8), FM_OK);
        assert_int_equal(fm_ring_poll(&rx, 0, count_cb, 10), 1);
    }
    free(mem);
}

static size_t zero_len_seen;
static int zero_calls;
static void zero_cb(int peer, const void *msg, size_t len)
{
    (void)peer;
    assert_non_null(msg);
    zero_len_seen += len;
    zero_calls++;
}

static void test_zero_length(void **state)
{
    (void)state;
    void *mem = ring_alloc(16384);
    fm_ring_tx tx;
    fm_ring_rx rx;
    assert_int_equal(fm_ring_tx_attach(&tx, mem), FM_OK);
    assert_int_equal(fm_ring_rx_attach(&rx, mem), FM_OK);
    /* Header-only message (payload NULL) and an entirely empty one. */
    fm_hdr h = {.proto = FM_PROTO_EAGER, .tag = 5};
    for (int i = 0; i < 600; i++) {
        assert_int_equal(fm_ring_send(&tx, &h, sizeof h, NULL, 0), FM_OK);
        assert_int_equal(fm_ring_send(&tx, NULL, 0, NULL, 0), FM_OK);
        assert_int_equal(fm_ring_poll(&rx, 0, zero_cb, 5), 2);
    }
    assert_int_equal(zero_calls, 1200);
    assert_int_equal(zero_len_seen, 600 * sizeof h);
    free(mem);
}

static void test_too_big(void **state)
{
    (void)state;
    void *mem = ring_alloc(16384);
    fm_ring_tx tx;
    assert_int_equal(fm_ring_tx_attach(&tx, mem), FM_OK);
    static uint8_t buf[8192];
    assert_int_equal(fm_ring_send(&tx, buf, 8, buf, tx.max_msg - 7), FM_ERR_ARG);
    assert_int_equal(fm_ring_send(&tx, buf, 8, buf, tx.max_msg - 8), FM_OK);
    /* a ring with a bad magic is refused */
    ((fm_ring_ctl *)mem)->magic = 0;
    assert_int_equal(fm_ring_tx_attach(&tx, mem), FM_ERR_NET);
    free(mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_full_then_drain),
        cmocka_unit_test(test_zero_length),
        cmocka_unit_test(test_too_big),
        cmocka_unit_test(test_threads_small_ring),
        cmocka_unit_test(test_threads_default_ring),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
