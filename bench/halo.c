/* halo — one 2-D halo exchange of a 5-point stencil, two ways.
 *
 * MPI_Dims_create + MPI_Cart_create (2 dimensions, both periodic) over
 * MPI_COMM_WORLD (run with 4 ranks: a 2 x 2 grid).  Each rank owns an N x N
 * block of doubles with one ghost row and column on each side, stored row
 * by row ((N + 2) x (N + 2)); an exchange sends the four boundary faces to
 * the MPI_Cart_shift neighbours and fills the four ghost faces:
 *   neighbor  MPI_Neighbor_alltoall, N doubles per neighbour, in the
 *             Cartesian neighbour order (dimension 0's -1 then +1
 *             neighbour, then dimension 1's);
 *   isend     four MPI_Irecv and four MPI_Isend to the same neighbours
 *             (tag: the sender's face, so a periodic dimension of size 2,
 *             where both neighbours are one process, is unambiguous) and
 *             one MPI_Waitall.
 * Both variants pack the four faces (rows and columns alike) into one
 * contiguous send buffer and unpack the received faces from one contiguous
 * receive buffer, with the same code, inside the timed loop: the only
 * difference between them is the communication call, so the comparison is
 * fair (no derived datatypes, no alltoallw).  Corners are not exchanged
 * (a 5-point stencil does not read them).
 *
 * Faces of 8 B, 1 KiB and 64 KiB (N = 1, 128, 8192; --max-size caps the
 * face); N = 8192 makes a 512 MiB block per rank.  Once per variant and
 * size the ghost faces are checked against the exact values the neighbours
 * hold on their boundary: cell (i, j) of rank r holds r * 2^28 + i * 2^14
 * + j, so a face from the wrong neighbour or the wrong side shows.
 * Value: microseconds per exchange (pack, exchange, unpack) on the slowest
 * rank, median over repetitions (bench.h).  The reader takes the ratio
 * neighbor / isend.  Output: '#' comment lines, then one line per variant
 * and size:  <variant> <face bytes> <us per exchange>. */
#include "bench.h"

enum { NEIGHBOR, ISEND };
static const char *names[] = {"neighbor", "isend"};

struct ctx {
    int variant;
    MPI_Comm cart;
    int nb[4];          /* dim 0 -1, dim 0 +1, dim 1 -1, dim 1 +1 */
    long n;             /* N: doubles per face */
    long ld;            /* N + 2: doubles per stored row */
    double *a;          /* (N + 2) x (N + 2), row by row */
    double *sbuf, *rbuf; /* 4 faces of N, in neighbour order */
};

#define AT(c, i, j) ((c)->a[(long)(i) * (c)->ld + (long)(j)])

static double cell(int rank, long i, long j)
{
    return (double)rank * 268435456.0 + (double)i * 16384.0 + (double)j;
}

/* Face k of the send buffer: the boundary facing neighbour k. */
static void pack(struct ctx *c)
{
    long n = c->n;
    double *s = c->sbuf;
    memcpy(s, &AT(c, 1, 1), (size_t)n * sizeof *s);             /* row 1 to dim 0 -1 */
    memcpy(s + n, &AT(c, n, 1), (size_t)n * sizeof *s);         /* row N to dim 0 +1 */
    for (long i = 0; i < n; i++) {
        s[2 * n + i] = AT(c, i + 1, 1);                          /* column 1 to dim 1 -1 */
        s[3 * n + i] = AT(c, i + 1, n);                          /* column N to dim 1 +1 */
    }
}

/* Face k of the receive buffer: from neighbour k, into the ghost on its side. */
static void unpack(struct ctx *c)
{
    long n = c->n;
    const double *r = c->rbuf;
    memcpy(&AT(c, 0, 1), r, (size_t)n * sizeof *r);
    memcpy(&AT(c, n + 1, 1), r + n, (size_t)n * sizeof *r);
    for (long i = 0; i < n; i++) {
        AT(c, i + 1, 0) = r[2 * n + i];
        AT(c, i + 1, n + 1) = r[3 * n + i];
    }
}

static void exchange(void *vc, long iters)
{
    struct ctx *c = vc;
    int n = (int)c->n;
    for (long it = 0; it < iters; it++) {
        pack(c);
        if (c->variant == NEIGHBOR) {
            MPI_Neighbor_alltoall(c->sbuf, n, MPI_DOUBLE, c->rbuf, n, MPI_DOUBLE, c->cart);
        } else {
            MPI_Request rq[8];
            /* What neighbour k sends us is its face k ^ 1 (we are its
             * neighbour on the other side). */
            for (int k = 0; k < 4; k++)
                MPI_Irecv(c->rbuf + (long)k * n, n, MPI_DOUBLE, c->nb[k], k ^ 1, c->cart, &rq[k]);
            for (int k = 0; k < 4; k++)
                MPI_Isend(c->sbuf + (long)k * n, n, MPI_DOUBLE, c->nb[k], k, c->cart, &rq[4 + k]);
            MPI_Waitall(8, rq, MPI_STATUSES_IGNORE);
        }
        unpack(c);
    }
}

