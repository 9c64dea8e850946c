/*
 * Pure-MPI reproducer for the check behind GDS_STATUS_MPI_BUG in
 * src/rma/mpi_checks.cpp (MPICH issue 6083, fixed in MPICH 4.1).
 *
 * MPICH 4.0.2 (Debian 12): MPI_Accumulate and MPI_Get_accumulate with
 * MPI_MAX or MPI_MIN on unsigned integer types compare the values as signed
 * (its yaksa reductions treat unsigned types as signed): MAX(x, 0) with the
 * top bit of x set leaves 0, MIN(x, 1) leaves x. Every unsigned type shows
 * it. Setting the control variable MPIR_CVAR_ENABLE_YAKSA_REDUCTION to 0
 * (environment, or MPI_T_cvar_write at run time, as GDS does) corrects it;
 * run with that variable set to see "ok".
 *
 * Open MPI 4.1.4 (Debian 12), a window made by MPI_Win_create as GDS makes
 * its windows (argument "create"; osc/rdma over btl/vader): the same for 4-
 * and 8-byte unsigned types (its atomics compare as signed; 1- and 2-byte
 * types are right). MPI_Win_allocate's windows (osc/sm) are right. No switch
 * corrects it: GDS refuses MAX and MIN on unsigned types there.
 *
 *   mpicc.mpich unsigned_max_min.c -o repro && mpiexec.mpich -n 2 ./repro
 *   mpicc.openmpi unsigned_max_min.c -o repro && OMPI_MCA_osc=sm,rdma,pt2pt mpiexec.openmpi -n 2 ./repro create
 *
 * Prints "BUG" and exits 1 when the MPI library shows the bug, "ok" otherwise.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  uint64_t *base;
  static uint64_t created[4];
  MPI_Win win;
  /* 4 slots, not 3: a size that is a multiple of 16 bytes avoids another MPICH 4.0.2 bug (win_allocate_unaligned.c). */
  if (argc > 1 && strcmp(argv[1], "create") == 0) {
    base = created;
    MPI_Win_create(base, sizeof created, sizeof(uint64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  } else {
    MPI_Win_allocate(4 * sizeof(uint64_t), sizeof(uint64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  }
  const uint64_t top = UINT64_C(1) << 63, zero = 0, one = 1;
  base[0] = base[1] = base[2] = top;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  const int next = (rank + 1) % size;
  uint64_t fetched = 0;
  MPI_Accumulate(&zero, 1, MPI_UINT64_T, next, 0, 1, MPI_UINT64_T, MPI_MAX, win);
  MPI_Accumulate(&one, 1, MPI_UINT64_T, next, 1, 1, MPI_UINT64_T, MPI_MIN, win);
  MPI_Get_accumulate(&zero, 1, MPI_UINT64_T, &fetched, 1, MPI_UINT64_T, next, 2, 1, MPI_UINT64_T, MPI_MAX, win);
  MPI_Win_flush_all(win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  const int wrong = base[0] != top || base[1] != one || base[2] != top || fetched != top;
  int any = 0;
  MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  if (wrong)
    printf("BUG on rank %d: MAX(2^63, 0) = %llu, MIN(2^63, 1) = %llu, get_accumulate MAX(2^63, 0) = %llu (fetched %llu)\n",
           rank, (unsigned long long)base[0], (unsigned long long)base[1], (unsigned long long)base[2],
           (unsigned long long)fetched);
  if (rank == 0) {
    if (any)
      printf("BUG: MPI_MAX and MPI_MIN of MPI_UINT64_T compare as signed\n");
    else
      printf("ok\n");
  }
  MPI_Win_free(&win);
  MPI_Finalize();
  return any ? 1 : 0;
}
