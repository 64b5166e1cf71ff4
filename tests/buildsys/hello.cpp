// hello.cpp — the C++ twin of hello.c for the build-system tests.
#include <mpi.h>

#include <cstring>
#include <iostream>
#include <vector>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0, len = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<long> mine{rank, 1}, sum(2);
    MPI_Allreduce(mine.data(), sum.data(), 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    std::vector<char> version(MPI_MAX_LIBRARY_VERSION_STRING);
    MPI_Get_library_version(version.data(), &len);
    version[std::strcspn(version.data(), " \n")] = '\0';
    const bool ok = sum[0] == size * (size - 1) / 2 && sum[1] == size;
    std::cout << "C++ rank " << rank << " of " << size << " on " << version.data() << ": sum "
              << (ok ? "ok" : "WRONG") << std::endl;
    return MPI_Finalize();
}
