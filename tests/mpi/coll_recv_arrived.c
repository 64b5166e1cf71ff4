/* coll_recv_arrived.c — a blocking collective's receive whose message has
 * already arrived (taken into the unexpected queue while the member was
 * busy elsewhere) is copied out with no request
 * (src/pt2pt/recv.c, fm_sw_coll_recv_now), with the outcome a posted
 * receive would have had (a zero-byte message sent after it on the same
 * communicator, received first, brings it in: say_sent):
 *   - MPI_Scatter of 7 and 1000 ints, every int checked;
 *   - a receive type with gaps (MPI_Type_vector), the gaps untouched;
 *   - a receive smaller than the message: MPI_ERR_TRUNCATE, the part that
 *     fits delivered;
 *   - a message smaller than the receive (an erroneous program, or a
 *     failed member's marker): MPI_ERR_OTHER;
 *   - MPI_Gather with every other member's block there before the root
 *     calls it;
 *   - MPI_T's pt2pt_coll_recv_arrived counts exactly those receives.
 * Software matching only: under the provider's (FABMPI_PT2PT=ofi) the
 * provider holds what arrived, a receive is always posted, and the net
 * provider stalls the later message behind the unreceived one.  Each case
 * runs on its own duplicate of MPI_COMM_WORLD under MPI_ERRORS_RETURN
 * (after an error a communicator's state is undefined). */
#include "testutil.h"

enum { GUARD = 8 };
static const int SENTINEL = 0x5a5a5a5a;

static int rank, size;
static tu_counters ctr; /* [0] pt2pt_unexpected, [1] pt2pt_coll_recv_arrived */

static int val(int member, int i, int salt) { return member * 100003 + i * 7 + salt * 65537; }

/* Start counting afresh. */
static void count_from_here(void)
{
    long long d[2];
    tu_counters_deltas(&ctr, d);
}

/* MPI_T's count of receives taken as arrived since the last reading. */
static void check_taken(long long want, const char *what)
{
    long long d[2];
    tu_counters_deltas(&ctr, d);
    CHECKF(d[1] == want, "%s: %lld receives taken as arrived, expected %lld", what, d[1], want);
}

/* After its part of a case's collective, a sender says so to `to` on the
 * case's communicator c; the receiver's MPI_Recv of that takes the
 * collective's message in first, into the unexpected queue: the
 * transports deliver a pair's messages in the order they were sent,
 * whatever their context, on one lane.  Not across lanes: with
 * FABMPI_VCIS a duplicate may have a lane (and OFI endpoint) of its own,
 * and a word on MPI_COMM_WORLD then overtook the collective's message
 * over tcp;ofi_rxm (make test-ofi, 1 run of 3 at 3 ranks). */
static void say_sent(MPI_Comm c, int to) { CHECK_MPI(MPI_Send(NULL, 0, MPI_INT, to, 99, c)); }
static void hear_sent(MPI_Comm c, int from)
{
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_INT, from, 99, c, MPI_STATUS_IGNORE));
}

/* Root 0 scatters `sends` ints to each other member (its own block stays in
 * place); they receive `recvs` ints (spaced: every other int of their
 * buffer) once the message is there. */
