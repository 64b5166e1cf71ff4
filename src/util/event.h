/* event.h — the MPI_T events (MPI-4.0 section 15.3.8): things a tool wants
 * to hear about as they happen, told to the callbacks it registered.
 *
 * The layer where a thing happens raises its event:
 *
 *     if (fm_event_wanted(FM_EV_pt2pt_unexpected)) {
 *         struct fm_ev_pt2pt_unexpected d = {...};
 *         fm_event_raise(FM_EV_pt2pt_unexpected, ctx, &d);
 *     }
 *
 * A program no tool listens to pays a load and a not-taken branch at each
 * raise site, and the sites are off the fast paths (an unexpected message,
 * a send the transport refused, a failed call).  event.c keeps the
 * registrations and calls the callbacks; src/mpi/mpit_event.c is the
 * MPI_T_event_* face (names, descriptions, elements).
 *
 * Row: X(NAME, CATEGORY, BIND, DESC)
 *   NAME      FM_EV_NAME, struct fm_ev_NAME (its data), the MPI_T name
 *   CATEGORY  util/category.h
 *   BIND      NO_OBJECT, or COMM: a registration names a communicator and
 *             hears only that communicator's point-to-point traffic */
#ifndef FM_UTIL_EVENT_H
#define FM_UTIL_EVENT_H

#include <pthread.h>
#include <stdint.h>

#define FM_EVENTS(X)                                                                           \
    X(pt2pt_unexpected, pt2pt, COMM,                                                           \
      "A point-to-point message on the communicator arrived before a matching receive was "    \
      "posted, and waits in the unexpected queue (software matching; with "                   \
      "FABMPI_PT2PT=ofi the provider matches and this event is not raised)")                   \
    X(pt2pt_send_parked, pt2pt, NO_OBJECT,                                                     \
      "A message the transport could not take yet (its shared-memory ring to the peer full, "  \
      "or no OFI send buffer free) was queued to leave later, behind any queued before it; "   \
      "frequent ones say FABMPI_SHM_RING_SIZE is small for the traffic")                       \
    X(error_raised, log, NO_OBJECT,                                                            \
      "An MPI call failed: the error code it returns and its class, told before the error "    \
      "handler runs (so also under MPI_ERRORS_ARE_FATAL)")

#define FM_EVENT_ENUM(name, cat, bind, desc) FM_EV_##name,
enum fm_event { FM_EVENTS(FM_EVENT_ENUM) FM_NEVENTS };
#undef FM_EVENT_ENUM

/* Each event's data; mpit_event.c lists their elements for MPI_T. */
struct fm_ev_pt2pt_unexpected {
    int source;      /* sender's rank in the communicator */
    int tag;
    long long bytes; /* the whole message's */
};
struct fm_ev_pt2pt_send_parked {
    int peer;        /* MPI_COMM_WORLD rank of the receiver */
    long long bytes; /* payload bytes of the queued message (0: a control message) */
};
struct fm_ev_error_raised {
    int code;     /* what the call returns (MPI_Error_string gives its text) */
    int errclass; /* MPI_Error_class of it */
};

/* Bit e: some registration of event e has a callback. */
extern unsigned fm_events_on __attribute__((visibility("hidden")));

static inline int fm_event_wanted(enum fm_event e)
{
    /* Relaxed: a tool registering on another thread is heard from the
     * next raise on; a plain load on x86 and arm64 alike. */
    return __builtin_expect((__atomic_load_n(&fm_events_on, __ATOMIC_RELAXED) >> e) & 1u, 0);
}

/* Tell event e to its registrations; ctx: for COMM events the context id
 * the message carries (registrations bound to another communicator do not
 * hear it), ignored otherwise.  data: a struct fm_ev_<name>. */
void fm_event_raise(enum fm_event e, uint32_t ctx, const void *data);

/* Set on a thread the program did not make (the progress thread): events it
 * raises need callbacks registered MPI_T_CB_REQUIRE_THREAD_SAFE or above;
 * elsewhere they run inside the application's own MPI call, where
 * MPI_T_CB_REQUIRE_MPI_RESTRICTED suffices. */
extern __thread unsigned char fm_event_on_library_thread
    __attribute__((tls_model("initial-exec"), visibility("hidden")));

/* The one lock of the tools interface (recursive: a callback run while it
 * is held may call MPI_T).  MPI_T procedures take it through mpi/mpit.h;
 * raising an event takes it too. */
extern pthread_mutex_t fm_tools_lock __attribute__((visibility("hidden")));

/* ---- registrations, for src/mpi/mpit_event.c (all under fm_tools_lock) ---- */

enum { FM_EVENT_SAFETY_LEVELS = 4 }; /* MPI_T_CB_REQUIRE_NONE .. ASYNC_SIGNAL_SAFE */

struct fm_event_registration;
/* A registration of event e; bound: hears only context ctx. */
struct fm_event_registration *fm_event_reg_new(enum fm_event e, int bound, uint32_t ctx);
/* A live registration's event, or -1 when reg is not one (or was freed). */
int fm_event_reg_event(struct fm_event_registration *reg);
/* Set (fn NULL: remove) the callback for one safety level. */
void fm_event_reg_set_callback(struct fm_event_registration *reg, int level, void *fn,
                               void *user_data);
int fm_event_reg_has_callback(struct fm_event_registration *reg, int level);
void fm_event_reg_set_dropped(struct fm_event_registration *reg, void *fn);
/* Free reg; free_fn (may be NULL) is called with user_data once no
 * callback of reg runs any more: at once, or when the callback that freed
 * it returns. */
void fm_event_reg_free(struct fm_event_registration *reg, void *free_fn, void *user_data);
/* Registrations bound to context ctx hear nothing more (its communicator
 * is gone and the id may be reused). */
void fm_event_unbind_ctx(uint32_t ctx);
/* Drop every registration without calling anything (the last
 * MPI_T_finalize). */
void fm_event_release_all(void);

/* An event being told: what MPI_T_event_read / _copy / _get_timestamp see
 * (valid only while its callback runs). */
struct fm_event_instance {
    enum fm_event event;
    long long timestamp; /* fm_event_now() when raised */
    const void *data;
};
/* The events' clock (MPI_T source 0): fm_pv_ticks(), kept within
 * MPI_Count's range. */
long long fm_event_now(void);

#endif
