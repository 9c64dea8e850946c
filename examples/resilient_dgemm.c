/*
 * resilient_dgemm.c: C = A x B over GDS arrays that survives two injected
 * errors, with version creation, version navigation, error checks, error
 * signaling and handlers (GVR 1.0, chapter 4 and 5.5).
 *
 *  1. A and B are filled and versioned (version 0). Each process keeps a
 *     checksum of its own blocks, and registers a local check that compares
 *     the blocks with it.
 *  2. A memory error flips a bit of one element of B on the last process.
 *  3. GDS_check_all_errors runs the checks: the last process's check finds
 *     the mismatch and raises a local error naming the damaged box
 *     (GDS_EATTR_GDS_INDEX, GDS_EATTR_GDS_COUNT). The local handler clones
 *     the array's handle, moves it back to version 0, reads the
 *     box from there and writes it back. No other process takes part.
 *  4. Every process computes its block of C ("owner computes") and keeps
 *     the rows of A and columns of B it used.
 *  5. A silent error corrupts one element of C on process 0.
 *  6. GDS_version_inc(C) runs the high-priority global check before the
 *     snapshot: every process verifies its block by row checksums
 *     (sum_j C[i][j] = sum_k A[i][k] (sum_j B[k][j])), they agree, and a
 *     bad block raises a global error. Every process's global handler
 *     recomputes its block, and the version made holds the right C.
 *  7. Every process checks part of C against the exact answer.
 *
 *   mpiexec.mpich -n 2 ./resilient_dgemm [M K N]
 */
#include <gds.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                             \
  do {                                                                                          \
    GDS_status_t status_ = (call);                                                              \
    if (status_ != GDS_STATUS_OK) {                                                             \
      fprintf(stderr, "resilient_dgemm: %s failed: %s (%s)\n", #call, GDS_status_string(status_), \
              GDS_last_error_message());                                                        \
      exit(1);                                                                                  \
    }                                                                                           \
  } while (0)

static int rank, nprocs;
static GDS_size_t M, K, N;
static GDS_gds_t A, B, C;

/* ---- inputs: a checksum per process and matrix, a check, a handler ------------------- */

struct input {
  GDS_gds_t *gds;
  const char *name;
  GDS_size_t lo[2], hi[2];
  int owns;
  double sum, weighted; /* of the process's block when versioned */
};
static struct input inputs[2];
static int repairs = 0;

static double a_value(GDS_size_t i, GDS_size_t k) { return (double)(i + k); }
static double b_value(GDS_size_t k, GDS_size_t j) { return (double)k - (double)j; }

static void block_checksum(GDS_gds_t g, const struct input *in, double *sum, double *weighted) {
  const GDS_size_t rows = in->hi[0] - in->lo[0] + 1, cols = in->hi[1] - in->lo[1] + 1;
  double *block = malloc(rows * cols * sizeof *block);
  CHECK(GDS_get(block, NULL, in->lo, in->hi, g));
  CHECK(GDS_wait(g));
  *sum = *weighted = 0;
  for (GDS_size_t x = 0; x < rows * cols; x++) {
    *sum += block[x];
    *weighted += (double)(x + 1) * block[x];
  }
  free(block);
}

static struct input *input_of(GDS_gds_t g) {
  GDS_gds_t which_a = A, which_b = B; /* primary handles: what GDS passes to checks */
  return g == which_a ? &inputs[0] : g == which_b ? &inputs[1] : NULL;
}

/* A local check (GDS_PRIORITY_HIGH): the process's block still has its checksum. */
static GDS_status_t checksum_check(GDS_gds_t g, GDS_priority_t priority) {
  (void)priority;
  const struct input *in = input_of(g);
  if (in == NULL || !in->owns) return GDS_STATUS_OK;
  double sum, weighted;
  block_checksum(g, in, &sum, &weighted);
  if (sum == in->sum && weighted == in->weighted) return GDS_STATUS_OK;
  /* Describe the damage the way memory errors are described, so any handler for them fits. */
  GDS_error_t e;
  CHECK(GDS_create_error_descriptor(&e));
  const int64_t index[2] = {(int64_t)in->lo[0], (int64_t)in->lo[1]};
  const int64_t count[2] = {(int64_t)(in->hi[0] - in->lo[0] + 1), (int64_t)(in->hi[1] - in->lo[1] + 1)};
  CHECK(GDS_add_error_attr(e, GDS_EATTR_GDS_INDEX, sizeof index, index));
  CHECK(GDS_add_error_attr(e, GDS_EATTR_GDS_COUNT, sizeof count, count));
  CHECK(GDS_add_error_attr(e, GDS_EATTR_DETECTED_BY, strlen("checksum"), "checksum"));
  return GDS_raise_local_error(g, e);
}

