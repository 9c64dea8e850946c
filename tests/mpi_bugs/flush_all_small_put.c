/*
 * Pure-MPI reproducer for the per-target flushes of src/rma/window.cpp
 * (Window::complete_remote and Window::complete_local).
 *
 * MPICH 4.0.2 (Debian 12, ch4:ucx), 3 or more processes on one host:
 * MPI_Win_flush_all, MPI_Win_flush_local_all and MPI_Win_unlock_all return
 * before small MPI_Puts issued before them have read their origin buffers.
 * A buffer freed (or written) after the call is then sent in its new state:
 * the target receives whatever malloc left there. MPI_Win_flush and
 * MPI_Win_flush_local to each target do complete them. Not seen with 2
 * processes.
 *
 *   mpicc.mpich flush_all_small_put.c -o repro && mpiexec.mpich -n 4 ./repro
 *
 * Each process puts 8-byte elements from buffers of their own to every
 * process's window (MPI_Win_create), completes them with one of the calls,
 * frees the buffers and reuses the memory, then every target checks what
 * arrived. Prints per call "ok" or "BUG", and exits 1 if any call showed it.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kElements = 3000, kRounds = 10 };

static int complete(int how, int size, MPI_Win win) {
  switch (how) {
    case 0: return MPI_Win_flush_all(win);
    case 1: return MPI_Win_flush_local_all(win);
    case 2:
      for (int t = 0; t < size; ++t) MPI_Win_flush(t, win);
      return MPI_SUCCESS;
    default:
      for (int t = 0; t < size; ++t) MPI_Win_flush_local(t, win);
      return MPI_SUCCESS;
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  static const char *names[] = {"MPI_Win_flush_all", "MPI_Win_flush_local_all", "MPI_Win_flush per target",
                                "MPI_Win_flush_local per target"};
  long *mem = calloc(kElements, sizeof(long));
  MPI_Win win;
  MPI_Win_create(mem, kElements * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  int any = 0;
  for (int how = 0; how < 4; ++how) {
    long stale = 0;
    for (int round = 0; round < kRounds; ++round) {
      const long tag = (how * kRounds + round) * 1000000L;
      /* Element i of every target comes from process i % size. */
      long **origin = malloc(kElements * (size_t)size * sizeof(long *));
      int k = 0;
      for (int t = 0; t < size; ++t)
        for (long i = rank; i < kElements; i += size) {
          origin[k] = malloc(sizeof(long));
          *origin[k] = tag + i;
          MPI_Put(origin[k], 1, MPI_LONG, t, i, 1, MPI_LONG, win);
          ++k;
        }
      complete(how, size, win);
      if (how == 1) MPI_Win_flush_all(win); /* remote completion too, before the check */
      for (int j = 0; j < k; ++j) free(origin[j]);
      free(origin);
      void *junk[4096];
      for (int j = 0; j < 4096; ++j) {
        junk[j] = malloc(8);
        memset(junk[j], 0xab, 8);
      }
      for (int j = 0; j < 4096; ++j) free(junk[j]);
      MPI_Win_sync(win);
      MPI_Barrier(MPI_COMM_WORLD);
      MPI_Win_sync(win);
      for (long i = 0; i < kElements; ++i) stale += mem[i] != tag + i;
      MPI_Barrier(MPI_COMM_WORLD);
    }
    long total = 0;
    MPI_Allreduce(&stale, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("%s: %s (%ld stale elements)\n", names[how], total ? "BUG" : "ok", total);
    any |= total != 0;
  }
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  free(mem);
  MPI_Finalize();
  return any;
}
