/* topo_cart: MPI_Dims_create (a table of cases, fixed entries, errors),
 * Cartesian communicators on every grid shape that fits the job — 1-D to
 * 3-D, periodic and not, periodic dimensions of size 1 and 2 — checked
 * against exact coordinates, ranks and shift results (one 3 x 2 grid
 * against a hand-written table), the ranks beyond the grid getting
 * MPI_COMM_NULL, zero-dimensional grids, Cart_sub, Cart_map, Comm_dup
 * keeping the topology and Comm_split/Comm_create dropping it, the
 * constructors refusing intercommunicators, and the error classes under
 * MPI_ERRORS_RETURN.
 *
 * The standard names no error class for most topology errors: fabmpi's
 * classes are checked exactly, another MPI's only for being an error
 * (TOPO_ERR).  Checks Open MPI 4.1 fails are marked. */
#include "testutil.h"

static int rank, size;

/* ---- MPI_Dims_create ------------------------------------------------------- */

struct dims_case {
    int nnodes, ndims;
    int in[4], out[4];
};

/* Balanced, non-increasing, fixed entries kept.  The first four are the
 * standard's own examples (MPI-4.0 8.5.2). */
static const struct dims_case dims_cases[] = {
    {6, 2, {0, 0}, {3, 2}},
    {7, 2, {0, 0}, {7, 1}},
    {6, 3, {0, 3, 0}, {2, 3, 1}},
    {1, 0, {0}, {0}},
    {1, 3, {0, 0, 0}, {1, 1, 1}},
    {2, 1, {0}, {2}},
    {16, 2, {0, 0}, {4, 4}},
    {24, 2, {0, 0}, {6, 4}},
    {13, 2, {0, 0}, {13, 1}},
    {8, 3, {0, 0, 0}, {2, 2, 2}},
    {12, 3, {0, 0, 0}, {3, 2, 2}},
    {32, 3, {0, 0, 0}, {4, 4, 2}},
    {64, 3, {0, 0, 0}, {4, 4, 4}},
    {60, 4, {0, 0, 0, 0}, {5, 3, 2, 2}},
    {1000000000, 3, {0, 0, 0}, {1000, 1000, 1000}},
    {12, 3, {0, 2, 0}, {3, 2, 2}},
    {12, 3, {0, 1, 0}, {4, 1, 3}},
    {24, 3, {0, 0, 2}, {4, 3, 2}},
    {8, 2, {8, 0}, {8, 1}},
    {6, 2, {2, 3}, {2, 3}},
    {36, 3, {0, 4, 0}, {3, 4, 3}},
};

/* Where readings of "as close as possible" differ: fabmpi keeps the
 * largest-minus-smallest least, then the smallest dimension largest
 * (MPICH's table); Open MPI 4.1 gives 30 x 20 x 18 and 20 x 18 x 14. */
static const struct dims_case dims_cases_fabmpi[] __attribute__((unused)) = {
    {10800, 3, {0, 0, 0}, {27, 20, 20}},
    {5040, 3, {0, 0, 0}, {21, 16, 15}},
    {34425, 3, {0, 0, 0}, {51, 27, 25}},
};

static void dims_one(const struct dims_case *c)
{
    int d[4];
    memcpy(d, c->in, sizeof d);
    CHECK_MPI(MPI_Dims_create(c->nnodes, c->ndims, c->ndims ? d : NULL));
    for (int i = 0; i < c->ndims; i++)
        CHECKF(d[i] == c->out[i], "Dims_create(%d, %d): dims[%d]=%d, expected %d", c->nnodes,
               c->ndims, i, d[i], c->out[i]);
}