static void scatter_case(int sends, int recvs, int spaced, int want_class, int salt)
{
    char what[96];
    snprintf(what, sizeof what, "scatter %d ints into %d%s", sends, recvs,
             spaced ? " spaced" : "");
    MPI_Comm c = tu_fresh_comm();
    CHECK_MPI(MPI_Barrier(c));
    int *all = NULL;
    if (rank == 0) {
        all = tu_malloc(sizeof(int) * (size_t)sends * (size_t)size);
        for (int m = 0; m < size; m++)
            for (int i = 0; i < sends; i++)
                all[m * sends + i] = val(m, i, salt);
    }
    const int stride = spaced ? 2 : 1;
    const size_t len = (size_t)recvs * (size_t)stride + GUARD;
    int *mine = tu_malloc(sizeof(int) * len);
    for (size_t i = 0; i < len; i++)
        mine[i] = SENTINEL;
    MPI_Datatype rt = MPI_INT;
    int rcount = recvs;
    if (spaced) {
        CHECK_MPI(MPI_Type_vector(recvs, 1, 2, MPI_INT, &rt));
        CHECK_MPI(MPI_Type_commit(&rt));
        rcount = 1;
    }
    int rc;
    if (rank == 0) {
        count_from_here();
        rc = MPI_Scatter(all, sends, MPI_INT, MPI_IN_PLACE, 0, MPI_INT, 0, c);
        CHECKF(rc == MPI_SUCCESS, "%s: the root got class %d", what, tu_class_of(rc));
        check_taken(0, what);
        for (int m = 1; m < size; m++)
            say_sent(c, m);
    } else {
        hear_sent(c, 0);
        count_from_here();
        rc = MPI_Scatter(NULL, 0, MPI_INT, mine, rcount, rt, 0, c);
        CHECKF(tu_class_of(rc) == want_class, "%s: class %d, expected %d", what, tu_class_of(rc),
               want_class);
        check_taken(1, what);
    }
    /* at the others, what landed: the ints that fit, at their places */
    const int check = rank != 0 && (rc == MPI_SUCCESS || tu_class_of(rc) == MPI_ERR_TRUNCATE);
    const int landed = check ? (sends < recvs ? sends : recvs) : 0;
    for (int i = 0; i < landed; i++) {
        CHECKF(mine[i * stride] == val(rank, i, salt), "%s: int %d is %d, expected %d", what, i,
               mine[i * stride], val(rank, i, salt));
        mine[i * stride] = SENTINEL;
    }
    if (check)
        for (size_t i = 0; i < len; i++)
            CHECKF(mine[i] == SENTINEL, "%s: int %zu of the buffer was written", what, i);
    if (spaced)
        MPI_Type_free(&rt);
    free(all);
    free(mine);
    MPI_Comm_free(&c);
}

/* Every member's block is at root 0 before it calls MPI_Gather. */
static void gather_case(int n, int salt)
{
    const char *what = "gather, every block there first";
    MPI_Comm c = tu_fresh_comm();
    CHECK_MPI(MPI_Barrier(c));
    int *mine = tu_malloc(sizeof(int) * (size_t)n), *all = NULL;
    for (int i = 0; i < n; i++)
        mine[i] = val(rank, i, salt);
    if (rank == 0) {
        all = tu_malloc(sizeof(int) * (size_t)n * (size_t)size);
        for (int m = 1; m < size; m++)
            hear_sent(c, m);
    }
    count_from_here();
    CHECK_MPI(MPI_Gather(mine, n, MPI_INT, all, n, MPI_INT, 0, c));
    check_taken(rank == 0 ? size - 1 : 0, what);
    if (rank != 0)
        say_sent(c, 0);
    if (rank == 0)
        for (int m = 0; m < size; m++)
            for (int i = 0; i < n; i++)
                CHECKF(all[m * n + i] == val(m, i, salt), "%s: member %d int %d is %d", what, m,
                       i, all[m * n + i]);
    free(mine);
    free(all);
    MPI_Comm_free(&c);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    const char *names[2] = {"pt2pt_unexpected", "pt2pt_coll_recv_arrived"};
    tu_counters_start(&ctr, 2, names);
    if (size > 1) {
        int salt = 0;
        scatter_case(7, 7, 0, MPI_SUCCESS, salt++);
        scatter_case(1000, 1000, 0, MPI_SUCCESS, salt++);
        scatter_case(7, 7, 1, MPI_SUCCESS, salt++);
        scatter_case(8, 4, 0, MPI_ERR_TRUNCATE, salt++);
        scatter_case(8, 4, 1, MPI_ERR_TRUNCATE, salt++);
        scatter_case(4, 8, 0, MPI_ERR_OTHER, salt++);
        gather_case(5, salt++);
    }
    tu_counters_stop(&ctr);
    CHECK_MPI(MPI_T_finalize());
    if (rank == 0)
        printf("coll_recv_arrived: ok (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
