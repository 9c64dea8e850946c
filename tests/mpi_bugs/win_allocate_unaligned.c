/*
 * Pure-MPI reproducer for one of the reasons GDS does not use
 * MPI_Win_allocate (src/rma/window.hpp): it maps its own memory instead.
 *
 * MPICH 4.0.2 (Debian 12, ch4:ucx), processes on one node: MPI_Win_allocate
 * with a size that is not a multiple of 16 bytes on rank 0 (60 bytes here).
 * Rank 0 puts 10 ints at displacement 0 of rank 1. Expected: rank 1 holds
 * them and rank 0's memory is untouched. Observed: the put starts 12 bytes
 * early, in rank 0's last 3 ints ("rank 0: base[12]=100").
 *
 *   mpicc.mpich win_allocate_unaligned.c -o repro && mpiexec.mpich -n 2 ./repro
 *
 * Prints "BUG" and exits 1 when the MPI library shows the bug, "ok" otherwise.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    if (rank == 0) printf("needs 2 processes\n");
    MPI_Finalize();
    return 0;
  }
  const int count = rank == 0 ? 15 : 10; /* 60 bytes on rank 0 */
  int *base;
  MPI_Win win;
  MPI_Win_allocate(count * (MPI_Aint)sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  for (int i = 0; i < count; i++) base[i] = -1;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 0) {
    int v[10];
    for (int i = 0; i < 10; i++) v[i] = 100 + i;
    MPI_Put(v, 10, MPI_INT, 1, 0, 10, MPI_INT, win);
    MPI_Win_flush(1, win);
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  int bad = 0;
  if (rank == 0)
    for (int i = 0; i < count; i++) bad |= base[i] != -1;
  if (rank == 1)
    for (int i = 0; i < 10; i++) bad |= base[i] != 100 + i;
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  if (rank == 0) printf("%s\n", any ? "BUG: the put landed at the wrong address" : "ok");
  MPI_Win_free(&win);
  MPI_Finalize();
  return any ? 1 : 0;
}
