/* test_lanes.c — a lane's biased lock (core/lanes.c) keeps out every other
 * thread while its bias owner is inside, also after a revocation that did
 * not wait: a thread that revoked the bias and found the owner inside
 * (fm_lanes_try_all gives up) must not leave the next taker believing the
 * lane is free.  Once that taker went straight in, beside the owner, and
 * two threads polled one lane's rings (a message lost, a threaded message
 * rate run hung).  Needs membarrier(2); skipped without it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include <cmocka.h>

#include "core/cs.h"
#include "core/vci.h"

static struct fm_vci *lane;
static atomic_int owner_inside, owner_go, taker_in;

static void nap_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* Wins the lane's bias by taking its word FM_CS_REBIAS_AFTER times in a
 * row, then enters through the bias and stays until told to go. */
static void *owner(void *arg)
{
    (void)arg;
    for (int i = 0; i < FM_CS_REBIAS_AFTER + 1; i++) {
        fm_lane_enter(lane);
        fm_lane_exit(lane);
    }
    fm_lane_enter(lane);
    atomic_store(&owner_inside, fm_cs_t.lane_via_bias ? 1 : -1);
    while (!atomic_load(&owner_go))
        nap_ms(1);
    fm_lane_exit(lane);
    atomic_store(&owner_inside, 0);
    return NULL;
}

/* Takes every lane's lock as the library lock's holder does. */
static void *taker(void *arg)
{
    (void)arg;
    fm_lanes_take_all();
    atomic_store(&taker_in, atomic_load(&owner_inside) ? -1 : 1);
    fm_lanes_give_all();
    return NULL;
}

/* A taker started while the owner is inside is still out 50 ms later, and
 * in once the owner has gone. */
static void taker_in_only_after_owner(pthread_t *o)
{
    pthread_t t;
    atomic_store(&taker_in, 0);
    assert_int_equal(pthread_create(&t, NULL, taker, NULL), 0);
    nap_ms(50);
    assert_int_equal(atomic_load(&taker_in), 0);
    atomic_store(&owner_go, 1);
    pthread_join(*o, NULL);
    pthread_join(t, NULL);
    assert_int_equal(atomic_load(&taker_in), 1);
}

static void start_owner_inside(pthread_t *t)
{
    atomic_store(&owner_go, 0);
    assert_int_equal(pthread_create(t, NULL, owner, NULL), 0);
    while (!atomic_load(&owner_inside))
        nap_ms(1);
    assert_int_equal(atomic_load(&owner_inside), 1); /* entered by the bias */
}

static void no_taker_beside_a_revoked_owner(void **state)
{
    (void)state;
    pthread_t o;
    start_owner_inside(&o);
    /* The first try revokes the bias and sees the owner inside. */
    assert_int_equal(fm_lanes_try_all(), 0);
    /* The bias is gone now; the owner is still inside all the same. */
    assert_int_equal(fm_lanes_try_all(), 0);
    /* A blocking taker waits for the owner too. */
    taker_in_only_after_owner(&o);
    /* Out: the lane is free, and whoever takes it next does not wait. */
    assert_int_equal(fm_lanes_try_all(), 1);
    fm_lanes_give_all();
}

static void taker_waits_for_the_bias_owner(void **state)
{
    (void)state;
    pthread_t o;
    start_owner_inside(&o);
    taker_in_only_after_owner(&o);
}

int main(void)
{
    fm_cs_on = 1;
    fm_cs_bias_to_caller(); /* registers membarrier: lane locks may be biased */
    lane = fm_lane_vci(1);
    fm_lanes_opened(1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(taker_waits_for_the_bias_owner),
        cmocka_unit_test(no_taker_beside_a_revoked_owner),
    };
    if (!fm_cs_can_bias()) {
        print_message("membarrier(2) unavailable: lane locks are never biased here\n");
        return 0;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