/* The local handler: the damaged box comes back from the newest version. */
static GDS_status_t reload_box(GDS_gds_t g, GDS_error_t e) {
  int64_t index[2], count[2];
  int flag;
  CHECK(GDS_get_error_attr(e, GDS_EATTR_GDS_INDEX, index, &flag));
  CHECK(GDS_get_error_attr(e, GDS_EATTR_GDS_COUNT, count, &flag));
  const GDS_size_t lo[2] = {(GDS_size_t)index[0], (GDS_size_t)index[1]};
  const GDS_size_t hi[2] = {lo[0] + (GDS_size_t)count[0] - 1, lo[1] + (GDS_size_t)count[1] - 1};
  GDS_gds_t before;
  GDS_size_t version;
  CHECK(GDS_descriptor_clone(g, &before));
  CHECK(GDS_move_to_prev(before)); /* the newest frozen version */
  CHECK(GDS_get_version_number(before, &version));
  double *box = malloc((size_t)(count[0] * count[1]) * sizeof *box);
  CHECK(GDS_get(box, NULL, lo, hi, before)); /* one-sided, from the old version */
  CHECK(GDS_put(box, NULL, lo, hi, g));
  CHECK(GDS_wait(g));
  free(box);
  CHECK(GDS_free(&before));
  printf("resilient_dgemm: rank %d: %s[%llu:%llu][%llu:%llu] failed its checksum; reloaded from version %llu\n",
         rank, input_of(g)->name, (unsigned long long)lo[0], (unsigned long long)hi[0], (unsigned long long)lo[1],
         (unsigned long long)hi[1], (unsigned long long)version);
  repairs++;
  return GDS_resume_local(g, e);
}

/* ---- the product: owner computes, a global check, a global handler ------------------- */

static GDS_size_t c_lo[2], c_hi[2];
static int c_owns;
static double *a_rows, *b_cols; /* what this process's block of C is made of */
static int recomputations = 0;

static void multiply(void) {
  if (!c_owns) return;
  const GDS_size_t rows = c_hi[0] - c_lo[0] + 1, cols = c_hi[1] - c_lo[1] + 1;
  double *c = calloc(rows * cols, sizeof *c);
  for (GDS_size_t i = 0; i < rows; i++)
    for (GDS_size_t k = 0; k < K; k++) {
      const double aik = a_rows[i * K + k];
      for (GDS_size_t j = 0; j < cols; j++) c[i * cols + j] += aik * b_cols[k * cols + j];
    }
  CHECK(GDS_put(c, NULL, c_lo, c_hi, C));
  CHECK(GDS_wait(C));
  free(c);
}

/* A global check (GDS_PRIORITY_HIGH): every block of C has the row sums its
 * rows of A and columns of B give; processes agree, and rank 0 raises. */
static GDS_status_t row_sums_check(GDS_gds_t g, GDS_priority_t priority) {
  (void)priority;
  int bad = 0, any_bad = 0;
  if (c_owns) {
    const GDS_size_t rows = c_hi[0] - c_lo[0] + 1, cols = c_hi[1] - c_lo[1] + 1;
    double *c = malloc(rows * cols * sizeof *c), *bsum = calloc(K, sizeof *bsum);
    CHECK(GDS_get(c, NULL, c_lo, c_hi, g));
    CHECK(GDS_wait(g));
    for (GDS_size_t k = 0; k < K; k++)
      for (GDS_size_t j = 0; j < cols; j++) bsum[k] += b_cols[k * cols + j];
    for (GDS_size_t i = 0; i < rows && !bad; i++) {
      double lhs = 0, rhs = 0;
      for (GDS_size_t j = 0; j < cols; j++) lhs += c[i * cols + j];
      for (GDS_size_t k = 0; k < K; k++) rhs += a_rows[i * K + k] * bsum[k];
      bad = lhs != rhs; /* integers: exact */
    }
    free(c);
    free(bsum);
  }
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, GDS_COMM_WORLD);
  if (any_bad && rank == 0) {
    GDS_error_t e;
    CHECK(GDS_create_error_descriptor(&e));
    const char *what = "product row sums";
    CHECK(GDS_add_error_attr(e, GDS_EATTR_APP, strlen(what), what));
    return GDS_raise_global_error(g, e);
  }
  return GDS_STATUS_OK;
}

