/*
 * Pure-MPI reproducer for the Open MPI behaviour that makes GDS give its
 * one-node arrays MPI_Win_allocate_shared windows, not MPI_Win_allocate ones
 * (src/rma/window.cpp, Window::allocate).
 *
 * Open MPI 4.1.4 (Debian 12): osc/rdma (priority 101) takes MPI_Win_allocate
 * windows; an 8-byte MPI_Compare_and_swap from one process to another on such
 * a window crashes the job (segmentation fault in btl/vader's progress).
 * MPI_Win_allocate_shared windows, served by osc/sm, are right
 * (`./repro shared`).
 *
 *   mpicc.openmpi cas_allocate_8byte.c -o repro
 *   OMPI_MCA_osc=sm,rdma,pt2pt mpiexec.openmpi -n 2 ./repro          # crashes
 *   OMPI_MCA_osc=sm,rdma,pt2pt mpiexec.openmpi -n 2 ./repro shared   # ok
 *
 * Prints "ok" when the swap works (a crash is the bug; "BUG" for a wrong value).
 * MPICH 4.0.2 prints "BUG" for a bug of its own: an 8-byte MPI_Win_allocate
 * segment puts RMA at the wrong address (win_allocate_unaligned.c).
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int shared = argc > 1 && strcmp(argv[1], "shared") == 0;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long *base;
  MPI_Win win;
  if (shared)
    MPI_Win_allocate_shared(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  else
    MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  *base = 200;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  int wrong = 0;
  if (rank == 0) {
    const long compare = 200, swap = 7;
    long previous = -1;
    MPI_Compare_and_swap(&swap, &compare, &previous, MPI_LONG, (rank + 1) % size, 0, win);
    MPI_Win_flush((rank + 1) % size, win);
    wrong = previous != 200;
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == (size > 1 ? 1 : 0)) wrong |= *base != 7;
  MPI_Win_free(&win);
  int any = 0;
  MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf(any ? "BUG: the swap gave a wrong value\n" : "ok\n");
  MPI_Finalize();
  return any;
}
