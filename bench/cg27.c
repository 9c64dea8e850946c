/* A conjugate gradient with HPCCG's shape (Mantevo's CG mini-app), written
 * for GDS's benchmarks: a 27-point stencil matrix over nx x ny x nz rows per
 * process (slabs along z), stored as rows of 27 values and column indices;
 * each iteration a halo exchange of one plane each way (MPI_Sendrecv), a
 * sparse matrix-vector product, two dot products (MPI_Allreduce) and three
 * vector updates. The program's own buffers x, r and p (p's first nrow
 * entries; its halo planes around them) are GDS_create arrays in one
 * version group, as docs/versions.md tells a user to port such a code.
 *
 *   cg27 --mode plain|off|on [--n N] [--iters I] [--every E]
 *     plain  no GDS
 *     off    GDS_init, the three arrays and their group; no versions
 *     on     and a group version every E iterations (default 10)
 *
 * Rank 0 prints one line: the mode, the loop's seconds, the seconds in the
 * matrix-vector product (the most of any process), the versions made and
 * the seconds inside them (GDS_get_costs), and the residual, which must be
 * the same in every mode. bench/cg27.py runs the modes interleaved.
 * CG27_TRACE=1: rank 0 prints every iteration's matrix-vector product (wall
 * and CPU milliseconds) to stderr. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gds/gds.h"

static long n_x = 64, n_y = 64, n_z = 64;

static double now(void) { return MPI_Wtime(); }

int main(int argc, char **argv) {
  const char *mode = "plain";
  long iters = 150, every = 10, n = 64;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--mode")) mode = argv[i + 1];
    else if (!strcmp(argv[i], "--n")) n = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--iters")) iters = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--every")) every = atol(argv[i + 1]);
  }
  const int trace = getenv("CG27_TRACE") != NULL;
  const int gds = strcmp(mode, "plain") != 0, versions = !strcmp(mode, "on");
  if (!gds && strcmp(mode, "plain") != 0) return 2;
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  n_x = n_y = n_z = n;
  const long plane = n_x * n_y, nrow = plane * n_z;
  const int below = rank > 0 ? rank - 1 : MPI_PROC_NULL, above = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
  /* The matrix: 27 entries a row (fewer at the global boundary: zeros), 26 off the diagonal at -1. */
  double *val = malloc(sizeof(double) * 27 * nrow);
  long *col = malloc(sizeof(long) * 27 * nrow);
  double *x = calloc(nrow, sizeof(double)), *r = malloc(sizeof(double) * nrow), *ap = malloc(sizeof(double) * nrow);
  double *p_all = calloc(nrow + 2 * plane, sizeof(double)), *p = p_all + plane, *b = malloc(sizeof(double) * nrow);
  if (!val || !col || !x || !r || !ap || !p_all || !b) MPI_Abort(MPI_COMM_WORLD, 1);
  for (long z = 0; z < n_z; ++z)
    for (long y = 0; y < n_y; ++y)
      for (long xx = 0; xx < n_x; ++xx) {
        const long row = (z * n_y + y) * n_x + xx;
        int k = 0;
        double sum = 0;
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const long zz = z + dz, yy = y + dy, x2 = xx + dx;
              const int inside = yy >= 0 && yy < n_y && x2 >= 0 && x2 < n_x &&
                                 !(zz < 0 && below == MPI_PROC_NULL) && !(zz >= n_z && above == MPI_PROC_NULL);
              const double v = !inside ? 0.0 : (dz == 0 && dy == 0 && dx == 0) ? 27.0 : -1.0;
              val[27 * row + k] = v;
              col[27 * row + k] = inside ? (zz * n_y + yy) * n_x + x2 : 0; /* into p_all - plane .. */
              sum += v;
              ++k;
            }
        b[row] = sum; /* the exact solution is all ones */
      }
  GDS_gds_t arrays[3] = {GDS_NULL, GDS_NULL, GDS_NULL};
  GDS_group_t group = GDS_GROUP_NULL;
  if (gds) {
    GDS_thread_support_t provided;
    if (GDS_init(&argc, &argv, GDS_THREAD_SINGLE, &provided) != GDS_STATUS_OK) MPI_Abort(MPI_COMM_WORLD, 1);
    const GDS_size_t total = (GDS_size_t)nrow * (GDS_size_t)size;
    double *bufs[3] = {x, r, p};
    for (int a = 0; a < 3; ++a)
      if (GDS_create(1, &total, MPI_DOUBLE, NULL, NULL, bufs[a], (GDS_size_t)nrow, GDS_PRIORITY_HIGH,
                     GDS_COMM_WORLD, MPI_INFO_NULL, &arrays[a]) != GDS_STATUS_OK)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (GDS_group_create("cg27", 3, arrays, &group) != GDS_STATUS_OK) MPI_Abort(MPI_COMM_WORLD, 1);
  }
  /* r = b - A x = b (x = 0), p = r */
  double rr = 0, all = 0;
  for (long i = 0; i < nrow; ++i) r[i] = b[i], p[i] = r[i], rr += r[i] * r[i];
  MPI_Allreduce(&rr, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  rr = all;
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = now();
  double spmv = 0;
  long made = 0;
  for (long it = 1; it <= iters; ++it) {
    /* the halo planes of p */
    MPI_Sendrecv(p, (int)plane, MPI_DOUBLE, below, 0, p + nrow, (int)plane, MPI_DOUBLE, above, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(p + nrow - plane, (int)plane, MPI_DOUBLE, above, 1, p - plane, (int)plane, MPI_DOUBLE, below, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const double s = now();
    struct timespec c0, c1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    for (long i = 0; i < nrow; ++i) {
      double a = 0;
      const double *v = val + 27 * i;
      const long *c = col + 27 * i;
      for (int k = 0; k < 27; ++k) a += v[k] * p[c[k]];
      ap[i] = a;
    }
    spmv += now() - s;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    if (trace && rank == 0)
      fprintf(stderr, "it %ld spmv %.1f ms cpu %.1f\n", it, (now() - s) * 1e3,
              (c1.tv_sec - c0.tv_sec) * 1e3 + (c1.tv_nsec - c0.tv_nsec) * 1e-6);
    double pap = 0;
    for (long i = 0; i < nrow; ++i) pap += p[i] * ap[i];
    MPI_Allreduce(&pap, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    const double alpha = rr / all;
    double rr_new = 0;
    for (long i = 0; i < nrow; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * ap[i];
      rr_new += r[i] * r[i];
    }
    MPI_Allreduce(&rr_new, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    const double beta = all / rr;
    rr = all;
    for (long i = 0; i < nrow; ++i) p[i] = r[i] + beta * p[i];
    if (versions && it % every == 0) {
      if (GDS_group_version_inc(group, 1, NULL, 0) != GDS_STATUS_OK) MPI_Abort(MPI_COMM_WORLD, 1);
      ++made;
    }
  }
  const double loop = now() - start;
  double most[2] = {loop, spmv}, got[2];
  MPI_Reduce(most, got, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  double version_seconds = 0;
  if (gds) {
    GDS_costs_t c;
    if (GDS_get_costs(&c) == GDS_STATUS_OK) version_seconds = c.versions.seconds;
    GDS_group_free(&group);
    for (int a = 0; a < 3; ++a) GDS_free(&arrays[a]);
  }
  double vmax = 0;
  MPI_Reduce(&version_seconds, &vmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("cg27 mode=%s n=%ld processes=%d iters=%ld loop=%.4f spmv=%.4f versions=%ld version_seconds=%.4f "
           "residual=%.6e\n",
           mode, n, size, iters, got[0], got[1], made, vmax, rr);
  if (gds) GDS_finalize();
  free(val), free(col), free(x), free(r), free(ap), free(p_all), free(b);
  MPI_Finalize();
  return 0;
}
