/* hang.c — the pool of per-thread blocking-call records (hang.h). */
#include "boot/hang.h"

#include <string.h>

#define POOL 64 /* threads beyond this share the spare record, unreported */

static struct fm_hang_rec pool[POOL], spare;
static atomic_int claimed;
_Thread_local struct fm_hang_rec *fm_hang_self __attribute__((tls_model("initial-exec")));

struct fm_hang_rec *fm_hang_claim(void)
{
    int i = atomic_fetch_add_explicit(&claimed, 1, memory_order_relaxed);
    fm_hang_self = i < POOL ? &pool[i] : &spare;
    return fm_hang_self;
}

static void copy(char *dst, size_t cap, const char *src)
{
    size_t n = 0;
    for (; src && src[n] && n + 1 < cap; n++)
        dst[n] = src[n];
    dst[n] = '\0';
}

void fm_hang_snapshot(struct fm_hang_snap *s)
{
    memset(s, 0, sizeof *s);
    int n = atomic_load_explicit(&claimed, memory_order_relaxed);
    long now = fm_hang_now_ms(), oldest = -1;
    for (int i = 0; i < n && i < POOL; i++) {
        struct fm_hang_rec *h = &pool[i];
        const char *call = atomic_load_explicit(&h->call, memory_order_acquire);
        if (!call)
            continue;
        s->active++;
        long t0 = atomic_load_explicit(&h->t0_ms, memory_order_relaxed);
        if (oldest >= 0 && t0 >= oldest)
            continue;
        oldest = t0;
        copy(s->call, sizeof s->call, call);
        copy(s->comm, sizeof s->comm, atomic_load_explicit(&h->comm, memory_order_relaxed));
        s->peer = atomic_load_explicit(&h->peer, memory_order_relaxed);
        s->tag = atomic_load_explicit(&h->tag, memory_order_relaxed);
        s->count = atomic_load_explicit(&h->count, memory_order_relaxed);
        s->ms = now - t0;
    }
}
