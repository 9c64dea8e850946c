/* Versions of what changed little: a version of a large array where 1% or
 * 10% of its 4 KiB blocks changed, spread evenly, against two references
 * timed in the same run on both processes at once (the slower process's
 * time, medians over the versions after 5 warm-up ones):
 *   floor  a copy of the changed blocks into a ring as large as 4 versions
 *          of them (memory written before, not in the caches: where a
 *          version's copy lands in steady state), right after the program
 *          wrote the blocks;
 *   full   a memcpy of the whole part into memory written before (the
 *          issue's yardstick: 1% at most 0.02 of it, 10% at most 0.13).
 * Rows: GDS_alloc arrays changed by GDS_put (the write log says what
 * changed) and GDS_create arrays changed by the program's own stores (the
 * kernel's write tracking says which pages, or the version compares every
 * block: the last column says which; with tracking the program's first
 * store into each page after a version traps, timed as "traps ms" against
 * the same stores into untracked memory), with 3 versions retained (steady state:
 * dropped versions' slots reused) and with the default retention (a budget
 * of 4x the part: new memory for every version until it fills), and a
 * constant GDS_create member (never written).
 *
 *   mpiexec.mpich -bind-to core -n 2 gds_bench_sparse [MiB per process ...]   (default 64 256)
 * GDS_BENCH_SPARSE_ROW=k runs the k-th row of each size only (from 0; for profiling).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gds/gds.h"

enum { kBlock = 4096, kWarm = 5, kTimed = 15, kMaxTimed = 64 };

static void check(GDS_status_t s, const char *what) {
  if (s != GDS_STATUS_OK) {
    fprintf(stderr, "gds_bench_sparse: %s: %s\n", what, GDS_last_error_message());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

static int by_value(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, by_value);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The slower process's time of f. */
static double slowest(double t) {
  double m = 0;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

struct Row {
  const char *kind; /* "alloc", "create", "constant" */
  double fraction;
  int retained; /* 0: the default retention */
};

static void run(int rank, int nprocs, size_t mib, struct Row row, char *full_from, char *full_to) {
  const size_t bytes = mib << 20, n = bytes / sizeof(double), nblocks = bytes / kBlock;
  const size_t changed = row.fraction > 0 ? (size_t)(nblocks * row.fraction + 0.5) : 0;
  const size_t stride = changed ? nblocks / changed : 1;
  const GDS_size_t total = (GDS_size_t)n * (GDS_size_t)nprocs, lo = (GDS_size_t)n * (GDS_size_t)rank;
  MPI_Info info;
  MPI_Info_create(&info);
  char text[32];
  if (row.retained) {
    snprintf(text, sizeof text, "%d", row.retained);
    MPI_Info_set(info, GDS_MAX_VERSIONS_KEY, text);
  }
  double *own = NULL;
  GDS_gds_t g = GDS_NULL;
  if (!strcmp(row.kind, "alloc")) {
    check(GDS_alloc(1, &total, NULL, MPI_DOUBLE, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info, &g), "GDS_alloc");
    /* Every block written once, so that versions share nothing with zeros. */
    for (size_t at = 0; at < n; at += 1 << 20) {
      const GDS_size_t l = lo + at, h = lo + (at + (1 << 20) < n ? at + (1 << 20) : n) - 1;
      check(GDS_put(full_from, NULL, &l, &h, g), "GDS_put");
    }
    check(GDS_fence(g), "GDS_fence");
  } else {
    own = malloc(bytes);
    if (own == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
    memcpy(own, full_from, bytes);
    check(GDS_create(1, &total, MPI_DOUBLE, NULL, NULL, own, (GDS_size_t)n, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info,
                     &g),
          "GDS_create");
  }
  MPI_Info_free(&info);
  check(GDS_version_inc(g, 1, NULL, 0), "GDS_version_inc");
  GDS_costs_t before;
  check(GDS_get_costs(&before), "GDS_get_costs");
  const GDS_size_t tracked_before = before.tracking.calls;
  const size_t ring_bytes = 4 * (changed ? changed : 1) * kBlock;
  char *ring = malloc(ring_bytes), *block = malloc(kBlock);
  if (ring == NULL || block == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
  memset(ring, 1, ring_bytes);
  size_t cursor = 0;
  double version[kMaxTimed], floor[kMaxTimed], full[kMaxTimed], traps[kMaxTimed];
  for (int v = 0; v < kWarm + kTimed; ++v) {
    /* The program's work: the changed blocks get new values (then, for the
     * floor, the same blocks written into the program's memory too). */
    double t = MPI_Wtime();
    for (size_t c = 0; c < changed; ++c) {
      double *d = (double *)block;
      for (size_t i = 0; i < kBlock / sizeof(double); ++i) d[i] = (double)v * 1e6 + (double)c + (double)i;
      const size_t at = c * stride * (kBlock / sizeof(double));
      if (own != NULL) {
        memcpy(own + at, block, kBlock);
      } else {
        const GDS_size_t l = lo + at, h = l + kBlock / sizeof(double) - 1;
        check(GDS_put(block, NULL, &l, &h, g), "GDS_put");
      }
    }
    if (own == NULL) check(GDS_fence(g), "GDS_fence");
    const double ts = MPI_Wtime() - t;  /* the program's writes into the array (traps where tracked) */
    t = MPI_Wtime();
    for (size_t c = 0; c < changed; ++c) {  /* the same writes into memory GDS does not track */
      double *d = (double *)block;
      for (size_t i = 0; i < kBlock / sizeof(double); ++i) d[i] = (double)v * 1e6 + (double)c + (double)i;
      memcpy(full_from + c * stride * kBlock, block, kBlock);
    }
    const double tp = MPI_Wtime() - t;
    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    check(GDS_version_inc(g, 1, NULL, 0), "GDS_version_inc");
    const double tv = slowest(MPI_Wtime() - t);
    t = MPI_Wtime();
    for (size_t c = 0; c < changed; ++c) {
      if (cursor + kBlock > ring_bytes) cursor = 0;
      memcpy(ring + cursor, full_from + c * stride * kBlock, kBlock);
      cursor += kBlock;
    }
    const double tf = slowest(MPI_Wtime() - t);
    t = MPI_Wtime();
    memcpy(full_to, full_from, bytes);
    const double tc = slowest(MPI_Wtime() - t);
    const double extra = slowest(ts - tp > 0 ? ts - tp : 0);
    if (v >= kWarm) version[v - kWarm] = tv, floor[v - kWarm] = tf, full[v - kWarm] = tc, traps[v - kWarm] = extra;
  }
  const double mv = median(version, kTimed), mf = median(floor, kTimed), mc = median(full, kTimed),
               mt = median(traps, kTimed);
  if (rank == 0) {
    char retention[32];
    if (row.retained)
      snprintf(retention, sizeof retention, "%d retained", row.retained);
    else
      snprintf(retention, sizeof retention, "default");
    GDS_costs_t costs;
    check(GDS_get_costs(&costs), "GDS_get_costs");
    printf("  %4zu MiB  %-8s %5.1f%%  %-11s %9.3f %9.3f %9.3f %9.2f %9.4f %9.3f %9.4f %8s\n", mib, row.kind,
           row.fraction * 100, retention, mv * 1e3, mf * 1e3, mc * 1e3, mf > 0 ? mv / mf : 0.0, mv / mc, mt * 1e3,
           (mv + mt) / mc, own == NULL ? "log" : costs.tracking.calls > tracked_before ? "tracked" : "compared");
  }
  check(GDS_free(&g), "GDS_free");
  free(own), free(ring), free(block);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, nprocs = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  GDS_thread_support_t provided;
  check(GDS_init(&argc, &argv, GDS_THREAD_SINGLE, &provided), "GDS_init");
  size_t sizes[8] = {64, 256};
  int nsizes = 2;
  if (argc > 1) {
    nsizes = 0;
    for (int a = 1; a < argc && nsizes < 8; ++a) sizes[nsizes++] = strtoull(argv[a], NULL, 10);
  }
  if (rank == 0) {
    printf("Versions of what changed little: %d processes, 4 KiB blocks changed spread evenly, medians of %d versions "
           "after %d, the slower process\n",
           nprocs, kTimed, kWarm);
    printf("(floor: the changed blocks copied into a ring of 4 versions' worth; full: memcpy of the whole part; "
           "targets: 1%% <= 0.02 full, 10%% <= 0.13 full, constant <= 0.002 of its copy)\n");
    printf("(traps ms: what the program's writes into the array took beyond the same writes into untracked memory; "
           "x full+traps: the version and that, against the full copy)\n");
    printf("  %8s  %-8s %6s  %-11s %9s %9s %9s %9s %9s %9s %9s %8s\n", "part", "array", "changed", "retention",
           "GDS ms", "floor ms", "full ms", "x floor", "x full", "traps ms", "x full+tr", "found by");
  }
  const struct Row rows[] = {{"alloc", 0.01, 3},  {"alloc", 0.10, 3},  {"alloc", 0.01, 0},   {"alloc", 0.10, 0},
                             {"create", 0.01, 3}, {"create", 0.10, 3}, {"constant", 0.0, 0}};
  for (int s = 0; s < nsizes; ++s) {
    const size_t bytes = sizes[s] << 20;
    char *from = malloc(bytes), *to = malloc(bytes);
    if (from == NULL || to == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
    for (size_t i = 0; i < bytes / sizeof(double); ++i) ((double *)from)[i] = (double)i;
    memset(to, 0, bytes);
    const char *only = getenv("GDS_BENCH_SPARSE_ROW");  /* a row's index, for profiling */
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; ++r)
      if (only == NULL || strtoul(only, NULL, 10) == r) run(rank, nprocs, sizes[s], rows[r], from, to);
    free(from), free(to);
  }
  check(GDS_finalize(), "GDS_finalize");
  MPI_Finalize();
  return 0;
}
