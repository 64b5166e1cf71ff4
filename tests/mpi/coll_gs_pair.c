/* coll_gs_pair: MPI_Gather, MPI_Gatherv, MPI_Scatter, MPI_Scatterv and
 * MPI_Bcast on two members, where a block past the eager size crosses through the
 * receiver's collective cache (src/coll/rma/exchange.c: the sender writes
 * it into the receiver's slot, the root copies its own block meanwhile,
 * the receiver copies it out):
 *   - blocks of 13 ints, 8192 (32 KiB: still two-sided unless
 *     FABMPI_COLL_RMA=on), 8193, 32768 (128 KiB, the largest scatter that
 *     crosses one-sided unless on), 32769, 131072 (512 KiB, a whole slot)
 *     and 131088 (past it: never in pieces, two-sided);
 *   - both roots, an input buffer and MPI_IN_PLACE at the root;
 *   - layouts that differ between the members for one signature: member 1
 *     sends and receives ints spaced 8 bytes apart (MPI_INT resized);
 *   - the v forms with the root's own block of 3 ints and the other
 *     member's block first in the root's buffer;
 *   - the blocking, nonblocking and persistent forms (persistent started
 *     twice); an MPI_Igather of 512 KiB and an MPI_Iscatter outstanding
 *     with a blocking MPI_Gather between them, completed in reverse order;
 *     a persistent MPI_Scatter made before the cache was there;
 *   - on MPI_COMM_WORLD at 2 ranks, and on the halves of MPI_Comm_split at
 *     3 and 4 (at 3 the last rank, alone in its half, takes no part);
 *   - every int of every block checked, gaps and tails untouched;
 *   - MPI_Bcast's blocking, nonblocking and persistent forms at the same
 *     sizes from both roots (one-sided from 8193 to 32768 ints, to a whole
 *     slot with FABMPI_COLL_RMA=on; the fan-out tree or two-sided else);
 *   - MPI_T's coll_gather_scatter_pair and coll_bcast_pair count exactly
 *     the calls (each start) that cross one-sided; with
 *     FABMPI_COLL_VERBOSE=1 world rank 0 checks the line of each blocking
 *     call that offers it.
 * Under another MPI only the values are checked. */
#include "pair_test.h"

enum { GUARD = 16, GATHER = 0, SCATTER = 1, OWN = 3 };
static const int SENTINEL = 0x5a5a5a5a;
static const char *const call_name[2][2] = {{"MPI_Gather", "MPI_Gatherv"},
                                            {"MPI_Scatter", "MPI_Scatterv"}};


static int val(int member, long i, unsigned salt)
{
    return (int)((unsigned)member * 1000003u + (unsigned)i * 7u + salt * 65537u);
}

/* Whether a block of `bytes` crosses one-sided: past the eager size (any
 * size with FABMPI_COLL_RMA=on), within a slot (never in pieces), and a
 * scatter's up to 128 KiB unless on. */
static int one_sided(int kind, long bytes)
{
    return pair_max >= 0 && bytes > 0 && (bytes > 32768 || rma_on) && bytes <= pair_max &&
           (kind == GATHER || rma_on || bytes <= 131072);
}

/* MPI_T's counts since the last check: gather and scatter crossings, and
 * bcast ones. */
static void check_counts(long long want, long long want_bcast, const char *what)
{
    if (!counted)
        return;
    long long d[2];
    tu_counters_deltas(&ctr, d);
    CHECKF(d[0] == want, "%s: MPI_T counted %lld one-sided crossings, expected %lld", what, d[0],
           want);
    CHECKF(d[1] == want_bcast, "%s: MPI_T counted %lld one-sided bcasts, expected %lld", what,
           d[1], want_bcast);
}

static void check_count(long long want, const char *what) { check_counts(want, 0, what); }

/* One call on a 2-member comm: the other member's block is e ints (the
 * root's own: e, or OWN in the v forms); mode 0 blocking, 1 nonblocking +
 * MPI_Wait, 2 persistent, started twice. */
