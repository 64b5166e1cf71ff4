/* type_darray: MPI_Type_create_darray against a reference written the
 * other way round.  The library lists what a process holds; the reference
 * asks, for every element of the global array, which grid coordinate owns
 * it in each dimension (block: index / darg; cyclic: (index / darg) mod
 * psize; none: 0) and keeps those of this process's coordinates.  For
 * every configuration (1-D exhaustively over small sizes, 2-D and 3-D
 * over a grid of cases, both orders) and every rank of the grid:
 *   - MPI_Pack of the global array (element i holds i) gives exactly the
 *     owned indices in increasing order (the type map's order);
 *   - size, lb 0, extent of the whole array, true bounds;
 *   - the ranks' pieces cover the array exactly once;
 * and: an oldtype of several bytes, MPI_Pack_external of a darray, the
 * envelope and contents, scatter and gather of an array over the job's
 * ranks with darray types on one side, and the argument errors. */
#include "testutil.h"

#define MAXD 3
#define MAXN 4096

struct cfg {
    int size, nd, order;
    int gsizes[MAXD], distribs[MAXD], dargs[MAXD], psizes[MAXD];
};

/* Grid coordinates of rank: row-major, whatever the array order. */
static void coords_of(const struct cfg *c, int rank, int *coord)
{
    for (int i = c->nd - 1; i >= 0; i--) {
        coord[i] = rank % c->psizes[i];
        rank /= c->psizes[i];
    }
}

static int owner(const struct cfg *c, int d, int idx)
{
    int g = c->gsizes[d], p = c->psizes[d], k = c->dargs[d];
    switch (c->distribs[d]) {
    case MPI_DISTRIBUTE_BLOCK:
        if (k == MPI_DISTRIBUTE_DFLT_DARG)
            k = (g + p - 1) / p;
        return idx / k;
    case MPI_DISTRIBUTE_CYCLIC:
        if (k == MPI_DISTRIBUTE_DFLT_DARG)
            k = 1;
        return (idx / k) % p;
    default: return 0;
    }
}

static int total(const struct cfg *c)
{
    int n = 1;
    for (int d = 0; d < c->nd; d++)
        n *= c->gsizes[d];
    return n;
}

/* Owned linear indices of rank, increasing; returns how many. */
static int expected(const struct cfg *c, int rank, int *out)
{
    int coord[MAXD], n = 0, N = total(c);
    coords_of(c, rank, coord);
    for (int L = 0; L < N; L++) {
        int rest = L, mine = 1;
        for (int k = 0; k < c->nd; k++) { /* k-th fastest dimension */
            int d = c->order == MPI_ORDER_C ? c->nd - 1 - k : k;
            int idx = rest % c->gsizes[d];
            rest /= c->gsizes[d];
            mine = mine && owner(c, d, idx) == coord[d];
        }
        if (mine)
            out[n++] = L;
    }
    return n;
}

static MPI_Datatype make(const struct cfg *c, int rank, MPI_Datatype old)
{
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_create_darray(c->size, rank, c->nd, c->gsizes, c->distribs, c->dargs,
                                     c->psizes, c->order, old, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    return t;
}

static const char *describe(const struct cfg *c, int rank)
{
    static char s[256];
    int n = snprintf(s, sizeof s, "size %d rank %d %s:", c->size, rank,
                     c->order == MPI_ORDER_C ? "C" : "F");
    for (int d = 0; d < c->nd; d++)
        n += snprintf(s + n, sizeof s - (size_t)n, " [g%d %s darg %d p%d]", c->gsizes[d],
                      c->distribs[d] == MPI_DISTRIBUTE_BLOCK    ? "block"
                      : c->distribs[d] == MPI_DISTRIBUTE_CYCLIC ? "cyclic"
                                                                : "none",
                      c->dargs[d], c->psizes[d]);
    return s;
}

static int global[MAXN];
static int ncases;

static void check_cfg(const struct cfg *c)
{
    static int want[MAXN], got[MAXN], cover[MAXN];
    int N = total(c);
    memset(cover, 0, sizeof(int) * (size_t)N);
    for (int rank = 0; rank < c->size; rank++) {
        int n = expected(c, rank, want), sz, pos = 0;
        MPI_Datatype t = make(c, rank, MPI_INT);
        MPI_Aint lb, ext, tlb, text;
        CHECK_MPI(MPI_Type_size(t, &sz));
        CHECKF(sz == n * 4, "%s: size %d, expected %d ints", describe(c, rank), sz, n);
        CHECK_MPI(MPI_Type_get_extent(t, &lb, &ext));
        CHECKF(lb == 0 && ext == (MPI_Aint)N * 4, "%s: lb %ld extent %ld", describe(c, rank),
               (long)lb, (long)ext);
        CHECK_MPI(MPI_Type_get_true_extent(t, &tlb, &text));
        if (n > 0)
            CHECKF(tlb == want[0] * 4 && text == (want[n - 1] - want[0] + 1) * 4,
                   "%s: true lb %ld extent %ld", describe(c, rank), (long)tlb, (long)text);
        CHECK_MPI(MPI_Pack(global, 1, t, got, sizeof got, &pos, MPI_COMM_SELF));
        CHECK_EQ(pos, n * 4);
        for (int i = 0; i < n; i++) {
            CHECKF(got[i] == want[i], "%s: element %d is %d, expected %d", describe(c, rank), i,
                   got[i], want[i]);
            cover[got[i]]++;
        }
        CHECK_MPI(MPI_Type_free(&t));
        ncases++;
    }
    for (int L = 0; L < N; L++)
        CHECKF(cover[L] == 1, "%s: element %d held %d times", describe(c, 0), L, cover[L]);
}

static const int dists[3] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE};

