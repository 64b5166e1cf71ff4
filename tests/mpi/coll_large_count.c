/* coll_large_count: the MPI-4.0 large-count collectives (MPI_Bcast_c & co.)
 * in their three forms — blocking, nonblocking (MPI_I*_c) and persistent
 * (*_init_c, started twice) — with exact payload checks: the fixed-count
 * ones, the v and w ones with uneven counts and displacements laid out
 * backwards with gaps (which must stay untouched), the neighbourhood ones
 * on a periodic ring, MPI_Op_create_c's function on a strided type and
 * MPI_Reduce_local_c.
 *
 * Past INT_MAX: counts, through a type of no bytes (a message of that many
 * real elements needs over 2 GB per buffer); displacements, into reserved
 * address space (MAP_NORESERVE) of which only the blocks are written, so
 * a v or w collective places real data more than 2 GB into its buffer.
 *
 * fabmpi reads the count and displacement arrays only while it records a
 * nonblocking or persistent collective; under fabmpi the test scribbles
 * over and frees its copies of them right after the call returns, before
 * any wait or start (not something a portable program may do). */
#include <limits.h>
#include <sys/mman.h>

#include "testutil.h"

static int rank, size;
static const MPI_Count BIG = ((MPI_Count)1 << 31) + 1024;

/* One collective in three forms, as RUN_FORMS (testutil.h), with `spoil`
 * run as soon as the call returns. */
#define FORMS(mode, spoil, blocking, nbcall, pcall)                                  \
    do {                                                                          \
        MPI_Request rq_;                                                          \
        if ((mode) == 0) {                                                        \
            CHECK_MPI(blocking);                                                  \
            spoil;                                                                \
        } else if ((mode) == 1) {                                                 \
            CHECK_MPI(nbcall);                                                    \
            spoil;                                                                \
            CHECK_MPI(MPI_Wait(&rq_, MPI_STATUS_IGNORE));                         \
        } else {                                                                  \
            CHECK_MPI(pcall);                                                     \
            spoil;                                                                \
            for (int k_ = 0; k_ < 2; k_++) {                                      \
                CHECK_MPI(MPI_Start(&rq_));                                       \
                CHECK_MPI(MPI_Wait(&rq_, MPI_STATUS_IGNORE));                     \
            }                                                                     \
            CHECK_MPI(MPI_Request_free(&rq_));                                    \
        }                                                                         \
    } while (0)

/* The arrays a call is given: heap copies, spoiled early under fabmpi
 * (see the head comment), freed at the end elsewhere. */
struct arrays {
    MPI_Count *c[2];
    MPI_Aint *d[2];
};

static struct arrays arrays_of(const MPI_Count *c0, const MPI_Aint *d0, const MPI_Count *c1,
                               const MPI_Aint *d1, int n)
{
    struct arrays a = {{NULL, NULL}, {NULL, NULL}};
    const MPI_Count *cs[2] = {c0, c1};
    const MPI_Aint *ds[2] = {d0, d1};
    for (int k = 0; k < 2; k++) {
        if (cs[k]) {
            a.c[k] = tu_malloc(sizeof(MPI_Count) * (size_t)n);
            memcpy(a.c[k], cs[k], sizeof(MPI_Count) * (size_t)n);
        }
        if (ds[k]) {
            a.d[k] = tu_malloc(sizeof(MPI_Aint) * (size_t)n);
            memcpy(a.d[k], ds[k], sizeof(MPI_Aint) * (size_t)n);
        }
    }
    return a;
}

static void arrays_free(struct arrays *a, int n)
{
    for (int k = 0; k < 2; k++) {
        if (a->c[k])
            memset(a->c[k], 0xa5, sizeof(MPI_Count) * (size_t)n);
        if (a->d[k])
            memset(a->d[k], 0xa5, sizeof(MPI_Aint) * (size_t)n);
        free(a->c[k]);
        free(a->d[k]);
        a->c[k] = NULL;
        a->d[k] = NULL;
    }
}

#ifdef FABMPI
#define SPOIL(a, n) arrays_free(&(a), n)
#define RELEASE(a, n) ((void)0)
#else
#define SPOIL(a, n) ((void)0)
#define RELEASE(a, n) arrays_free(&(a), n)
#endif

static int val(int src, int dst, MPI_Count i) { return src * 100000 + dst * 1000 + (int)i; }

/* Blocks of counts[i] laid out backwards (the last rank's first) with a
 * gap of 2 after each; returns the span. */
static MPI_Count layout(const MPI_Count counts[], MPI_Aint displs[], int n)
{
    MPI_Count pos = 0;
    for (int i = n - 1; i >= 0; i--) {
        displs[i] = pos;
        pos += counts[i] + 2;
    }
    return pos;
}

static void fill(int *buf, MPI_Count n, int v)
{
    for (MPI_Count i = 0; i < n; i++)
        buf[i] = v;
}

/* ---- fixed counts ---------------------------------------------------------- */

