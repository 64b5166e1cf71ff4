/* topo_dims.c — MPI_Dims_create: a balanced grid shape for nnodes
 * processes.
 *
 * The standard asks for dimensions "as close to each other as possible",
 * in non-increasing order, keeping the entries the caller fixed (non-zero).
 * fabmpi reads that as: among the lists of free dimensions whose product
 * is nnodes / (product of the fixed ones), those whose largest and
 * smallest differ least; of these, the one whose smallest dimension is
 * largest, then its second smallest, and so on.  For two dimensions that
 * is the divisor pair with the smallest difference (24 -> 6 x 4); in three,
 * 10800 -> 27 x 20 x 20 rather than 25 x 24 x 18 (both differ by 7).  This
 * is the table MPICH's test suite checks (topo/dims5); Open MPI 4.1
 * answers some sizes differently (30 x 20 x 18 for 10800).
 *
 * Finding it: first the least difference D (for each candidate smallest
 * dimension, the least largest one that can complete the list), then the
 * smallest dimension as large as possible with every factor within D of
 * it, then the next, each time keeping only choices the rest can still
 * complete.  "Can it be completed" is a depth-first search over the
 * divisors of the node count, pruned by powers and prime factors. */
#include <stdlib.h>

#include "mpi/topo_api.h"

/* The divisors of the free node count (ascending) and its prime factors. */
struct factors {
    int ndiv, nprimes;
    long long div[1600]; /* no int has more (2095133040 has 1600) */
    long long primes[10]; /* no int has more than 9 distinct primes */
};

static void factorize(long long m, struct factors *f)
{
    f->nprimes = 0;
    f->ndiv = 1;
    f->div[0] = 1;
    for (long long p = 2; m > 1; p++) {
        if (p * p > m)
            p = m; /* what is left is prime */
        if (m % p)
            continue;
        f->primes[f->nprimes++] = p;
        int n = f->ndiv;
        for (long long pk = p; m % p == 0; pk *= p) {
            m /= p;
            for (int i = 0; i < n; i++)
                f->div[f->ndiv++] = f->div[i] * pk;
        }
    }
    for (int i = 1; i < f->ndiv; i++) /* insertion sort: at most 1600 entries */
        for (int j = i; j > 0 && f->div[j - 1] > f->div[j]; j--) {
            long long x = f->div[j];
            f->div[j] = f->div[j - 1];
            f->div[j - 1] = x;
        }
}

/* 1 if r^k >= m (without overflowing). */
static int pow_reaches(long long r, int k, long long m)
{
    long long x = 1;
    for (int i = 0; i < k; i++) {
        x *= r;
        if (x >= m)
            return 1;
    }
    return x >= m;
}