static void one(MPI_Comm comm, int kind, int v, int root, int mode, int in_place, long e,
                unsigned salt)
{
    int me, size;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    const int other = 1 - root, stride = me ? 2 : 1;
    MPI_Datatype dt = me ? spaced : MPI_INT;
    int counts[2], displs[2];
    counts[other] = (int)e;
    counts[root] = v ? OWN : (int)e;
    /* v: the other member's block first */
    displs[v ? other : 0] = 0;
    displs[v ? root : 1] = v ? counts[other] : counts[0];
    const long total = (long)counts[0] + counts[1];
    const int im_root = me == root, ip = in_place && im_root;
    /* the root's buffer holds every block; the other member's one block */
    const long elems = im_root ? total : counts[me];
    const size_t ints = (size_t)elems * (size_t)stride + GUARD;
    int *big = tu_malloc(ints * sizeof(int));       /* the root's all-blocks buffer, or ours */
    int *small = tu_malloc(((size_t)counts[me] * (size_t)stride + GUARD) * sizeof(int));
    for (size_t i = 0; i < ints; i++)
        big[i] = SENTINEL;
    for (size_t i = 0; i < (size_t)counts[me] * (size_t)stride + GUARD; i++)
        small[i] = SENTINEL;
    /* what each member's block holds: val(member it belongs to, i) */
    if (kind == GATHER) {
        for (long i = 0; i < counts[me]; i++)
            small[i * stride] = val(me, i, salt);
        if (ip)
            for (long i = 0; i < counts[me]; i++)
                big[(displs[me] + i) * stride] = val(me, i, salt);
    } else if (im_root) {
        for (int j = 0; j < 2; j++)
            for (long i = 0; i < counts[j]; i++)
                big[(displs[j] + i) * stride] = val(j, i, salt);
    }
    const int n = counts[me];
    if (kind == GATHER) {
        const void *sb = ip ? MPI_IN_PLACE : small;
        if (!v)
            RUN_FORMS(mode, MPI_Gather(sb, n, dt, big, n, dt, root, comm),
                      MPI_Igather(sb, n, dt, big, n, dt, root, comm, &rq_),
                      MPI_Gather_init(sb, n, dt, big, n, dt, root, comm, MPI_INFO_NULL, &rq_));
        else
            RUN_FORMS(mode, MPI_Gatherv(sb, n, dt, big, counts, displs, dt, root, comm),
                      MPI_Igatherv(sb, n, dt, big, counts, displs, dt, root, comm, &rq_),
                      MPI_Gatherv_init(sb, n, dt, big, counts, displs, dt, root, comm,
                                       MPI_INFO_NULL, &rq_));
    } else {
        void *rb = ip ? MPI_IN_PLACE : small;
        if (!v)
            RUN_FORMS(mode, MPI_Scatter(big, n, dt, rb, n, dt, root, comm),
                      MPI_Iscatter(big, n, dt, rb, n, dt, root, comm, &rq_),
                      MPI_Scatter_init(big, n, dt, rb, n, dt, root, comm, MPI_INFO_NULL, &rq_));
        else
            RUN_FORMS(mode, MPI_Scatterv(big, counts, displs, dt, rb, n, dt, root, comm),
                      MPI_Iscatterv(big, counts, displs, dt, rb, n, dt, root, comm, &rq_),
                      MPI_Scatterv_init(big, counts, displs, dt, rb, n, dt, root, comm,
                                        MPI_INFO_NULL, &rq_));
    }

    const char *call = call_name[kind][v];
    char what[128];
    snprintf(what, sizeof what, "%s mode %d root %d%s, %ld ints (salt %u)", call, mode, root,
             ip ? " in place" : "", e, salt);
    /* received: the root's buffer of a gather, our block of a scatter */
    int *got = kind == GATHER ? (im_root ? big : NULL) : (ip ? NULL : small);
    if (got) {
        const int from0 = kind == GATHER ? 0 : me, from1 = kind == GATHER ? 1 : me;
        for (int j = from0; j <= from1; j++) {
            const long at0 = kind == GATHER ? displs[j] : 0;
            for (long i = 0; i < counts[j]; i++) {
                const size_t at = (size_t)(at0 + i) * (size_t)stride;
                CHECKF(got[at] == val(j, i, salt),
                       "%s: int %ld of member %d's block is %d, expected %d", what, i, j, got[at],
                       val(j, i, salt));
                got[at] = SENTINEL;
            }
        }
        const size_t len = got == big ? ints : (size_t)counts[me] * (size_t)stride + GUARD;
        for (size_t i = 0; i < len; i++)
            CHECKF(got[i] == SENTINEL, "%s: int %zu of the receive buffer was written", what, i);
    }
    const long bytes = e * (long)sizeof(int);
    check_count(one_sided(kind, bytes) ? (mode == 2 ? 2 : 1) : 0, what);
    if (checked && me == 0 && size == 2 && mode == 0 && (bytes > 32768 || rma_on)) {
        char key[48];
        snprintf(key, sizeof key, "%s comm", call);
        vl_check(key, "pair", !one_sided(kind, bytes), what);
    }
    free(big);
    free(small);
}

