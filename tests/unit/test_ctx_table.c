/* test_ctx_table.c — the context id → matching queue table, and what
 * delivery does with a message whose context has no queue. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "match/ctx_table.h"
#include "pt2pt/internal.h"

static void queues_made_once_and_dropped(void **state)
{
    (void)state;
    uint32_t ids[] = {4, FM_CTX_DIRECT - 1, FM_CTX_DIRECT, FM_MAX_CONTEXTS - 1};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        fm_match_queue *q = fm_ctx_queue(ids[i]);
        assert_non_null(q);
        assert_ptr_equal(fm_ctx_queue(ids[i]), q);
        assert_ptr_equal(fm_ctx_queue_fast(ids[i]), q);
        fm_ctx_queue_drop(ids[i]);
    }
    fm_ctx_table_finalize();
}

static void no_queue_beyond_the_id_space(void **state)
{
    (void)state;
    assert_null(fm_ctx_queue(FM_MAX_CONTEXTS));
    assert_null(fm_ctx_queue_fast(FM_MAX_CONTEXTS));
    assert_null(fm_ctx_queue_fast(UINT32_MAX));
    fm_ctx_queue_drop(UINT32_MAX); /* nothing to drop, no crash */
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
        cmocka_unit_test(queues_made_once_and_dropped),
        cmocka_unit_test(no_queue_beyond_the_id_space),
        cmocka_unit_test(delivery_drops_a_message_for_no_context),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
