/* event.c — MPI_T event registrations and the telling of events (event.h).
 *
 * Callbacks run synchronously, on the thread that raised the event, under
 * fm_tools_lock: never two at once, and in the order the events happened
 * (source 0 is ordered).  Which callback of a registration runs: the one
 * registered for the lowest safety level that is at least what the raising
 * context requires (MPI_RESTRICTED inside the application's own MPI call,
 * THREAD_SAFE on the progress thread).  A registration that has callbacks,
 * but none for that level, counts the event as dropped; its dropped handler
 * hears the count just before its next callback runs, in that callback's
 * context and with its user data.  Nothing is buffered: an event is told
 * while its data is on the raiser's stack. */
#include "util/event.h"

#include <limits.h>
#include <mpi.h>

#include "util/handle_pool.h"
#include "util/pvar.h"

#define MAGIC_REG 0x45564e54u

pthread_mutex_t fm_tools_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
unsigned fm_events_on;
__thread unsigned char fm_event_on_library_thread;

struct fm_event_registration {
    uint32_t magic;
    enum fm_event event;
    int bound;    /* hears context ctx only */
    uint32_t ctx; /* UINT32_MAX once unbound: never matches a message's */
    struct {
        MPI_T_event_cb_function *fn;
        void *user_data;
    } cb[FM_EVENT_SAFETY_LEVELS];
    MPI_T_event_dropped_cb_function *dropped_fn;
    long long dropped;
    int freed; /* freed inside a callback: unlinked when telling ends */
    MPI_T_event_free_cb_function *free_fn;
    void *free_user_data;
    struct fm_event_registration *next;
};

static fm_handle_pool pool = FM_HANDLE_POOL(struct fm_event_registration);
static struct fm_event_registration *regs[FM_NEVENTS];
static int telling; /* depth of fm_event_raise calls running callbacks */

long long fm_event_now(void)
{
    return (long long)(fm_pv_ticks() & (unsigned long long)LLONG_MAX);
}

static int has_any_callback(const struct fm_event_registration *r)
{
    for (int l = 0; l < FM_EVENT_SAFETY_LEVELS; l++)
        if (r->cb[l].fn)
            return 1;
    return 0;
}

/* Recompute event e's bit of fm_events_on. */
static void update_gate(enum fm_event e)
{
    unsigned on = 0;
    for (struct fm_event_registration *r = regs[e]; r; r = r->next)
        if (!r->freed && has_any_callback(r))
            on = 1;
    if (on)
        __atomic_or_fetch(&fm_events_on, 1u << e, __ATOMIC_RELAXED);
    else
        __atomic_and_fetch(&fm_events_on, ~(1u << e), __ATOMIC_RELAXED);
}

static void unlink_reg(struct fm_event_registration *r)
{
    for (struct fm_event_registration **p = &regs[r->event]; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            return;
        }
}

/* Registrations freed inside callbacks: gone now that none runs. */
static void sweep_freed(MPI_T_cb_safety level)
{
    for (int e = 0; e < FM_NEVENTS; e++)
        for (struct fm_event_registration *r = regs[e], *next; r; r = next) {
            next = r->next;
            if (!r->freed)
                continue;
            unlink_reg(r);
            MPI_T_event_free_cb_function *fn = r->free_fn;
            void *user = r->free_user_data;
            fm_handle_put(&pool, r);
            if (fn)
                fn(r, level, user);
        }
}

void fm_event_raise(enum fm_event e, uint32_t ctx, const void *data)
{
    MPI_T_cb_safety need = fm_event_on_library_thread ? MPI_T_CB_REQUIRE_THREAD_SAFE
                                                      : MPI_T_CB_REQUIRE_MPI_RESTRICTED;
    struct fm_event_instance inst = {e, fm_event_now(), data};
    pthread_mutex_lock(&fm_tools_lock);
    telling++;
    for (struct fm_event_registration *r = regs[e]; r; r = r->next) {
        if (r->freed || (r->bound && r->ctx != ctx))
            continue;
        int level = need;
        while (level < FM_EVENT_SAFETY_LEVELS && !r->cb[level].fn)
            level++;
        if (level == FM_EVENT_SAFETY_LEVELS) {
            if (has_any_callback(r))
                r->dropped++;
            continue;
        }
        void *user = r->cb[level].user_data;
        if (r->dropped && r->dropped_fn) {
            long long n = r->dropped;
            r->dropped = 0;
            r->dropped_fn(n, r, 0, need, user);
        }
        if (!r->freed && r->cb[level].fn) /* the dropped handler may have freed it */
            r->cb[level].fn(&inst, r, need, user);
    }
    if (--telling == 0)
        sweep_freed(need);
    pthread_mutex_unlock(&fm_tools_lock);
}

struct fm_event_registration *fm_event_reg_new(enum fm_event e, int bound, uint32_t ctx)
{
    struct fm_event_registration *r = fm_handle_get(&pool);
    if (!r)
        return NULL;
    r->magic = MAGIC_REG;
    r->event = e;
    r->bound = bound;
    r->ctx = ctx;
    r->next = regs[e];
    regs[e] = r;
    return r;
}

int fm_event_reg_event(struct fm_event_registration *reg)
{
    return reg && reg->magic == MAGIC_REG && !reg->freed ? (int)reg->event : -1;
}

void fm_event_reg_set_callback(struct fm_event_registration *reg, int level, void *fn,
                               void *user_data)
{
    reg->cb[level].fn = (MPI_T_event_cb_function *)fn;
    reg->cb[level].user_data = fn ? user_data : NULL;
    update_gate(reg->event);
}

int fm_event_reg_has_callback(struct fm_event_registration *reg, int level)
{
    return reg->cb[level].fn != NULL;
}

void fm_event_reg_set_dropped(struct fm_event_registration *reg, void *fn)
{
    reg->dropped_fn = (MPI_T_event_dropped_cb_function *)fn;
}

void fm_event_reg_free(struct fm_event_registration *reg, void *free_fn, void *user_data)
{
    reg->freed = 1;
    reg->free_fn = (MPI_T_event_free_cb_function *)free_fn;
    reg->free_user_data = user_data;
    update_gate(reg->event);
    if (!telling)
        sweep_freed(MPI_T_CB_REQUIRE_NONE); /* called from the tool's own context */
}

void fm_event_unbind_ctx(uint32_t ctx)
{
    for (int e = 0; e < FM_NEVENTS; e++)
        for (struct fm_event_registration *r = regs[e]; r; r = r->next)
            if (r->bound && r->ctx == ctx)
                r->ctx = UINT32_MAX;
}

void fm_event_release_all(void)
{
    for (int e = 0; e < FM_NEVENTS; e++) {
        while (regs[e]) {
            struct fm_event_registration *r = regs[e];
            regs[e] = r->next;
            fm_handle_put(&pool, r);
        }
        update_gate((enum fm_event)e);
    }
}