static void dims_create(void)
{
    for (size_t k = 0; k < sizeof dims_cases / sizeof dims_cases[0]; k++)
        dims_one(&dims_cases[k]);
#ifndef OPEN_MPI
    for (size_t k = 0; k < sizeof dims_cases_fabmpi / sizeof dims_cases_fabmpi[0]; k++)
        dims_one(&dims_cases_fabmpi[k]);
#endif
    /* Every size of this job in 1..4 dimensions: product and order. */
    for (int nd = 1; nd <= 4; nd++) {
        int d[4] = {0, 0, 0, 0}, prod = 1;
        CHECK_MPI(MPI_Dims_create(size, nd, d));
        for (int i = 0; i < nd; i++) {
            prod *= d[i];
            if (i > 0)
                CHECKF(d[i] <= d[i - 1], "Dims_create(%d, %d) increases at %d", size, nd, i);
        }
        CHECK_EQ(prod, size);
    }

    /* Errors: no communicator involved, so MPI_COMM_WORLD's handler (or
     * MPI_COMM_SELF's, as MPI-4.0 allows) must return. */
    int d[3] = {0, 3, 0};
    TOPO_ERR(MPI_Dims_create(7, 3, d), MPI_ERR_DIMS); /* the standard's example */
    CHECK(d[0] == 0 && d[1] == 3 && d[2] == 0);      /* untouched on error */
    int all_fixed[2] = {2, 3};
    TOPO_ERR(MPI_Dims_create(4, 2, all_fixed), MPI_ERR_DIMS);
    int neg[2] = {-1, 0};
    TOPO_ERR(MPI_Dims_create(4, 2, neg), MPI_ERR_DIMS);
    int z[2] = {0, 0};
    TOPO_ERR(MPI_Dims_create(4, -1, z), MPI_ERR_DIMS);
    TOPO_ERR(MPI_Dims_create(-4, 2, z), MPI_ERR_ARG);
#ifdef FABMPI
    /* MPICH 4.0 returns success here, and loops forever on nnodes=0. */
    TOPO_ERR(MPI_Dims_create(4, 0, NULL), MPI_ERR_DIMS);
    TOPO_ERR(MPI_Dims_create(0, 2, z), MPI_ERR_ARG);
#endif
}

/* ---- Cartesian grids -------------------------------------------------------- */

struct shape {
    int ndims;
    int dims[3], periods[3];
};

/* Every shape runs where it fits (grid points <= ranks). */
static const struct shape shapes[] = {
    {1, {1}, {0}},
    {1, {1}, {1}},          /* periodic, size 1: every neighbour is oneself */
    {1, {2}, {1}},          /* periodic, size 2: both neighbours are the other */
    {1, {2}, {0}},
    {2, {1, 2}, {1, 1}},
    {2, {2, 2}, {1, 0}},
    {1, {3}, {1}},
    {2, {3, 1}, {0, 1}},
    {2, {2, 2}, {0, 0}},
    {2, {3, 2}, {0, 1}},
    {3, {2, 2, 2}, {1, 1, 0}},
    {3, {2, 1, 4}, {0, 1, 1}},
    {2, {4, 2}, {1, 1}},
    {3, {1, 1, 1}, {0, 0, 1}},
};

static int grid_points(const struct shape *s)
{
    int n = 1;
    for (int i = 0; i < s->ndims; i++)
        n *= s->dims[i];
    return n;
}

/* Reference row-major arithmetic, written out independently of the
 * library: coordinates of r, and the rank at coordinate c moved by
 * disp along dimension dir (MPI_PROC_NULL off a non-periodic edge). */
static void ref_coords(const struct shape *s, int r, int *c)
{
    for (int i = s->ndims - 1; i >= 0; i--) {
        c[i] = r % s->dims[i];
        r /= s->dims[i];
    }
}

static int ref_moved(const struct shape *s, const int *c, int dir, long long disp)
{
    int cc[3];
    memcpy(cc, c, sizeof cc);
    long long v = (long long)c[dir] + disp;
    if (s->periods[dir])
        v = ((v % s->dims[dir]) + s->dims[dir]) % s->dims[dir];
    else if (v < 0 || v >= s->dims[dir])
        return MPI_PROC_NULL;
    cc[dir] = (int)v;
    int r = 0;
    for (int i = 0; i < s->ndims; i++)
        r = r * s->dims[i] + cc[i];
    return r;
}

