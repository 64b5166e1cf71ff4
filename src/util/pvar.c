/* pvar.c — the performance counters (pvar.h) and their clock's rate. */
#include "util/pvar.h"

#include <time.h>

struct fm_pv fm_pv;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

double fm_pv_tick_seconds(void)
{
    static double rate; /* seconds per tick; 0 until measured */
    if (rate > 0)
        return rate;
#if defined(__x86_64__) || defined(__i386__)
    /* Ticks over 5 ms of the monotonic clock: the invariant TSC every
     * x86-64 of the last fifteen years has; 0.1% is plenty for a tool. */
    double t0 = now_s();
    unsigned long long k0 = fm_pv_ticks();
    struct timespec nap = {0, 5 * 1000 * 1000};
    nanosleep(&nap, NULL);
    double t1 = now_s();
    unsigned long long k1 = fm_pv_ticks();
    rate = k1 > k0 ? (t1 - t0) / (double)(k1 - k0) : 1e-9;
#else
    rate = 1e-9;
#endif
    return rate;
}
