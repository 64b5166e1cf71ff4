/* test_ofi_quirks.c — the provider quirk table (src/net/ofi/quirks.c):
 * which provider gets which workaround, matched by whole name parts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "net/ofi/quirks.h"

enum {
    TAGGED = FM_OFI_QUIRK_TAGGED_MATCH,
    STALLS = FM_OFI_QUIRK_UNEXPECTED_STALLS,
    TRUNC = FM_OFI_QUIRK_TRUNCATION_KILLS,
    LATE = FM_OFI_QUIRK_WRITE_LANDS_LATE,
    ATOMICS = FM_OFI_QUIRK_ATOMICS,
    UNRELIABLE = FM_OFI_QUIRK_UNRELIABLE,
    ORDER = FM_OFI_QUIRK_ORDER_LIMITED,
};

static void each_provider_gets_its_workarounds(void **state)
{
    (void)state;
    assert_int_equal(fm_ofi_quirks("shm"), TAGGED);
    assert_int_equal(fm_ofi_quirks("net"), TAGGED | STALLS | TRUNC | LATE);
    assert_int_equal(fm_ofi_quirks("tcp;ofi_rxm"), TRUNC | ORDER);
    assert_int_equal(fm_ofi_quirks("sockets"), TAGGED);
    assert_int_equal(fm_ofi_quirks("udp;ofi_rxd"), UNRELIABLE);
    assert_int_equal(fm_ofi_quirks("net;ofi_rxm"), TAGGED | STALLS | TRUNC | LATE | ORDER);
}

static void names_match_by_whole_parts(void **state)
{
    (void)state;
    assert_int_equal(fm_ofi_quirks("verbs;ofi_rxm"), ORDER);
    assert_int_equal(fm_ofi_quirks("tcpx"), 0);
    assert_int_equal(fm_ofi_quirks("shmem"), 0);
    assert_int_equal(fm_ofi_quirks("ofi_rxd"), UNRELIABLE);
    assert_int_equal(fm_ofi_quirks(""), 0);
    assert_int_equal(fm_ofi_quirks(NULL), 0);
}

static void every_quirk_says_why(void **state)
{
    (void)state;
    const char *provs[] = {"shm", "net", "tcp;ofi_rxm", "sockets", "udp;ofi_rxd", "verbs"};
    const unsigned all[] = {TAGGED, STALLS, TRUNC, LATE, ATOMICS, UNRELIABLE, ORDER};
    for (size_t p = 0; p < sizeof provs / sizeof provs[0]; p++)
        for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
            const char *why = fm_ofi_quirk_why(provs[p], all[k]);
            if (fm_ofi_quirks(provs[p]) & all[k])
                assert_non_null(why);
            else
                assert_null(why);
        }
    assert_non_null(strstr(fm_ofi_quirk_why("sockets", TAGGED), "tests/mpi/p2p_order"));
    assert_non_null(strstr(fm_ofi_quirk_why("udp;ofi_rxd", UNRELIABLE), "tests/ofi/rxd_order.c"));
}

/* ofi_rxm keeps order up to its eager buffer, which FI_OFI_RXM_BUFFER_SIZE
 * sets (16 KiB by default), less its header. */
static void ordered_bytes_follow_rxm_buffer(void **state)
{
    (void)state;
    unsetenv("FI_OFI_RXM_BUFFER_SIZE");
    assert_true(fm_ofi_ordered_bytes("net") == (size_t)-1);
    assert_true(fm_ofi_ordered_bytes("shm") == (size_t)-1);
    assert_int_equal(fm_ofi_ordered_bytes("tcp;ofi_rxm"), 16384 - 256);
    assert_int_equal(fm_ofi_ordered_bytes("net;ofi_rxm"), 16384 - 256);
    setenv("FI_OFI_RXM_BUFFER_SIZE", "4096", 1);
    assert_int_equal(fm_ofi_ordered_bytes("tcp;ofi_rxm"), 4096 - 256);
    setenv("FI_OFI_RXM_BUFFER_SIZE", "0x10000", 1);
    assert_int_equal(fm_ofi_ordered_bytes("tcp;ofi_rxm"), 65536 - 256);
    setenv("FI_OFI_RXM_BUFFER_SIZE", "lots", 1); /* not a number: the default */
    assert_int_equal(fm_ofi_ordered_bytes("tcp;ofi_rxm"), 16384 - 256);
    setenv("FI_OFI_RXM_BUFFER_SIZE", "100", 1);
    assert_int_equal(fm_ofi_ordered_bytes("tcp;ofi_rxm"), 0);
    unsetenv("FI_OFI_RXM_BUFFER_SIZE");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_provider_gets_its_workarounds),
        cmocka_unit_test(names_match_by_whole_parts),
        cmocka_unit_test(every_quirk_says_why),
        cmocka_unit_test(ordered_bytes_follow_rxm_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
