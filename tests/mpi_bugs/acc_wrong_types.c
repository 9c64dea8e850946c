/*
 * Pure-MPI reproducer for the Open MPI accumulates GDS refuses or sends
 * another way (src/rma/mpi_checks.cpp, src/rma/transfer.cpp). Found by
 * tests/test_grid.cpp.
 *
 * Open MPI 4.1.4 (Debian 12), MPI_Accumulate of 3 contiguous elements to the
 * next process, no error returned in any case:
 *  - MPI_SUM of MPI_C_FLOAT_COMPLEX / MPI_COMPLEX (osc/rdma, 2+ processes):
 *    wrong sums. MPI_SUM of the same memory as MPI_FLOAT pairs is right
 *    (what GDS sends instead);
 *  - MPI_SUM of MPI_REAL16 (IEEE quad, __float128): the target is left
 *    unchanged or wrong, at any number of processes (MPI_COMPLEX32 alike);
 *  - MPI_MAX/MPI_MIN of MPI_OFFSET (osc/pt2pt, the one-process windows):
 *    wrong, where MPI_LONG_LONG of the same values is right.
 *
 *   mpicc.openmpi acc_wrong_types.c -o repro
 *   OMPI_MCA_osc=sm,rdma,pt2pt mpiexec.openmpi -n 1 ./repro   # BUG (REAL16, OFFSET)
 *   OMPI_MCA_osc=sm,rdma,pt2pt mpiexec.openmpi -n 2 ./repro   # BUG (complex, REAL16)
 *
 * Prints "BUG" and exits 1 when the MPI library shows a bug, "ok" otherwise.
 */
#include <complex.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

enum { N = 3 };
static int rank, size, wrong;
static MPI_Win win;
static unsigned char memory[N * 16];

/* Accumulates `origin` into `init` at the next process; `equal` compares the outcome with `want`. */
static void check(const char *what, MPI_Datatype type, size_t elem, const void *init, const void *origin,
                  MPI_Op op, const void *want, int (*equal)(const void *, const void *)) {
  MPI_Barrier(MPI_COMM_WORLD);
  memcpy(memory, init, N * elem);
  MPI_Win_sync(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Accumulate(origin, N, type, (rank + 1) % size, 0, N, type, op, win);
  MPI_Win_flush_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_sync(win);
  int bad = !equal(memory, want), any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any && rank == 0) printf("BUG: %s (%d processes)\n", what, size);
  wrong |= any;
}

#define EQUAL(name, ctype)                                 \
  static int name(const void *x, const void *y) {          \
    const ctype *a = x, *b = y;                            \
    for (int i = 0; i < N; ++i)                            \
      if (!(a[i] == b[i])) return 0;                       \
    return 1;                                              \
  }
EQUAL(equal_fc, float _Complex)
EQUAL(equal_q, __float128)
EQUAL(equal_ll, long long)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Win_create(memory, sizeof memory, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_lock_all(0, win);

  const float _Complex fa[N] = {1 + 2 * I, -3 + 1 * I, 2}, fb[N] = {3 - 1 * I, 2 + 2 * I, -1 * I};
  float _Complex fsum[N];
  for (int i = 0; i < N; ++i) fsum[i] = fa[i] + fb[i];
  check("MPI_SUM of MPI_C_FLOAT_COMPLEX", MPI_C_FLOAT_COMPLEX, sizeof fa[0], fa, fb, MPI_SUM, fsum, equal_fc);
  check("MPI_SUM of MPI_COMPLEX", MPI_COMPLEX, sizeof fa[0], fa, fb, MPI_SUM, fsum, equal_fc);

  const __float128 qa[N] = {1.5Q, -2.25Q, 100.0Q}, qb[N] = {2.0Q, 3.5Q, -7.0Q};
  __float128 qsum[N];
  for (int i = 0; i < N; ++i) qsum[i] = qa[i] + qb[i];
  check("MPI_SUM of MPI_REAL16", MPI_REAL16, sizeof qa[0], qa, qb, MPI_SUM, qsum, equal_q);

  const long long oa[N] = {5, -9, 1LL << 40}, ob[N] = {7, 3, -(1LL << 41)};
  long long omax[N], omin[N];
  for (int i = 0; i < N; ++i) {
    omax[i] = oa[i] > ob[i] ? oa[i] : ob[i];
    omin[i] = oa[i] < ob[i] ? oa[i] : ob[i];
  }
  check("MPI_MAX of MPI_OFFSET", MPI_OFFSET, sizeof oa[0], oa, ob, MPI_MAX, omax, equal_ll);
  check("MPI_MIN of MPI_OFFSET", MPI_OFFSET, sizeof oa[0], oa, ob, MPI_MIN, omin, equal_ll);

  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  if (rank == 0 && !wrong) printf("ok\n");
  MPI_Finalize();
  return wrong;
}
