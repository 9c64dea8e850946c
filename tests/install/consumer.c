/* An outside C program built only with `pkg-config --cflags --libs gds`. */
#include <gds.h>
#include <stdio.h>

int main(int argc, char **argv) {
  GDS_thread_support_t provided;
  if (GDS_init(&argc, &argv, GDS_THREAD_SINGLE, &provided) != GDS_STATUS_OK) return 1;
  int rank, nprocs;
  GDS_comm_rank(GDS_COMM_WORLD, &rank);
  GDS_comm_size(GDS_COMM_WORLD, &nprocs);
  const GDS_size_t n = 100, lo = 0, hi = 99;
  GDS_gds_t g;
  if (GDS_alloc(1, &n, NULL, GDS_DATA_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &g) != GDS_STATUS_OK)
    return 1;
  int v[100], out[100];
  for (int i = 0; i < 100; i++) v[i] = 3 * i;
  if (rank == nprocs - 1) GDS_put(v, NULL, &lo, &hi, g);
  GDS_fence(g);
  GDS_get(out, NULL, &lo, &hi, g);
  GDS_wait(g);
  int ok = 1;
  for (int i = 0; i < 100; i++) ok = ok && out[i] == 3 * i;
  GDS_free(&g);
  GDS_finalize();
  if (rank == 0) printf("consumer (C, pkg-config): %s\n", ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
