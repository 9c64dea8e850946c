/*
 * Pure-MPI reproducer for the Open MPI behaviour GDS avoids by giving
 * MPI_Get_accumulate contiguous runs only (src/rma/transfer.cpp,
 * Settings::get_acc_runs_only). Found by tests/test_random.cpp.
 *
 * Open MPI 4.1.4 (Debian 12), osc/rdma over btl/vader: MPI_Get_accumulate
 * (here MPI_SUM of 1 on MPI_LONG_LONG) with a strided (MPI_Type_vector)
 * target datatype, result datatype or both returns zeros or other elements
 * of the window in the result buffer, after MPI_Win_flush_local and after
 * MPI_Win_flush alike. With contiguous datatypes (a count of MPI_LONG_LONG)
 * it is right; osc/pt2pt is right in every case; MPICH 4.0.2 too.
 *
 *   mpicc.openmpi get_acc_derived.c -o repro
 *   OMPI_MCA_osc=sm,rdma,pt2pt mpiexec.openmpi -n 2 ./repro   # BUG
 *
 * Prints "BUG" and exits 1 when the MPI library shows the bug, "ok" otherwise.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  enum { N = 400, STRIDE = 11, MAXCOUNT = 9 };
  long long *mem = malloc(N * sizeof *mem);
  MPI_Win win;
  MPI_Win_create(mem, N * sizeof *mem, sizeof *mem, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  static const char *const names[8] = {
      "contiguous, flush_local", "strided target, flush_local", "strided result, flush_local",
      "strided target and result, flush_local", "contiguous, flush", "strided target, flush",
      "strided result, flush", "strided target and result, flush"};
  int wrong[8] = {0}, any = 0;
  for (int variant = 0; variant < 8; ++variant) {
    const int strided_target = variant & 1, strided_result = variant & 2, remote = variant & 4;
    for (int iter = 0; iter < 50; ++iter) {
      for (int i = 0; i < N; ++i) mem[i] = 1000 * rank + i;
      MPI_Win_sync(win);
      MPI_Barrier(MPI_COMM_WORLD);
      const int target = (rank + 1) % size, count = 3 + iter % 7, disp = rank * 3 + 5;
      long long origin[MAXCOUNT], result[MAXCOUNT * STRIDE];
      for (int k = 0; k < MAXCOUNT; ++k) origin[k] = 1;
      for (int k = 0; k < MAXCOUNT * STRIDE; ++k) result[k] = -7;
      MPI_Datatype tt = MPI_LONG_LONG, rt = MPI_LONG_LONG;
      int tcount = count, rcount = count;
      if (strided_target) {
        MPI_Type_vector(count, 1, STRIDE, MPI_LONG_LONG, &tt);
        MPI_Type_commit(&tt);
        tcount = 1;
      }
      if (strided_result) {
        MPI_Type_vector(count, 1, STRIDE, MPI_LONG_LONG, &rt);
        MPI_Type_commit(&rt);
        rcount = 1;
      }
      MPI_Get_accumulate(origin, count, MPI_LONG_LONG, result, rcount, rt, target, disp, tcount, tt, MPI_SUM, win);
      if (remote) MPI_Win_flush(target, win); else MPI_Win_flush_local(target, win);
      for (int k = 0; k < count; ++k) {
        const long long got = result[strided_result ? k * STRIDE : k];
        const long long want = 1000LL * target + disp + (strided_target ? k * STRIDE : k);
        if (got != want) ++wrong[variant];
      }
      if (strided_target) MPI_Type_free(&tt);
      if (strided_result) MPI_Type_free(&rt);
      MPI_Win_flush_all(win);
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }
  for (int v = 0; v < 8; ++v)
    if (wrong[v] > 0) {
      printf("rank %d: BUG: get_accumulate (%s): %d result elements wrong\n", rank, names[v], wrong[v]);
      any = 1;
    }
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  free(mem);
  int all = 0;
  MPI_Allreduce(&any, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && !all) printf("ok\n");
  MPI_Finalize();
  return all;
}
