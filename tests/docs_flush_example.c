/* The flush docs/hdf5-files.md shows: a 17 x 29 column-major MPI_LONG array "model", versions 0-5
 * (element (i, j) of version v is 1000 v + 100 i + j) made with labels L1..L6 and flushed by 2 processes
 * to $GDS_PREFIX. Built and run by tests/docs_blocks.py, which then runs the page's h5py block. */
#include <gds.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
  GDS_thread_support_t p; GDS_init(&argc, &argv, GDS_THREAD_SINGLE, &p);
  int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Info info; MPI_Info_create(&info);
  MPI_Info_set(info, GDS_ORDER_KEY, "col_major"); MPI_Info_set(info, "gds_name", "model");
  GDS_size_t count[2] = {17, 29}, mc[2] = {1, 1};
  GDS_gds_t g;
  if (GDS_alloc(2, count, mc, GDS_DATA_LONG, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info, &g) != GDS_STATUS_OK) { fprintf(stderr, "%s\n", GDS_last_error_message()); return 1; }
  for (int v = 0; v <= 5; ++v) {
    if (rank == 0) {
      long a[17 * 29]; /* column-major: element (i, j) at i + 17 j */
      for (int j = 0; j < 29; ++j) for (int i = 0; i < 17; ++i) a[i + 17 * j] = 1000L * v + 100L * i + j;
      GDS_size_t lo[2] = {0, 0}, hi[2] = {16, 28};
      GDS_put(a, NULL, lo, hi, g);
    }
    GDS_fence(g);
    char l[8]; snprintf(l, sizeof l, "L%d", v + 1);
    if (GDS_version_inc(g, 1, l, strlen(l)) != GDS_STATUS_OK) { fprintf(stderr, "%s\n", GDS_last_error_message()); return 1; }
  }
  GDS_flush_wait(g);
  GDS_free(&g); MPI_Info_free(&info);
  GDS_finalize();
  return 0;
}
