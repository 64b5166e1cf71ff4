/* pair_test.h — the frame of the tests of two-member collectives that
 * cross through the collective cache (coll_a2a_pair, coll_ag_pair,
 * coll_gs_pair): what the knobs in the environment make fabmpi do, the
 * MPI_T counters that show it, and the two-member communicators the cases
 * run on (MPI_COMM_WORLD at 2 ranks, the halves of MPI_Comm_split above;
 * at an odd count the last rank, alone in its half, takes no part).
 * Under another MPI the counters are absent and only values are checked. */
#ifndef FM_TEST_PAIR_TEST_H
#define FM_TEST_PAIR_TEST_H

#include <string.h>

#include "verbose_log.h"

/* (not every test reads every one) */
#define PT_STATE static __attribute__((unused))
PT_STATE int checked;         /* world rank 0 checks the verbose lines */
PT_STATE long pair_max = -1;  /* the largest block an exchange takes whole; -1: never */
PT_STATE int pieces;          /* up to twice that go in two pieces (within a node) */
PT_STATE int ofi;             /* FABMPI_NET=ofi: nothing maps another member's segment */
PT_STATE int rma_on;          /* FABMPI_COLL_RMA=on: one-sided at every size it can */
PT_STATE int counted;         /* fabmpi's MPI_T counters are there */
PT_STATE tu_counters ctr;
PT_STATE MPI_Datatype spaced; /* MPI_INT with an extent of 8 bytes */

static int pt_env_is(const char *name, const char *value)
{
    const char *v = getenv(name);
    return v && strcmp(v, value) == 0;
}

static long pt_env_long(const char *name, long def)
{
    const char *v = getenv(name);
    return v ? atol(v) : def;
}

/* MPI_Init, the knobs, and MPI_T counters by name (the first decides
 * whether the library has them). */
static void pair_test_init(int *argc, char ***argv, int ncounters, const char *const names[])
{
    int rank, provided, idx;
    CHECK_MPI(MPI_Init(argc, argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    ofi = pt_env_is("FABMPI_NET", "ofi");
    rma_on = pt_env_is("FABMPI_COLL_RMA", "on");
    /* A slot is half the larger of the cache's areas, in whole lines; the
     * large one only within a node (the defaults: 32 and 256 pages). */
    const long small = pt_env_long("FABMPI_COLL_CACHE_PAGES", 32) * 4096;
    const long large = ofi ? 0 : pt_env_long("FABMPI_COLL_CACHE_LARGE_PAGES", 256) * 4096;
    if (!pt_env_is("FABMPI_COLL_RMA", "off") && (rma_on || !ofi))
        pair_max = (small > large ? small : large) / 2 / 64 * 64;
    pieces = pair_max >= 0 && !ofi;
    checked = rank == 0 && pt_env_is("FABMPI_COLL_VERBOSE", "1");
    vl_start(checked);
    CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, 8, &spaced));
    CHECK_MPI(MPI_Type_commit(&spaced));
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    counted = MPI_T_pvar_get_index(names[0], MPI_T_PVAR_CLASS_COUNTER, &idx) == MPI_SUCCESS;
    if (counted)
        tu_counters_start(&ctr, ncounters, names);
}

/* body on each two-member communicator, then the teardown; prints
 * "name: ok" at world rank 0. */
static int pair_test_run(const char *name, void (*body)(MPI_Comm pair, unsigned *salt))
{
    int rank, size, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned salt = 0;
    MPI_Comm pair = MPI_COMM_WORLD;
    if (size > 2) /* world rank 0 is rank 0 of the first half */
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &pair));
    MPI_Comm_size(pair, &n);
    if (n == 2)
        body(pair, &salt);
    if (pair != MPI_COMM_WORLD)
        CHECK_MPI(MPI_Comm_free(&pair));
    if (counted)
        tu_counters_stop(&ctr);
    CHECK_MPI(MPI_T_finalize());
    MPI_Type_free(&spaced);
    vl_stop();
    CHECK_MPI(MPI_Finalize());
    if (rank == 0)
        printf("%s: ok (%d ranks)\n", name, size);
    return 0;
}

#endif
