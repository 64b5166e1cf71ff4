! f_p2p - point-to-point from Fortran (use mpi): blocking and nonblocking
! ring exchanges with exact payloads, statuses (MPI_SOURCE, MPI_TAG,
! MPI_Get_count, MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE, conversion to and
! from TYPE(MPI_Status)), MPI_ANY_SOURCE with
! MPI_Probe, MPI_Sendrecv, persistent requests, and Fortran request handles
! that are given back: 20000 Isend/Irecv/Waitall keep the handles small.
program f_p2p
  use mpi
  use ftestutil
  implicit none
  integer :: ierr, rank, size, right, left, i, n, maxreq, count
  integer :: reqs(2), status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 2)
  type(MPI_Status) :: st08
  ! Buffers of nonblocking and persistent calls are ASYNCHRONOUS (MPI-3.1
  ! section 17.1.17): without it gfortran drops the stores to sbuf that only
  ! MPI_Startall reads.
  integer, asynchronous :: sbuf(10), rbuf(10)
  double precision :: dsend(5), drecv(5)
  logical :: flag

  test_name = 'f_p2p'
  call MPI_Init(ierr)
  call check_ok(ierr, 'MPI_Init')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  right = mod(rank + 1, size)
  left = mod(rank + size - 1, size)

  ! Isend/Irecv/Waitall with statuses
  sbuf = [(100 * rank + i, i = 1, 10)]
  rbuf = -1
  call MPI_Irecv(rbuf, 10, MPI_INTEGER, left, 7, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(sbuf, 10, MPI_INTEGER, right, 7, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, statuses, ierr)
  call check_ok(ierr, 'MPI_Waitall')
  call check(all(rbuf == [(100 * left + i, i = 1, 10)]), 'ring payload')
  call check(statuses(MPI_SOURCE, 1) == left, 'status MPI_SOURCE')
  call check(statuses(MPI_TAG, 1) == 7, 'status MPI_TAG')
  call MPI_Get_count(statuses(:, 1), MPI_INTEGER, count, ierr)
  call check(count == 10, 'MPI_Get_count')
  ! The mpi module's TYPE(MPI_Status) (mpi_f08's), converted both ways.
  call MPI_Status_f2f08(statuses(:, 1), st08, ierr)
  call check_ok(ierr, 'MPI_Status_f2f08')
  call check(st08%MPI_SOURCE == left .and. st08%MPI_TAG == 7, 'MPI_Status_f2f08 fields')
  status = -1
  call MPI_Status_f082f(st08, status, ierr)
  call check(all(status == statuses(:, 1)), 'MPI_Status_f082f round trip')
  call check(reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL, &
             'completed requests are MPI_REQUEST_NULL')

  ! Blocking, double precision, MPI_ANY_SOURCE found by MPI_Probe
  dsend = [(rank + 0.5d0 * i, i = 1, 5)]
  if (mod(rank, 2) == 0) then
    call MPI_Send(dsend, 5, MPI_DOUBLE_PRECISION, right, 3, MPI_COMM_WORLD, ierr)
    call MPI_Probe(MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, status, ierr)
    call MPI_Recv(drecv, 5, MPI_DOUBLE_PRECISION, status(MPI_SOURCE), 3, MPI_COMM_WORLD, &
                  MPI_STATUS_IGNORE, ierr)
  else
    call MPI_Probe(MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, status, ierr)
    call MPI_Recv(drecv, 5, MPI_DOUBLE_PRECISION, status(MPI_SOURCE), 3, MPI_COMM_WORLD, &
                  MPI_STATUS_IGNORE, ierr)
    call MPI_Send(dsend, 5, MPI_DOUBLE_PRECISION, right, 3, MPI_COMM_WORLD, ierr)
  end if
  call check(status(MPI_SOURCE) == left, 'probe source')
  call check(all(drecv == [(left + 0.5d0 * i, i = 1, 5)]), 'double payload')

  ! Sendrecv of a scalar
  call MPI_Sendrecv(rank, 1, MPI_INTEGER, right, 4, n, 1, MPI_INTEGER, left, 4, &
                    MPI_COMM_WORLD, status, ierr)
  call check(n == left .and. status(MPI_TAG) == 4, 'sendrecv')

  ! Persistent requests, started three times
  call MPI_Recv_init(rbuf, 1, MPI_INTEGER, left, 5, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Send_init(sbuf, 1, MPI_INTEGER, right, 5, MPI_COMM_WORLD, reqs(2), ierr)
  do i = 1, 3
    sbuf(1) = 1000 * i + rank
    call MPI_Startall(2, reqs, ierr)
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
    call check(rbuf(1) == 1000 * i + left, 'persistent payload')
    call check(reqs(1) /= MPI_REQUEST_NULL, 'persistent request stays allocated')
  end do
  call MPI_Request_free(reqs(1), ierr)
  call MPI_Request_free(reqs(2), ierr)
  call check(reqs(1) == MPI_REQUEST_NULL, 'MPI_Request_free sets MPI_REQUEST_NULL')

  ! Many nonblocking exchanges: Fortran request handles are reused
  maxreq = 0
  do i = 1, 20000
    call MPI_Irecv(rbuf, 1, MPI_INTEGER, left, 6, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Isend(i, 1, MPI_INTEGER, right, 6, MPI_COMM_WORLD, reqs(2), ierr)
    maxreq = max(maxreq, reqs(1), reqs(2))
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
    if (rbuf(1) /= i) call check(.false., 'many: payload')
  end do
  call check(maxreq < 64, 'Fortran request handles grow')

  ! MPI_Test until done
  call MPI_Irecv(rbuf, 1, MPI_INTEGER, left, 8, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Send(rank, 1, MPI_INTEGER, right, 8, MPI_COMM_WORLD, ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Test(reqs(1), flag, status, ierr)
  end do
  call check(rbuf(1) == left .and. status(MPI_SOURCE) == left, 'MPI_Test')

  call MPI_Finalize(ierr)
end program f_p2p
