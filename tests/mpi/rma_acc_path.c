/* rma_acc_path: which path a window's accumulates take over OFI, checked
 * against what the library says it chose, plus exact results on each.
 *
 * With FABMPI_NET=ofi and FABMPI_VERBOSE=1, window rank 0 prints one line
 * per window: "accumulates over OFI by provider atomics ..." or
 * "accumulates over OFI as active messages at the target: <why>".  World
 * rank 0 (rank 0 of every window here) sends its stderr to an unlinked
 * temporary file and, after each window creation, checks the last such
 * line:
 *   - Win_allocate: provider atomics on the providers that validate every
 *     op of a type (shm, tcp;ofi_rxm), 31 basic types (MPI_CHAR and the
 *     Fortran kinds among them), with the accumulate_ordering the window
 *     was given ("none" or the default "rar,raw,war,waw"); active messages
 *     on net ("the provider validates no atomic ..."), with
 *     FABMPI_RMA_ATOMICS=am (naming the knob) and
 *     with FABMPI_OFI_RMA=am (nothing registered);
 *   - Win_create_dynamic: active messages (nothing registered);
 *   - Win_allocate with size 0 on rank 0: active messages.
 * Each window then runs a Fetch_and_op counter from every rank and an
 * Accumulate(SUM) of a row, both exact.  Without FABMPI_NET=ofi the windows
 * are on shared memory and no such line may appear; without
 * FABMPI_VERBOSE=1 (or under another MPI) only the values are checked. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <unistd.h>

#include "verbose_log.h"

#define ROUNDS 20
#define N 100
#define KEY "accumulates over OFI"

static int rank, size;
static int checking;    /* this process checks the verbose lines */
static int over_ofi;    /* FABMPI_NET=ofi */
static int atomics;     /* the provider atomics path is expected */
static const char *am_why;

static void log_start(void)
{
    const char *net = getenv("FABMPI_NET"), *v = getenv("FABMPI_VERBOSE");
    const char *prov = getenv("FABMPI_OFI_PROVIDER_INCLUDE"), *knob = getenv("FABMPI_RMA_ATOMICS");
    over_ofi = net && strcmp(net, "ofi") == 0 && size > 1; /* alone: no OFI peer */
    int am_knob = knob && strcmp(knob, "am") == 0;
    /* providers whose fi_atomicvalid covers every op of the basic types */
    int prov_ok = prov && (strcmp(prov, "shm") == 0 || strcmp(prov, "tcp;ofi_rxm") == 0);
    const char *orma = getenv("FABMPI_OFI_RMA");
    int no_reg = orma && strcmp(orma, "am") == 0; /* no RMA endpoint, nothing registered */
    atomics = over_ofi && prov_ok && !am_knob && !no_reg;
    am_why = am_knob  ? "FABMPI_RMA_ATOMICS=am"
             : no_reg ? "a rank has no registered window memory"
                      : "the provider validates no atomic";
    checking = rank == 0 && v && strcmp(v, "1") == 0 &&
               (!over_ofi || prov_ok || (prov && strcmp(prov, "net") == 0));
    vl_start(checking);
}

/* The last line about KEY printed since the previous check must contain
 * every string of want[] (NULL-terminated); want == NULL: no such line. */
static void expect(const char *const *want, const char *what)
{
    if (!vl_on)
        return;
    char *log = NULL, *line = vl_take(KEY, &log);
    if (!want && line)
        VL_FAIL("%s: windows on shared memory, yet the library says \"%s\"", what, line);
    if (want && !line)
        VL_FAIL("%s: no verbose line containing \"%s\" (log: %.300s)", what, KEY, log);
    for (int i = 0; want && want[i]; i++)
        if (!strstr(line, want[i]))
            VL_FAIL("%s: verbose line \"%s\" lacks \"%s\"", what, line, want[i]);
    free(line);
    free(log);
}

/* What the line must say for a window that can use atomics (registered
 * memory everywhere) given the environment, with ordering `order`. */
static void expect_window(int can, const char *order, const char *reg_why, const char *what)
{
    if (!over_ofi) {
        expect(NULL, what);
        return;
    }
    if (can && atomics) {
        const char *want[] = {"by provider atomics for 31 basic types", order, NULL};
        expect(want, what);
    } else {
        const char *want[] = {"as active messages at the target", can ? am_why : reg_why, NULL};
        expect(want, what);
    }
}

