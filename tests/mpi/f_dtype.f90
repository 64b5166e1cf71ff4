! f_dtype - derived datatypes from Fortran: a column and a row of a 2-D
! array (Type_vector against Fortran's column-major layout), a struct built
! from MPI_Get_address and sent from MPI_BOTTOM, Type_size / extent,
! Pack / Unpack, and freed types turning into MPI_DATATYPE_NULL.
program f_dtype
  use mpi
  use ftestutil
  implicit none
  integer, parameter :: n = 6
  integer :: ierr, rank, size, right, left, i, j, row, tsize, pos, st
  integer :: a(n, n), b(n, n), blens(2), types(2)
  integer(kind=MPI_ADDRESS_KIND) :: lb, extent, disps(2)
  double precision :: d, dr
  integer :: k, kr
  character :: packed(100)

  test_name = 'f_dtype'
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  right = mod(rank + 1, size)
  left = mod(rank + size - 1, size)

  a = reshape([(rank * 1000 + i, i = 1, n * n)], [n, n])
  ! A row of a column-major array: n elements, stride n.
  call MPI_Type_vector(n, 1, n, MPI_INTEGER, row, ierr)
  call MPI_Type_commit(row, ierr)
  call MPI_Type_size(row, tsize, ierr)
  call check(tsize == 4 * n, 'vector size')
  call MPI_Type_get_extent(row, lb, extent, ierr)
  call check(lb == 0 .and. extent == 4 * ((n - 1) * n + 1), 'vector extent')
  b = -1
  call MPI_Sendrecv(a(2, 1), 1, row, right, 1, b(3, 1), 1, row, left, 1, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE, ierr)
  do j = 1, n
    do i = 1, n
      if (i == 3) then
        call check(b(i, j) == left * 1000 + 2 + (j - 1) * n, 'row element')
      else
        call check(b(i, j) == -1, 'outside the row untouched')
      end if
    end do
  end do
  call MPI_Type_free(row, ierr)
  call check(row == MPI_DATATYPE_NULL, 'freed type is MPI_DATATYPE_NULL')

  ! A struct of an INTEGER and a DOUBLE PRECISION at absolute addresses.
  k = rank + 7
  d = rank * 0.25d0
  call MPI_Get_address(k, disps(1), ierr)
  call MPI_Get_address(d, disps(2), ierr)
  blens = 1
  types = [MPI_INTEGER, MPI_DOUBLE_PRECISION]
  call MPI_Type_create_struct(2, blens, disps, types, st, ierr)
  call MPI_Type_commit(st, ierr)
  call MPI_Send(MPI_BOTTOM, 1, st, right, 2, MPI_COMM_WORLD, ierr) ! eager: size <= 12 bytes
  kr = -1
  dr = -1
  call MPI_Get_address(kr, disps(1), ierr)
  call MPI_Get_address(dr, disps(2), ierr)
  call MPI_Type_free(st, ierr)
  call MPI_Type_create_struct(2, blens, disps, types, st, ierr)
  call MPI_Type_commit(st, ierr)
  call MPI_Recv(MPI_BOTTOM, 1, st, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call check(kr == left + 7 .and. dr == left * 0.25d0, 'struct from MPI_BOTTOM')
  call MPI_Type_free(st, ierr)

  ! Pack an INTEGER and a DOUBLE PRECISION, unpack them.
  pos = 0
  call MPI_Pack(k, 1, MPI_INTEGER, packed, 100, pos, MPI_COMM_WORLD, ierr)
  call MPI_Pack(d, 1, MPI_DOUBLE_PRECISION, packed, 100, pos, MPI_COMM_WORLD, ierr)
  call check(pos == 12, 'packed bytes')
  pos = 0
  kr = -1
  dr = -1
  call MPI_Unpack(packed, 100, pos, kr, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call MPI_Unpack(packed, 100, pos, dr, 1, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
  call check(kr == k .and. dr == d, 'unpack')
  call MPI_Finalize(ierr)
end program f_dtype
