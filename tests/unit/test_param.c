/* test_param.c — the knob table: defaults, parsing, and the error messages
 * a user sees for bad values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/param.h"
#include "util/status.h"

static char err[512];

static int load_with(const char *var, const char *value)
{
    fm_param_reset();
    if (var)
        setenv(var, value, 1);
    err[0] = '\0';
    int rc = fm_param_load(err, sizeof err);
    if (var)
        unsetenv(var);
    return rc;
}

static void defaults(void **state)
{
    (void)state;
    assert_int_equal(load_with(NULL, NULL), FM_OK);
    assert_int_equal(fm_param.VERBOSE, 0);
    assert_int_equal(fm_param.EAGER_LIMIT, 32 * 1024);
    assert_int_equal(fm_param.SHM_COPY, FM_SHM_COPY_AUTO);
    assert_int_equal(fm_param.YIELD, FM_YIELD_AUTO);
    assert_int_equal(fm_param.RANK, -1);
}

static void sizes_with_suffixes(void **state)
{
    (void)state;
    assert_int_equal(load_with("FABMPI_EAGER_LIMIT", "4k"), FM_OK);
    assert_int_equal(fm_param.EAGER_LIMIT, 4096);
    assert_int_equal(load_with("FABMPI_SHM_RING_SIZE", "1M"), FM_OK);
    assert_int_equal(fm_param.SHM_RING_SIZE, 1024 * 1024);
    assert_int_equal(load_with("FABMPI_EAGER_LIMIT", "0"), FM_OK);
    assert_int_equal(fm_param.EAGER_LIMIT, 0);
}

static void enums_and_bools(void **state)
{
    (void)state;
    assert_int_equal(load_with("FABMPI_SHM_COPY", "pipeline"), FM_OK);
    assert_int_equal(fm_param.SHM_COPY, FM_SHM_COPY_PIPELINE);
    assert_int_equal(load_with("FABMPI_YIELD", "ALWAYS"), FM_OK);
    assert_int_equal(fm_param.YIELD, FM_YIELD_ALWAYS);
    assert_int_equal(load_with("FABMPI_VERBOSE_ENV", "yes"), FM_OK);
    assert_int_equal(fm_param.VERBOSE_ENV, 1);
}

static void bad_values_name_knob_value_and_accepted(void **state)
{
    (void)state;
    assert_int_equal(load_with("FABMPI_SHM_COPY", "bogus"), FM_ERR_PARAM);
    assert_non_null(strstr(err, "FABMPI_SHM_COPY=bogus"));
    assert_non_null(strstr(err, "auto|cma|pipeline"));

    assert_int_equal(load_with("FABMPI_EAGER_LIMIT", "abc"), FM_ERR_PARAM);
    assert_non_null(strstr(err, "FABMPI_EAGER_LIMIT=abc"));
    assert_non_null(strstr(err, "accepted"));

    assert_int_equal(load_with("FABMPI_EAGER_LIMIT", "2g"), FM_ERR_PARAM);
    assert_non_null(strstr(err, "out of range"));

    assert_int_equal(load_with("FABMPI_VERBOSE", "9"), FM_ERR_PARAM);
    assert_non_null(strstr(err, "0..3"));

    assert_int_equal(load_with("FABMPI_VERBOSE_ENV", "maybe"), FM_ERR_PARAM);
    assert_non_null(strstr(err, "FABMPI_VERBOSE_ENV=maybe"));
}

/* Issue 12 #9: 100k was accepted although the ring needs a power of two. */
static void powers_of_two_are_checked(void **state)
{
    (void)state;
    assert_int_equal(load_with("FABMPI_SHM_RING_SIZE", "100k"), FM_ERR_PARAM);
    assert_non_null(strstr(err, "FABMPI_SHM_RING_SIZE=100k: not a power of two"));
    assert_non_null(strstr(err, "65536 or 131072"));
    assert_int_equal(load_with("FABMPI_SHM_RING_SIZE", "128k"), FM_OK);
    assert_int_equal(fm_param.SHM_RING_SIZE, 128 * 1024);
}

/* Values that would wrap around into the accepted range. */
static void sizes_do_not_wrap(void **state)
{
    (void)state;
    assert_int_equal(load_with("FABMPI_EAGER_LIMIT", "-1k"), FM_ERR_PARAM);
    assert_int_equal(load_with("FABMPI_EAGER_LIMIT", "17179869184g"), FM_ERR_PARAM);
    assert_int_equal(load_with("FABMPI_EAGER_LIMIT", "99999999999999999999"), FM_ERR_PARAM);
    assert_int_equal(load_with("FABMPI_VERBOSE", "-9223372036854775808"), FM_ERR_PARAM);
}

