// pmpi_calls_cxx — a C++ program (built with the C++ compiler, mpi.h as
// C++) under the profiling library pmpi_counter.c, LD_PRELOADed (TESTLIST):
// its calls reach the profiler with their arguments, and the results are
// exact.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "pmpi_counter.h"

namespace {

int world_rank = -1;

[[noreturn]] void fail(int line, const std::string &what)
{
    std::fprintf(stderr, "FAIL pmpi_calls_cxx.cpp:%d %s (rank %d)\n", line, what.c_str(),
                 world_rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::exit(1);
}

void expect(int line, const char *name, long calls, long argsum)
{
    long c = -1, s = -1;
    MPI_Pcontrol(PMPI_COUNTER_QUERY, name, &c, &s);
    if (c == -1)
        fail(line, "no profiling library answered MPI_Pcontrol");
    if (c != calls || s != argsum)
        fail(line, std::string(name) + ": the profiler saw " + std::to_string(c) + " calls (" +
                       std::to_string(s) + "), the program made " + std::to_string(calls) +
                       " (" + std::to_string(argsum) + ")");
}

}  // namespace

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int right = (world_rank + 1) % size, left = (world_rank + size - 1) % size;

    std::vector<double> mine(6), theirs(6);
    std::iota(mine.begin(), mine.end(), 10.0 * world_rank);
    std::vector<MPI_Request> reqs(2);
    MPI_Irecv(theirs.data(), 6, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(mine.data(), 6, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
    for (int i = 0; i < 6; i++)
        if (theirs[i] != 10.0 * left + i)
            fail(__LINE__, "ring: theirs[" + std::to_string(i) + "]=" + std::to_string(theirs[i]));

    MPI_Allreduce(mine.data(), theirs.data(), 6, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    const double base = 10.0 * size * (size - 1) / 2;
    if (theirs[5] != base + 5.0 * size)
        fail(__LINE__, "allreduce: theirs[5]=" + std::to_string(theirs[5]));

    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, -world_rank, &half);
    int half_rank = -1;
    MPI_Comm_rank(half, &half_rank);
    const int half_size = (size - world_rank % 2 + 1) / 2;
    if (half_rank != half_size - 1 - world_rank / 2)
        fail(__LINE__, "split with key -rank: rank " + std::to_string(half_rank));
    MPI_Comm_free(&half);

    expect(__LINE__, "MPI_Init", 1, 1);
    expect(__LINE__, "MPI_Comm_rank", 2, 0);
    expect(__LINE__, "MPI_Comm_size", 1, 0);
    expect(__LINE__, "MPI_Isend", 1, 6);
    expect(__LINE__, "MPI_Irecv", 1, 6);
    expect(__LINE__, "MPI_Waitall", 1, 2);
    expect(__LINE__, "MPI_Allreduce", 1, 6);
    expect(__LINE__, "MPI_Comm_split", 1, world_rank % 2);
    expect(__LINE__, "MPI_Comm_free", 1, 0);
    expect(__LINE__, "MPI_Send", 0, 0);
    MPI_Finalize();
    return 0;
}
