! heat.f90 and heat_resilient.f90: the 2-D heat equation by Jacobi sweeps. heat.f90 is the plain form,
! pure MPI; heat_resilient.f90 is the same program plus the lines that make it resilient with GDS
! (`diff heat.f90 heat_resilient.f90` shows all of them).
!
! The plate has n+2 rows and nc = n * nprocs columns; every process owns n whole columns (weak
! scaling: n x n points per process). Fortran is column-major, so u(i, j) holds row i of column j,
! a column is contiguous, and the processes split the plate along the slow dimension, into blocks of
! columns: u(0:n+1, 0:n+1) holds this process's columns in 1..n and a halo column on each side, and
! one MPI_Sendrecv per side exchanges a whole (contiguous) column with each neighbour per sweep.
! Fixed boundary: the top row is held at 1 (the hot edge), the bottom row and the plate's first and
! last columns at 0. A sweep writes the mean of the four neighbours of every inner point into a
! second array and copies it back. By the maximum principle every value stays within [0, 1].
! Every 50 steps rank 0 prints the plate's energy (an MPI_Allreduce). Deterministic: the same
! process count gives the same answer to the bit.
!
! The resilient form makes the plate a GDS array over the program's own buffer (GDS_CREATE with NULL
! mappings: the block layout, a 1-D array of nc (n+2)-value columns, each process's block its columns
! 1..n of u, halos excluded), versioned every k steps (--every k; 0: never) with the label "step=<s>"
! (GDS_VERSION_INC finds the columns that changed by itself). Every c steps (--check c; default k) and
! before every version, so that no version holds state that was not checked, a process checks its own
! columns against the maximum principle; a value outside [0, 1] is repaired LOCALLY, by that process
! alone and one-sided (no other process calls anything or waits): it moves its handle back to the newest
! version (the plate itself stays current), reads from it the columns that can influence its own at
! this step (its own and d more on each side, d = the steps made since that version; they belong to its
! neighbours) and repeats the d sweeps on that shrinking cone, which gives its own columns exactly as the
! failure-free run has them; then the handle goes back to the current version. Reloading only its own
! part of an older version would leave that one process behind its neighbours (a Jacobi step needs the
! neighbours' columns of the same step); the cone needs no one else. A version whose cone is not sound
! (made after a latent error) or cannot be read is skipped for the one before; each version's step is
! what it holds (GDS_GET_VERSION_HOLDS: the label it was made with). A failed GDS_VERSION_INC (it fails
! on every process) is handled the same way: every process rebuilds its columns from the newest version.
! Started again with the same GDS_JOB_ID after a crash, the plate's columns come back inside GDS_CREATE
! (GDS_GET_RESTART_INFO says so) and it resumes from the step the current label names. Lines marked
! [inject] are the tests' fault injection (the options below), not resilience.
!
!   mpiexec -n 4 ./heat --n 256 --steps 200
!   mpiexec -n 4 ./heat_resilient --n 256 --steps 200 --every 10 [--check 10] [--inject none|flip|latent|
!                                 library|kill --at <step> --delay <steps> --rank <r>]
!
! flip: rank r flips bit 62 (the top exponent bit) of one of its values after the sweep of step `at`,
! which puts it above 1; the next check finds it. latent: the same, but the checks are blind until
! step at+delay, so the error spreads (to a neighbour too if near its edge) and versions made
! meanwhile hold it; the repair walks back past them. library: GDS_INJECT_FAULT(GDS_FAULT_VERSION_PHASE)
! makes the next GDS_VERSION_INC fail (status GDS_STATUS_MPI_ERROR, GDS_STATUS_REMOTE_ERROR on
! the others). kill: rank r raises SIGKILL (gfortran's KILL and GETPID). A check reads the process's
! part of the plate once more (--check 1: once per sweep).
!
! Output (rank 0): STEPS, TIME (seconds of the time-stepping loop), ANSWER (the sum of the plate's
! values, 17 significant digits); the resilient form adds RESTARTED from=<version>, and the repairing
! process RECOVERED <kind> step=<s> from=<version> and RECOVERY_TIME <seconds>.
PROGRAM heat
  USE MPI
  IMPLICIT NONE
  INTEGER :: n = 128, steps = 100, every = 10, check = -1, at = -1, delay = 5, victim = -1
  CHARACTER(64) :: inject = 'none', arg, val
  INTEGER :: rank, nprocs, left, right, c0, nc, j1, j2, s, k, ierr
  DOUBLE PRECISION, ALLOCATABLE :: u(:, :), unew(:, :)
  DOUBLE PRECISION :: t0, time, energy, total

  CALL MPI_INIT(ierr)
  CALL MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  CALL MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  DO k = 1, COMMAND_ARGUMENT_COUNT() - 1, 2  ! --option value pairs; the plain form ignores the resilience ones
    CALL GET_COMMAND_ARGUMENT(k, arg)
    CALL GET_COMMAND_ARGUMENT(k + 1, val)
    SELECT CASE (arg)
    CASE ('--n')
      READ (val, *) n
    CASE ('--steps')
      READ (val, *) steps
    CASE ('--every')
      READ (val, *) every
    CASE ('--check')
      READ (val, *) check
    CASE ('--inject')
      inject = val
    CASE ('--at')
      READ (val, *) at
    CASE ('--delay')
      READ (val, *) delay
    CASE ('--rank')
      READ (val, *) victim
    CASE DEFAULT
      IF (rank == 0) PRINT '(2A)', 'heat: unknown option ', TRIM(arg)
      CALL MPI_ABORT(MPI_COMM_WORLD, 2, ierr)
    END SELECT
  END DO
  IF (at < 0) at = steps / 2
  IF (victim < 0) victim = nprocs - 1

  nc = n * nprocs
  c0 = rank * n                                ! this process owns the plate's columns c0+1..c0+n
  left = MERGE(MPI_PROC_NULL, rank - 1, rank == 0)
  right = MERGE(MPI_PROC_NULL, rank + 1, rank == nprocs - 1)
  j1 = MERGE(2, 1, rank == 0)                  ! the columns it sweeps: not the plate's first and last
  j2 = MERGE(n - 1, n, rank == nprocs - 1)
  ALLOCATE(u(0:n + 1, 0:n + 1), unew(0:n + 1, 0:n + 1))
  u = 0
  u(0, :) = 1                                  ! the hot edge

  s = 0
  t0 = MPI_WTIME()
  DO WHILE (s < steps)
    s = s + 1
    CALL MPI_SENDRECV(u(:, n), n + 2, MPI_DOUBLE_PRECISION, right, 0, u(:, 0), n + 2, MPI_DOUBLE_PRECISION, left, 0, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    CALL MPI_SENDRECV(u(:, 1), n + 2, MPI_DOUBLE_PRECISION, left, 1, u(:, n + 1), n + 2, MPI_DOUBLE_PRECISION, right, 1, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    CALL sweep(u, unew, j1, j2)
    IF (MOD(s, 50) == 0) THEN
      CALL MPI_ALLREDUCE(SUM(u(1:n, 1:n)), energy, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
      IF (rank == 0) PRINT '(A, I0, A, ES24.16E3)', 'step ', s, ' energy ', energy
    END IF
  END DO
  time = MPI_WTIME() - t0

  CALL MPI_REDUCE(SUM(u(1:n, 1:n)), total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  IF (rank == 0) THEN
    WRITE (arg, '(F16.6)') time
    WRITE (val, '(ES24.16E3)') total
    PRINT '(A, I0, /, 2A, /, 2A)', 'STEPS ', steps, 'TIME ', TRIM(ADJUSTL(arg)), 'ANSWER ', TRIM(ADJUSTL(val))
  END IF
  DEALLOCATE(u, unew)
  CALL MPI_FINALIZE(ierr)

CONTAINS

  ! One Jacobi sweep of columns j1..j2 of a (rows 1..n): b takes the mean of a's four neighbours, then a takes b.
  SUBROUTINE sweep(a, b, j1, j2)
    DOUBLE PRECISION, CONTIGUOUS, INTENT(INOUT) :: a(0:, 0:), b(0:, 0:)
    INTEGER, INTENT(IN) :: j1, j2
    INTEGER :: i, j
    DO j = j1, j2
      DO i = 1, n
        b(i, j) = 0.25D0 * (a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + a(i, j + 1))
      END DO
    END DO
    a(1:n, j1:j2) = b(1:n, j1:j2)
  END SUBROUTINE

END PROGRAM heat