static void status_list_maps_to_mpi_classes(void **state)
{
    (void)state;
    assert_int_equal(fm_status_to_mpi_class(FM_OK), MPI_SUCCESS);
    assert_int_equal(fm_status_to_mpi_class(FM_ERR_TRUNCATE), MPI_ERR_TRUNCATE);
    assert_int_equal(fm_status_to_mpi_class(FM_ERR_NOMEM), MPI_ERR_NO_MEM);
    assert_int_equal(fm_status_to_mpi_class(12345), MPI_ERR_INTERN);
    assert_string_equal(fm_status_name(FM_ERR_RANK), "FM_ERR_RANK");
    assert_string_equal(fm_status_msg(FM_ERR_TAG), "invalid tag");
}

/* What MPI_T_cvar_write uses: values checked as the environment's are. */
static int knob(const char *name)
{
    for (int i = 0; i < fm_param_count(); i++)
        if (!strcmp(fm_param_desc(i)->name, name))
            return i;
    fail_msg("no knob %s", name);
    return -1;
}

static void set_through_accessors(void **state)
{
    (void)state;
    assert_int_equal(load_with(NULL, NULL), FM_OK);
    assert_null(fm_param_desc(-1));
    assert_null(fm_param_desc(fm_param_count()));
    int eager = knob("EAGER_LIMIT"), ring = knob("SHM_RING_SIZE"), copy = knob("SHM_COPY");
    assert_int_equal(fm_param_set_number(eager, 1024, err, sizeof err), FM_OK);
    assert_int_equal(fm_param.EAGER_LIMIT, 1024);
    assert_int_equal(fm_param_set_number(eager, 2 << 20, err, sizeof err), FM_ERR_ARG);
    assert_non_null(strstr(err, "FABMPI_EAGER_LIMIT=2097152: out of range"));
    assert_int_equal(fm_param_set_number(eager, -1, err, sizeof err), FM_ERR_ARG);
    assert_int_equal(fm_param.EAGER_LIMIT, 1024);
    assert_int_equal(fm_param_set_number(ring, 100000, err, sizeof err), FM_ERR_ARG);
    assert_non_null(strstr(err, "not a power of two"));
    /* ENUM: an index into the accepted names, which the table lists. */
    const struct fm_param_desc *d = fm_param_desc(copy);
    char name[32];
    assert_int_equal(fm_param_enum_count(d), 3);
    assert_int_equal(fm_param_enum_name(d, 2, name, sizeof name), 8);
    assert_string_equal(name, "pipeline");
    assert_int_equal(fm_param_enum_name(d, 3, name, sizeof name), -1);
    assert_int_equal(fm_param_set_number(copy, 2, err, sizeof err), FM_OK);
    assert_int_equal(fm_param.SHM_COPY, FM_SHM_COPY_PIPELINE);
    assert_int_equal(fm_param_set_number(copy, 3, err, sizeof err), FM_ERR_ARG);
    assert_int_equal(fm_param_set_number(knob("VERBOSE_ENV"), 2, err, sizeof err), FM_ERR_ARG);
    assert_int_equal(fm_param_set_string(knob("OFI_DOMAIN"), "lo", err, sizeof err), FM_OK);
    assert_string_equal(fm_param.OFI_DOMAIN, "lo");
    assert_int_equal(fm_param_desc(knob("OFI_DOMAIN"))->origin, FM_PARAM_FROM_MPIT);
    assert_int_equal(fm_param_set_string(eager, "1", err, sizeof err), FM_ERR_ARG);
    /* A load after MPI_T wrote keeps what it wrote (idempotent). */
    assert_int_equal(fm_param_load(err, sizeof err), FM_OK);
    assert_int_equal(fm_param.EAGER_LIMIT, 1024);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults),
        cmocka_unit_test(sizes_with_suffixes),
        cmocka_unit_test(enums_and_bools),
        cmocka_unit_test(bad_values_name_knob_value_and_accepted),
        cmocka_unit_test(powers_of_two_are_checked),
        cmocka_unit_test(sizes_do_not_wrap),
        cmocka_unit_test(status_list_maps_to_mpi_classes),
        cmocka_unit_test(set_through_accessors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
