/*
 * Pure-MPI reproducer for GDS's refusal of MPI_SUM and MPI_PROD on
 * MPI_COMPLEX32 (src/rma/mpi_checks.cpp), found by tests/test_grid.cpp.
 *
 * MPICH 4.0.2 (Debian 12, ch4:ucx): an MPI_Accumulate (or
 * MPI_Get_accumulate) of MPI_COMPLEX32 with MPI_SUM or MPI_PROD
 *   - with MPIR_CVAR_ENABLE_YAKSA_REDUCTION=0 (what GDS_init sets against
 *     MPICH issue 6083) never completes: MPI_Win_flush does not return;
 *   - with yaksa reductions on, completes with a wrong value:
 *     (1+2i)(3-i) comes out as -2-2i instead of 5+5i.
 * MPI_REPLACE and MPI_NO_OP work. Because a probe could hang, GDS cannot
 * test for it at GDS_init: it refuses the two operations on MPICH.
 *
 *   mpicc.mpich complex32_sum_prod.c -o repro && mpiexec.mpich -n 1 ./repro
 *   MPIR_CVAR_ENABLE_YAKSA_REDUCTION=0 mpiexec.mpich -n 1 ./repro
 *
 * Prints "BUG" and exits 1 when the MPI library shows the bug (a wrong
 * product, or no completion within 10 s), "ok" otherwise.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static void hung(int sig) {
  (void)sig;
  static const char text[] = "BUG: MPI_Win_flush of an MPI_COMPLEX32 MPI_PROD accumulate did not return in 10 s\n";
  (void)!write(1, text, sizeof text - 1);
  _exit(1);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (MPI_COMPLEX32 == MPI_DATATYPE_NULL) {
    if (rank == 0) printf("ok: this MPI has no MPI_COMPLEX32\n");
    MPI_Finalize();
    return 0;
  }
  __float128 *base; /* one complex value: real, imaginary */
  MPI_Win win;
  MPI_Win_allocate(2 * sizeof(__float128), sizeof(__float128), MPI_INFO_NULL, MPI_COMM_SELF, &base, &win);
  base[0] = 1;
  base[1] = 2;
  __float128 factor[2] = {3, -1};
  MPI_Win_lock_all(0, win);
  signal(SIGALRM, hung);
  alarm(10);
  MPI_Accumulate(factor, 1, MPI_COMPLEX32, 0, 0, 1, MPI_COMPLEX32, MPI_PROD, win);
  MPI_Win_flush(0, win);
  alarm(0);
  MPI_Win_sync(win);
  const int right = base[0] == 5 && base[1] == 5;
  if (rank == 0)
    printf("%s: (1+2i)(3-i) = %g%+gi, expected 5+5i\n", right ? "ok" : "BUG", (double)base[0], (double)base[1]);
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  MPI_Finalize();
  return right ? 0 : 1;
}
