! f_coll - collectives and communicators from Fortran through mpif.h (no
! module): Bcast from every root, Reduce, Allreduce in place, Gather,
! Alltoall, Scan, Ibarrier, Iallreduce with Wait, Comm_split / dup / free,
! names (strings both ways), MPI_Get_processor_name, MPI_Wtime, and a
! user reduction written in Fortran (MPI_Op_create).
program f_coll
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, size, root, i, color, srank, ssize, rlen, req
  integer :: v(4), g(64), a2a(64), b2a(64)
  integer :: sub, dup, res, myop
  integer :: pv(3), pr(3)
  external :: offset_sum
  double precision :: x, y, t0
  character(len=MPI_MAX_OBJECT_NAME) :: name
  character(len=MPI_MAX_PROCESSOR_NAME) :: host

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  t0 = MPI_Wtime()
  if (size > 16) call fail('at most 16 ranks')

  do root = 0, size - 1
    v = -1
    if (rank == root) v = [(root * 10 + i, i = 1, 4)]
    call MPI_Bcast(v, 4, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    if (any(v /= [(root * 10 + i, i = 1, 4)])) call fail('bcast payload')
  end do

  x = rank + 1
  call MPI_Reduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. y /= size * (size + 1) / 2.0d0) call fail('reduce')

  v = rank
  call MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (any(v /= size - 1)) call fail('allreduce in place')

  call MPI_Gather(rank * 3, 1, MPI_INTEGER, g, 1, MPI_INTEGER, size - 1, MPI_COMM_WORLD, ierr)
  if (rank == size - 1) then
    if (any(g(1:size) /= [(3 * i, i = 0, size - 1)])) call fail('gather')
  end if

  do i = 1, size
    a2a(i) = 100 * rank + (i - 1)
  end do
  call MPI_Alltoall(a2a, 1, MPI_INTEGER, b2a, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do i = 1, size
    if (b2a(i) /= 100 * (i - 1) + rank) call fail('alltoall')
  end do

  call MPI_Scan(1, i, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (i /= rank + 1) call fail('scan')

  ! offset_sum: inout = in + inout + 1000, for each element
  call MPI_Op_create(offset_sum, .true., myop, ierr)
  pv = [rank, 2 * rank, 1]
  call MPI_Allreduce(pv, pr, 3, MPI_INTEGER, myop, MPI_COMM_WORLD, ierr)
  if (pr(1) /= size * (size - 1) / 2 + 1000 * (size - 1)) call fail('user op element 1')
  if (pr(3) /= size + 1000 * (size - 1)) call fail('user op element 3')
  call MPI_Op_free(myop, ierr)
  if (myop /= MPI_OP_NULL) call fail('freed op is MPI_OP_NULL')

  call MPI_Ibarrier(MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  if (req /= MPI_REQUEST_NULL) call fail('ibarrier request not freed')
  x = rank
  call MPI_Iallreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_MIN, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  if (y /= 0.0d0) call fail('iallreduce')

  color = mod(rank, 2)
  call MPI_Comm_split(MPI_COMM_WORLD, color, -rank, sub, ierr)
  call MPI_Comm_rank(sub, srank, ierr)
  call MPI_Comm_size(sub, ssize, ierr)
  if (ssize /= (size - color + 1) / 2) call fail('split size')
  if (srank /= ssize - 1 - rank / 2) call fail('split rank (key -rank)')
  call MPI_Allreduce(rank, i, 1, MPI_INTEGER, MPI_SUM, sub, ierr)
  call MPI_Comm_dup(sub, dup, ierr)
  call MPI_Comm_compare(sub, dup, res, ierr)
  if (res /= MPI_CONGRUENT) call fail('dup is congruent')
  call MPI_Comm_set_name(dup, 'my dup   ', ierr)
  name = 'x'
  call MPI_Comm_get_name(dup, name, rlen, ierr)
  if (name /= 'my dup' .or. rlen /= 6) call fail('comm name: ' // trim(name))
  call MPI_Comm_get_name(MPI_COMM_WORLD, name, rlen, ierr)
  if (name /= 'MPI_COMM_WORLD') call fail('world name: ' // trim(name))
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_free(sub, ierr)
  if (sub /= MPI_COMM_NULL .or. dup /= MPI_COMM_NULL) call fail('freed comm not MPI_COMM_NULL')

  call MPI_Get_processor_name(host, rlen, ierr)
  if (rlen < 1 .or. len_trim(host) /= rlen) call fail('processor name')
  if (MPI_Wtime() < t0) call fail('MPI_Wtime goes back')
  call MPI_Finalize(ierr)
contains
  subroutine fail(what)
    character(len=*), intent(in) :: what
    write (0, '(A,A,A,I0,A)') 'FAIL f_coll: ', what, ' (rank ', rank, ')'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end subroutine fail
end program f_coll

! A user reduction: called by the library with Fortran arguments (the
! datatype an INTEGER handle).
subroutine offset_sum(invec, inoutvec, len, datatype)
  implicit none
  include 'mpif.h'
  integer :: len, datatype, i
  integer :: invec(len), inoutvec(len)
  if (datatype /= MPI_INTEGER) stop 3
  do i = 1, len
    inoutvec(i) = invec(i) + inoutvec(i) + 1000
  end do
end subroutine offset_sum