/* The global handler: every process recomputes its block. */
static GDS_status_t recompute(GDS_gds_t g, GDS_error_t e) {
  multiply();
  CHECK(GDS_fence(g)); /* collective calls work in global handlers */
  recomputations++;
  if (rank == 0) printf("resilient_dgemm: C failed its row sums; every process recomputed its block\n");
  return GDS_resume_global(g, e);
}

static GDS_gds_t matrix(GDS_size_t rows, GDS_size_t cols) {
  GDS_size_t count[2] = {rows, cols};
  GDS_gds_t g;
  CHECK(GDS_alloc(2, count, NULL, GDS_DATA_DBL, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &g));
  return g;
}

static void fill(GDS_gds_t g, const struct input *in, double (*f)(GDS_size_t, GDS_size_t)) {
  if (!in->owns) return;
  void *buffer;
  GDS_size_t ld;
  GDS_access_handle_t access;
  CHECK(GDS_access(g, in->lo, in->hi, GDS_ACCESS_BUFFER_DIRECT, &buffer, &access));
  CHECK(GDS_get_access_buffer_ld(access, &ld));
  double *block = buffer;
  for (GDS_size_t i = in->lo[0]; i <= in->hi[0]; i++)
    for (GDS_size_t j = in->lo[1]; j <= in->hi[1]; j++) block[(i - in->lo[0]) * ld + (j - in->lo[1])] = f(i, j);
  CHECK(GDS_release(&access));
}

/* A memory error: the top mantissa bit of one element of g's block on this
 * process flips (an element of magnitude >= 2, so its value changes by an
 * integer and the checksums see it exactly). */
static void flip_a_bit(GDS_gds_t g, const GDS_size_t lo[2], const GDS_size_t hi[2]) {
  void *buffer;
  GDS_size_t ld;
  GDS_access_handle_t access;
  CHECK(GDS_access(g, lo, hi, GDS_ACCESS_BUFFER_DIRECT, &buffer, &access));
  CHECK(GDS_get_access_buffer_ld(access, &ld));
  const GDS_size_t rows = hi[0] - lo[0] + 1, cols = hi[1] - lo[1] + 1;
  double *block = buffer;
  for (GDS_size_t x = rows * cols / 2; x < rows * cols; x++) {
    double *v = &block[(x / cols) * ld + x % cols];
    if (*v >= 2 || *v <= -2) {
      unsigned char bytes[sizeof(double)];
      memcpy(bytes, v, sizeof bytes);
      bytes[6] ^= 0x08;
      memcpy(v, bytes, sizeof bytes);
      break;
    }
  }
  CHECK(GDS_release(&access));
}

