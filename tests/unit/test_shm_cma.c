/* test_shm_cma.c — the one owner of shared-memory segments
 * (util/shm_segment.c) and of Cross Memory Attach copies (util/cma.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/cma.h"
#include "util/param.h"
#include "util/shm_segment.h"

static void segment_names(void **state)
{
    (void)state;
    char name[64];
    const char *saved = fm_param.JOBID;
    fm_param.JOBID = "job/7";
    assert_true(fm_shm_seg_name(name, sizeof name, "w3-", 5));
    assert_string_equal(name, "/fabmpi-job_7-w3-5");
    assert_true(fm_shm_seg_name(name, sizeof name, "", 0));
    assert_string_equal(name, "/fabmpi-job_7-0");
    assert_false(fm_shm_seg_name(name, 12, "w3-", 5)); /* does not fit */
    fm_param.JOBID = "";
    char want[64];
    snprintf(want, sizeof want, "/fabmpi-s%ld-c4-1", (long)getpid());
    assert_true(fm_shm_seg_name(name, sizeof name, "c4-", 1));
    assert_string_equal(name, want);
    fm_param.JOBID = saved;
}

static void segments_create_map_and_refuse(void **state)
{
    (void)state;
    char name[64];
    snprintf(name, sizeof name, "/fabmpi-unit-%ld", (long)getpid());
    const char *failed = NULL;
    char *a = fm_shm_seg_create(name, 8192, &failed);
    assert_non_null(a);
    assert_int_equal(a[8191], 0); /* zero-filled */
    a[100] = 42;
    /* Exclusive: a second create of the same name fails at "create". */
    assert_null(fm_shm_seg_create(name, 8192, &failed));
    assert_string_equal(failed, "create");
    assert_int_equal(errno, EEXIST);
    size_t len = 0;
    char *b = fm_shm_seg_map(name, &len, &failed);
    assert_non_null(b);
    assert_int_equal(len, 8192);
    assert_int_equal(b[100], 42);
    len = 4096; /* not the size it has */
    assert_null(fm_shm_seg_map(name, &len, &failed));
    assert_string_equal(failed, "size");
    munmap(b, 8192);
    munmap(a, 8192);
    shm_unlink(name);
    len = 0;
    assert_null(fm_shm_seg_map(name, &len, &failed));
    assert_string_equal(failed, "open");
}

/* Reading our own memory through process_vm_readv: lists cut at different
 * places, empty entries, and more entries than one call takes. */
static void cma_walks_both_lists_as_streams(void **state)
{
    (void)state;
    enum { N = 3000 * 7 };
    unsigned char *src = malloc(N), *dst = calloc(1, N);
    for (int i = 0; i < N; i++)
        src[i] = (unsigned char)(i * 31 + 7);
    /* Remote side: 3000 entries of 7 bytes with gaps of 1 between them in
     * a larger buffer; local side: 2 entries plus empty ones. */
    unsigned char *spread = malloc(N / 7 * 8);
    struct iovec *r = malloc(sizeof *r * 3000);
    for (int k = 0; k < 3000; k++) {
        memcpy(spread + k * 8, src + k * 7, 7);
        r[k] = (struct iovec){spread + k * 8, 7};
    }
    struct iovec l[4] = {{dst, 0}, {dst, 1000}, {dst + 1000, 0}, {dst + 1000, N - 1000}};
    fm_cma_fail f;
    assert_int_equal(fm_cma_copy((int)getpid(), 0, l, 4, r, 3000, &f), 0);
    assert_memory_equal(dst, src, N);
    /* And back the other way, into the spread layout. */
    memset(spread, 0, N / 7 * 8);
    assert_int_equal(fm_cma_copy((int)getpid(), 1, l, 4, r, 3000, &f), 0);
    for (int k = 0; k < 3000; k++)
        assert_memory_equal(spread + k * 8, src + k * 7, 7);
    free(r);
    free(spread);
    free(dst);
    free(src);
}

static void cma_reports_where_it_failed(void **state)
{
    (void)state;
    char buf[16];
    struct iovec l = {buf, sizeof buf}, r = {(void *)(uintptr_t)16, sizeof buf};
    fm_cma_fail f;
    assert_int_equal(fm_cma_copy((int)getpid(), 0, &l, 1, &r, 1, &f), -1);
    assert_int_equal(f.err, EFAULT);
    assert_int_equal(f.bytes, sizeof buf);
    assert_int_equal(f.remote, 16);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(segment_names),
        cmocka_unit_test(segments_create_map_and_refuse),
        cmocka_unit_test(cma_walks_both_lists_as_streams),
        cmocka_unit_test(cma_reports_where_it_failed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
