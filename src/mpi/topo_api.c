/* topo_api.c — MPI_Topo_test and what the topology entry points share
 * (topo_api.h).  Cartesian calls are in topo_cart.c, MPI_Dims_create in
 * topo_dims.c, graph calls in topo_graph.c, distributed graphs in
 * topo_dist_graph.c. */
#include "mpi/topo_api.h"

/* What MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY point at (mpi.h): only their
 * addresses mean anything. */
int fab_unweighted[1], fab_weights_empty[1];

const char *fm_topo_kind_name(int kind)
{
    switch (kind) {
    case MPI_CART:
        return "a Cartesian";
    case MPI_GRAPH:
        return "a graph";
    case MPI_DIST_GRAPH:
        return "a distributed graph";
    }
    return "no";
}

const char *fm_topo_kind_label(const struct fm_topo *t)
{
    return fm_topo_kind_name(t ? t->kind : MPI_UNDEFINED);
}

int fm_topo_attach(const char *call, MPI_Comm parent, MPI_Comm nc, struct fm_topo *t,
                   MPI_Comm *out)
{
    if (nc == MPI_COMM_NULL) {
        *out = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    if (!t) {
        fm_comm_release(nc);
        return fm_raise(parent, call, MPI_ERR_NO_MEM, "no memory for the topology");
    }
    nc->topo = t;
    *out = nc;
    return MPI_SUCCESS;
}

#pragma weak MPI_Topo_test = PMPI_Topo_test
int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    FM_API_LOCK();
    const char *call = "MPI_Topo_test";
    FM_CHECK_INIT(call);
    FM_CHECK_COMM(call, comm);
    FM_CHECK_PTR(call, comm, status, "status");
    *status = comm->topo ? comm->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