int main(int argc, char **argv) {
  GDS_thread_support_t provided;
  CHECK(GDS_init(&argc, &argv, GDS_THREAD_SINGLE, &provided));
  CHECK(GDS_comm_rank(GDS_COMM_WORLD, &rank));
  CHECK(GDS_comm_size(GDS_COMM_WORLD, &nprocs));
  M = argc > 3 ? strtoull(argv[1], NULL, 10) : 192;
  K = argc > 3 ? strtoull(argv[2], NULL, 10) : 160;
  N = argc > 3 ? strtoull(argv[3], NULL, 10) : 176;
  const int victim = nprocs - 1;

  /* 1. Inputs, versioned, with checksums, a check and a handler each. */
  A = matrix(M, K);
  B = matrix(K, N);
  C = matrix(M, N);
  inputs[0] = (struct input){&A, "A", {0}, {0}, 0, 0, 0};
  inputs[1] = (struct input){&B, "B", {0}, {0}, 0, 0, 0};
  GDS_error_pred_t pred;
  GDS_error_pred_term_t term;
  CHECK(GDS_create_error_pred(&pred)); /* damage to a box, found by the checksum */
  CHECK(GDS_create_error_pred_term(GDS_EATTR_GDS_INDEX, GDS_EMEXP_ANY, 0, NULL, &term));
  CHECK(GDS_add_error_pred_term(pred, term));
  CHECK(GDS_free_error_pred_term(&term));
  CHECK(GDS_create_error_pred_term(GDS_EATTR_GDS_COUNT, GDS_EMEXP_ANY, 0, NULL, &term));
  CHECK(GDS_add_error_pred_term(pred, term));
  CHECK(GDS_free_error_pred_term(&term));
  CHECK(GDS_create_error_pred_term(GDS_EATTR_DETECTED_BY, GDS_EMEXP_VALUE, strlen("checksum"), "checksum", &term));
  CHECK(GDS_add_error_pred_term(pred, term));
  CHECK(GDS_free_error_pred_term(&term));
  for (int m = 0; m < 2; m++) {
    struct input *in = &inputs[m];
    CHECK(GDS_distribution(*in->gds, rank, in->lo, in->hi, &in->owns));
    fill(*in->gds, in, m == 0 ? a_value : b_value);
    CHECK(GDS_version_inc(*in->gds, 1, "after the inputs", strlen("after the inputs")));
    if (in->owns) block_checksum(*in->gds, in, &in->sum, &in->weighted);
    CHECK(GDS_register_local_error_check(*in->gds, checksum_check, GDS_PRIORITY_HIGH));
    CHECK(GDS_register_local_error_handler(*in->gds, pred, reload_box));
  }
  CHECK(GDS_free_error_pred(&pred));

  /* 2-3. A bit flips in B; the checks find it, the handler reloads the box. */
  if (rank == victim && inputs[1].owns) flip_a_bit(B, inputs[1].lo, inputs[1].hi);
  CHECK(GDS_check_all_errors(A));
  CHECK(GDS_check_all_errors(B));
  const double t0 = MPI_Wtime();

  /* 4. Owner computes. */
  CHECK(GDS_distribution(C, rank, c_lo, c_hi, &c_owns));
  if (c_owns) {
    const GDS_size_t rows = c_hi[0] - c_lo[0] + 1, cols = c_hi[1] - c_lo[1] + 1;
    a_rows = malloc(rows * K * sizeof *a_rows);
    b_cols = malloc(K * cols * sizeof *b_cols);
    const GDS_size_t a_lo[2] = {c_lo[0], 0}, a_hi[2] = {c_hi[0], K - 1};
    const GDS_size_t b_lo[2] = {0, c_lo[1]}, b_hi[2] = {K - 1, c_hi[1]};
    CHECK(GDS_get(a_rows, NULL, a_lo, a_hi, A));
    CHECK(GDS_get(b_cols, NULL, b_lo, b_hi, B));
    CHECK(GDS_wait(A));
    CHECK(GDS_wait(B));
  }
  multiply();

  /* 5-6. A silent error in C; the global check at the version catches it. */
  CHECK(GDS_create_error_pred(&pred));
  CHECK(GDS_create_error_pred_term(GDS_EATTR_APP, GDS_EMEXP_ANY, 0, NULL, &term));
  CHECK(GDS_add_error_pred_term(pred, term));
  CHECK(GDS_free_error_pred_term(&term));
  CHECK(GDS_register_global_error_handler(C, pred, recompute));
  CHECK(GDS_free_error_pred(&pred));
  CHECK(GDS_register_global_error_check(C, row_sums_check, GDS_PRIORITY_HIGH));
  if (rank == 0 && c_owns) flip_a_bit(C, c_lo, c_hi);
  CHECK(GDS_version_inc(C, 1, "after the product", strlen("after the product")));
  const double seconds = MPI_Wtime() - t0;

  /* 7. Every process checks a band of rows of C, read from wherever it lives. */
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
          fprintf(stderr, "resilient_dgemm: rank %d: C[%llu][%llu] = %g, expected %g\n", rank,
                  (unsigned long long)i, (unsigned long long)j, band[(i - first) * N + j], expected);
      }
    free(band);
  }
  long all_errors = 0;
  int all_repairs = 0;
  MPI_Allreduce(&errors, &all_errors, 1, MPI_LONG, MPI_SUM, GDS_COMM_WORLD);
  MPI_Allreduce(&repairs, &all_repairs, 1, MPI_INT, MPI_SUM, GDS_COMM_WORLD);
  /* One repair where B was damaged (if the victim holds part of B), one recomputation everywhere. */
  const int damaged = rank == victim && inputs[1].owns;
  int expected_repairs = 0;
  MPI_Allreduce(&damaged, &expected_repairs, 1, MPI_INT, MPI_MAX, GDS_COMM_WORLD);
  const int ok = all_errors == 0 && all_repairs == expected_repairs && recomputations == 1;
  if (rank == 0)
    printf("resilient_dgemm: C(%llux%llu) = A(%llux%llu) x B(%llux%llu) on %d processes, %.3f s, %d local repair(s), "
           "%d global recomputation(s): %s\n",
           (unsigned long long)M, (unsigned long long)N, (unsigned long long)M, (unsigned long long)K,
           (unsigned long long)K, (unsigned long long)N, nprocs, seconds, all_repairs, recomputations,
           ok ? "verified" : "WRONG");

  free(a_rows);
  free(b_cols);
  CHECK(GDS_free(&A));
  CHECK(GDS_free(&B));
  CHECK(GDS_free(&C));
  CHECK(GDS_finalize());
  return ok ? 0 : 1;
}
