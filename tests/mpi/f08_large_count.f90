! f08_large_count - mpi_f08's large-count overloads (MPI-4.0): a call whose
! counts are INTEGER(KIND=MPI_COUNT_KIND) reaches MPI_X_c, one with default
! INTEGERs MPI_X, in the same program.  Outputs are preset to -1, so a call
! that reached the small binding would leave the upper half of an 8-byte
! result set and fail.  A contiguous type of 3 * 10**9 bytes (more than an
! INTEGER holds) has that size and extent; ring exchanges, Bcast,
! Allreduce, Alltoallv (COUNT_KIND counts, ADDRESS_KIND displacements),
! Get_count / Get_elements, Pack_size and a one-sided Put carry exact data.
program f08_large_count
  use mpi_f08
  implicit none
  integer :: rank, size, right, left, i, ierr, small
  integer(kind=MPI_COUNT_KIND) :: n8, c8, s8, lb8, ext8
  integer(kind=MPI_ADDRESS_KIND) :: lb, ext, disp
  integer(kind=MPI_COUNT_KIND), allocatable :: scounts(:), rcounts(:)
  integer(kind=MPI_ADDRESS_KIND), allocatable :: sdispls(:), rdispls(:)
  integer, allocatable :: sa(:), ra(:)
  type(MPI_Datatype) :: huge_t
  type(MPI_Status) :: status
  type(MPI_Win) :: win
  type(MPI_Request) :: req
  integer, asynchronous :: sbuf(16)
  integer :: rbuf(16), winbuf(4), one(1)
  double precision :: x, y

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  right = mod(rank + 1, size)
  left = mod(rank + size - 1, size)

  ! Sizes no INTEGER holds.
  n8 = 3000000000_MPI_COUNT_KIND
  call MPI_Type_contiguous(n8, MPI_BYTE, huge_t, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Type_contiguous with a COUNT_KIND count')
  call MPI_Type_commit(huge_t)
  s8 = -1
  call MPI_Type_size(huge_t, s8)
  call check(s8 == n8, 'MPI_Type_size (COUNT_KIND) of 3e9 bytes')
  small = -1
  call MPI_Type_size(huge_t, small, ierr)
  call check(ierr /= MPI_SUCCESS .or. small == MPI_UNDEFINED, &
             'MPI_Type_size (INTEGER) of 3e9 bytes: MPI_UNDEFINED')
  ! Type_get_extent has one interface for both (ADDRESS_KIND == COUNT_KIND).
  call MPI_Type_get_extent(huge_t, lb, ext)
  call check(lb == 0 .and. ext == n8, 'MPI_Type_get_extent of 3e9 bytes')
  lb8 = -1
  ext8 = -1
  call MPI_Type_get_true_extent(huge_t, lb8, ext8)
  call check(lb8 == 0 .and. ext8 == n8, 'MPI_Type_get_true_extent (COUNT_KIND variables)')
  call MPI_Type_free(huge_t)

  ! Point-to-point, large and default counts side by side.
  sbuf = [(100 * rank + i, i = 1, 16)]
  rbuf = -1
  n8 = 16
  call MPI_Sendrecv(sbuf, n8, MPI_INTEGER, right, 1, rbuf, n8, MPI_INTEGER, left, 1, &
                    MPI_COMM_WORLD, status)
  call check(all(rbuf == [(100 * left + i, i = 1, 16)]), 'Sendrecv_c payload')
  c8 = -1
  call MPI_Get_count(status, MPI_INTEGER, c8)
  call check(c8 == 16, 'MPI_Get_count (COUNT_KIND)')
  c8 = -1
  call MPI_Get_elements(status, MPI_INTEGER, c8)
  call check(c8 == 16, 'MPI_Get_elements (COUNT_KIND)')
  small = -1
  call MPI_Get_count(status, MPI_INTEGER, small)
  call check(small == 16, 'MPI_Get_count (INTEGER)')
  rbuf = -1
  call MPI_Isend(sbuf, 8_MPI_COUNT_KIND, MPI_INTEGER, right, 2, MPI_COMM_WORLD, req)
  call MPI_Recv(rbuf, 8, MPI_INTEGER, left, 2, MPI_COMM_WORLD, status)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call check(all(rbuf(1:8) == [(100 * left + i, i = 1, 8)]), 'Isend_c to Recv payload')
  rbuf = -1
  call MPI_Isend(sbuf(9), 8, MPI_INTEGER, right, 3, MPI_COMM_WORLD, req)
  call MPI_Recv(rbuf, 8_MPI_COUNT_KIND, MPI_INTEGER, left, 3, MPI_COMM_WORLD, status)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call check(all(rbuf(1:8) == [(100 * left + i, i = 9, 16)]), 'Isend to Recv_c payload')

  ! Collectives.
  one(1) = -1
  if (rank == 0) one(1) = 4242
  call MPI_Bcast(one, 1_MPI_COUNT_KIND, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call check(one(1) == 4242, 'Bcast_c')
  x = rank + 1
  call MPI_Allreduce(x, y, 1_MPI_COUNT_KIND, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  call check(y == size * (size + 1) / 2.0d0, 'Allreduce_c')
  allocate (scounts(0:size - 1), rcounts(0:size - 1), sdispls(0:size - 1), rdispls(0:size - 1))
  allocate (sa(0:2 * size - 1), ra(0:2 * size - 1))
  do i = 0, size - 1
    scounts(i) = 2
    rcounts(i) = 2
    sdispls(i) = 2 * i
    rdispls(i) = 2 * i
    sa(2 * i) = 1000 * rank + i
    sa(2 * i + 1) = -(1000 * rank + i)
  end do
  ra = -7
  call MPI_Alltoallv(sa, scounts, sdispls, MPI_INTEGER, ra, rcounts, rdispls, MPI_INTEGER, &
                     MPI_COMM_WORLD)
  do i = 0, size - 1
    call check(ra(2 * i) == 1000 * i + rank .and. ra(2 * i + 1) == -(1000 * i + rank), &
               'Alltoallv_c payload')
  end do
  s8 = -1
  call MPI_Pack_size(5_MPI_COUNT_KIND, MPI_INTEGER, MPI_COMM_WORLD, s8)
  call check(s8 >= 20, 'Pack_size_c')

  ! One-sided: COUNT_KIND counts, an ADDRESS_KIND displacement.
  winbuf = -1
  call MPI_Win_create(winbuf, int(16, MPI_ADDRESS_KIND), 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  call MPI_Win_fence(0, win)
  disp = 1
  call MPI_Put(sbuf, 2_MPI_COUNT_KIND, MPI_INTEGER, right, disp, 2_MPI_COUNT_KIND, MPI_INTEGER, &
               win)
  call MPI_Win_fence(0, win)
  call check(winbuf(1) == -1 .and. winbuf(2) == 100 * left + 1 .and. &
             winbuf(3) == 100 * left + 2 .and. winbuf(4) == -1, 'Put_c payload')
  call MPI_Win_free(win)
  deallocate (scounts, rcounts, sdispls, rdispls, sa, ra)

  call MPI_Finalize()
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (ok) return
    write (0, '(A,A,A,I0,A)') 'FAIL f08_large_count: ', what, ' (rank ', rank, ')'
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine check
end program f08_large_count
