/* comm_contexts.c — giving a new communicator transport contexts of its
 * own (FABMPI_OFI_THREAD_GROUPING; the transport's side is
 * net/ofi/groups.c).
 *
 * Each member picks its context and describes it in a card
 * (ops->comm_card); member 0 gathers the cards and sends them all back,
 * then each member's transport learns where to send (ops->comm_join).
 * Every message of the exchange carries FM_TAG_CONTEXTS on the new
 * communicator's collective context, a tag no other operation uses: the
 * exchange travels on context 0 while the communicator's next messages
 * may already take its own contexts, and since nothing else can match
 * this tag, that overtaking cannot pair the wrong messages.  Run by the
 * blocking creation calls only: the exchange blocks. */
#include <stdlib.h>

#include "coll/coll.h"
#include "coll/coll_util.h"
#include "core/comm.h"
#include "core/request.h"
#include "core/transports.h"
#include "pt2pt/pt2pt.h"
#include "util/status.h"

static void leave(MPI_Comm comm)
{
    fm_net *n = fm_transports_comm_contexts();
    if (n && !fm_comm_is_inter(comm))
        n->ops->comm_leave(comm->ctx, n);
}

/* Member 0 gathers every card into all, then sends all to each. */
static int exchange(MPI_Comm comm, char *all, size_t len)
{
    int rc = FM_OK;
    if (comm->rank != 0) {
        rc = fm_coll_send(all + (size_t)comm->rank * len, (MPI_Count)len, MPI_BYTE, 0,
                          FM_TAG_CONTEXTS, comm);
        if (rc == FM_OK)
            rc = fm_coll_recv(all, (MPI_Count)len * comm->size, MPI_BYTE, 0, FM_TAG_CONTEXTS,
                              comm);
        return rc;
    }
    struct fm_request **reqs = malloc((size_t)comm->size * sizeof *reqs);
    if (!reqs)
        return FM_ERR_NOMEM;
    int n = 0;
    for (int i = 1; i < comm->size && rc == FM_OK; i++)
        if ((rc = fm_irecv(all + (size_t)i * len, (MPI_Count)len, MPI_BYTE, i, FM_TAG_CONTEXTS,
                           comm, 1, &reqs[n])) == FM_OK)
            n++;
    int wrc = fm_waitall(n, reqs);
    rc = rc != FM_OK ? rc : wrc;
    n = 0;
    for (int i = 1; i < comm->size && rc == FM_OK; i++)
        if ((rc = fm_isend(all, (MPI_Count)len * comm->size, MPI_BYTE, i, FM_TAG_CONTEXTS, comm,
                           1, FM_SEND_STD, &reqs[n])) == FM_OK)
            n++;
    wrc = fm_waitall(n, reqs);
    free(reqs);
    return rc != FM_OK ? rc : wrc;
}

int fm_coll_comm_contexts(MPI_Comm comm)
{
    fm_net *n = fm_transports_comm_contexts();
    if (!n || comm->size < 2 || fm_comm_is_inter(comm))
        return FM_OK;
    size_t len = FM_NET_CARD_LEN;
    char *all = malloc(len * (size_t)comm->size);
    if (!all)
        return FM_ERR_NOMEM;
    char *mine = all + (size_t)comm->rank * len;
    if (n->ops->comm_card(mine, len, n) == 0) {
        free(all);
        return FM_OK;
    }
    fm_comm_on_destroy(leave);
    int rc = exchange(comm, all, len);
    if (rc == FM_OK)
        rc = n->ops->comm_join(comm->ctx, comm->size, comm->world, all, len, n);
    else
        n->ops->comm_abandon(mine, n);
    free(all);
    return rc;
}
