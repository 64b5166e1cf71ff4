! pingpong8_f08.f90 - pingpong8.f90 with use mpi_f08 (handle types,
! TYPE(MPI_Status), ierror left out), for bench/run-fortran.
! Prints the median one-way latency in microseconds over 21 repetitions.
program pingpong8_f08
  use mpi_f08
  implicit none
  integer, parameter :: reps = 21, iters = 20000
  integer :: rank, r, i
  double precision :: buf, t(reps), t0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  buf = 1
  do r = 0, reps
    call MPI_Barrier(MPI_COMM_WORLD)
    t0 = MPI_Wtime()
    do i = 1, iters
      if (rank == 0) then
        call MPI_Send(buf, 1, MPI_DOUBLE_PRECISION, 1, 1, MPI_COMM_WORLD)
        call MPI_Recv(buf, 1, MPI_DOUBLE_PRECISION, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      else if (rank == 1) then
        call MPI_Recv(buf, 1, MPI_DOUBLE_PRECISION, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        call MPI_Send(buf, 1, MPI_DOUBLE_PRECISION, 0, 1, MPI_COMM_WORLD)
      end if
    end do
    if (r > 0) t(r) = (MPI_Wtime() - t0) / iters / 2 * 1d6   ! repetition 0 warms up
  end do
  if (rank == 0) print '(F8.3)', median(t)
  call MPI_Finalize()
contains
  double precision function median(x)
    double precision, intent(in) :: x(:)
    double precision :: s(size(x)), v
    integer :: a, b
    s = x
    do a = 2, size(s)
      v = s(a)
      b = a - 1
      do while (b >= 1)
        if (s(b) <= v) exit
        s(b + 1) = s(b)
        b = b - 1
      end do
      s(b + 1) = v
    end do
    median = s((size(s) + 1) / 2)
  end function median
end program pingpong8_f08
