! f_rma - one-sided communication from Fortran: a window over an array,
! fence epochs with Put, Get and Accumulate at exact displacements, a
! passive-target epoch (Lock / Put / Unlock), window attributes as values
! (MPI_WIN_SIZE, MPI_WIN_DISP_UNIT) and MPI_Win_free to MPI_WIN_NULL.
program f_rma
  use mpi
  use ftestutil
  implicit none
  integer :: ierr, rank, size, right, left, win, i, got, val, acc, lockval
  integer :: buf(10)
  integer(kind=MPI_ADDRESS_KIND) :: wsize, attr
  logical :: flag

  test_name = 'f_rma'
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  right = mod(rank + 1, size)
  left = mod(rank + size - 1, size)

  buf = 0
  wsize = 10 * 4
  call MPI_Win_create(buf, wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call check_ok(ierr, 'MPI_Win_create')
  call MPI_Win_get_attr(win, MPI_WIN_SIZE, attr, flag, ierr)
  call check(flag .and. attr == 40, 'MPI_WIN_SIZE attribute')
  call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, attr, flag, ierr)
  call check(flag .and. attr == 4, 'MPI_WIN_DISP_UNIT attribute')

  ! Origin buffers are variables: an expression's temporary would be gone
  ! before the epoch ends, and the transfer may read it then.
  val = rank + 100
  acc = rank + 1
  call MPI_Win_fence(0, win, ierr)
  call MPI_Put(val, 1, MPI_INTEGER, right, 2_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, ierr)
  call MPI_Accumulate(acc, 1, MPI_INTEGER, 0, 5_MPI_ADDRESS_KIND, 1, MPI_INTEGER, &
                      MPI_SUM, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call check(buf(3) == left + 100, 'put landed at displacement 2')
  if (rank == 0) call check(buf(6) == size * (size + 1) / 2, 'accumulate sum')
  got = -1
  call MPI_Get(got, 1, MPI_INTEGER, left, 2_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call check(got == mod(left + size - 1, size) + 100, 'get')

  call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win, ierr)
  lockval = rank + 500
  call MPI_Put(lockval, 1, MPI_INTEGER, right, 9_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, ierr)
  call MPI_Win_unlock(right, win, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win, ierr)
  i = buf(10)
  call MPI_Win_unlock(rank, win, ierr)
  call check(i == left + 500, 'passive-target put')

  call MPI_Win_free(win, ierr)
  call check(win == MPI_WIN_NULL, 'freed window is MPI_WIN_NULL')
  call MPI_Finalize(ierr)
end program f_rma
