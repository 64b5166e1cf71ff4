! hello_f08.f90 - hello.f90 with use mpi_f08.
program hello_f08
  use mpi_f08
  implicit none
  integer :: ierr, rank, size, sum, rlen
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: version
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call MPI_Allreduce(rank, sum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Get_library_version(version, rlen, ierr)
  if (sum == size * (size - 1) / 2) then
    write (*, '(A,I0,A,I0,A,A,A)') 'F08 rank ', rank, ' of ', size, ' on ', &
      version(1:index(version, ' ') - 1), ': sum ok'
  else
    write (*, '(A)') 'F08: sum WRONG'
  end if
  call MPI_Finalize(ierr)
end program hello_f08
