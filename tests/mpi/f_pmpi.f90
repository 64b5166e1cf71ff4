! f_pmpi - a Fortran program under the C profiling library pmpi_counter
! (LD_PRELOADed, TESTLIST): its calls reach the profiler through the C
! MPI_ names, each once; pmpi_counter checks the counts at MPI_Finalize
! against PMPI_COUNTER_EXPECT.
program f_pmpi
  use mpi
  implicit none
  integer :: ierr, rank, size, right, left, reqs(2), got, sum, dup, win
  integer :: wbuf(4)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  right = mod(rank + 1, size)
  left = mod(rank + size - 1, size)
  call MPI_Irecv(got, 1, MPI_INTEGER, left, 0, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(rank, 1, MPI_INTEGER, right, 0, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  if (got /= left) call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  call MPI_Allreduce(rank, sum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (sum /= size * (size - 1) / 2) call MPI_Abort(MPI_COMM_WORLD, 3, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_free(dup, ierr)
  wbuf = 0
  call MPI_Win_create(wbuf, 16_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call MPI_Put(rank, 1, MPI_INTEGER, right, 1_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call MPI_Win_free(win, ierr)
  if (wbuf(2) /= left) call MPI_Abort(MPI_COMM_WORLD, 4, ierr)
  call MPI_Finalize(ierr)
end program f_pmpi