/* One exchange into cleared ghosts, then every ghost cell against the
 * neighbour's boundary; returns the number of wrong cells. */
static long check(struct ctx *c)
{
    long n = c->n, bad = 0;
    for (long i = 0; i < n + 2; i++)
        AT(c, 0, i) = AT(c, n + 1, i) = AT(c, i, 0) = AT(c, i, n + 1) = -1.0;
    exchange(c, 1);
    for (long t = 1; t <= n; t++) {
        bad += AT(c, 0, t) != cell(c->nb[0], n, t);
        bad += AT(c, n + 1, t) != cell(c->nb[1], 1, t);
        bad += AT(c, t, 0) != cell(c->nb[2], t, n);
        bad += AT(c, t, n + 1) != cell(c->nb[3], t, 1);
    }
    return bad;
}

int main(int argc, char **argv)
{
    bench_opts o;
    bench_init(&argc, &argv, &o, 1);
    int dims[2] = {0, 0}, periods[2] = {1, 1}, rank;
    MPI_Dims_create(o.size, 2, dims);
    struct ctx c;
    memset(&c, 0, sizeof c);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c.cart);
    MPI_Comm_rank(c.cart, &rank);
    MPI_Cart_shift(c.cart, 0, 1, &c.nb[0], &c.nb[1]);
    MPI_Cart_shift(c.cart, 1, 1, &c.nb[2], &c.nb[3]);

    if (o.rank == 0) {
        printf("# benchmark halo\n# ranks %d (grid %d x %d, periodic)\n"
               "# unit us per exchange (pack 4 faces, exchange, unpack)\n"
               "# stat median of %d repetitions (~%.1f ms each), slowest rank\n"
               "# columns: variant face_bytes us\n",
               o.size, dims[0], dims[1], o.reps, o.budget * 1e3);
        fflush(stdout);
    }
    const long faces[] = {1, 128, 8192};
    long max = bench_max(&o, 8192 * 8);
    for (int s = 0; s < 3 && faces[s] * 8 <= max; s++) {
        c.n = faces[s];
        c.ld = c.n + 2;
        c.a = bench_alloc((size_t)(c.ld * c.ld) * sizeof(double));
        c.sbuf = bench_alloc((size_t)(4 * c.n) * sizeof(double));
        c.rbuf = bench_alloc((size_t)(4 * c.n) * sizeof(double));
        for (long t = 1; t <= c.n; t++) {
            AT(&c, 1, t) = cell(rank, 1, t);
            AT(&c, c.n, t) = cell(rank, c.n, t);
            AT(&c, t, 1) = cell(rank, t, 1);
            AT(&c, t, c.n) = cell(rank, t, c.n);
        }
        long iters[2];
        for (c.variant = NEIGHBOR; c.variant <= ISEND; c.variant++) {
            long bad = check(&c), all = 0;
            MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
            if (all) {
                if (bad)
                    fprintf(stderr, "halo: %s, %ld B faces: %ld wrong ghost cells at rank %d\n",
                            names[c.variant], c.n * 8, bad, rank);
                MPI_Barrier(MPI_COMM_WORLD);
                MPI_Abort(MPI_COMM_WORLD, 3);
            }
            iters[c.variant] = bench_calibrate(&o, exchange, &c, 3, 1000000);
        }
        /* The two variants alternate repetition by repetition: with 4 ranks
         * on 2 cores, whichever ran first in a block of its own measured
         * up to 3x slower (the scheduler settles), so blocks compared
         * phases, not variants. */
        double t[2][101];
        for (int r = 0; r < o.reps; r++)
            for (c.variant = NEIGHBOR; c.variant <= ISEND; c.variant++) {
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                exchange(&c, iters[c.variant]);
                t[c.variant][r] = bench_max_time(MPI_Wtime() - t0) / (double)iters[c.variant];
            }
        if (o.rank == 0)
            for (int v = NEIGHBOR; v <= ISEND; v++)
                printf("%s %ld %.3f\n", names[v], c.n * 8, bench_median(t[v], o.reps) * 1e6);
        fflush(stdout);
        free(c.a);
        free(c.sbuf);
        free(c.rbuf);
    }
    MPI_Comm_free(&c.cart);
    MPI_Finalize();
    return 0;
}