static void check_shape(MPI_Comm cart, const struct shape *s)
{
    int n = grid_points(s), cr, cs, st, nd;
    CHECK_MPI(MPI_Comm_rank(cart, &cr));
    CHECK_MPI(MPI_Comm_size(cart, &cs));
    CHECK_EQ(cs, n);
    CHECK_EQ(cr, rank); /* reorder = 0: rank kept */
    CHECK_MPI(MPI_Topo_test(cart, &st));
    CHECK_EQ(st, MPI_CART);
    CHECK_MPI(MPI_Cartdim_get(cart, &nd));
    CHECK_EQ(nd, s->ndims);

    int dims[3] = {-1, -1, -1}, periods[3] = {-1, -1, -1}, coords[3] = {-1, -1, -1}, ref[3];
    CHECK_MPI(MPI_Cart_get(cart, 3, dims, periods, coords));
    ref_coords(s, cr, ref);
    for (int i = 0; i < s->ndims; i++) {
        CHECK_EQ(dims[i], s->dims[i]);
        CHECK_EQ(periods[i], s->periods[i]);
        CHECK_EQ(coords[i], ref[i]);
    }
    /* Cart_coords and Cart_rank for every grid point, both ways. */
    for (int r = 0; r < n; r++) {
        int c[3] = {-1, -1, -1}, back = -1;
        CHECK_MPI(MPI_Cart_coords(cart, r, s->ndims, c));
        ref_coords(s, r, ref);
        for (int i = 0; i < s->ndims; i++)
            CHECKF(c[i] == ref[i], "rank %d: coords[%d]=%d, expected %d", r, i, c[i], ref[i]);
        CHECK_MPI(MPI_Cart_rank(cart, c, &back));
        CHECK_EQ(back, r);
        /* Periodic coordinates wrap: one period below and two above. */
        int w[3];
        memcpy(w, c, sizeof w);
        for (int i = 0; i < s->ndims; i++)
            if (s->periods[i])
                w[i] += (i % 2 ? 2 : -1) * s->dims[i];
        CHECK_MPI(MPI_Cart_rank(cart, w, &back));
        CHECK_EQ(back, r);
    }
    /* Shifts: every dimension, displacements around and beyond the grid. */
    const int disps[] = {0, 1, -1, 2, -3, 7, 1000003,
#ifndef OPEN_MPI /* Open MPI 4.1 overflows: a shift by -(2^31 - 1) on 3 points lands wrong */
                         -2147483647
#endif
    };
    ref_coords(s, cr, ref);
    for (int dir = 0; dir < s->ndims; dir++)
        for (size_t k = 0; k < sizeof disps / sizeof disps[0]; k++) {
            int src = -7, dst = -7, d = disps[k];
            CHECK_MPI(MPI_Cart_shift(cart, dir, d, &src, &dst));
            CHECKF(src == ref_moved(s, ref, dir, -(long long)d) &&
                       dst == ref_moved(s, ref, dir, d),
                   "shift dir=%d disp=%d: (%d, %d), expected (%d, %d)", dir, d, src, dst,
                   ref_moved(s, ref, dir, -(long long)d), ref_moved(s, ref, dir, d));
        }
    /* The communicator works: a ring along dimension 0, neighbours that
     * exist sending their rank (Sendrecv with MPI_PROC_NULL is a no-op). */
    if (s->ndims > 0) {
        int src, dst, got = -5;
        CHECK_MPI(MPI_Cart_shift(cart, 0, 1, &src, &dst));
        CHECK_MPI(MPI_Sendrecv(&cr, 1, MPI_INT, dst, 11, &got, 1, MPI_INT, src, 11, cart,
                               MPI_STATUS_IGNORE));
        CHECK_EQ(got, src == MPI_PROC_NULL ? -5 : src);
    }
}

