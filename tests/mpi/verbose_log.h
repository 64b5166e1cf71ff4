/* verbose_log.h — lets a test program check what fabmpi's verbose output
 * says it did (which collective algorithm ran, which RMA path a window
 * took), so a test can prove the code it means to test actually ran.
 *
 * vl_start(on) sends this process's stderr to an unlinked temporary file
 * when `on` (typically: world rank 0 and the relevant FABMPI_*VERBOSE knob
 * set to 1); vl_expect(key, want, what) then fails the test unless the last
 * line printed since the previous check that contains `key` also contains
 * `want` (vl_check with must_not = 1: does not contain it).  Under another MPI (no such lines) callers pass on = 0
 * and every check is a no-op. */
#ifndef FM_TEST_VERBOSE_LOG_H
#define FM_TEST_VERBOSE_LOG_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <unistd.h>

#include "testutil.h"

static int vl_on;                  /* this process checks its verbose lines */
static int vl_saved_err = -1, vl_fd = -1;
static off_t vl_seen;              /* bytes of the log already checked */

static inline void vl_start(int on)
{
    vl_on = on;
    if (!vl_on)
        return;
    char path[] = "/tmp/fabmpi_verbose_log.XXXXXX";
    vl_fd = mkstemp(path);
    CHECK(vl_fd >= 0);
    unlink(path);
    vl_saved_err = dup(2);
    CHECK(vl_saved_err >= 0);
    CHECK(dup2(vl_fd, 2) == 2);
}

static inline void vl_stop(void)
{
    if (!vl_on)
        return;
    dup2(vl_saved_err, 2);
    close(vl_saved_err);
    close(vl_fd);
    vl_on = 0;
}

/* The last line containing key printed since the previous check, or NULL
 * when there is none (the caller frees it); *log gets everything printed
 * since then when log is not NULL (the caller frees it too). */
static inline char *vl_take(const char *key, char **log)
{
    off_t end = lseek(vl_fd, 0, SEEK_END);
    CHECK(end >= vl_seen);
    size_t n = (size_t)(end - vl_seen);
    char *buf = malloc(n + 1);
    CHECK(buf != NULL);
    CHECK(pread(vl_fd, buf, n, vl_seen) == (ssize_t)n);
    buf[n] = 0;
    vl_seen = end;
    char *line = NULL;
    for (char *p = buf; (p = strstr(p, key)) != NULL; p++)
        line = p;
    if (line) {
        size_t len = strcspn(line, "\n");
        char *copy = malloc(len + 1);
        CHECK(copy != NULL);
        memcpy(copy, line, len);
        copy[len] = 0;
        line = copy;
    }
    if (log)
        *log = buf;
    else
        free(buf);
    return line;
}

/* Report a failure on the real stderr, not into the log. */
#define VL_FAIL(...)                                   \
    do {                                               \
        dup2(vl_saved_err, 2);                         \
        tu_fail(__FILE__, __LINE__, __VA_ARGS__);      \
    } while (0)

/* As vl_take, but a missing line fails the test. */
static inline char *vl_last_line(const char *key, const char *what)
{
    char *log = NULL, *line = vl_take(key, &log);
    if (!line)
        VL_FAIL("%s: no verbose line for %s (log: %.300s)", what, key, log);
    free(log);
    return line;
}

/* The last line about key must contain want (must_not = 0) or must not
 * contain it (must_not = 1). */
static inline void vl_check(const char *key, const char *want, int must_not, const char *what)
{
    if (!vl_on)
        return;
    char *line = vl_last_line(key, what);
    if ((strstr(line, want) != NULL) == must_not)
        VL_FAIL("%s: verbose line \"%s\" %s \"%s\"", what, line, must_not ? "says" : "lacks",
                want);
    free(line);
}

static inline void vl_expect(const char *key, const char *want, const char *what)
{
    vl_check(key, want, 0, what);
}

/* The flat tests' frame (coll_*_flat.c), after MPI_Init: MPI_T's `counter`
 * read through ctr where want_flat (tu_flat_expected) is known under
 * fabmpi, and world rank 0's lines checked with FABMPI_COLL_VERBOSE=1;
 * vl_flat_end undoes both before MPI_Finalize. */
static inline void vl_flat_begin(tu_counters *ctr, const char *counter, int want_flat)
{
#ifdef FABMPI
    int provided;
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    if (want_flat >= 0)
        tu_counters_start(ctr, 1, &counter);
#else
    (void)ctr;
    (void)counter;
#endif
    const char *v = getenv("FABMPI_COLL_VERBOSE");
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    vl_start(rank == 0 && want_flat >= 0 && v && !strcmp(v, "1"));
}

/* After one call under test (key: its name), where want_flat is known: flat
 * ran, by its verbose line and by the counter, exactly when it runs flat. */
static inline void vl_flat_ran(tu_counters *ctr, const char *key, int flat, const char *what)
{
    vl_check(key, "flat", !flat, what);
#ifdef FABMPI
    long long d;
    tu_counters_deltas(ctr, &d);
    CHECKF(d == flat, "%s: the flat counter grew by %lld, not %d", what, d, flat);
#else
    (void)ctr;
#endif
}

static inline void vl_flat_end(tu_counters *ctr, int want_flat)
{
    vl_stop();
#ifdef FABMPI
    if (want_flat >= 0)
        tu_counters_stop(ctr);
    CHECK_MPI(MPI_T_finalize());
#else
    (void)ctr;
    (void)want_flat;
#endif
}

#endif
