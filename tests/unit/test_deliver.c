/* test_deliver.c — what delivery does with messages that are not matched:
 * protocols dispatched to registered handlers (room for active messages),
 * unknown protocols, and contexts without a matching queue. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "match/ctx_table.h"
#include "pt2pt/internal.h"
#include "pt2pt/pt2pt.h"
#include "util/status.h"

static int seen_peer = -1, seen_calls;
static size_t seen_len;
static char seen_payload[16];

static void handler(int peer, const void *msg, size_t len)
{
    seen_peer = peer;
    seen_len = len;
    seen_calls++;
    memcpy(seen_payload, (const char *)msg + sizeof(fm_hdr), len - sizeof(fm_hdr));
}

static void other_handler(int peer, const void *msg, size_t len) { (void)peer, (void)msg, (void)len; }

static void registered_protocols_reach_their_handler(void **state)
{
    (void)state;
    assert_int_equal(fm_deliver_register(FM_PROTO_HANDLER_FIRST + 4, handler), FM_OK);
    assert_int_equal(fm_deliver_register(FM_PROTO_HANDLER_FIRST + 4, handler), FM_OK);
    struct {
        fm_hdr h;
        char payload[8];
    } msg = {.h = {.proto = FM_PROTO_HANDLER_FIRST + 4, .len = 8}, .payload = "active!"};
    fm_deliver(3, &msg, sizeof msg);
    assert_int_equal(seen_calls, 1);
    assert_int_equal(seen_peer, 3);
    assert_int_equal(seen_len, sizeof msg);
    assert_string_equal(seen_payload, "active!");
}

static void registration_is_checked(void **state)
{
    (void)state;
    /* fabmpi's own protocols, beyond the table, and a taken slot. */
    assert_int_equal(fm_deliver_register(FM_PROTO_FIN, handler), FM_ERR_ARG);
    assert_int_equal(fm_deliver_register(FM_PROTO_HANDLER_FIRST - 1, handler), FM_ERR_ARG);
    assert_int_equal(fm_deliver_register(FM_PROTO_MAX, handler), FM_ERR_ARG);
    assert_int_equal(fm_deliver_register(FM_PROTO_HANDLER_FIRST + 5, handler), FM_OK);
    assert_int_equal(fm_deliver_register(FM_PROTO_HANDLER_FIRST + 5, other_handler), FM_ERR_ARG);
}

/* Dropped with a message, nothing called. */
static void unknown_protocols_are_dropped(void **state)
{
    (void)state;
    int before = seen_calls;
    fm_hdr h = {.proto = FM_PROTO_HANDLER_FIRST + 9};
    fm_deliver(1, &h, sizeof h);
    h.proto = 255;
    fm_deliver(1, &h, sizeof h);
    h.proto = 0;
    fm_deliver(1, &h, sizeof h);
    assert_int_equal(seen_calls, before);
}

/* A message naming a context id beyond the table is dropped with a
 * message; it used to be matched against a NULL queue. */
static void delivery_drops_a_message_for_no_context(void **state)
{
    (void)state;
    struct {
        fm_hdr h;
        char payload[8];
    } msg = {.h = {.proto = FM_PROTO_EAGER, .ctx = FM_MAX_CONTEXTS + 2, .src = 0, .tag = 1,
                   .len = 8},
             .payload = "payload"};
    fm_deliver(0, &msg, sizeof msg);
    struct fm_hdr_short s = {.proto = FM_PROTO_EAGER_SHORT, .ctx = UINT32_MAX - 1, .tag = 3};
    fm_deliver(0, &s, sizeof s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registered_protocols_reach_their_handler),
        cmocka_unit_test(registration_is_checked),
        cmocka_unit_test(unknown_protocols_are_dropped),
        cmocka_unit_test(delivery_drops_a_message_for_no_context),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
