/* test_ctx_table.c — the context id → matching queue table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "match/ctx_table.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(queues_made_once_and_dropped),
        cmocka_unit_test(no_queue_beyond_the_id_space),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