/* A 3 x 2 grid, dimension 0 open and dimension 1 periodic, checked
 * against a table written by hand: for each rank, Cart_shift(dir, +1)
 * in both dimensions as {source0, dest0, source1, dest1}. */
static void check_table_3x2(MPI_Comm cart)
{
    const int N = MPI_PROC_NULL;
    const int table[6][4] = {
        {N, 2, 1, 1}, /* (0,0) */
        {N, 3, 0, 0}, /* (0,1) */
        {0, 4, 3, 3}, /* (1,0) */
        {1, 5, 2, 2}, /* (1,1) */
        {2, N, 5, 5}, /* (2,0) */
        {3, N, 4, 4}, /* (2,1) */
    };
    int got[4];
    CHECK_MPI(MPI_Cart_shift(cart, 0, 1, &got[0], &got[1]));
    CHECK_MPI(MPI_Cart_shift(cart, 1, 1, &got[2], &got[3]));
    for (int i = 0; i < 4; i++)
        CHECKF(got[i] == table[rank][i], "3x2 rank %d entry %d: %d, expected %d", rank, i,
               got[i], table[rank][i]);
    int c[2] = {2, -1}, r;
    CHECK_MPI(MPI_Cart_rank(cart, c, &r)); /* (2, -1) wraps to (2, 1) */
    CHECK_EQ(r, 5);
}

static void cart_shapes(void)
{
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        const struct shape *s = &shapes[k];
        int n = grid_points(s);
        if (n > size)
            continue;
        MPI_Comm cart = MPI_COMM_NULL;
        CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, s->ndims, s->dims, s->periods, 0, &cart));
        int expect;
        CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, s->ndims, s->dims, s->periods, &expect));
        if (rank >= n) {
            CHECKF(cart == MPI_COMM_NULL, "rank %d beyond a %d-point grid got a communicator",
                   rank, n);
#ifndef OPEN_MPI /* Open MPI 4.1 answers the old rank; MPI-4.0 8.5.7 says MPI_UNDEFINED */
            CHECK_EQ(expect, MPI_UNDEFINED);
#endif
            continue;
        }
        CHECK(cart != MPI_COMM_NULL);
        CHECK_EQ(expect, rank);
        check_shape(cart, s);
        if (s->ndims == 2 && s->dims[0] == 3 && s->dims[1] == 2)
            check_table_3x2(cart);
        CHECK_MPI(MPI_Comm_free(&cart));
    }
}

/* ndims = 0: one grid point, so rank 0 alone gets a communicator. */
static void cart_zero_dims(void)
{
    MPI_Comm cart = MPI_COMM_NULL;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &cart));
    if (rank > 0) {
        CHECK(cart == MPI_COMM_NULL);
        return;
    }
    CHECK(cart != MPI_COMM_NULL);
    int cs, nd = -1, r = -1, st;
    CHECK_MPI(MPI_Comm_size(cart, &cs));
    CHECK_EQ(cs, 1);
    CHECK_MPI(MPI_Cartdim_get(cart, &nd));
    CHECK_EQ(nd, 0);
    CHECK_MPI(MPI_Topo_test(cart, &st));
    CHECK_EQ(st, MPI_CART);
    CHECK_MPI(MPI_Cart_get(cart, 0, NULL, NULL, NULL));
    CHECK_MPI(MPI_Cart_rank(cart, NULL, &r));
    CHECK_EQ(r, 0);
    CHECK_MPI(MPI_Cart_coords(cart, 0, 0, NULL));
    MPI_Comm sub;
    CHECK_MPI(MPI_Cart_sub(cart, NULL, &sub));
    CHECK_MPI(MPI_Cartdim_get(sub, &nd));
    CHECK_EQ(nd, 0);
    CHECK_MPI(MPI_Comm_free(&sub));
    CHECK_MPI(MPI_Comm_free(&cart));
}