/* The counter at displacement disp0, the row right after it (one int on:
 * dynamic windows count displacements in bytes). */
static void run(MPI_Win win, int *a, MPI_Aint disp0, int ordered, const char *what)
{
    int flavor, flag, *fp;
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fp, &flag));
    flavor = *fp;
    MPI_Aint rowd = disp0 + (flavor == MPI_WIN_FLAVOR_DYNAMIC ? (MPI_Aint)sizeof(int) : 1);
    /* every rank updates the last rank's counter and row */
    int last = size - 1, one = 1, fetched[ROUNDS], row[N];
    for (int i = 0; i < N; i++)
        row[i] = rank + 1;
    if (a) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
        memset(a, 0, (N + 1) * sizeof *a);
        CHECK_MPI(MPI_Win_unlock(rank, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_lock_all(0, win));
    for (int r = 0; r < ROUNDS; r++) {
        CHECK_MPI(MPI_Fetch_and_op(&one, &fetched[r], MPI_INT, last, disp0, MPI_SUM, win));
        CHECK_MPI(MPI_Accumulate(row, N, MPI_INT, last, rowd, N, MPI_INT, MPI_SUM, win));
    }
    CHECK_MPI(MPI_Win_unlock_all(win));
    for (int r = 1; ordered && r < ROUNDS; r++) /* ordered: our own fetches increase */
        CHECKF(fetched[r] > fetched[r - 1], "%s: fetched %d after %d", what, fetched[r],
               fetched[r - 1]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == last) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
        CHECKF(a[0] == size * ROUNDS, "%s: counter %d, want %d", what, a[0], size * ROUNDS);
        int want = ROUNDS * size * (size + 1) / 2;
        for (int i = 0; i < N; i++)
            CHECKF(a[1 + i] == want, "%s: row[%d] = %d, want %d", what, i, a[1 + i], want);
        CHECK_MPI(MPI_Win_unlock(rank, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    log_start();
    const MPI_Aint bytes = (N + 1) * sizeof(int);
    const char *noreg = "a rank has no registered window memory";

    MPI_Win win;
    int *a;
    CHECK_MPI(MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &a, &win));
    expect_window(1, "accumulate_ordering=rar,raw,war,waw", NULL, "Win_allocate");
    run(win, a, 0, 1, "Win_allocate");
    CHECK_MPI(MPI_Win_free(&win));

    MPI_Info info;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "accumulate_ordering", "none"));
    CHECK_MPI(MPI_Win_allocate(bytes, sizeof(int), info, MPI_COMM_WORLD, &a, &win));
    expect_window(1, "accumulate_ordering=none", NULL, "Win_allocate, accumulate_ordering=none");
    run(win, a, 0, 0, "Win_allocate, accumulate_ordering=none");
    CHECK_MPI(MPI_Win_free(&win));
    CHECK_MPI(MPI_Info_free(&info));

    /* dynamic: the last rank attaches its array and tells everyone where */
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    expect_window(0, NULL, noreg, "Win_create_dynamic");
    int *mem = rank == size - 1 ? tu_malloc((size_t)bytes) : NULL;
    MPI_Aint where = 0;
    if (mem) {
        CHECK_MPI(MPI_Win_attach(win, mem, bytes));
        CHECK_MPI(MPI_Get_address(mem, &where));
    }
    CHECK_MPI(MPI_Bcast(&where, 1, MPI_AINT, size - 1, MPI_COMM_WORLD));
    run(win, mem, where, 1, "Win_create_dynamic");
    if (mem)
        CHECK_MPI(MPI_Win_detach(win, mem));
    CHECK_MPI(MPI_Win_free(&win));
    free(mem);

    /* size 0 on one rank (not the target) */
    if (size > 1) {
        MPI_Aint sz = rank == 0 ? 0 : bytes;
        CHECK_MPI(MPI_Win_allocate(sz, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &a, &win));
        expect_window(0, NULL, noreg, "Win_allocate, size 0 on rank 0");
        run(win, rank == 0 ? NULL : a, 0, 1, "Win_allocate, size 0 on rank 0");
        CHECK_MPI(MPI_Win_free(&win));
    }

    vl_stop();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("rma_acc_path: ok (%d ranks%s)\n", size,
               !over_ofi ? ", shared memory" : atomics ? ", provider atomics" : ", active messages");
    MPI_Finalize();
    return 0;
}