/* A darg is usable for (distrib, gsize, psize). */
static int usable(int dist, int darg, int g, int p)
{
    if (dist == MPI_DISTRIBUTE_NONE)
        return p == 1;
    return darg == MPI_DISTRIBUTE_DFLT_DARG ||
           (darg > 0 && (dist != MPI_DISTRIBUTE_BLOCK || darg * p >= g));
}

static void one_d(int me, int nprocs)
{
    int k = 0;
    for (int g = 1; g <= 11; g++)
        for (int p = 1; p <= 5; p++)
            for (int di = 0; di < 3; di++)
                for (int darg = 0; darg <= 6; darg++) {
                    int a = darg ? darg : MPI_DISTRIBUTE_DFLT_DARG;
                    if (!usable(dists[di], a, g, p) || k++ % nprocs != me)
                        continue;
                    struct cfg c = {p, 1, MPI_ORDER_C, {g}, {dists[di]}, {a}, {p}};
                    check_cfg(&c);
                }
}

static void two_d(int me, int nprocs)
{
    static const int gs[][2] = {{1, 4}, {3, 5}, {6, 2}, {5, 5}, {7, 3}};
    static const int ps[][2] = {{1, 1}, {2, 3}, {3, 2}, {1, 3}, {2, 1}, {2, 2}};
    static const int ds[] = {MPI_DISTRIBUTE_DFLT_DARG, 2, 3};
    int k = 0;
    for (size_t gi = 0; gi < sizeof gs / sizeof gs[0]; gi++)
        for (size_t pi = 0; pi < sizeof ps / sizeof ps[0]; pi++)
            for (int d0 = 0; d0 < 3; d0++)
                for (int d1 = 0; d1 < 3; d1++)
                    for (int a0 = 0; a0 < 3; a0++)
                        for (int a1 = 0; a1 < 3; a1++)
                            for (int o = 0; o < 2; o++) {
                                struct cfg c = {ps[pi][0] * ps[pi][1], 2,
                                                o ? MPI_ORDER_FORTRAN : MPI_ORDER_C,
                                                {gs[gi][0], gs[gi][1]}, {dists[d0], dists[d1]},
                                                {ds[a0], ds[a1]}, {ps[pi][0], ps[pi][1]}};
                                if (!usable(dists[d0], ds[a0], gs[gi][0], ps[pi][0]) ||
                                    !usable(dists[d1], ds[a1], gs[gi][1], ps[pi][1]) ||
                                    k++ % nprocs != me)
                                    continue;
                                check_cfg(&c);
                            }
}