static void sizes(MPI_Comm comm, unsigned *salt)
{
    static const long each[] = {13, 8192, 8193, 32768, 32769, 131072, 131088};
    for (unsigned k = 0; k < sizeof each / sizeof each[0]; k++)
        for (int kind = 0; kind < 2; kind++)
            for (int v = 0; v < 2; v++)
                for (int root = 0; root < 2; root++)
                    for (int in_place = 0; in_place < 2; in_place++)
                        one(comm, kind, v, root, 0, in_place, each[k], (*salt)++);
}

/* Nonblocking and persistent, after sizes() set the cache up. */
static void forms(MPI_Comm comm, unsigned *salt)
{
    static const long each[] = {13, 8193, 32769, 131072};
    for (int mode = 1; mode <= 2; mode++)
        for (unsigned k = 0; k < sizeof each / sizeof each[0]; k++)
            for (int kind = 0; kind < 2; kind++)
                for (int v = 0; v < 2; v++)
                    one(comm, kind, v, (int)(k % 2), mode, mode == 1 && v, each[k], (*salt)++);
}

/* An MPI_Igather of a whole slot and an MPI_Iscatter outstanding, a
 * blocking MPI_Gather between them, completed in reverse order. */
static void outstanding(MPI_Comm comm, unsigned *salt)
{
    int me;
    MPI_Comm_rank(comm, &me);
    enum { A = 131072, B = 16384, C = 12000 };
    const unsigned s0 = *salt;
    int *ga = tu_malloc(A * sizeof(int)), *gall = tu_malloc(2 * (size_t)A * sizeof(int));
    int *sall = tu_malloc(2 * (size_t)B * sizeof(int)), *sb = tu_malloc(B * sizeof(int));
    int *ca = tu_malloc(C * sizeof(int)), *call = tu_malloc(2 * (size_t)C * sizeof(int));
    for (long i = 0; i < A; i++)
        ga[i] = val(me, i, s0);
    for (int j = 0; j < 2; j++)
        for (long i = 0; i < B; i++)
            sall[j * B + i] = val(j, i, s0 + 1);
    for (long i = 0; i < C; i++)
        ca[i] = val(me, i, s0 + 2);
    MPI_Request rq[2];
    CHECK_MPI(MPI_Igather(ga, A, MPI_INT, gall, A, MPI_INT, 1, comm, &rq[0]));
    CHECK_MPI(MPI_Iscatter(sall, B, MPI_INT, sb, B, MPI_INT, 0, comm, &rq[1]));
    CHECK_MPI(MPI_Gather(ca, C, MPI_INT, call, C, MPI_INT, 0, comm));
    CHECK_MPI(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    for (long i = 0; i < B; i++)
        CHECKF(sb[i] == val(me, i, s0 + 1), "outstanding scatter: int %ld is %d", i, sb[i]);
    for (int j = 0; j < 2; j++) {
        if (me == 1)
            for (long i = 0; i < A; i++)
                CHECKF(gall[j * A + i] == val(j, i, s0), "outstanding gather: member %d int %ld",
                       j, i);
        if (me == 0)
            for (long i = 0; i < C; i++)
                CHECKF(call[j * C + i] == val(j, i, s0 + 2), "blocking gather: member %d int %ld",
                       j, i);
    }
    check_count(one_sided(GATHER, A * 4L) + one_sided(SCATTER, B * 4L) + one_sided(GATHER, C * 4L),
                "outstanding");
    free(ga);
    free(gall);
    free(sall);
    free(sb);
    free(ca);
    free(call);
    *salt += 3;
}

/* A persistent scatter of 64 KiB made before its communicator's cache is
 * there: two-sided at the first start, one-sided once a blocking
 * collective has set the cache up. */
static void late_cache(MPI_Comm pair, unsigned *salt)
{
    int me;
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(pair, &comm));
    MPI_Comm_rank(comm, &me);
    enum { N = 16384 };
    int *all = tu_malloc(2 * N * sizeof(int)), *mine = tu_malloc(N * sizeof(int));
    const unsigned s0 = (*salt)++;
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < N; i++)
            all[j * N + i] = val(j, i, s0);
    MPI_Request rq;
    CHECK_MPI(MPI_Scatter_init(all, N, MPI_INT, mine, N, MPI_INT, 0, comm, MPI_INFO_NULL, &rq));
    check_count(0, "before");
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < N; i++)
            mine[i] = SENTINEL;
        CHECK_MPI(MPI_Start(&rq));
        CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        check_count(round > 0 && pair_max >= 0, "persistent scatter start");
        for (int i = 0; i < N; i++)
            CHECKF(mine[i] == val(me, i, s0), "persistent scatter, start %d: int %d is %d",
                   round, i, mine[i]);
        if (round == 0) { /* a blocking allreduce (the pair) sets the cache up */
            int x = me + 1, sum = 0;
            CHECK_MPI(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, comm));
            CHECK_EQ(sum, 3);
        }
    }
    CHECK_MPI(MPI_Request_free(&rq));
    CHECK_MPI(MPI_Comm_free(&comm));
    free(all);
    free(mine);
}

