/*
 * Pure-MPI reproducer for the bug behind the remote flush in
 * src/rma/window.cpp (Window::complete_local).
 *
 * MPICH 4.0.2 (Debian 12, ch4:ucx): an MPI_Get to a target, then an MPI_Put
 * to the same target, then MPI_Win_flush_local (or MPI_Win_flush_local_all):
 * the flush returns before the get has landed. The ucx netmod keeps one
 * "what needs flushing" mark per target; the get sets it to "needs a local
 * flush", the put overwrites it with "needs a flush", and the local flush
 * only looks for the former. MPI_Win_flush completes both. A put before the
 * get, an accumulate, or a get_accumulate instead of the get do not show it.
 *
 *   mpicc.mpich get_put_flush_local.c -o repro && mpiexec.mpich -n 2 ./repro
 *
 * Prints "BUG" and exits 1 when the MPI library shows the bug, "ok" otherwise.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

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
  unsigned char *base;
  MPI_Win win;
  MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  memset(base, rank == 0 ? 7 : 1, 64);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  int stale[2] = {0, 0}; /* flush_local, flush_local_all */
  if (rank == size - 1) {
    for (int variant = 0; variant < 2; variant++)
      for (int it = 0; it < 100; it++) {
        unsigned char got[18], put[3] = {7, 7, 7};
        memset(got, 0, sizeof got);
        MPI_Get(got, 18, MPI_UNSIGNED_CHAR, 0, 0, 18, MPI_UNSIGNED_CHAR, win);
        MPI_Put(put, 3, MPI_UNSIGNED_CHAR, 0, 40, 3, MPI_UNSIGNED_CHAR, win);
        if (variant == 0)
          MPI_Win_flush_local(0, win);
        else
          MPI_Win_flush_local_all(win);
        for (int i = 0; i < 18; i++)
          if (got[i] != 7) {
            stale[variant]++;
            break;
          }
        MPI_Win_flush(0, win);
      }
  }
  MPI_Win_unlock_all(win);
  int all[2];
  MPI_Allreduce(stale, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  const int bug = all[0] > 0 || all[1] > 0;
  if (rank == 0) {
    if (bug)
      printf("BUG: after MPI_Get + MPI_Put, the get's buffer was stale after MPI_Win_flush_local in %d of 100 "
             "tries and after MPI_Win_flush_local_all in %d of 100\n",
             all[0], all[1]);
    else
      printf("ok\n");
  }
  MPI_Win_free(&win);
  MPI_Finalize();
  return bug ? 1 : 0;
}
