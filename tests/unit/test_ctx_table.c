/* test_ctx_table.c — the context id → matching queue table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "match/ctx_table.h"

static fm_ctx_table T, U; /* zeroed: empty and ready */

static void queues_made_once_and_dropped(void **state)
{
    (void)state;
    uint32_t ids[] = {4, FM_CTX_DIRECT - 1, FM_CTX_DIRECT, FM_MAX_CONTEXTS - 1};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        fm_match_queue *q = fm_ctx_queue(&T, ids[i]);
        assert_non_null(q);
        assert_ptr_equal(fm_ctx_queue(&T, ids[i]), q);
        assert_ptr_equal(fm_ctx_queue_fast(&T, ids[i]), q);
        fm_ctx_queue_drop(&T, ids[i]);
    }
    fm_ctx_table_finalize(&T);
}

static void no_queue_beyond_the_id_space(void **state)
{
    (void)state;
    assert_null(fm_ctx_queue(&T, FM_MAX_CONTEXTS));
    assert_null(fm_ctx_queue_fast(&T, FM_MAX_CONTEXTS));
    assert_null(fm_ctx_queue_fast(&T, UINT32_MAX));
    fm_ctx_queue_drop(&T, UINT32_MAX); /* nothing to drop, no crash */
}

/* Each VCI has its own table: the same context id names different queues,
 * and finalizing one leaves the other's alone. */
static void tables_are_independent(void **state)
{
    (void)state;
    uint32_t ids[] = {2, FM_CTX_DIRECT + 6};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        fm_match_queue *a = fm_ctx_queue(&T, ids[i]), *b = fm_ctx_queue(&U, ids[i]);
        assert_non_null(a);
        assert_non_null(b);
        assert_ptr_not_equal(a, b);
        fm_ctx_table_finalize(&T);
        assert_ptr_equal(fm_ctx_queue_fast(&U, ids[i]), b);
        fm_ctx_table_finalize(&U);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(queues_made_once_and_dropped),
        cmocka_unit_test(no_queue_beyond_the_id_space),
        cmocka_unit_test(tables_are_independent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