static void three_d(int me, int nprocs)
{
    static const struct cfg cs[] = {
        {4, 3, MPI_ORDER_C, {4, 3, 5}, {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_CYCLIC},
         {MPI_DISTRIBUTE_DFLT_DARG, 0, 2}, {2, 1, 2}},
        {4, 3, MPI_ORDER_FORTRAN, {4, 3, 5}, {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_CYCLIC},
         {MPI_DISTRIBUTE_DFLT_DARG, 0, 2}, {2, 1, 2}},
        {12, 3, MPI_ORDER_C, {5, 6, 7}, {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
         {1, 3, 3}, {2, 2, 3}},
        {12, 3, MPI_ORDER_FORTRAN, {5, 6, 7}, {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
         {1, 3, 3}, {3, 2, 2}},
        {8, 3, MPI_ORDER_C, {9, 2, 9}, {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK},
         {5, 1, MPI_DISTRIBUTE_DFLT_DARG}, {2, 2, 2}},
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
        if ((int)i % nprocs == me)
            check_cfg(&cs[i]);
}

/* An oldtype of two shorts (a 4-byte element of two values). */
static void wide_oldtype(void)
{
    struct cfg c = {6, 2, MPI_ORDER_FORTRAN, {5, 4}, {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK},
                    {2, MPI_DISTRIBUTE_DFLT_DARG}, {3, 2}};
    MPI_Datatype pair;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_SHORT, &pair));
    short g[40], got[40];
    int want[20];
    for (int i = 0; i < 40; i++)
        g[i] = (short)(1000 + i);
    for (int rank = 0; rank < c.size; rank++) {
        int n = expected(&c, rank, want), pos = 0;
        MPI_Datatype t = make(&c, rank, pair);
        MPI_Aint lb, ext;
        CHECK_MPI(MPI_Type_get_extent(t, &lb, &ext));
        CHECK(lb == 0 && ext == 20 * 4);
        CHECK_MPI(MPI_Pack(g, 1, t, got, sizeof got, &pos, MPI_COMM_SELF));
        CHECK_EQ(pos, n * 4);
        for (int i = 0; i < n; i++)
            CHECK(got[2 * i] == 1000 + 2 * want[i] && got[2 * i + 1] == 1000 + 2 * want[i] + 1);
        /* external32 walks the same pieces: big-endian shorts */
        unsigned char ext32[80];
        MPI_Aint xpos = 0;
        CHECK_MPI(MPI_Pack_external("external32", g, 1, t, ext32, sizeof ext32, &xpos));
        CHECK_EQ(xpos, n * 4);
        for (int i = 0; i < 2 * n; i++)
            CHECK(ext32[2 * i] == (got[i] >> 8) && ext32[2 * i + 1] == (got[i] & 0xff));
        CHECK_MPI(MPI_Type_free(&t));
    }

    /* Envelope and contents: the arguments as given. */
    MPI_Datatype t = make(&c, 4, pair);
    int ni, na, nt, comb, ints[4 * 2 + 4];
    MPI_Aint aints[1];
    MPI_Datatype types[1];
    CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nt, &comb));
    CHECK(ni == 4 * 2 + 4 && na == 0 && nt == 1 && comb == MPI_COMBINER_DARRAY);
    CHECK_MPI(MPI_Type_get_contents(t, ni, na, nt, ints, aints, types));
    const int want_ints[] = {6, 4, 2, 5, 4, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK, 2,
                             MPI_DISTRIBUTE_DFLT_DARG, 3, 2, MPI_ORDER_FORTRAN};
    for (int i = 0; i < ni; i++)
        CHECKF(ints[i] == want_ints[i], "contents int %d is %d, expected %d", i, ints[i],
               want_ints[i]);
    int tni, tna, tnt, tcomb;
    CHECK_MPI(MPI_Type_get_envelope(types[0], &tni, &tna, &tnt, &tcomb));
    CHECK(tcomb == MPI_COMBINER_CONTIGUOUS && tni == 1 && tnt == 1);
    CHECK_MPI(MPI_Type_free(&types[0]));
    CHECK_MPI(MPI_Type_free(&t));
    t = make(&c, 0, MPI_INT);
    CHECK_MPI(MPI_Type_get_contents(t, ni, na, nt, ints, aints, types));
    CHECK(types[0] == MPI_INT && ints[1] == 0);
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_MPI(MPI_Type_free(&pair));
}

/* Scatter a global 2-D array from rank 0 with a darray type per rank, and
 * gather it back into a zeroed array with the same types. */
static void scatter_gather(int me, int nprocs)
{
    int dims[2] = {0, 0};
    CHECK_MPI(MPI_Dims_create(nprocs, 2, dims));
    struct cfg c = {nprocs, 2, MPI_ORDER_C, {13, 9}, {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK},
                    {2, MPI_DISTRIBUTE_DFLT_DARG}, {dims[0], dims[1]}};
    enum { N = 13 * 9 };
    int g[N], back[N], local[N], want[N];
    for (int i = 0; i < N; i++)
        g[i] = 7 * i + 1;
    int n = expected(&c, me, want);
    MPI_Request rq;
    CHECK_MPI(MPI_Irecv(local, n, MPI_INT, 0, 5, MPI_COMM_WORLD, &rq));
    if (me == 0)
        for (int r = 0; r < nprocs; r++) {
            MPI_Datatype t = make(&c, r, MPI_INT);
            CHECK_MPI(MPI_Send(g, 1, t, r, 5, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Type_free(&t));
        }
    MPI_Status st;
    CHECK_MPI(MPI_Wait(&rq, &st));
    int cnt;
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &cnt));
    CHECK_EQ(cnt, n);
    for (int i = 0; i < n; i++)
        CHECK_EQ(local[i], 7 * want[i] + 1);
    /* and back */
    CHECK_MPI(MPI_Isend(local, n, MPI_INT, 0, 6, MPI_COMM_WORLD, &rq));
    if (me == 0) {
        memset(back, 0, sizeof back);
        for (int r = 0; r < nprocs; r++) {
            MPI_Datatype t = make(&c, r, MPI_INT);
            CHECK_MPI(MPI_Recv(back, 1, t, r, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Type_free(&t));
        }
        CHECK(memcmp(back, g, sizeof g) == 0);
    }
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
}

