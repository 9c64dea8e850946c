/*
 * Pure-MPI reproducer for the Open MPI behaviour GDS refuses with a message
 * (src/rma/window.cpp) and avoids when it initialises MPI itself
 * (src/core/runtime.cpp).
 *
 * Open MPI 4.1.4 (Debian 12): MPI_Win_create over a communicator of one
 * process fails with MPI_ERR_WIN ("invalid window"), for MPI_COMM_SELF, a
 * one-process MPI_COMM_WORLD and a one-process split alike. Its osc/rdma
 * finds no BTL that reaches the process itself, and Debian's
 * /etc/openmpi/openmpi-mca-params.conf ("osc = ^ucx,pt2pt") leaves no other
 * component to fall back on (open-mpi/ompi#10726 and #11391). Windows over two
 * or more processes of one node work. With a fallback listed
 * (OMPI_MCA_osc=sm,rdma,pt2pt) osc/rdma still takes every window it can and
 * osc/pt2pt the one-process ones.
 *
 *   mpicc.openmpi win_create_one_process.c -o repro && mpiexec.openmpi -n 1 ./repro
 *   OMPI_MCA_osc=sm,rdma,pt2pt mpiexec.openmpi -n 1 ./repro      # ok
 *
 * Prints "BUG" and exits 1 when the MPI library shows the bug, "ok" otherwise.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  static int buffer[16];
  MPI_Win win;
  const int rc = MPI_Win_create(buffer, sizeof buffer, sizeof buffer[0], MPI_INFO_NULL, MPI_COMM_SELF, &win);
  if (rc == MPI_SUCCESS) MPI_Win_free(&win);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    printf("rank %d: BUG: MPI_Win_create over MPI_COMM_SELF failed: %s\n", rank, text);
  } else if (rank == 0) {
    printf("ok\n");
  }
  MPI_Finalize();
  return rc == MPI_SUCCESS ? 0 : 1;
}
