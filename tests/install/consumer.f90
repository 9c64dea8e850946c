! An outside Fortran program built with `pkg-config --cflags --libs gdsf90`.
PROGRAM CONSUMER
  USE, INTRINSIC :: ISO_C_BINDING
  USE GDS
  IMPLICIT NONE
  TYPE(C_PTR) :: g
  INTEGER, TARGET :: v(10), w(10)
  INTEGER :: stat, provided, rank, i
  CALL GDS_INIT(GDS_THREAD_SINGLE, provided, stat)
  CALL GDS_COMM_RANK(GDS_COMM_WORLD, rank, stat)
  CALL GDS_ALLOC(1_8, [10_8], [0_8], GDS_DATA_INTEGER, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, g, stat)
  v = [(7 * i, i = 1, 10)]
  IF (rank == 0) CALL GDS_PUT(C_LOC(v), [0_8], [0_8], [9_8], g, stat)
  CALL GDS_FENCE(g, stat)
  CALL GDS_GET(C_LOC(w), [0_8], [0_8], [9_8], g, stat)
  CALL GDS_WAIT(g, stat)
  CALL GDS_FENCE(g, stat)
  CALL GDS_FREE(g, stat)
  CALL GDS_FINALIZE(stat)
  IF (rank == 0) PRINT '(A, A)', "consumer (Fortran, pkg-config): ", MERGE("ok   ", "WRONG", ALL(v == w))
  IF (ANY(v /= w)) ERROR STOP 1
END PROGRAM