static void errors(void)
{
    int g[2] = {4, 4}, d[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    int a[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, p[2] = {2, 2};
    MPI_Datatype t = MPI_DATATYPE_NULL;
#define E(size, rank, nd, g_, d_, a_, p_, o, old, out, cls)                                 \
    CHECK_ERR(MPI_Type_create_darray(size, rank, nd, g_, d_, a_, p_, o, old, out), cls)
    E(0, 0, 2, g, d, a, p, MPI_ORDER_C, MPI_INT, &t, MPI_ERR_ARG);
    E(4, 4, 2, g, d, a, p, MPI_ORDER_C, MPI_INT, &t, MPI_ERR_ARG);
    E(4, -1, 2, g, d, a, p, MPI_ORDER_C, MPI_INT, &t, MPI_ERR_ARG);
    E(4, 0, 0, g, d, a, p, MPI_ORDER_C, MPI_INT, &t, MPI_ERR_DIMS);
    E(3, 0, 2, g, d, a, p, MPI_ORDER_C, MPI_INT, &t, MPI_ERR_ARG);  /* grid of 4 */
    E(8, 0, 2, g, d, a, p, MPI_ORDER_C, MPI_INT, &t, MPI_ERR_ARG);
    E(4, 0, 2, g, d, a, p, 99, MPI_INT, &t, MPI_ERR_ARG);
    E(4, 0, 2, g, d, a, p, MPI_ORDER_C, MPI_DATATYPE_NULL, &t, MPI_ERR_TYPE);
    E(4, 0, 2, g, d, a, p, MPI_ORDER_C, MPI_INT, NULL, MPI_ERR_ARG);
    E(4, 0, 2, NULL, d, a, p, MPI_ORDER_C, MPI_INT, &t, MPI_ERR_ARG);
    int g0[2] = {4, 0}, p0[2] = {4, 0}, dbad[2] = {MPI_DISTRIBUTE_BLOCK, 7};
    int dnone[2] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_CYCLIC};
    int azero[2] = {MPI_DISTRIBUTE_DFLT_DARG, 0}, aneg[2] = {MPI_DISTRIBUTE_DFLT_DARG, -3};
    int ashort[2] = {1, MPI_DISTRIBUTE_DFLT_DARG};
    E(4, 0, 2, g0, d, a, p, MPI_ORDER_C, MPI_INT, &t, MPI_ERR_ARG);
    E(4, 0, 2, g, d, a, p0, MPI_ORDER_C, MPI_INT, &t, MPI_ERR_ARG);
    E(4, 0, 2, g, dbad, a, p, MPI_ORDER_C, MPI_INT, &t, MPI_ERR_ARG);
    E(4, 0, 2, g, dnone, a, p, MPI_ORDER_C, MPI_INT, &t, MPI_ERR_ARG); /* NONE over 2 */
    E(4, 0, 2, g, d, azero, p, MPI_ORDER_C, MPI_INT, &t, MPI_ERR_ARG);
    E(4, 0, 2, g, d, aneg, p, MPI_ORDER_C, MPI_INT, &t, MPI_ERR_ARG);
    E(4, 0, 2, g, d, ashort, p, MPI_ORDER_C, MPI_INT, &t, MPI_ERR_ARG); /* block 1 x 2 < 4 */
#undef E
    CHECK(t == MPI_DATATYPE_NULL);
    /* A block darg that just covers is fine; NONE ignores its darg. */
    int ajust[2] = {2, 5}, p41[2] = {2, 1}, d2[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE};
    CHECK_MPI(MPI_Type_create_darray(2, 1, 2, g, d2, ajust, p41, MPI_ORDER_C, MPI_INT, &t));
    CHECK_MPI(MPI_Type_free(&t));
}

int main(int argc, char **argv)
{
    int me, nprocs;
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &nprocs));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    for (int i = 0; i < MAXN; i++)
        global[i] = i;
    one_d(me, nprocs);
    two_d(me, nprocs);
    three_d(me, nprocs);
    wide_oldtype();
    scatter_gather(me, nprocs);
    errors();
    int all = 0;
    CHECK_MPI(MPI_Reduce(&ncases, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Finalize());
    if (me == 0)
        printf("type_darray: OK, %d darray types checked (%d ranks)\n", all, nprocs);
    return 0;
}
