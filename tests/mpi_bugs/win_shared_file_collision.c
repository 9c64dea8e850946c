/*
 * Pure-MPI reproducer for the Open MPI behaviour GDS avoids when it
 * initialises MPI itself and refuses otherwise (src/core/mpi_library.cpp).
 *
 * Open MPI 4.1.4 (Debian 12): osc/rdma, which serves MPI_Win_create and
 * MPI_Win_allocate windows (its priority is the highest), keeps the state of a
 * window shared by the processes of a node in a file of
 * <backing directory>/osc_rdma.<node>.<job>.<communicator id>.
 * Disjoint communicators split from one parent have the same id, so windows
 * created at the same time over them on one node use the same file: one
 * group's leader unlinks it before the other's processes open it
 * ("A system call failed during shared memory initialization", MPI_ERR_WIN),
 * or both groups map it and write into each other's windows, with no error,
 * or the processes hang. A backing directory of its own per process
 * (OMPI_MCA_osc_rdma_backing_directory) makes the names differ. osc/sm's
 * shared windows (MPI_Win_allocate_shared) name their files apart and are
 * right here.
 *
 *   mpicc.openmpi win_shared_file_collision.c -o repro
 *   OMPI_MCA_osc=sm,rdma,pt2pt mpiexec.openmpi --oversubscribe -n 4 ./repro        # BUG
 *   OMPI_MCA_osc=sm,rdma,pt2pt timeout 60 mpiexec.openmpi --oversubscribe -n 4 ./repro create  # hangs
 *
 * Needs 4 processes on one node: the halves {0, 2} and {1, 3} make 300
 * windows each at the same time and check a put into each. Prints "BUG" and
 * exits 1 when the MPI library shows the bug, "ok" otherwise.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int create = argc > 1 && strcmp(argv[1], "create") == 0;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  enum { kWindows = 300, kCount = 64 };
  int failed = 0, wrong = 0;
  static int memory[kCount];
  for (int i = 0; i < kWindows; ++i) {
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN);
    int hrank, hsize;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    int *base = memory;
    MPI_Win win;
    const int rc = create ? MPI_Win_create(memory, sizeof memory, sizeof memory[0], MPI_INFO_NULL, half, &win)
                          : MPI_Win_allocate(sizeof memory, sizeof memory[0], MPI_INFO_NULL, half, &base, &win);
    int ok = rc == MPI_SUCCESS, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, half);
    if (all) {
      for (int k = 0; k < kCount; ++k) base[k] = -1;
      MPI_Win_fence(0, win);
      const int value = 1000 * (rank % 2) + i;
      MPI_Put(&value, 1, MPI_INT, (hrank + 1) % hsize, hrank, 1, MPI_INT, win);
      MPI_Win_fence(0, win);
      if (base[(hrank + hsize - 1) % hsize] != value) ++wrong;  /* the left neighbour put the same value */
    } else {
      ++failed;
    }
    if (ok) MPI_Win_free(&win);
    MPI_Comm_free(&half);
  }
  int local[2] = {failed, wrong}, total[2];
  MPI_Reduce(local, total, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    if (total[0] + total[1] > 0)
      printf("BUG: %d window creations failed and %d windows read another window's data (%d processes)\n",
             total[0], total[1], size);
    else
      printf("ok\n");
  }
  MPI_Finalize();
  return rank == 0 && total[0] + total[1] > 0;
}
