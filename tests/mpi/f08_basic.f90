! f08_basic - the mpi_f08 module: handle types compared with == and /=,
! TYPE(MPI_Status) fields and conversions to and from the INTEGER status,
! OPTIONAL ierror left out and given, nonblocking
! exchange with ASYNCHRONOUS buffers, collectives, a derived type, a
! communicator split and free, an error class through MPI_ERRORS_RETURN,
! and a one-sided fence epoch.
program f08_basic
  use mpi_f08
  implicit none
  integer :: ierr, rank, size, right, left, i, count, cls, got, val
  type(MPI_Request) :: reqs(2)
  type(MPI_Status) :: statuses(2), status
  type(MPI_Comm) :: half
  type(MPI_Datatype) :: pair
  type(MPI_Win) :: win
  integer, asynchronous :: sbuf(8), rbuf(8)
  integer :: winbuf(4), p(2), q(2), istat(MPI_STATUS_SIZE)
  double precision :: x, y

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call check(ierr == MPI_SUCCESS, 'ierror given')
  right = mod(rank + 1, size)
  left = mod(rank + size - 1, size)
  call check(MPI_COMM_WORLD /= MPI_COMM_SELF .and. MPI_COMM_WORLD == MPI_COMM_WORLD, &
             'handle comparisons')

  sbuf = [(10 * rank + i, i = 1, 8)]
  call MPI_Irecv(rbuf, 8, MPI_INTEGER, left, 3, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(sbuf, 8, MPI_INTEGER, right, 3, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, statuses)
  call check(all(rbuf == [(10 * left + i, i = 1, 8)]), 'ring payload')
  call check(statuses(1)%MPI_SOURCE == left .and. statuses(1)%MPI_TAG == 3, 'status fields')
  call MPI_Get_count(statuses(1), MPI_INTEGER, count)
  call check(count == 8, 'MPI_Get_count')
  ! To the INTEGER status and back, the count kept.
  istat = -1
  call MPI_Status_f082f(statuses(1), istat)
  call check(istat(1) == left .and. istat(2) == 3, 'MPI_Status_f082f fields')
  call MPI_Status_f2f08(istat, status, ierr)
  call check(ierr == MPI_SUCCESS .and. status%MPI_SOURCE == left, 'MPI_Status_f2f08')
  count = -1
  call MPI_Get_count(status, MPI_INTEGER, count)
  call check(count == 8, 'MPI_Get_count after the round trip')
  call check(all(reqs == MPI_REQUEST_NULL), 'completed requests are MPI_REQUEST_NULL')
  call MPI_Sendrecv(rank, 1, MPI_INTEGER, right, 4, got, 1, MPI_INTEGER, left, 4, &
                    MPI_COMM_WORLD, status)
  call check(got == left .and. status%MPI_TAG == 4, 'sendrecv')
  call MPI_Recv_init(rbuf, 1, MPI_INTEGER, left, 5, MPI_COMM_WORLD, reqs(1))
  call MPI_Send_init(sbuf, 1, MPI_INTEGER, right, 5, MPI_COMM_WORLD, reqs(2))
  call MPI_Startall(2, reqs)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  call check(rbuf(1) == 10 * left + 1, 'persistent')
  call MPI_Request_free(reqs(1))
  call MPI_Request_free(reqs(2))

  x = rank
  call MPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  call check(y == size * (size - 1) / 2.0d0, 'allreduce')
  val = -1
  if (rank == 0) val = 42
  call MPI_Bcast(val, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call check(val == 42, 'bcast')

  call MPI_Type_contiguous(2, MPI_INTEGER, pair)
  call MPI_Type_commit(pair)
  p = [rank, -rank]
  call MPI_Sendrecv(p, 1, pair, right, 6, q, 1, pair, left, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call check(q(1) == left .and. q(2) == -left, 'derived type')
  call MPI_Type_free(pair)
  call check(pair == MPI_DATATYPE_NULL, 'freed type')

  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half)
  call MPI_Comm_free(half)
  call check(half == MPI_COMM_NULL, 'freed comm')

  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Send(rank, 1, MPI_INTEGER, size + 5, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls)
  call check(cls == MPI_ERR_RANK, 'error class through MPI_ERRORS_RETURN')

  winbuf = 0
  call MPI_Win_create(winbuf, 16_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  call MPI_Win_fence(0, win)
  call MPI_Put(rank, 1, MPI_INTEGER, right, 1_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call check(winbuf(2) == left, 'put')
  call MPI_Win_free(win)
  call check(win == MPI_WIN_NULL, 'freed window')
  call MPI_Finalize()
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (ok) return
    write (0, '(A,A,A,I0,A)') 'FAIL f08_basic: ', what, ' (rank ', rank, ')'
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine check
end program f08_basic
