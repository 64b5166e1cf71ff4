/* support.c — the conversions of bindings.h that are not one-liners. */
#include <stdio.h>
#include <string.h>

#include "fortran/bindings.h"

void *fm_f_array(int n, size_t size)
{
    void *p = calloc(n > 0 ? (size_t)n : 1, size);
    if (!p) {
        fprintf(stderr, "fabmpi: Fortran binding: out of memory for %d elements\n", n);
        abort();
    }
    return p;
}

char *fm_f_cstring(const char *s, size_t len)
{
    while (len > 0 && s[len - 1] == ' ')
        len--;
    char *c = fm_f_array((int)len + 1, 1);
    memcpy(c, s, len);
    return c;
}

char *fm_f_cstring_info(const char *s, size_t len)
{
    while (len > 0 && *s == ' ') {
        s++;
        len--;
    }
    return fm_f_cstring(s, len);
}

size_t fm_f_string_room(size_t len)
{
    size_t room = MPI_MAX_INFO_VAL;
    if (room < MPI_MAX_ERROR_STRING)
        room = MPI_MAX_ERROR_STRING;
    return (len > room ? len : room) + 1;
}

void fm_f_fstring(char *f, size_t len, const char *c)
{
    size_t n = strlen(c);
    if (n > len)
        n = len;
    memcpy(f, c, n);
    memset(f + n, ' ', len - n);
}

int fm_f_comm_peers(MPI_Comm comm)
{
    int inter = 0, n = 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return 0;
    if (inter)
        PMPI_Comm_remote_size(comm, &n);
    else
        PMPI_Comm_size(comm, &n);
    return n;
}

int fm_f_neighbors(MPI_Comm comm, int out)
{
    int kind = MPI_UNDEFINED, indeg = 0, outdeg = 0, weighted = 0;
    if (PMPI_Topo_test(comm, &kind) != MPI_SUCCESS)
        return 0;
    if (kind == MPI_CART) {
        int ndims = 0;
        PMPI_Cartdim_get(comm, &ndims);
        return 2 * ndims;
    }
    if (kind == MPI_GRAPH) {
        int rank = 0, n = 0;
        PMPI_Comm_rank(comm, &rank);
        PMPI_Graph_neighbors_count(comm, rank, &n);
        return n;
    }
    if (kind == MPI_DIST_GRAPH)
        PMPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &weighted);
    return out ? outdeg : indeg;
}
