/*
 * Pure-MPI reproducer for the bug behind the merged runs in
 * src/rma/datatype.cpp (RunTypes::make).
 *
 * MPICH 4.0.2 (Debian 12, ch4): once 768 or more derived datatypes exist in
 * the process, an MPI_Get_accumulate whose target datatype is a derived type
 * that is contiguous (an MPI_Type_contiguous, or an hindexed or hvector type
 * whose blocks touch) aborts the job at the target:
 *
 *   Assertion failed in file src/mpid/ch4/src/mpidig_rma_callbacks.c at
 *   line 809: actual_pack_bytes == result_data_sz
 *
 * The three datatypes hold the same number of elements. With 767 derived
 * types, with a target type that has a gap, or with MPI_Accumulate, it runs;
 * it depends on the shape too (5 blocks of 4 or 2 of 1 abort, 7 of 6 and
 * 3 of 8 run, whatever the element type).
 *
 *   mpicc.mpich get_acc_contiguous_target.c -o repro && mpiexec.mpich -n 2 ./repro
 *
 * Prints "ok" and exits 0 when the MPI library does not show the bug; when
 * it does, MPICH aborts (exit status 1 with the assertion above).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static MPI_Datatype hindexed(int n, int len, const MPI_Aint *disp) {
  int lens[8];
  MPI_Datatype t;
  for (int i = 0; i < n; i++) lens[i] = len;
  MPI_Type_create_hindexed(n, lens, disp, MPI_LONG_LONG, &t);
  MPI_Type_commit(&t);
  return t;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int live = 768;
  MPI_Datatype *others = malloc(sizeof(MPI_Datatype) * live);
  for (int i = 0; i < live; i++) {
    MPI_Type_contiguous(2, MPI_LONG_LONG, &others[i]);
    MPI_Type_commit(&others[i]);
  }
  static long long memory[64], origin[64], result[64];
  MPI_Win win;
  MPI_Win_create(memory, sizeof memory, sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  /* 5 blocks of 4 elements: strided at the origin and the result, adjacent (contiguous) at the target. */
  const MPI_Aint odisp[] = {0, 32, 64, 96, 128}, tdisp[] = {32, 64, 96, 128, 160}, rdisp[] = {0, 56, 112, 168, 224};
  MPI_Datatype ot = hindexed(5, 4, odisp), tt = hindexed(5, 4, tdisp), rt = hindexed(5, 4, rdisp);
  const int target = (rank + 1) % size;
  MPI_Get_accumulate(origin, 1, ot, result, 1, rt, target, 0, 1, tt, MPI_NO_OP, win);
  MPI_Win_flush(target, win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("ok\n");
  MPI_Type_free(&ot);
  MPI_Type_free(&tt);
  MPI_Type_free(&rt);
  for (int i = 0; i < live; i++) MPI_Type_free(&others[i]);
  free(others);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
