/* locality.c — which ranks share a node, as the library sees it.  Built and
 * run by tests/run-cluster-tests under every launcher (mpiexec fork and ssh,
 * srun --mpi=pmix and --mpi=pmi2 on two nodes).
 *
 * Every rank prints "locality rank R host H local L of N", where H is its
 * processor name and L/N its rank and size in
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED).  The program itself checks that
 * the shared communicator holds exactly the ranks with the same processor
 * name, numbered in rank order, and prints "FAIL ..." otherwise.  The runner
 * compares these lines with the launcher's local rank, local size and node
 * id that FABMPI_VERBOSE=1 prints at MPI_Init.  Standard MPI only. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, len;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char me[MPI_MAX_PROCESSOR_NAME];
    memset(me, 0, sizeof me);
    MPI_Get_processor_name(me, &len);
    char *all = malloc((size_t)size * MPI_MAX_PROCESSOR_NAME);
    MPI_Allgather(me, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD);

    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int lrank, lsize;
    MPI_Comm_rank(node, &lrank);
    MPI_Comm_size(node, &lsize);

    /* Expected: the ranks whose processor name is ours, in rank order. */
    int want_rank = 0, want_size = 0;
    for (int r = 0; r < size; r++)
        if (!strcmp(all + (size_t)r * MPI_MAX_PROCESSOR_NAME, me)) {
            want_rank += r < rank;
            want_size++;
        }
    int bad = 0;
    if (lrank != want_rank || lsize != want_size) {
        printf("FAIL locality: rank %d on %s: shared communicator rank %d of %d, expected %d of %d\n", rank, me,
               lrank, lsize, want_rank, want_size);
        bad = 1;
    }
    /* The members of the shared communicator must be those ranks. */
    int *members = malloc((size_t)lsize * sizeof *members);
    MPI_Allgather(&rank, 1, MPI_INT, members, 1, MPI_INT, node);
    for (int i = 0; i < lsize && !bad; i++)
        if (strcmp(all + (size_t)members[i] * MPI_MAX_PROCESSOR_NAME, me)) {
            printf("FAIL locality: rank %d on %s shares a node with rank %d on %s\n", rank, me, members[i],
                   all + (size_t)members[i] * MPI_MAX_PROCESSOR_NAME);
            bad = 1;
        }
    printf("locality rank %d host %s local %d of %d\n", rank, me, lrank, lsize);
    fflush(stdout);
    int anybad;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    free(members);
    free(all);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return anybad;
}
