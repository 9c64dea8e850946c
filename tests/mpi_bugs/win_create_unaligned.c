/*
 * Pure-MPI reproducer for why GDS starts a GDS_create array's window on a
 * 16-byte boundary before the program's buffer (src/rma/window.hpp, skew_).
 *
 * MPICH 4.0.2 (Debian 12, ch4:ucx), one or more processes on one node:
 * MPI_Win_create over memory that starts 8 bytes past a 16-byte boundary
 * (a buffer at &a[1] of an aligned array of doubles, say), displacement
 * unit 8. The last process puts 100 values at displacement 20 of process
 * 0's window. Expected: elements 20..119 hold them. Observed: they land 8
 * bytes early, at the base rounded down to 16 ("element 19 is 100").
 *
 *   mpicc.mpich win_create_unaligned.c -o repro && mpiexec.mpich -n 2 ./repro
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
  enum { kCount = 200, kAt = 20, kPut = 100 };
  double *block = NULL;
  if (posix_memalign((void **)&block, 64, (kCount + 2) * sizeof(double)) != 0) MPI_Abort(MPI_COMM_WORLD, 2);
  double *base = block + 1; /* 8 bytes past a 16-byte boundary */
  for (int i = 0; i < kCount; i++) base[i] = -1;
  MPI_Win win;
  MPI_Win_create(base, kCount * (MPI_Aint)sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_lock_all(0, win);
  if (rank == size - 1) {
    double v[kPut];
    for (int i = 0; i < kPut; i++) v[i] = 100 + i;
    MPI_Put(v, kPut, MPI_DOUBLE, 0, kAt, kPut, MPI_DOUBLE, win);
    MPI_Win_flush(0, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_sync(win);
  int bad = 0;
  if (rank == 0)
    for (int i = 0; i < kCount; i++) {
      const double want = i >= kAt && i < kAt + kPut ? 100 + (i - kAt) : -1;
      if (base[i] != want && !bad) {
        printf("element %d is %g, expected %g\n", i, base[i], want);
        bad = 1;
      }
    }
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  if (rank == 0) printf("%s\n", any ? "BUG: the put landed at the wrong address" : "ok");
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  free(block);
  MPI_Finalize();
  return any ? 1 : 0;
}
