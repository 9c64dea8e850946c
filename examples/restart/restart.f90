! restart.f90: a program that carries on where it was killed (the Fortran twin of restart.c). With GDS_JOB_ID
! set (GDS_COPY_TYPE, GDS_CACHE_BASE, GDS_PREFIX say where versions are kept: nothing in the code), run
! `mpiexec -n 2 ./restart_f90 37` (dies at step 37), then `mpiexec -n 2 ./restart_f90` ("resuming at step 30").
PROGRAM restart
  USE GDS                                  ! GDS, ISO_C_BINDING and MPI
  IMPLICIT NONE
  INTEGER, PARAMETER :: N = 4096           ! elements per process
  DOUBLE PRECISION, TARGET :: x(N), v(N) = 0.0D0  ! the state: this process's positions and velocities
  INTEGER :: rank, nprocs
  TYPE(C_PTR) :: arrays(2), group; TYPE(GDS_PERSISTED_T) :: saved; TYPE(GDS_RESTART_INFO_T) :: took
  CHARACTER(32) :: label = '-1'
  INTEGER :: provided, status, step = 0, crash
  CALL GDS_INIT(GDS_THREAD_SINGLE, provided, status)
  CALL MPI_COMM_RANK(MPI_COMM_WORLD, rank, status); CALL MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, status)
  IF (COMMAND_ARGUMENT_COUNT() > 0) CALL GET_COMMAND_ARGUMENT(1, label)  ! the step to crash at, if any
  READ (label, *) crash
  CALL GDS_RESTART_QUERY('oscillators', saved, status)  ! 1. before any array: persisted state of this group?
  IF (saved%found == 0) x = 1.0D0 + rank  ! a fresh start
  ! 2. x and v become GDS arrays over the program's own arrays, versioned as a group (a restart fills them);
  !    no mapping functions: x(k) of process r is element r * N + k - 1 (the GDS_ALLOC block layout).
  CALL GDS_CREATE(1_8, [INT(N, 8) * nprocs], GDS_DATA_DOUBLE_PRECISION, C_NULL_FUNPTR, C_NULL_FUNPTR, &
                  C_LOC(x), INT(N, 8), GDS_PRIORITY_HIGH, MPI_COMM_WORLD, MPI_INFO_NULL, arrays(1), status)
  CALL GDS_CREATE(1_8, [INT(N, 8) * nprocs], GDS_DATA_DOUBLE_PRECISION, C_NULL_FUNPTR, C_NULL_FUNPTR, &
                  C_LOC(v), INT(N, 8), GDS_PRIORITY_HIGH, MPI_COMM_WORLD, MPI_INFO_NULL, arrays(2), status)
  CALL GDS_GROUP_CREATE('oscillators', 2, arrays, group, status)
  CALL GDS_GROUP_GET_RESTART_INFO(group, took, status)  ! 3. what the restart took (older if the newest was unreadable)
  IF (saved%found == 1 .AND. took%restarted == 0) ERROR STOP 'persisted state unreadable'
  CALL GDS_GET_VERSION_LABEL_STRING(arrays(1), label, status)  ! its label: "step=<s>"
  IF (took%restarted == 1) READ (label(6:), *) step
  IF (took%restarted == 1 .AND. rank == 0) PRINT '(A, I0, A, I0, A)', 'resuming at step ', step, ' (version ', took%version, ')'
  DO step = step, 99                       ! 4. compute; every 10 steps a version of x and v at once
    WRITE (label, '(A, I0)') 'step=', step
    IF (MOD(step, 10) == 0) CALL GDS_GROUP_VERSION_INC(group, 1_8, label, LEN_TRIM(label, 8), status)
    IF (step == crash) CALL EXECUTE_COMMAND_LINE('kill -9 $PPID')  ! SIGKILL: a crash, for the demonstration
    v = v - 0.01D0 * x
    x = x + 0.01D0 * v
  END DO
  IF (rank == 0) PRINT '(A, G0.17)', 'done: x(1) = ', x(1)
  CALL GDS_GROUP_FREE(group, status)
  CALL GDS_FINALIZE(status)                ! frees the arrays
END PROGRAM restart