/* Cart_sub of a 3-D grid of the whole job: every choice of kept
 * dimensions, checked for size, shape, coordinates and membership. */
static void cart_sub(void)
{
    int dims[3] = {0, 0, 0}, periods[3] = {1, 0, 1};
    CHECK_MPI(MPI_Dims_create(size, 3, dims));
    MPI_Comm cart;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart));
    int my[3];
    CHECK_MPI(MPI_Cart_coords(cart, rank, 3, my));
    for (int mask = 0; mask < 8; mask++) {
        int remain[3] = {mask & 1, (mask >> 1) & 1, (mask >> 2) & 1};
        MPI_Comm sub;
        CHECK_MPI(MPI_Cart_sub(cart, remain, &sub));
        int nd, n = 1, kept = 0, sdims[3], sper[3], scoords[3];
        CHECK_MPI(MPI_Cartdim_get(sub, &nd));
        CHECK_EQ(nd, remain[0] + remain[1] + remain[2]);
        CHECK_MPI(MPI_Cart_get(sub, 3, sdims, sper, scoords));
        int expect_rank = 0;
        for (int i = 0; i < 3; i++) {
            if (!remain[i])
                continue;
            CHECK_EQ(sdims[kept], dims[i]);
            CHECK_EQ(sper[kept], periods[i]);
            CHECK_EQ(scoords[kept], my[i]);
            expect_rank = expect_rank * dims[i] + my[i];
            n *= dims[i];
            kept++;
        }
        int ss, sr;
        CHECK_MPI(MPI_Comm_size(sub, &ss));
        CHECK_MPI(MPI_Comm_rank(sub, &sr));
        CHECK_EQ(ss, n);
        CHECK_EQ(sr, expect_rank);
        /* Members are exactly the processes that share the dropped
         * coordinates. */
        int *all = tu_malloc(sizeof(int) * 3 * (size_t)n);
        CHECK_MPI(MPI_Allgather(my, 3, MPI_INT, all, 3, MPI_INT, sub));
        for (int j = 0; j < n; j++)
            for (int i = 0; i < 3; i++)
                if (!remain[i])
                    CHECK_EQ(all[3 * j + i], my[i]);
        free(all);
        CHECK_MPI(MPI_Comm_free(&sub));
    }
    CHECK_MPI(MPI_Comm_free(&cart));
}

/* Comm_dup and Comm_idup keep the topology; Comm_split and Comm_create
 * make communicators without one. */
