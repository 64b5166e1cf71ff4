! hello.f90 - the Fortran twin of hello.c for the build-system tests (use mpi).
program hello
  use mpi
  implicit none
  integer :: ierr, rank, size, sum, rlen
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: version
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call MPI_Allreduce(rank, sum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Get_library_version(version, rlen, ierr)
  if (sum == size * (size - 1) / 2) then
    write (*, '(A,I0,A,I0,A,A,A)') 'Fortran rank ', rank, ' of ', size, ' on ', &
      version(1:index(version, ' ') - 1), ': sum ok'
  else
    write (*, '(A)') 'Fortran: sum WRONG'
  end if
  call MPI_Finalize(ierr)
end program hello
