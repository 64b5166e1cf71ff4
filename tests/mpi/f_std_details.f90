! f_std_details - details of the Fortran bindings that MPICH's Fortran
! tests (../shared/mpich-testsuite f77, f90, f08) found wrong or missing:
! - request indices count from 1 (MPI_Waitany, MPI_Testany, MPI_Waitsome,
!   MPI_Testsome), MPI_UNDEFINED when no request is active;
! - info keys and values lose leading and trailing blanks, and
!   MPI_Info_get_string counts characters without C's terminator; info
!   objects made before MPI_Init still work after MPI_Finalize;
! - MPI_Sizeof, MPI_F_sync_reg, PMPI_Wtime, and the mpi module's TYPE(C_PTR)
!   forms of MPI_Alloc_mem, MPI_Win_allocate_shared and MPI_Win_shared_query.
program f_std_details
  use mpi
  use ftestutil
  use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
  implicit none
  integer :: ierr, rank, nproc, early, idx, outcount, bufl, sz, disp, win, i
  integer :: reqs(3), indices(3), statuses(MPI_STATUS_SIZE, 3), status(MPI_STATUS_SIZE)
  integer, asynchronous :: sbuf(3), rbuf(3)
  integer :: iarr(4, 2)
  integer(kind=MPI_ADDRESS_KIND) :: bytes, qsize
  real(kind=8) :: d
  complex(kind=8) :: z
  character(len=MPI_MAX_INFO_VAL) :: val
  character(len=4) :: short
  logical :: flag
  type(c_ptr) :: mem, wmem
  integer, pointer :: ints(:)
  double precision :: t, t2

  test_name = 'f_std_details'
  ! --- an info object before MPI_Init: blanks stripped both sides ---
  call MPI_Info_create(early, ierr)
  if (ierr /= MPI_SUCCESS) error stop 'MPI_Info_create before MPI_Init'
  call MPI_Info_set(early, '  file ', '  123456789  ', ierr)
  if (ierr /= MPI_SUCCESS) error stop 'MPI_Info_set before MPI_Init'

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)

  ! --- MPI_Info_get_string: buflen in characters, no terminator ---
  bufl = 0
  val = 'canary'
  call MPI_Info_get_string(early, 'file', bufl, val, flag, ierr)
  call check(flag .and. bufl == 9 .and. val == 'canary', 'get_string with no room: ' // val)
  bufl = 2
  call MPI_Info_get_string(early, 'file', bufl, val, flag, ierr)
  call check(flag .and. bufl == 9 .and. val == '12', 'get_string cut to 2: ' // val)
  bufl = MPI_MAX_INFO_VAL
  call MPI_Info_get_string(early, ' file', bufl, val, flag, ierr)
  call check(flag .and. bufl == 9 .and. val == '123456789', 'get_string whole: ' // val)
  bufl = MPI_MAX_INFO_VAL
  call MPI_Info_get_string(early, 'file', bufl, short, flag, ierr)
  call check(flag .and. bufl == 9 .and. short == '1234', 'get_string into CHARACTER*4')
  bufl = 5
  val = 'canary'
  call MPI_Info_get_string(early, 'nokey', bufl, val, flag, ierr)
  call check(.not. flag .and. bufl == 5 .and. val == 'canary', 'get_string of a missing key')
  call MPI_Info_get_valuelen(early, 'file  ', i, flag, ierr)
  call check(flag .and. i == 9, 'MPI_Info_get_valuelen')

  ! --- indices from 1 ---
  sbuf = [11, 22, 33] + rank
  rbuf = -1
  reqs(1) = MPI_REQUEST_NULL
  call MPI_Irecv(rbuf(2), 1, MPI_INTEGER, 0, 5, MPI_COMM_SELF, reqs(2), ierr)
  reqs(3) = MPI_REQUEST_NULL
  call MPI_Send(sbuf(2), 1, MPI_INTEGER, 0, 5, MPI_COMM_SELF, ierr)
  call MPI_Waitany(3, reqs, idx, status, ierr)
  call check(idx == 2 .and. rbuf(2) == 22 + rank, 'MPI_Waitany index counts from 1')
  call MPI_Waitany(3, reqs, idx, status, ierr)
  call check(idx == MPI_UNDEFINED, 'MPI_Waitany with no active request: MPI_UNDEFINED')
  call MPI_Irecv(rbuf(3), 1, MPI_INTEGER, 0, 6, MPI_COMM_SELF, reqs(3), ierr)
  call MPI_Send(sbuf(3), 1, MPI_INTEGER, 0, 6, MPI_COMM_SELF, ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Testany(3, reqs, idx, flag, status, ierr)
  end do
  call check(idx == 3 .and. rbuf(3) == 33 + rank, 'MPI_Testany index counts from 1')
  call MPI_Testany(3, reqs, idx, flag, status, ierr)
  call check(flag .and. idx == MPI_UNDEFINED, 'MPI_Testany with none active')
  call MPI_Irecv(rbuf(1), 1, MPI_INTEGER, 0, 7, MPI_COMM_SELF, reqs(1), ierr)
  call MPI_Irecv(rbuf(3), 1, MPI_INTEGER, 0, 8, MPI_COMM_SELF, reqs(3), ierr)
  call MPI_Send(sbuf(3), 1, MPI_INTEGER, 0, 8, MPI_COMM_SELF, ierr)
  call MPI_Waitsome(3, reqs, outcount, indices, statuses, ierr)
  call check(outcount == 1 .and. indices(1) == 3, 'MPI_Waitsome indices count from 1')
  call MPI_Send(sbuf(1), 1, MPI_INTEGER, 0, 7, MPI_COMM_SELF, ierr)
  outcount = 0
  do while (outcount == 0)
    call MPI_Testsome(3, reqs, outcount, indices, statuses, ierr)
  end do
  call check(outcount == 1 .and. indices(1) == 1 .and. rbuf(1) == 11 + rank, &
             'MPI_Testsome indices count from 1')
  call MPI_Testsome(3, reqs, outcount, indices, statuses, ierr)
  call check(outcount == MPI_UNDEFINED, 'MPI_Testsome with none active: MPI_UNDEFINED')

  ! --- MPI_Sizeof, MPI_F_sync_reg, PMPI_Wtime ---
  call MPI_Sizeof(i, sz, ierr)
  call check(sz == 4 .and. ierr == MPI_SUCCESS, 'MPI_Sizeof(INTEGER)')
  call MPI_Sizeof(d, sz, ierr)
  call check(sz == 8, 'MPI_Sizeof(REAL(8))')
  call MPI_Sizeof(z, sz, ierr)
  call check(sz == 16, 'MPI_Sizeof(COMPLEX(8))')
  call MPI_Sizeof(iarr, sz, ierr)
  call check(sz == 4, 'MPI_Sizeof of an array: one element')
  call MPI_F_sync_reg(rbuf)
  t = PMPI_Wtime()
  t2 = MPI_Wtime()
  call check(t > 0 .and. abs(t - t2) < 10, 'PMPI_Wtime is a DOUBLE PRECISION time')

  ! --- TYPE(C_PTR) forms in the mpi module ---
  bytes = 4 * 100
  call MPI_Alloc_mem(bytes, MPI_INFO_NULL, mem, ierr)
  call check_ok(ierr, 'MPI_Alloc_mem with TYPE(C_PTR)')
  call c_f_pointer(mem, ints, [100])
  ints = [(i * rank, i = 1, 100)]
  call check(sum(ints) == 5050 * rank, 'memory from MPI_Alloc_mem holds data')
  call MPI_Free_mem(ints, ierr)
  call check_ok(ierr, 'MPI_Free_mem')
  call MPI_Win_allocate_shared(bytes, 4, MPI_INFO_NULL, MPI_COMM_SELF, wmem, win, ierr)
  call check_ok(ierr, 'MPI_Win_allocate_shared with TYPE(C_PTR)')
  call c_f_pointer(wmem, ints, [100])
  ints = 7
  call MPI_Win_shared_query(win, 0, qsize, disp, mem, ierr)
  call check_ok(ierr, 'MPI_Win_shared_query with TYPE(C_PTR)')
  call c_f_pointer(mem, ints, [100])
  call check(qsize == bytes .and. disp == 4 .and. all(ints == 7), 'the shared segment seen again')
  call MPI_Win_free(win, ierr)

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(A)', 'f_std_details: ok before MPI_Finalize'
  call MPI_Finalize(ierr)

  ! --- the info object after MPI_Finalize ---
  bufl = MPI_MAX_INFO_VAL
  call MPI_Info_get_string(early, 'file', bufl, val, flag, ierr)
  if (ierr /= MPI_SUCCESS .or. .not. flag .or. val /= '123456789') &
    error stop 'FAIL f_std_details: info made before MPI_Init, read after MPI_Finalize'
  call MPI_Info_free(early, ierr)
  if (ierr /= MPI_SUCCESS .or. early /= MPI_INFO_NULL) &
    error stop 'FAIL f_std_details: MPI_Info_free after MPI_Finalize'
end program f_std_details