static void dup_and_split(void)
{
    int dims[2] = {0, 0}, periods[2] = {0, 1};
    CHECK_MPI(MPI_Dims_create(size, 2, dims));
    MPI_Comm cart, dup, idup, split, created;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    CHECK_MPI(MPI_Comm_dup(cart, &dup));
    MPI_Request req;
    CHECK_MPI(MPI_Comm_idup(cart, &idup, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MPI_Comm with[2] = {dup, idup};
    for (int k = 0; k < 2; k++) {
        int st, d[2], p[2], c[2], src, dst, csrc, cdst;
        CHECK_MPI(MPI_Topo_test(with[k], &st));
        CHECK_EQ(st, MPI_CART);
        CHECK_MPI(MPI_Cart_get(with[k], 2, d, p, c));
        CHECK(d[0] == dims[0] && d[1] == dims[1] && p[0] == 0 && p[1] == 1);
        CHECK_MPI(MPI_Cart_shift(with[k], 1, 1, &src, &dst));
        CHECK_MPI(MPI_Cart_shift(cart, 1, 1, &csrc, &cdst));
        CHECK(src == csrc && dst == cdst);
    }
    /* The original still works after its duplicate is gone, and the other way round. */
    CHECK_MPI(MPI_Comm_free(&dup));
    CHECK_MPI(MPI_Comm_free(&cart));
    int nd;
    CHECK_MPI(MPI_Cartdim_get(idup, &nd));
    CHECK_EQ(nd, 2);

    CHECK_MPI(MPI_Comm_split(idup, 0, rank, &split));
    int st;
    CHECK_MPI(MPI_Topo_test(split, &st));
    CHECK_EQ(st, MPI_UNDEFINED);
    MPI_Group g;
    CHECK_MPI(MPI_Comm_group(idup, &g));
    CHECK_MPI(MPI_Comm_create(idup, g, &created));
    CHECK_MPI(MPI_Topo_test(created, &st));
    CHECK_EQ(st, MPI_UNDEFINED);
    CHECK_MPI(MPI_Topo_test(MPI_COMM_WORLD, &st));
    CHECK_EQ(st, MPI_UNDEFINED);
    CHECK_MPI(MPI_Group_free(&g));
    CHECK_MPI(MPI_Comm_free(&created));
    CHECK_MPI(MPI_Comm_free(&split));
    CHECK_MPI(MPI_Comm_free(&idup));
}

/* ---- errors ----------------------------------------------------------------- */

static void errors(void)
{
    int dims[2] = {size, 1}, periods[2] = {0, 1}, c[2], r, src, dst, nd;
    MPI_Comm cart;
    /* Creation: every process makes the same bad call. */
    TOPO_ERR(MPI_Cart_create(MPI_COMM_WORLD, -1, dims, periods, 0, &cart), MPI_ERR_DIMS);
    int zero[2] = {0, 1}, neg[2] = {-2, 1}, big[2] = {size, 2};
    TOPO_ERR(MPI_Cart_create(MPI_COMM_WORLD, 2, zero, periods, 0, &cart), MPI_ERR_DIMS);
    TOPO_ERR(MPI_Cart_create(MPI_COMM_WORLD, 2, neg, periods, 0, &cart), MPI_ERR_DIMS);
    TOPO_ERR(MPI_Cart_create(MPI_COMM_WORLD, 2, big, periods, 0, &cart), MPI_ERR_ARG);
    TOPO_ERR(MPI_Cart_create(MPI_COMM_NULL, 2, dims, periods, 0, &cart), MPI_ERR_COMM);
#ifndef OPEN_MPI /* Open MPI 4.1 accepts ndims = -1 */
    TOPO_ERR(MPI_Cart_map(MPI_COMM_WORLD, -1, dims, periods, &r), MPI_ERR_DIMS);
#endif
    /* No topology, or none at all. */
    TOPO_ERR(MPI_Cart_coords(MPI_COMM_WORLD, 0, 2, c), MPI_ERR_TOPOLOGY);
    TOPO_ERR(MPI_Cartdim_get(MPI_COMM_WORLD, &nd), MPI_ERR_TOPOLOGY);
    TOPO_ERR(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &src, &dst), MPI_ERR_TOPOLOGY);
    TOPO_ERR(MPI_Cart_get(MPI_COMM_WORLD, 2, c, c, c), MPI_ERR_TOPOLOGY);
    TOPO_ERR(MPI_Cart_rank(MPI_COMM_WORLD, c, &r), MPI_ERR_TOPOLOGY);
    TOPO_ERR(MPI_Cart_sub(MPI_COMM_WORLD, c, &cart), MPI_ERR_TOPOLOGY);
    TOPO_ERR(MPI_Graphdims_get(MPI_COMM_WORLD, &nd, &r), MPI_ERR_TOPOLOGY);
    TOPO_ERR(MPI_Topo_test(MPI_COMM_NULL, &nd), MPI_ERR_COMM);
    TOPO_ERR(MPI_Cartdim_get(MPI_COMM_NULL, &nd), MPI_ERR_COMM);

    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    /* The new communicator inherits MPI_ERRORS_RETURN from MPI_COMM_WORLD. */
    TOPO_ERR(MPI_Cart_coords(cart, -1, 2, c), MPI_ERR_RANK);
#ifndef OPEN_MPI /* Open MPI 4.1 returns coordinates for rank = size */
    TOPO_ERR(MPI_Cart_coords(cart, size, 2, c), MPI_ERR_RANK);
#endif
    TOPO_ERR(MPI_Cart_coords(cart, 0, -1, c), MPI_ERR_ARG);
    int out[2] = {size, 0}; /* dimension 0 is not periodic */
    TOPO_ERR(MPI_Cart_rank(cart, out, &r), MPI_ERR_RANK);
    out[0] = -1;
    TOPO_ERR(MPI_Cart_rank(cart, out, &r), MPI_ERR_RANK);
    out[0] = 0;
    out[1] = 5; /* dimension 1 is periodic: wraps */
    CHECK_MPI(MPI_Cart_rank(cart, out, &r));
    CHECK_EQ(r, 0);
    TOPO_ERR(MPI_Cart_shift(cart, -1, 1, &src, &dst), MPI_ERR_DIMS);
#ifndef OPEN_MPI /* Open MPI 4.1 accepts direction = ndims */
    TOPO_ERR(MPI_Cart_shift(cart, 2, 1, &src, &dst), MPI_ERR_DIMS);
#endif
    /* A shorter caller array gets the first entries (not an error). */
    int one = -1;
    CHECK_MPI(MPI_Cart_get(cart, 1, &one, &nd, &r));
    CHECK_EQ(one, size);
    CHECK_EQ(nd, 0);
    CHECK_EQ(r, rank);
    CHECK_MPI(MPI_Comm_free(&cart));
}

/* Topologies are built on intracommunicators: every constructor refuses an
 * intercommunicator with MPI_ERR_COMM, and it has no topology. */
static void on_intercomm(void)
{
    if (size < 2)
        return;
    MPI_Comm half, inter, c;
    int color = rank % 2;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half));
    /* Leaders: world ranks 0 (evens) and 1 (odds). */
    CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 17, &inter));
    CHECK_MPI(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
    int st, r, one[1] = {1}, zero[1] = {0}, idx[1] = {0}, w[1] = {1};
    CHECK_MPI(MPI_Topo_test(inter, &st));
    CHECK_EQ(st, MPI_UNDEFINED);
    CHECK_ERR(MPI_Cart_create(inter, 1, one, zero, 0, &c), MPI_ERR_COMM);
    CHECK_ERR(MPI_Graph_create(inter, 1, idx, NULL, 0, &c), MPI_ERR_COMM);
    CHECK_ERR(MPI_Dist_graph_create_adjacent(inter, 1, zero, w, 1, zero, w, MPI_INFO_NULL, 0,
                                             &c),
              MPI_ERR_COMM);
    CHECK_ERR(MPI_Dist_graph_create(inter, 1, zero, one, zero, w, MPI_INFO_NULL, 0, &c),
              MPI_ERR_COMM);
#ifdef FABMPI /* the map calls name no class for this either */
    CHECK_ERR(MPI_Cart_map(inter, 1, one, zero, &r), MPI_ERR_COMM);
    CHECK_ERR(MPI_Graph_map(inter, 1, idx, NULL, &r), MPI_ERR_COMM);
#endif
    (void)r;
    TOPO_ERR(MPI_Cart_coords(inter, 0, 1, &r), MPI_ERR_TOPOLOGY); /* Open MPI: MPI_ERR_COMM */
    CHECK_MPI(MPI_Comm_free(&inter));
    CHECK_MPI(MPI_Comm_free(&half));
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));

    dims_create();
    cart_shapes();
    cart_zero_dims();
    cart_sub();
    dup_and_split();
    errors();
    on_intercomm();

    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("topo_cart: ok (%d ranks)\n", size);
    CHECK_MPI(MPI_Finalize());
    return 0;
}
