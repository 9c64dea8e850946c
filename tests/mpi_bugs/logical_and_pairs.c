/*
 * Pure-MPI reproducer for two checks behind GDS_STATUS_MPI_BUG in
 * src/rma/mpi_checks.cpp.
 *
 * Open MPI 4.1.4 (Debian 12), osc/rdma over btl/vader, 2 processes on one
 * node, windows made by MPI_Win_create (as GDS makes its windows):
 *  - MPI_Accumulate with MPI_LAND, MPI_LOR or MPI_LXOR on MPI_INT changes
 *    nothing: LAND(2, 3) leaves 2, LOR(0, 3) leaves 0, LXOR(2, 0) leaves 2
 *    (expected 1, 1, 1);
 *  - MPI_Accumulate with MPI_MAXLOC of 6 MPI_DOUBLE_INT elements (12 bytes of
 *    16) changes only some of them (4 here); 6 MPI_2INT (no gap) come out right. With 3
 *    such elements followed by other data in one window the accumulate never
 *    completed (so GDS refuses these by the library's version, not a probe).
 * MPICH 4.0.2 computes both right.
 *
 *   mpicc.openmpi logical_and_pairs.c -o repro && OMPI_MCA_osc=sm,rdma,pt2pt mpiexec.openmpi -n 2 ./repro
 *   mpicc.mpich logical_and_pairs.c -o repro && mpiexec.mpich -n 2 ./repro
 *
 * Prints "BUG" and exits 1 when the MPI library shows a bug, "ok" otherwise.
 */
#include <mpi.h>
#include <stdio.h>

struct double_int {
  double value;
  int index;
};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  enum { kPairs = 6 };
  static int ints[4] = {2, 0, 2, 0};
  static struct double_int pairs[kPairs];
  for (int k = 0; k < kPairs; ++k) pairs[k] = (struct double_int){0.5, 7};
  MPI_Win iwin, pwin;
  MPI_Win_create(ints, sizeof ints, sizeof ints[0], MPI_INFO_NULL, MPI_COMM_WORLD, &iwin);
  MPI_Win_create(pairs, sizeof pairs, sizeof pairs[0], MPI_INFO_NULL, MPI_COMM_WORLD, &pwin);
  MPI_Barrier(MPI_COMM_WORLD);
  const int next = (rank + 1) % size, from = (rank + size - 1) % size, three = 3, zero = 0;
  struct double_int mine[kPairs];
  for (int k = 0; k < kPairs; ++k) mine[k] = (struct double_int){1.5, rank};
  MPI_Win_lock_all(0, iwin);
  MPI_Win_lock_all(0, pwin);
  MPI_Accumulate(&three, 1, MPI_INT, next, 0, 1, MPI_INT, MPI_LAND, iwin);
  MPI_Accumulate(&three, 1, MPI_INT, next, 1, 1, MPI_INT, MPI_LOR, iwin);
  MPI_Accumulate(&zero, 1, MPI_INT, next, 2, 1, MPI_INT, MPI_LXOR, iwin);
  MPI_Accumulate(mine, kPairs, MPI_DOUBLE_INT, next, 0, kPairs, MPI_DOUBLE_INT, MPI_MAXLOC, pwin);
  MPI_Win_flush_all(iwin);
  MPI_Win_flush_all(pwin);
  MPI_Win_unlock_all(iwin);
  MPI_Win_unlock_all(pwin);
  MPI_Barrier(MPI_COMM_WORLD);
  const int logical = ints[0] == 1 && ints[1] == 1 && ints[2] == 1;
  int right_pairs = 0;
  for (int k = 0; k < kPairs; ++k) right_pairs += pairs[k].value == 1.5 && pairs[k].index == from;
  if (!logical)
    printf("rank %d: BUG: LAND(2,3)=%d LOR(0,3)=%d LXOR(2,0)=%d (expected 1 1 1)\n", rank, ints[0], ints[1], ints[2]);
  if (right_pairs != kPairs)
    printf("rank %d: BUG: MAXLOC of %d MPI_DOUBLE_INT changed %d of them\n", rank, kPairs, right_pairs);
  const int wrong = !logical || right_pairs != kPairs;
  int any = 0;
  MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  if (rank == 0 && !any) printf("ok\n");
  MPI_Win_free(&iwin);
  MPI_Win_free(&pwin);
  MPI_Finalize();
  return any;
}