/* Whether a bcast of `bytes` crosses one-sided: past the eager size in
 * every mode (up to it the fan-out tree runs), within a slot, and up to
 * 128 KiB unless on. */
static int bcast_one_sided(long bytes)
{
    return pair_max >= 0 && bytes > 32768 && bytes <= pair_max && (rma_on || bytes <= 131072);
}

/* MPI_Bcast (mode 0), MPI_Ibcast (1) or MPI_Bcast_init started twice (2)
 * of e ints from root; member 1's ints spaced 8 bytes apart. */
static void bcast_one(MPI_Comm comm, int root, int mode, long e, unsigned salt)
{
    int me, size;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    const int stride = me ? 2 : 1;
    MPI_Datatype dt = me ? spaced : MPI_INT;
    const size_t ints = (size_t)e * (size_t)stride + GUARD;
    int *buf = tu_malloc(ints * sizeof(int));
    for (size_t i = 0; i < ints; i++)
        buf[i] = SENTINEL;
    if (me == root)
        for (long i = 0; i < e; i++)
            buf[i * stride] = val(root, i, salt);
    const int n = (int)e;
    RUN_FORMS(mode, MPI_Bcast(buf, n, dt, root, comm),
              MPI_Ibcast(buf, n, dt, root, comm, &rq_),
              MPI_Bcast_init(buf, n, dt, root, comm, MPI_INFO_NULL, &rq_));
    char what[96];
    snprintf(what, sizeof what, "MPI_Bcast mode %d root %d, %ld ints (salt %u)", mode, root, e,
             salt);
    for (long i = 0; i < e; i++) {
        CHECKF(buf[i * stride] == val(root, i, salt), "%s: int %ld is %d, expected %d", what, i,
               buf[i * stride], val(root, i, salt));
        buf[i * stride] = SENTINEL;
    }
    for (size_t i = 0; i < ints; i++)
        CHECKF(buf[i] == SENTINEL, "%s: int %zu of the buffer was written", what, i);
    const long bytes = e * (long)sizeof(int);
    check_counts(0, bcast_one_sided(bytes) ? (mode == 2 ? 2 : 1) : 0, what);
    if (checked && me == 0 && size == 2 && mode == 0 && bytes > 32768)
        vl_check("MPI_Bcast comm", "pair", !bcast_one_sided(bytes), what);
    free(buf);
}

static void bcasts(MPI_Comm comm, unsigned *salt)
{
    static const long each[] = {13, 8192, 8193, 32768, 32769, 131072, 131088};
    for (int mode = 0; mode <= 2; mode++)
        for (unsigned k = 0; k < sizeof each / sizeof each[0]; k++)
            for (int root = 0; root < 2; root++)
                bcast_one(comm, root, mode, each[k], (*salt)++);
}

static void body(MPI_Comm pair, unsigned *salt)
{
    late_cache(pair, salt); /* first: before anything sets the cache up */
    sizes(pair, salt);
    forms(pair, salt);
    outstanding(pair, salt);
    bcasts(pair, salt);
}

int main(int argc, char **argv)
{
    const char *names[2] = {"coll_gather_scatter_pair", "coll_bcast_pair"};
    pair_test_init(&argc, &argv, 2, names);
    return pair_test_run("coll_gs_pair", body);
}
