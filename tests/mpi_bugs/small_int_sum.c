/*
 * Pure-MPI reproducer for the Open MPI behaviour GDS avoids by leaving out
 * op/avx when it starts MPI (OMPI_MCA_op=^avx, src/core/mpi_library.cpp) and
 * otherwise by sending such sums in pieces of at most 15 bytes
 * (src/rma/transfer.cpp). Found by tests/test_grid.cpp.
 *
 * Open MPI 4.1.4 (Debian 12), op/avx: MPI_SUM of 1- and 2-byte integers,
 * signed and unsigned, saturates instead of wrapping once a call reduces 16
 * bytes or more (its vector code): 0xf0 + 0x20 gives 0xff, not 0x10. Every
 * reduction goes through it: MPI_Reduce_local here, MPI_Allreduce and the
 * target side of accumulates alike. OMPI_MCA_op=^avx makes it right.
 *
 *   mpicc.openmpi small_int_sum.c -o repro && mpiexec.openmpi -n 1 ./repro   # BUG
 *   OMPI_MCA_op=^avx mpiexec.openmpi -n 1 ./repro                              # ok
 *
 * Prints "BUG" and exits 1 when the MPI library shows the bug, "ok" otherwise.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int wrong = 0;
  for (int count = 1; count <= 64; count *= 2) {
    uint8_t a[64], b[64];
    int16_t c[64], d[64];
    for (int i = 0; i < count; ++i) a[i] = 0xf0, b[i] = 0x20, c[i] = 0x7ff0, d[i] = 0x20;
    MPI_Reduce_local(a, b, count, MPI_UINT8_T, MPI_SUM);
    MPI_Reduce_local(c, d, count, MPI_INT16_T, MPI_SUM);
    int bad8 = 0, bad16 = 0;
    for (int i = 0; i < count; ++i) bad8 |= b[i] != 0x10, bad16 |= d[i] != (int16_t)0x8010;
    if (bad8) printf("BUG: MPI_SUM of %d MPI_UINT8_T: 0xf0 + 0x20 = 0x%x, not 0x10\n", count, b[0]);
    if (bad16) printf("BUG: MPI_SUM of %d MPI_INT16_T: 0x7ff0 + 0x20 = 0x%x, not 0x8010\n", count, (uint16_t)d[0]);
    wrong |= bad8 | bad16;
  }
  if (!wrong) printf("ok\n");
  MPI_Finalize();
  return wrong;
}