/* Smallest r with r^k >= m: the largest of k factors of m is at least it. */
static long long root_up(long long m, int k)
{
    long long lo = 1, hi = m;
    while (lo < hi) {
        long long mid = lo + (hi - lo) / 2;
        if (pow_reaches(mid, k, m))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Can m be written as k factors, each in lo..hi? */
static int fits(const struct factors *f, long long m, int k, long long lo, long long hi)
{
    if (k == 0)
        return m == 1;
    if (!pow_reaches(hi, k, m) || pow_reaches(lo, k, m + 1))
        return 0; /* hi^k < m or lo^k > m */
    if (k == 1)
        return 1; /* lo <= m <= hi by the line above */
    for (int i = 0; i < f->nprimes; i++) /* a prime above hi fits in no factor */
        if (f->primes[i] > hi && m % f->primes[i] == 0)
            return 0;
    long long top = root_up(m, k);
    /* Largest factor first, so the rest is smallest and most often fits. */
    for (int i = f->ndiv - 1; i >= 0; i--) {
        long long d = f->div[i];
        if (d > hi || d > m)
            continue;
        if (d < top || d < lo)
            break;
        if (m % d == 0 && fits(f, m / d, k - 1, lo, d))
            return 1;
    }
    return 0;
}

/* The least difference between the largest and smallest of k factors of m
 * (k >= 2). */
static long long least_spread(const struct factors *f, long long m, int k)
{
    long long best = m; /* m x 1 x ... x 1 always exists */
    long long top = root_up(m, k);
    for (int i = 0; i < f->ndiv; i++) {
        long long s = f->div[i]; /* candidate smallest factor */
        if (pow_reaches(s, k, m + 1))
            break; /* s^k > m: k factors cannot all be >= s */
        /* Binary search the divisors h with max(s, top) <= h < s + best for
         * the least h that still fits (fits is monotone in h). */
        int a = 0, b = f->ndiv;
        while (a < f->ndiv && (f->div[a] < s || f->div[a] < top))
            a++;
        while (b > a && f->div[b - 1] - s >= best)
            b--;
        while (a < b) {
            int mid = a + (b - a) / 2;
            if (fits(f, m, k, s, f->div[mid]))
                b = mid;
            else
                a = mid + 1;
        }
        if (a < f->ndiv && f->div[a] - s < best && fits(f, m, k, s, f->div[a]))
            best = f->div[a] - s;
    }
    return best;
}

/* out[0..k) = m's balanced factors, non-increasing (see the file comment). */
static void balance(long long m, int k, int *out)
{
    if (k == 0)
        return;
    struct factors f;
    factorize(m, &f);
    long long lo = 1, hi = m;
    long long spread = k > 1 ? least_spread(&f, m, k) : 0;
    /* Fill from the smallest dimension up, each as large as it can be. */
    for (int pos = k - 1; pos > 0; pos--) {
        int left = pos + 1;
        long long pick = lo;
        for (int i = f.ndiv - 1; i >= 0; i--) {
            long long s = f.div[i];
            if (s < lo)
                break;
            long long top = pos == k - 1 ? s + spread : hi;
            if (s <= hi && m % s == 0 && fits(&f, m, left, s, top)) {
                pick = s;
                break;
            }
        }
        if (pos == k - 1)
            hi = pick + spread;
        out[pos] = (int)pick;
        m /= pick;
        lo = pick;
    }
    out[0] = (int)m;
}

#pragma weak MPI_Dims_create = PMPI_Dims_create
int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    FM_API_LOCK();
    const char *call = "MPI_Dims_create";
    MPI_Comm none = MPI_COMM_NULL; /* no communicator: errors go to MPI_COMM_WORLD's handler */
    FM_CHECK_INIT(call);
    if (nnodes <= 0)
        return fm_raise(none, call, MPI_ERR_ARG, "nnodes=%d must be > 0", nnodes);
    if (ndims < 0)
        return fm_raise(none, call, MPI_ERR_DIMS, "ndims=%d must be >= 0", ndims);
    FM_CHECK_ARRAY(call, none, dims, ndims, "dims");
    long long fixed = 1;
    int nfree = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return fm_raise(none, call, MPI_ERR_DIMS, "dims[%d]=%d must be >= 0", i, dims[i]);
        if (dims[i] == 0)
            nfree++;
        else if (fixed <= nnodes)
            fixed *= dims[i]; /* once past nnodes it cannot divide it: stop growing */
    }
    if (fixed > nnodes || nnodes % fixed != 0 || (nfree == 0 && fixed != nnodes))
        return fm_raise(none, call, MPI_ERR_DIMS,
                        "nnodes=%d is not %s the product of the fixed (non-zero) dims "
                        "entries%s",
                        nnodes, nfree ? "a multiple of" : "equal to",
                        fixed > nnodes ? " (which exceeds it)" : "");
    int *free_dims = malloc((size_t)(nfree ? nfree : 1) * sizeof(int));
    if (!free_dims)
        return fm_raise(none, call, MPI_ERR_NO_MEM, "no memory for %d dimensions", nfree);
    balance(nnodes / fixed, nfree, free_dims);
    for (int i = 0, k = 0; i < ndims; i++)
        if (dims[i] == 0)
            dims[i] = free_dims[k++];
    free(free_dims);
    return MPI_SUCCESS;
}