static void fixed(int mode)
{
    const MPI_Count n = 700 + 13 * mode;
    const int root = size - 1;
    int *a = tu_malloc(sizeof(int) * (size_t)n * size);
    int *b = tu_malloc(sizeof(int) * (size_t)n * size);

    fill(a, n, -1);
    if (rank == root)
        for (MPI_Count i = 0; i < n; i++)
            a[i] = val(root, 0, i);
    FORMS(mode, (void)0, MPI_Bcast_c(a, n, MPI_INT, root, MPI_COMM_WORLD),
          MPI_Ibcast_c(a, n, MPI_INT, root, MPI_COMM_WORLD, &rq_),
          MPI_Bcast_init_c(a, n, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &rq_));
    for (MPI_Count i = 0; i < n; i++)
        CHECKF(a[i] == val(root, 0, i), "bcast a[%lld] = %d", (long long)i, a[i]);

    /* Sums: rank r contributes r + i at i. */
    for (MPI_Count i = 0; i < n; i++)
        a[i] = rank + (int)i;
    const long long ranks = (long long)size * (size - 1) / 2;
    fill(b, n, -1);
    FORMS(mode, (void)0, MPI_Reduce_c(a, b, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD),
          MPI_Ireduce_c(a, b, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &rq_),
          MPI_Reduce_init_c(a, b, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, MPI_INFO_NULL, &rq_));
    if (rank == root)
        for (MPI_Count i = 0; i < n; i++)
            CHECKF(b[i] == ranks + size * i, "reduce b[%lld] = %d", (long long)i, b[i]);
    fill(b, n, -1);
    FORMS(mode, (void)0, MPI_Allreduce_c(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
          MPI_Iallreduce_c(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq_),
          MPI_Allreduce_init_c(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &rq_));
    for (MPI_Count i = 0; i < n; i++)
        CHECKF(b[i] == ranks + size * i, "allreduce b[%lld] = %d", (long long)i, b[i]);
    fill(b, n, -1);
    FORMS(mode, (void)0, MPI_Scan_c(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
          MPI_Iscan_c(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq_),
          MPI_Scan_init_c(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &rq_));
    for (MPI_Count i = 0; i < n; i++)
        CHECKF(b[i] == (long long)rank * (rank + 1) / 2 + (rank + 1) * i, "scan b[%lld] = %d",
               (long long)i, b[i]);
    fill(b, n, -1);
    FORMS(mode, (void)0, MPI_Exscan_c(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
          MPI_Iexscan_c(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq_),
          MPI_Exscan_init_c(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &rq_));
    if (rank > 0)
        for (MPI_Count i = 0; i < n; i++)
            CHECKF(b[i] == (long long)rank * (rank - 1) / 2 + rank * i, "exscan b[%lld] = %d",
                   (long long)i, b[i]);

    /* Reduce_scatter_block: n each; input element j*n+i is rank + j + i. */
    for (int j = 0; j < size; j++)
        for (MPI_Count i = 0; i < n; i++)
            a[j * n + i] = rank + j + (int)i;
    fill(b, n, -1);
    FORMS(mode, (void)0,
          MPI_Reduce_scatter_block_c(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
          MPI_Ireduce_scatter_block_c(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq_),
          MPI_Reduce_scatter_block_init_c(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                          MPI_INFO_NULL, &rq_));
    for (MPI_Count i = 0; i < n; i++)
        CHECKF(b[i] == ranks + size * (rank + i), "reduce_scatter_block b[%lld] = %d",
               (long long)i, b[i]);

    /* Gather / scatter / allgather / alltoall: block j of rank r is val(r, j, i). */
    for (int j = 0; j < size; j++)
        for (MPI_Count i = 0; i < n; i++)
            a[j * n + i] = val(rank, j, i);
    fill(b, n * size, -1);
    FORMS(mode, (void)0,
          MPI_Gather_c(a + rank * n, n, MPI_INT, b, n, MPI_INT, root, MPI_COMM_WORLD),
          MPI_Igather_c(a + rank * n, n, MPI_INT, b, n, MPI_INT, root, MPI_COMM_WORLD, &rq_),
          MPI_Gather_init_c(a + rank * n, n, MPI_INT, b, n, MPI_INT, root, MPI_COMM_WORLD,
                            MPI_INFO_NULL, &rq_));
    if (rank == root)
        for (int j = 0; j < size; j++)
            for (MPI_Count i = 0; i < n; i++)
                CHECKF(b[j * n + i] == val(j, j, i), "gather b[%d][%lld]", j, (long long)i);
    fill(b, n, -1);
    FORMS(mode, (void)0, MPI_Scatter_c(a, n, MPI_INT, b, n, MPI_INT, root, MPI_COMM_WORLD),
          MPI_Iscatter_c(a, n, MPI_INT, b, n, MPI_INT, root, MPI_COMM_WORLD, &rq_),
          MPI_Scatter_init_c(a, n, MPI_INT, b, n, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &rq_));
    for (MPI_Count i = 0; i < n; i++)
        CHECKF(b[i] == val(root, rank, i), "scatter b[%lld] = %d", (long long)i, b[i]);
    fill(b, n * size, -1);
    FORMS(mode, (void)0,
          MPI_Allgather_c(a + rank * n, n, MPI_INT, b, n, MPI_INT, MPI_COMM_WORLD),
          MPI_Iallgather_c(a + rank * n, n, MPI_INT, b, n, MPI_INT, MPI_COMM_WORLD, &rq_),
          MPI_Allgather_init_c(a + rank * n, n, MPI_INT, b, n, MPI_INT, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &rq_));
    for (int j = 0; j < size; j++)
        for (MPI_Count i = 0; i < n; i++)
            CHECKF(b[j * n + i] == val(j, j, i), "allgather b[%d][%lld]", j, (long long)i);
    fill(b, n * size, -1);
    FORMS(mode, (void)0, MPI_Alltoall_c(a, n, MPI_INT, b, n, MPI_INT, MPI_COMM_WORLD),
          MPI_Ialltoall_c(a, n, MPI_INT, b, n, MPI_INT, MPI_COMM_WORLD, &rq_),
          MPI_Alltoall_init_c(a, n, MPI_INT, b, n, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                              &rq_));
    for (int j = 0; j < size; j++)
        for (MPI_Count i = 0; i < n; i++)
            CHECKF(b[j * n + i] == val(j, rank, i), "alltoall b[%d][%lld] = %d", j,
                   (long long)i, b[j * n + i]);
    free(b);
    free(a);
}

/* ---- v and w forms -------------------------------------------------------------- */

/* What src sends dst in the v forms: uneven, some blocks rendezvous-sized. */
static MPI_Count count_of(int src, int dst)
{
    return 1 + (3 * src + 5 * dst) % 7 + 200 * (dst % 2);
}

static void rooted_v(int mode)
{
    const int root = (size - 1) / 2;
    MPI_Count *counts = tu_malloc(sizeof(MPI_Count) * size);
    MPI_Aint *displs = tu_malloc(sizeof(MPI_Aint) * size);
    for (int i = 0; i < size; i++)
        counts[i] = count_of(i, root);
    MPI_Count span = layout(counts, displs, size), mine = counts[rank];
    int *big = tu_malloc(sizeof(int) * (size_t)span), *own = tu_malloc(sizeof(int) * (size_t)mine);

    for (MPI_Count i = 0; i < mine; i++)
        own[i] = val(rank, root, i);
    fill(big, span, -7);
    struct arrays a = arrays_of(counts, displs, NULL, NULL, size);
    FORMS(mode, SPOIL(a, size),
          MPI_Gatherv_c(own, mine, MPI_INT, big, a.c[0], a.d[0], MPI_INT, root, MPI_COMM_WORLD),
          MPI_Igatherv_c(own, mine, MPI_INT, big, a.c[0], a.d[0], MPI_INT, root, MPI_COMM_WORLD,
                         &rq_),
          MPI_Gatherv_init_c(own, mine, MPI_INT, big, a.c[0], a.d[0], MPI_INT, root,
                             MPI_COMM_WORLD, MPI_INFO_NULL, &rq_));
    RELEASE(a, size);
    if (rank == root) {
        for (int j = 0; j < size; j++) {
            for (MPI_Count i = 0; i < counts[j]; i++)
                CHECKF(big[displs[j] + i] == val(j, root, i), "gatherv block %d [%lld] = %d", j,
                       (long long)i, big[displs[j] + i]);
            CHECK(big[displs[j] + counts[j]] == -7 && big[displs[j] + counts[j] + 1] == -7);
        }
        for (int j = 0; j < size; j++)
            for (MPI_Count i = 0; i < counts[j]; i++)
                big[displs[j] + i] = val(root, j, i);
    }
    fill(own, mine, -1);
    a = arrays_of(counts, displs, NULL, NULL, size);
    FORMS(mode, SPOIL(a, size),
          MPI_Scatterv_c(big, a.c[0], a.d[0], MPI_INT, own, mine, MPI_INT, root, MPI_COMM_WORLD),
          MPI_Iscatterv_c(big, a.c[0], a.d[0], MPI_INT, own, mine, MPI_INT, root,
                          MPI_COMM_WORLD, &rq_),
          MPI_Scatterv_init_c(big, a.c[0], a.d[0], MPI_INT, own, mine, MPI_INT, root,
                              MPI_COMM_WORLD, MPI_INFO_NULL, &rq_));
    RELEASE(a, size);
    for (MPI_Count i = 0; i < mine; i++)
        CHECKF(own[i] == val(root, rank, i), "scatterv own[%lld] = %d", (long long)i, own[i]);
    free(own);
    free(big);
    free(displs);
    free(counts);
}

static void all_v(int mode)
{
    MPI_Count *rc = tu_malloc(sizeof(MPI_Count) * size), *sc = tu_malloc(sizeof(MPI_Count) * size);
    MPI_Aint *rd = tu_malloc(sizeof(MPI_Aint) * size), *sd = tu_malloc(sizeof(MPI_Aint) * size);
    /* allgatherv: rank j contributes count_of(j, 0) */
    for (int j = 0; j < size; j++)
        rc[j] = count_of(j, 0);
    MPI_Count rspan = layout(rc, rd, size), mine = rc[rank];
    int *own = tu_malloc(sizeof(int) * (size_t)mine), *rb = tu_malloc(sizeof(int) * (size_t)rspan);
    for (MPI_Count i = 0; i < mine; i++)
        own[i] = val(rank, 0, i);
    fill(rb, rspan, -7);
    struct arrays a = arrays_of(rc, rd, NULL, NULL, size);
    FORMS(mode, SPOIL(a, size),
          MPI_Allgatherv_c(own, mine, MPI_INT, rb, a.c[0], a.d[0], MPI_INT, MPI_COMM_WORLD),
          MPI_Iallgatherv_c(own, mine, MPI_INT, rb, a.c[0], a.d[0], MPI_INT, MPI_COMM_WORLD,
                            &rq_),
          MPI_Allgatherv_init_c(own, mine, MPI_INT, rb, a.c[0], a.d[0], MPI_INT, MPI_COMM_WORLD,
                                MPI_INFO_NULL, &rq_));
    RELEASE(a, size);
    for (int j = 0; j < size; j++) {
        for (MPI_Count i = 0; i < rc[j]; i++)
            CHECKF(rb[rd[j] + i] == val(j, 0, i), "allgatherv block %d [%lld]", j, (long long)i);
        CHECK(rb[rd[j] + rc[j]] == -7);
    }
    free(rb);
    free(own);

    /* alltoallv: rank r sends count_of(r, j) to j */
    for (int j = 0; j < size; j++) {
        sc[j] = count_of(rank, j);
        rc[j] = count_of(j, rank);
    }
    MPI_Count sspan = layout(sc, sd, size);
    rspan = layout(rc, rd, size);
    int *sb = tu_malloc(sizeof(int) * (size_t)sspan);
    rb = tu_malloc(sizeof(int) * (size_t)rspan);
    for (int j = 0; j < size; j++)
        for (MPI_Count i = 0; i < sc[j]; i++)
            sb[sd[j] + i] = val(rank, j, i);
    fill(rb, rspan, -7);
    a = arrays_of(sc, sd, rc, rd, size);
    FORMS(mode, SPOIL(a, size),
          MPI_Alltoallv_c(sb, a.c[0], a.d[0], MPI_INT, rb, a.c[1], a.d[1], MPI_INT,
                          MPI_COMM_WORLD),
          MPI_Ialltoallv_c(sb, a.c[0], a.d[0], MPI_INT, rb, a.c[1], a.d[1], MPI_INT,
                           MPI_COMM_WORLD, &rq_),
          MPI_Alltoallv_init_c(sb, a.c[0], a.d[0], MPI_INT, rb, a.c[1], a.d[1], MPI_INT,
                               MPI_COMM_WORLD, MPI_INFO_NULL, &rq_));
    RELEASE(a, size);
    for (int j = 0; j < size; j++) {
        for (MPI_Count i = 0; i < rc[j]; i++)
            CHECKF(rb[rd[j] + i] == val(j, rank, i), "alltoallv block %d [%lld] = %d", j,
                   (long long)i, rb[rd[j] + i]);
        CHECK(rb[rd[j] + rc[j]] == -7);
    }

    /* alltoallw: the same ints, received from odd ranks as pairs, at byte
     * displacements; counts of odd senders are made even. */
    MPI_Datatype pair, *st = tu_malloc(sizeof(MPI_Datatype) * size),
                       *rt = tu_malloc(sizeof(MPI_Datatype) * size);
    CHECK_MPI(MPI_Type_contiguous_c(2, MPI_INT, &pair));
    CHECK_MPI(MPI_Type_commit(&pair));
    MPI_Count *rcw = tu_malloc(sizeof(MPI_Count) * size);
    MPI_Aint *sdb = tu_malloc(sizeof(MPI_Aint) * size), *rdb = tu_malloc(sizeof(MPI_Aint) * size);
    for (int j = 0; j < size; j++) {
        sc[j] = count_of(rank, j) * (rank % 2 ? 2 : 1);
        rc[j] = count_of(j, rank) * (j % 2 ? 2 : 1);
    }
    free(sb);
    free(rb);
    sspan = layout(sc, sd, size);
    rspan = layout(rc, rd, size);
    sb = tu_malloc(sizeof(int) * (size_t)sspan);
    rb = tu_malloc(sizeof(int) * (size_t)rspan);
    for (int j = 0; j < size; j++) {
        for (MPI_Count i = 0; i < sc[j]; i++)
            sb[sd[j] + i] = val(rank, j, i);
        st[j] = MPI_INT;
        rt[j] = j % 2 ? pair : MPI_INT;
        rcw[j] = j % 2 ? rc[j] / 2 : rc[j];
        sdb[j] = sd[j] * (MPI_Aint)sizeof(int);
        rdb[j] = rd[j] * (MPI_Aint)sizeof(int);
    }
    fill(rb, rspan, -7);
    a = arrays_of(sc, sdb, rcw, rdb, size);
    FORMS(mode, SPOIL(a, size),
          MPI_Alltoallw_c(sb, a.c[0], a.d[0], st, rb, a.c[1], a.d[1], rt, MPI_COMM_WORLD),
          MPI_Ialltoallw_c(sb, a.c[0], a.d[0], st, rb, a.c[1], a.d[1], rt, MPI_COMM_WORLD, &rq_),
          MPI_Alltoallw_init_c(sb, a.c[0], a.d[0], st, rb, a.c[1], a.d[1], rt, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &rq_));
    RELEASE(a, size);
    for (int j = 0; j < size; j++) {
        for (MPI_Count i = 0; i < rc[j]; i++)
            CHECKF(rb[rd[j] + i] == val(j, rank, i), "alltoallw block %d [%lld] = %d", j,
                   (long long)i, rb[rd[j] + i]);
        CHECK(rb[rd[j] + rc[j]] == -7);
    }
    CHECK_MPI(MPI_Type_free(&pair));

    /* reduce_scatter: rank j gets count_of(j, 0) sums; input element k is
     * rank + k. */
    for (int j = 0; j < size; j++)
        rc[j] = count_of(j, 0);
    MPI_Count total = 0;
    for (int j = 0; j < size; j++)
        total += rc[j];
    int *in = tu_malloc(sizeof(int) * (size_t)total);
    int *out = tu_malloc(sizeof(int) * (size_t)rc[rank]);
    for (MPI_Count k = 0; k < total; k++)
        in[k] = rank + (int)k;
    MPI_Count first = 0;
    for (int j = 0; j < rank; j++)
        first += rc[j];
    fill(out, rc[rank], -1);
    a = arrays_of(rc, NULL, NULL, NULL, size);
    FORMS(mode, SPOIL(a, size),
          MPI_Reduce_scatter_c(in, out, a.c[0], MPI_INT, MPI_SUM, MPI_COMM_WORLD),
          MPI_Ireduce_scatter_c(in, out, a.c[0], MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq_),
          MPI_Reduce_scatter_init_c(in, out, a.c[0], MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                    MPI_INFO_NULL, &rq_));
    RELEASE(a, size);
    for (MPI_Count i = 0; i < rc[rank]; i++)
        CHECKF(out[i] == (long long)size * (size - 1) / 2 + size * (first + i),
               "reduce_scatter out[%lld] = %d", (long long)i, out[i]);
    free(out);
    free(in);
    free(rdb);
    free(sdb);
    free(rcw);
    free(rt);
    free(st);
    free(rb);
    free(sb);
    free(sd);
    free(rd);
    free(sc);
    free(rc);
}

/* ---- neighbourhood ------------------------------------------------------------- */

/* A periodic ring: slot 0 is the left neighbour, slot 1 the right; a block
 * sent in slot s arrives in slot s ^ 1 (MPI-4.0 errata), which on 1 and 2
 * ranks is what tells the slots apart. */
static void neighbor(int mode)
{
    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {1};
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    int left, right;
    CHECK_MPI(MPI_Cart_shift(ring, 0, 1, &left, &right));
    const int from[2] = {left, right};
    const MPI_Count n = 300;
    int sb[2 * 400], rb[2 * 400 + 8];

    /* allgather(v): our one block to both */
    for (MPI_Count i = 0; i < n; i++)
        sb[i] = val(rank, 9, i);
    fill(rb, 2 * n, -1);
    FORMS(mode, (void)0, MPI_Neighbor_allgather_c(sb, n, MPI_INT, rb, n, MPI_INT, ring),
          MPI_Ineighbor_allgather_c(sb, n, MPI_INT, rb, n, MPI_INT, ring, &rq_),
          MPI_Neighbor_allgather_init_c(sb, n, MPI_INT, rb, n, MPI_INT, ring, MPI_INFO_NULL,
                                        &rq_));
    for (int s = 0; s < 2; s++)
        for (MPI_Count i = 0; i < n; i++)
            CHECKF(rb[s * n + i] == val(from[s], 9, i), "neighbor_allgather slot %d", s);
    MPI_Count rc[2] = {n, n}, sc[2];
    MPI_Aint rd[2], sd[2];
    layout(rc, rd, 2);
    fill(rb, 2 * n + 4, -7);
    struct arrays a = arrays_of(rc, rd, NULL, NULL, 2);
    FORMS(mode, SPOIL(a, 2),
          MPI_Neighbor_allgatherv_c(sb, n, MPI_INT, rb, a.c[0], a.d[0], MPI_INT, ring),
          MPI_Ineighbor_allgatherv_c(sb, n, MPI_INT, rb, a.c[0], a.d[0], MPI_INT, ring, &rq_),
          MPI_Neighbor_allgatherv_init_c(sb, n, MPI_INT, rb, a.c[0], a.d[0], MPI_INT, ring,
                                         MPI_INFO_NULL, &rq_));
    RELEASE(a, 2);
    for (int s = 0; s < 2; s++) {
        for (MPI_Count i = 0; i < n; i++)
            CHECKF(rb[rd[s] + i] == val(from[s], 9, i), "neighbor_allgatherv slot %d", s);
        CHECK(rb[rd[s] + n] == -7);
    }

    /* alltoall(v,w): block s (to slot s) is val(rank, s, i) */
    for (int s = 0; s < 2; s++)
        for (MPI_Count i = 0; i < n; i++)
            sb[s * n + i] = val(rank, s, i);
    fill(rb, 2 * n, -1);
    FORMS(mode, (void)0, MPI_Neighbor_alltoall_c(sb, n, MPI_INT, rb, n, MPI_INT, ring),
          MPI_Ineighbor_alltoall_c(sb, n, MPI_INT, rb, n, MPI_INT, ring, &rq_),
          MPI_Neighbor_alltoall_init_c(sb, n, MPI_INT, rb, n, MPI_INT, ring, MPI_INFO_NULL,
                                       &rq_));
    for (int s = 0; s < 2; s++)
        for (MPI_Count i = 0; i < n; i++)
            CHECKF(rb[s * n + i] == val(from[s], s ^ 1, i), "neighbor_alltoall slot %d [%lld]",
                   s, (long long)i);
    /* v: slot s sends 100 + 50 s ints, so slot s receives 100 + 50 (s ^ 1) */
    for (int s = 0; s < 2; s++) {
        sc[s] = 100 + 50 * s;
        rc[s] = 100 + 50 * (s ^ 1);
    }
    layout(sc, sd, 2);
    MPI_Count rspan = layout(rc, rd, 2);
    for (int s = 0; s < 2; s++)
        for (MPI_Count i = 0; i < sc[s]; i++)
            sb[sd[s] + i] = val(rank, s, i);
    fill(rb, rspan, -7);
    a = arrays_of(sc, sd, rc, rd, 2);
    FORMS(mode, SPOIL(a, 2),
          MPI_Neighbor_alltoallv_c(sb, a.c[0], a.d[0], MPI_INT, rb, a.c[1], a.d[1], MPI_INT, ring),
          MPI_Ineighbor_alltoallv_c(sb, a.c[0], a.d[0], MPI_INT, rb, a.c[1], a.d[1], MPI_INT, ring,
                                    &rq_),
          MPI_Neighbor_alltoallv_init_c(sb, a.c[0], a.d[0], MPI_INT, rb, a.c[1], a.d[1], MPI_INT,
                                        ring, MPI_INFO_NULL, &rq_));
    RELEASE(a, 2);
    for (int s = 0; s < 2; s++) {
        for (MPI_Count i = 0; i < rc[s]; i++)
            CHECKF(rb[rd[s] + i] == val(from[s], s ^ 1, i), "neighbor_alltoallv slot %d", s);
        CHECK(rb[rd[s] + rc[s]] == -7);
    }
    /* w: byte displacements, received as pairs in slot 1 */
    MPI_Datatype pair, st[2] = {MPI_INT, MPI_INT}, rt[2];
    CHECK_MPI(MPI_Type_contiguous_c(2, MPI_INT, &pair));
    CHECK_MPI(MPI_Type_commit(&pair));
    rt[0] = MPI_INT;
    rt[1] = pair;
    MPI_Count rcw[2] = {rc[0], rc[1] / 2};
    MPI_Aint sdb[2] = {sd[0] * 4, sd[1] * 4}, rdb[2] = {rd[0] * 4, rd[1] * 4};
    fill(rb, rspan, -7);
    a = arrays_of(sc, NULL, rcw, NULL, 2);
    FORMS(mode, SPOIL(a, 2),
          MPI_Neighbor_alltoallw_c(sb, a.c[0], sdb, st, rb, a.c[1], rdb, rt, ring),
          MPI_Ineighbor_alltoallw_c(sb, a.c[0], sdb, st, rb, a.c[1], rdb, rt, ring, &rq_),
          MPI_Neighbor_alltoallw_init_c(sb, a.c[0], sdb, st, rb, a.c[1], rdb, rt, ring,
                                        MPI_INFO_NULL, &rq_));
    RELEASE(a, 2);
    for (int s = 0; s < 2; s++) {
        for (MPI_Count i = 0; i < rc[s]; i++)
            CHECKF(rb[rd[s] + i] == val(from[s], s ^ 1, i), "neighbor_alltoallw slot %d", s);
        CHECK(rb[rd[s] + rc[s]] == -7);
    }
    CHECK_MPI(MPI_Type_free(&pair));
    CHECK_MPI(MPI_Comm_free(&ring));
}

/* ---- user ops ------------------------------------------------------------------- */

/* Adds every other char: the layout of a char resized to extent 2, which
 * the function sees as the caller's buffers (not packed). */
static void every_other_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    (void)dt;
    signed char *a = in, *b = inout;
    for (MPI_Count i = 0; i < *len; i++)
        b[2 * i] = (signed char)(b[2 * i] + a[2 * i]);
}

static void user_ops(int mode)
{
    MPI_Op op;
    MPI_Datatype strided;
    CHECK_MPI(MPI_Op_create_c(every_other_c, 1, &op));
    CHECK_MPI(MPI_Type_create_resized_c(MPI_SIGNED_CHAR, 0, 2, &strided));
    CHECK_MPI(MPI_Type_commit(&strided));
    const MPI_Count n = 1000;
    signed char *a = tu_malloc(2 * (size_t)n), *b = tu_malloc(2 * (size_t)n);
    for (MPI_Count i = 0; i < n; i++) {
        a[2 * i] = (signed char)(rank + i % 5);
        a[2 * i + 1] = 99;
        b[2 * i] = b[2 * i + 1] = -1;
    }
    FORMS(mode, (void)0, MPI_Allreduce_c(a, b, n, strided, op, MPI_COMM_WORLD),
          MPI_Iallreduce_c(a, b, n, strided, op, MPI_COMM_WORLD, &rq_),
          MPI_Allreduce_init_c(a, b, n, strided, op, MPI_COMM_WORLD, MPI_INFO_NULL, &rq_));
    for (MPI_Count i = 0; i < n; i++) {
        CHECKF(b[2 * i] == size * (size - 1) / 2 + size * (i % 5), "user op b[%lld] = %d",
               (long long)(2 * i), b[2 * i]);
        CHECKF(b[2 * i + 1] == -1, "the hole b[%lld] = %d", (long long)(2 * i + 1),
               b[2 * i + 1]);
    }
    /* Reduce_local_c: inout += in, with the predefined op and the user one. */
    CHECK_MPI(MPI_Reduce_local_c(a, b, n, strided, op));
    for (MPI_Count i = 0; i < n; i++)
        CHECK(b[2 * i] == size * (size - 1) / 2 + size * (i % 5) + rank + i % 5);
    int x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 30, 40};
    CHECK_MPI(MPI_Reduce_local_c(x, y, 4, MPI_INT, MPI_PROD));
    CHECK(y[0] == 10 && y[1] == 40 && y[2] == 90 && y[3] == 160);
    free(b);
    free(a);
    CHECK_MPI(MPI_Type_free(&strided));
    CHECK_MPI(MPI_Op_free(&op));
}

/* ---- past INT_MAX ------------------------------------------------------------ */

/* Counts beyond INT_MAX, carried by a type of no bytes, through every
 * kind of collective; they move nothing and must succeed. */
static void big_counts(int mode)
{
    MPI_Datatype none;
    CHECK_MPI(MPI_Type_contiguous_c(0, MPI_INT, &none));
    CHECK_MPI(MPI_Type_commit(&none));
    int x = 5, y = 6;
    MPI_Count *c = tu_malloc(sizeof(MPI_Count) * size);
    MPI_Aint *d = tu_malloc(sizeof(MPI_Aint) * size);
    for (int i = 0; i < size; i++) {
        c[i] = BIG + i;
        d[i] = 0;
    }
    FORMS(mode, (void)0, MPI_Bcast_c(&x, BIG, none, 0, MPI_COMM_WORLD),
          MPI_Ibcast_c(&x, BIG, none, 0, MPI_COMM_WORLD, &rq_),
          MPI_Bcast_init_c(&x, BIG, none, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &rq_));
    FORMS(mode, (void)0, MPI_Allreduce_c(&x, &y, BIG, none, MPI_SUM, MPI_COMM_WORLD),
          MPI_Iallreduce_c(&x, &y, BIG, none, MPI_SUM, MPI_COMM_WORLD, &rq_),
          MPI_Allreduce_init_c(&x, &y, BIG, none, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &rq_));
    FORMS(mode, (void)0,
          MPI_Gatherv_c(&x, BIG + rank, none, &y, c, d, none, 0, MPI_COMM_WORLD),
          MPI_Igatherv_c(&x, BIG + rank, none, &y, c, d, none, 0, MPI_COMM_WORLD, &rq_),
          MPI_Gatherv_init_c(&x, BIG + rank, none, &y, c, d, none, 0, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &rq_));
    FORMS(mode, (void)0, MPI_Alltoallv_c(&x, c, d, none, &y, c, d, none, MPI_COMM_WORLD),
          MPI_Ialltoallv_c(&x, c, d, none, &y, c, d, none, MPI_COMM_WORLD, &rq_),
          MPI_Alltoallv_init_c(&x, c, d, none, &y, c, d, none, MPI_COMM_WORLD, MPI_INFO_NULL,
                               &rq_));
    CHECK(x == 5 && y == 6);
    free(d);
    free(c);
    CHECK_MPI(MPI_Type_free(&none));
}

static char *reserve(MPI_Count bytes)
{
    void *p = mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECKF(p != MAP_FAILED, "cannot reserve %lld bytes of address space", bytes);
    return p;
}

/* Displacements beyond INT_MAX: block j sits BIG + 64 j chars into a
 * reserved buffer; only the blocks are ever written. */
static void far_displs(int mode)
{
    const MPI_Count span = BIG + 64 * (MPI_Count)size + 64;
    const int root = size / 2;
    char *far = reserve(span), *far2 = reserve(span), own[64];
    MPI_Count *c = tu_malloc(sizeof(MPI_Count) * size);
    MPI_Aint *d = tu_malloc(sizeof(MPI_Aint) * size);
    for (int j = 0; j < size; j++) {
        c[j] = 10 + j;
        d[j] = BIG + 64 * j;
    }
    for (int i = 0; i < 10 + rank; i++)
        own[i] = (char)(rank * 16 + i);
    FORMS(mode, (void)0,
          MPI_Gatherv_c(own, 10 + rank, MPI_CHAR, far, c, d, MPI_CHAR, root, MPI_COMM_WORLD),
          MPI_Igatherv_c(own, 10 + rank, MPI_CHAR, far, c, d, MPI_CHAR, root, MPI_COMM_WORLD,
                         &rq_),
          MPI_Gatherv_init_c(own, 10 + rank, MPI_CHAR, far, c, d, MPI_CHAR, root,
                             MPI_COMM_WORLD, MPI_INFO_NULL, &rq_));
    if (rank == root)
        for (int j = 0; j < size; j++)
            for (int i = 0; i < 10 + j; i++)
                CHECKF(far[d[j] + i] == (char)(j * 16 + i), "far gatherv block %d [%d]", j, i);
    FORMS(mode, (void)0,
          MPI_Allgatherv_c(own, 10 + rank, MPI_CHAR, far2, c, d, MPI_CHAR, MPI_COMM_WORLD),
          MPI_Iallgatherv_c(own, 10 + rank, MPI_CHAR, far2, c, d, MPI_CHAR, MPI_COMM_WORLD,
                            &rq_),
          MPI_Allgatherv_init_c(own, 10 + rank, MPI_CHAR, far2, c, d, MPI_CHAR, MPI_COMM_WORLD,
                                MPI_INFO_NULL, &rq_));
    for (int j = 0; j < size; j++)
        for (int i = 0; i < 10 + j; i++)
            CHECKF(far2[d[j] + i] == (char)(j * 16 + i), "far allgatherv block %d [%d]", j, i);
    /* Scatterv back from the root's far blocks. */
    memset(own, 0, sizeof own);
    FORMS(mode, (void)0,
          MPI_Scatterv_c(far, c, d, MPI_CHAR, own, 10 + rank, MPI_CHAR, root, MPI_COMM_WORLD),
          MPI_Iscatterv_c(far, c, d, MPI_CHAR, own, 10 + rank, MPI_CHAR, root, MPI_COMM_WORLD,
                          &rq_),
          MPI_Scatterv_init_c(far, c, d, MPI_CHAR, own, 10 + rank, MPI_CHAR, root,
                              MPI_COMM_WORLD, MPI_INFO_NULL, &rq_));
    for (int i = 0; i < 10 + rank; i++)
        CHECKF(own[i] == (char)(rank * 16 + i), "far scatterv own[%d]", i);
    /* Alltoallv between far blocks on both sides (10 chars each way), and
     * Alltoallw with byte displacements as far. */
    MPI_Count *c10 = tu_malloc(sizeof(MPI_Count) * size);
    MPI_Datatype *types = tu_malloc(sizeof(MPI_Datatype) * size);
    for (int j = 0; j < size; j++) {
        c10[j] = 10;
        types[j] = MPI_CHAR;
        for (int i = 0; i < 10; i++)
            far[d[j] + i] = (char)(rank * 16 + j + i);
    }
    FORMS(mode, (void)0,
          MPI_Alltoallv_c(far, c10, d, MPI_CHAR, far2, c10, d, MPI_CHAR, MPI_COMM_WORLD),
          MPI_Ialltoallv_c(far, c10, d, MPI_CHAR, far2, c10, d, MPI_CHAR, MPI_COMM_WORLD, &rq_),
          MPI_Alltoallv_init_c(far, c10, d, MPI_CHAR, far2, c10, d, MPI_CHAR, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &rq_));
    for (int j = 0; j < size; j++)
        for (int i = 0; i < 10; i++)
            CHECKF(far2[d[j] + i] == (char)(j * 16 + rank + i), "far alltoallv block %d [%d]", j,
                   i);
    memset(far2 + BIG, 0, 64 * (size_t)size);
    FORMS(mode, (void)0,
          MPI_Alltoallw_c(far, c10, d, types, far2, c10, d, types, MPI_COMM_WORLD),
          MPI_Ialltoallw_c(far, c10, d, types, far2, c10, d, types, MPI_COMM_WORLD, &rq_),
          MPI_Alltoallw_init_c(far, c10, d, types, far2, c10, d, types, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &rq_));
    for (int j = 0; j < size; j++)
        for (int i = 0; i < 10; i++)
            CHECKF(far2[d[j] + i] == (char)(j * 16 + rank + i), "far alltoallw block %d [%d]", j,
                   i);
    free(types);
    free(c10);
    free(d);
    free(c);
    munmap(far2, (size_t)span);
    munmap(far, (size_t)span);
}

static void errors(void)
{
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int x = 0, code;
    char s[MPI_MAX_ERROR_STRING];
    int len;
    CHECK_ERR(code = MPI_Bcast_c(&x, -BIG, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    MPI_Error_string(code, s, &len);
    CHECKF(strstr(s, "MPI_Bcast_c") && strstr(s, "count=-2147484672"), "message \"%s\"", s);
    MPI_Count *c = tu_malloc(sizeof(MPI_Count) * size);
    MPI_Aint *d = tu_malloc(sizeof(MPI_Aint) * size);
    for (int i = 0; i < size; i++) {
        c[i] = 1;
        d[i] = 0;
    }
    c[size - 1] = -5;
    MPI_Request rq;
    CHECK_ERR(code = MPI_Iallgatherv_c(&x, 1, MPI_INT, &x, c, d, MPI_INT, MPI_COMM_WORLD, &rq),
              MPI_ERR_COUNT);
    MPI_Error_string(code, s, &len);
    char want[64];
    snprintf(want, sizeof want, "recvcounts[%d]=-5", size - 1);
    CHECKF(strstr(s, "MPI_Iallgatherv_c") && strstr(s, want), "message \"%s\"", s);
    free(d);
    free(c);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int mode = 0; mode < 3; mode++) {
        fixed(mode);
        rooted_v(mode);
        all_v(mode);
        neighbor(mode);
        user_ops(mode);
        big_counts(mode);
        far_displs(mode);
    }
    errors();
    MPI_Finalize();
    return 0;
}
