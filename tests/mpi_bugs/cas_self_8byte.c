/*
 * Pure-MPI reproducer for the Open MPI bug GDS works around in
 * Window::compare_and_swap (src/rma/window.cpp): it swaps in memory instead.
 *
 * Open MPI 4.1.4 (Debian 12), osc/rdma over btl/vader, 2 processes on one
 * node: MPI_Compare_and_swap of an 8-byte type (MPI_LONG) whose target is
 * the calling process itself crashes with a segmentation fault in
 * mca_btl_vader_send, called from mca_btl_vader_emu_acswap (vader emulates
 * the atomic by a message, and has no endpoint for the process itself).
 * With a 4-byte type, or another process as target, it works; so do
 * MPI_Fetch_and_op, MPI_Accumulate and MPI_Get_accumulate on oneself.
 * (OMPI_MCA_osc=sm,rdma,pt2pt: the window over one process otherwise fails,
 * win_create_one_process.c.)
 *
 *   mpicc.openmpi cas_self_8byte.c -o repro && OMPI_MCA_osc=sm,rdma,pt2pt mpiexec.openmpi -n 2 ./repro
 *
 * Prints "ok" when the MPI library does not show the bug; crashes when it does.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  static long memory[8];
  MPI_Win win;
  MPI_Win_create(memory, sizeof memory, sizeof memory[0], MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  long origin = 5, compare = 0, result = -1;
  MPI_Compare_and_swap(&origin, &compare, &result, MPI_LONG, rank, 0, win);
  MPI_Win_flush(rank, win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  const int bug = result != 0 || memory[0] != 5;
  printf("rank %d: %s (result %ld, memory %ld)\n", rank, bug ? "BUG" : "ok", result, memory[0]);
  MPI_Win_free(&win);
  MPI_Finalize();
  return bug;
}
