/*
 * dgemm.c: a distributed matrix product C = A x B over GDS arrays.
 *
 * The three matrices are GDS_alloc arrays distributed in blocks. Every
 * process fills the blocks of A and B it owns through direct access, then
 * computes the block of C it owns ("owner computes"): it gets the rows of A
 * and the columns of B that block needs, one-sided, from whichever
 * processes hold them, multiplies, and puts the result. A fence makes C
 * complete everywhere, and every process checks part of C against the exact
 * answer.
 *
 * With A[i][k] = i + k and B[k][j] = k - j every entry of C is an integer,
 *   C[i][j] = sum_k (i + k)(k - j) = (i - j) S1 - i j K + S2,
 * with S1 = sum k and S2 = sum k^2 over k < K, so the check is exact.
 *
 *   mpiexec.mpich -n 2 ./dgemm [M K N]
 */
#include <gds.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                 \
  do {                                                                              \
    GDS_status_t status_ = (call);                                                  \
    if (status_ != GDS_STATUS_OK) {                                                 \
      fprintf(stderr, "dgemm: %s failed: %s (%s)\n", #call, GDS_status_string(status_), \
              GDS_last_error_message());                                            \
      exit(1);                                                                      \
    }                                                                               \
  } while (0)

/* Allocates a rows x cols matrix of doubles, row-major (GDS's C default). */
static GDS_gds_t matrix(GDS_size_t rows, GDS_size_t cols) {
  GDS_size_t count[2] = {rows, cols};
  GDS_gds_t g;
  CHECK(GDS_alloc(2, count, NULL, GDS_DATA_DBL, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &g));
  return g;
}

/* Sets every element this process owns to f(i, j), through direct access. */
static void fill(GDS_gds_t g, int rank, double (*f)(GDS_size_t, GDS_size_t)) {
  GDS_size_t lo[2], hi[2], ld;
  int owns;
  CHECK(GDS_distribution(g, rank, lo, hi, &owns));
  if (!owns) return;
  void *buffer;
  GDS_access_handle_t access;
  CHECK(GDS_access(g, lo, hi, GDS_ACCESS_BUFFER_DIRECT, &buffer, &access));
  CHECK(GDS_get_access_buffer_ld(access, &ld));
  double *block = buffer;
  for (GDS_size_t i = lo[0]; i <= hi[0]; i++)
    for (GDS_size_t j = lo[1]; j <= hi[1]; j++) block[(i - lo[0]) * ld + (j - lo[1])] = f(i, j);
  CHECK(GDS_release(&access));
}

static double a_value(GDS_size_t i, GDS_size_t k) { return (double)(i + k); }
static double b_value(GDS_size_t k, GDS_size_t j) { return (double)k - (double)j; }

int main(int argc, char **argv) {
  GDS_thread_support_t provided;
  CHECK(GDS_init(&argc, &argv, GDS_THREAD_SINGLE, &provided));
  int rank, nprocs;
  CHECK(GDS_comm_rank(GDS_COMM_WORLD, &rank));
  CHECK(GDS_comm_size(GDS_COMM_WORLD, &nprocs));
  const GDS_size_t M = argc > 3 ? strtoull(argv[1], NULL, 10) : 192;
  const GDS_size_t K = argc > 3 ? strtoull(argv[2], NULL, 10) : 160;
  const GDS_size_t N = argc > 3 ? strtoull(argv[3], NULL, 10) : 176;

  GDS_gds_t A = matrix(M, K), B = matrix(K, N), C = matrix(M, N);
  fill(A, rank, a_value);
  fill(B, rank, b_value);
  CHECK(GDS_fence(A));
  CHECK(GDS_fence(B));
  const double t0 = MPI_Wtime();

  /* Owner computes: the block of C this process holds. */
  GDS_size_t lo[2], hi[2];
  int owns;
  CHECK(GDS_distribution(C, rank, lo, hi, &owns));
  if (owns) {
    const GDS_size_t rows = hi[0] - lo[0] + 1, cols = hi[1] - lo[1] + 1;
    double *a = malloc(rows * K * sizeof *a), *b = malloc(K * cols * sizeof *b), *c = calloc(rows * cols, sizeof *c);
    const GDS_size_t a_lo[2] = {lo[0], 0}, a_hi[2] = {hi[0], K - 1};
    const GDS_size_t b_lo[2] = {0, lo[1]}, b_hi[2] = {K - 1, hi[1]};
    CHECK(GDS_get(a, NULL, a_lo, a_hi, A)); /* rows of A: one MPI_Get per owner */
    CHECK(GDS_get(b, NULL, b_lo, b_hi, B)); /* columns of B: strided on the owners */
    CHECK(GDS_wait(A));
    CHECK(GDS_wait(B));
    for (GDS_size_t i = 0; i < rows; i++)
      for (GDS_size_t k = 0; k < K; k++) {
        const double aik = a[i * K + k];
        for (GDS_size_t j = 0; j < cols; j++) c[i * cols + j] += aik * b[k * cols + j];
      }
    CHECK(GDS_put(c, NULL, lo, hi, C));
    CHECK(GDS_wait(C));
    free(a);
    free(b);
    free(c);
  }
  CHECK(GDS_fence(C));
  const double seconds = MPI_Wtime() - t0;

  /* Every process checks a band of rows of C, read from wherever it lives. */
  const double S1 = (double)K * (double)(K - 1) / 2.0;
  const double S2 = (double)(K - 1) * (double)K * (double)(2 * K - 1) / 6.0;
  const GDS_size_t first = M * (GDS_size_t)rank / (GDS_size_t)nprocs;
  const GDS_size_t last = M * (GDS_size_t)(rank + 1) / (GDS_size_t)nprocs;
  long errors = 0;
  if (last > first) {
    double *band = malloc((last - first) * N * sizeof *band);
    const GDS_size_t band_lo[2] = {first, 0}, band_hi[2] = {last - 1, N - 1};
    CHECK(GDS_get(band, NULL, band_lo, band_hi, C));
    CHECK(GDS_wait(C));
    for (GDS_size_t i = first; i < last; i++)
      for (GDS_size_t j = 0; j < N; j++) {
        const double expected = ((double)i - (double)j) * S1 - (double)i * (double)j * (double)K + S2;
        if (band[(i - first) * N + j] != expected && errors++ < 5)
          fprintf(stderr, "dgemm: rank %d: C[%llu][%llu] = %g, expected %g\n", rank, (unsigned long long)i,
                  (unsigned long long)j, band[(i - first) * N + j], expected);
      }
    free(band);
  }
  long all_errors = 0;
  MPI_Allreduce(&errors, &all_errors, 1, MPI_LONG, MPI_SUM, GDS_COMM_WORLD);

  GDS_size_t grid[2];
  int flag;
  CHECK(GDS_get_attr(C, GDS_GLOBAL_LAYOUT, grid, &flag));
  if (rank == 0)
    printf("dgemm: C(%llux%llu) = A(%llux%llu) x B(%llux%llu) on %d processes (grid %llux%llu), %.3f s: %s\n",
           (unsigned long long)M, (unsigned long long)N, (unsigned long long)M, (unsigned long long)K,
           (unsigned long long)K, (unsigned long long)N, nprocs, (unsigned long long)grid[0],
           (unsigned long long)grid[1], seconds, all_errors == 0 ? "verified" : "WRONG");

  CHECK(GDS_free(&A));
  CHECK(GDS_free(&B));
  CHECK(GDS_free(&C));
  CHECK(GDS_finalize());
  return all_errors == 0 ? 0 : 1;
}
