/*
 * versioned_heat.c: a heat-diffusion stencil that versions its array every
 * step, notices corrupted data, and repairs it from an earlier version.
 *
 * A rod of N points, hot (1) at the left end and cold (0) at the right,
 * diffuses with T'[i] = T[i] + (T[i-1] - 2 T[i] + T[i+1]) / 4. Every value
 * stays within [0, 1] (the maximum principle), so a value outside that range
 * can only be corruption. Each step every process reads its part and the two
 * neighbouring points (one-sided, from whichever process owns them), writes
 * its new part, and the step ends with GDS_fence, a check of every process's
 * own part, and GDS_version_inc. Heat travels one point per step, so a
 * process writes only the points the front has reached; the array keeps its
 * last 8 versions, and a version stores only the blocks written since the
 * previous one (the rest are shared).
 *
 * At step INJECT the last process's memory "fails": one of its values is
 * overwritten with garbage. The check catches it. Only that process
 * recovers, and alone: it clones the array's handle, moves the clone back to
 * the previous version (the state before this step, frozen by the last
 * GDS_version_inc), reads its part and the neighbouring points from that
 * version one-sidedly (its neighbours call nothing), recomputes the step and
 * writes its part again. The others just wait at the next fence.
 *
 * At the end every process compares the whole rod with a sequential run
 * that had no failure; they must be identical to the bit.
 *
 *   mpiexec.mpich -n 2 ./versioned_heat [N STEPS INJECT]
 */
#include <gds.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                           \
  do {                                                                                        \
    GDS_status_t status_ = (call);                                                            \
    if (status_ != GDS_STATUS_OK) {                                                           \
      fprintf(stderr, "versioned_heat: %s failed: %s (%s)\n", #call, GDS_status_string(status_), \
              GDS_last_error_message());                                                      \
      exit(1);                                                                                \
    }                                                                                         \
  } while (0)

/* The part of the rod this process owns; 0 if none. */
static int part(GDS_gds_t g, int rank, GDS_size_t *lo, GDS_size_t *hi) {
  int owns;
  CHECK(GDS_distribution(g, rank, lo, hi, &owns));
  return owns;
}

/* One step of points lo..hi of a rod of n points; old[] holds points
 * from..lo-1..hi+1..to clipped to the rod (from = lo-1 unless lo is 0). The
 * two ends keep their temperature. */
static void step(const double *old, GDS_size_t from, double *out, GDS_size_t lo, GDS_size_t hi, GDS_size_t n) {
  for (GDS_size_t i = lo; i <= hi; i++) {
    const double *t = old + (i - from);
    out[i - lo] = i == 0 || i == n - 1 ? t[0] : t[0] + (t[-1] - 2.0 * t[0] + t[1]) / 4.0;
  }
}

/* Reads the process's part and its neighbours from the version `g` points
 * at (one-sided; the owners call nothing) and computes the part's next values. */
static void compute(GDS_gds_t g, GDS_size_t lo, GDS_size_t hi, GDS_size_t n, double *halo, double *out) {
  const GDS_size_t from = lo > 0 ? lo - 1 : 0, to = hi < n - 1 ? hi + 1 : n - 1;
  CHECK(GDS_get(halo, NULL, &from, &to, g));
  CHECK(GDS_wait(g));
  step(halo, from, out, lo, hi, n);
}

/* 1 if every value this process owns is physically possible. */
static int part_is_sane(GDS_gds_t g, int rank) {
  GDS_size_t lo, hi;
  if (!part(g, rank, &lo, &hi)) return 1;
  void *buffer;
  GDS_access_handle_t access;
  CHECK(GDS_access(g, &lo, &hi, GDS_ACCESS_BUFFER_DIRECT, &buffer, &access));
  const double *t = buffer;
  int sane = 1;
  for (GDS_size_t i = 0; i <= hi - lo; i++) sane = sane && t[i] >= 0.0 && t[i] <= 1.0; /* NaN fails too */
  CHECK(GDS_release(&access));
  return sane;
}

int main(int argc, char **argv) {
  GDS_thread_support_t provided;
  CHECK(GDS_init(&argc, &argv, GDS_THREAD_SINGLE, &provided));
  int rank, nprocs;
  CHECK(GDS_comm_rank(GDS_COMM_WORLD, &rank));
  CHECK(GDS_comm_size(GDS_COMM_WORLD, &nprocs));
  const GDS_size_t n = argc > 3 ? strtoull(argv[1], NULL, 10) : 4000;
  const int steps = argc > 3 ? atoi(argv[2]) : 40;
  const int inject = argc > 3 ? atoi(argv[3]) : 25;
  if (n < 2 || steps < 1) {
    if (rank == 0) fprintf(stderr, "versioned_heat: need N >= 2 and STEPS >= 1\n");
    CHECK(GDS_finalize());
    return 2;
  }

  /* The rod, keeping its 8 newest versions, tracked in 1 KiB blocks (the
   * default, 16 KiB, suits larger arrays). */
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, GDS_MAX_VERSIONS_KEY, "8");
  MPI_Info_set(info, GDS_VERSION_BLOCK_SIZE_KEY, "1024");
  GDS_gds_t rod;
  CHECK(GDS_alloc(1, &n, NULL, GDS_DATA_DBL, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info, &rod));
  MPI_Info_free(&info);
  if (rank == 0) {
    const double hot = 1.0;
    const GDS_size_t left = 0;
    CHECK(GDS_put(&hot, NULL, &left, &left, rod)); /* everything else starts at 0 */
  }
  CHECK(GDS_fence(rod));
  CHECK(GDS_version_inc(rod, 1, "initial", 7));

  GDS_size_t lo = 0, hi = 0;
  const int mine = part(rod, rank, &lo, &hi);
  const GDS_size_t count = mine ? hi - lo + 1 : 0;
  double *halo = malloc((count + 2) * sizeof *halo), *next = malloc((count + 1) * sizeof *next);
  int repairs = 0;

  for (int s = 1; s <= steps; s++) {
    /* Heat travels one point per step: points beyond s are still 0. */
    const int active = mine && lo <= (GDS_size_t)s;
    const GDS_size_t active_hi = active && hi > (GDS_size_t)s ? (GDS_size_t)s : hi;
    if (active) compute(rod, lo, active_hi, n, halo, next);
    CHECK(GDS_fence(rod)); /* everyone has read the old values before anyone writes */
    if (active) {
      CHECK(GDS_put(next, NULL, &lo, &active_hi, rod));
      CHECK(GDS_wait(rod));
    }
    CHECK(GDS_fence(rod));

    if (s == inject && rank == nprocs - 1 && mine) { /* a memory error strikes */
      const double garbage = 1.0e30;
      const GDS_size_t at = lo + (hi - lo) / 2;
      void *buffer;
      GDS_access_handle_t access;
      CHECK(GDS_access(rod, &at, &at, GDS_ACCESS_BUFFER_DIRECT, &buffer, &access));
      memcpy(buffer, &garbage, sizeof garbage);
      CHECK(GDS_release(&access));
    }

    /* The check; a process with bad data repairs it alone from the previous version. */
    if (!part_is_sane(rod, rank)) {
      GDS_gds_t before;
      GDS_size_t version;
      CHECK(GDS_descriptor_clone(rod, &before));
      CHECK(GDS_move_to_prev(before)); /* the newest frozen version: the state before this step */
      CHECK(GDS_get_version_number(before, &version));
      printf("versioned_heat: rank %d: step %d: bad data found, recomputing from version %llu\n", rank, s,
             (unsigned long long)version);
      compute(before, lo, hi, n, halo, next); /* the whole part: the garbage may lie beyond the front */
      CHECK(GDS_put(next, NULL, &lo, &hi, rod));
      CHECK(GDS_wait(rod));
      CHECK(GDS_free(&before)); /* frees only the clone */
      if (!part_is_sane(rod, rank)) {
        fprintf(stderr, "versioned_heat: rank %d: repair failed\n", rank);
        MPI_Abort(GDS_COMM_WORLD, 1);
      }
      repairs++;
    }
    CHECK(GDS_fence(rod)); /* repairs are visible everywhere */
    char label[32];
    const int len = snprintf(label, sizeof label, "step %d", s);
    CHECK(GDS_version_inc(rod, 1, label, (size_t)len));
  }

  /* Every process compares the whole rod with a sequential run. */
  double *model = calloc(n, sizeof *model), *tmp = malloc(n * sizeof *tmp), *all = malloc(n * sizeof *all);
  model[0] = 1.0;
  for (int s = 1; s <= steps; s++) {
    memcpy(tmp, model, n * sizeof *tmp);
    step(tmp, 0, model, 0, n - 1, n);
  }
  const GDS_size_t first = 0, last = n - 1;
  CHECK(GDS_get(all, NULL, &first, &last, rod));
  CHECK(GDS_wait(rod));
  long wrong = 0;
  for (GDS_size_t i = 0; i < n; i++) wrong += memcmp(&all[i], &model[i], sizeof(double)) != 0;
  long all_wrong = 0;
  int all_repairs = 0;
  MPI_Allreduce(&wrong, &all_wrong, 1, MPI_LONG, MPI_SUM, GDS_COMM_WORLD);
  MPI_Allreduce(&repairs, &all_repairs, 1, MPI_INT, MPI_SUM, GDS_COMM_WORLD);
  GDS_size_t last_lo, last_hi;
  const int expected_repairs = inject >= 1 && inject <= steps && part(rod, nprocs - 1, &last_lo, &last_hi);

  /* What the history holds. */
  GDS_version_stats_t stats;
  CHECK(GDS_get_version_stats(rod, &stats));
  GDS_gds_t newest;
  char *label;
  size_t label_size;
  CHECK(GDS_descriptor_clone(rod, &newest));
  CHECK(GDS_move_to_prev(newest));
  CHECK(GDS_get_version_label(newest, &label, &label_size));
  if (rank == 0)
    printf("versioned_heat: %llu points, %d steps on %d processes, %d repair(s); versions %llu-%llu held "
           "(newest \"%s\"), on rank 0 %llu bytes stored, %llu shared: %s\n",
           (unsigned long long)n, steps, nprocs, all_repairs, (unsigned long long)stats.oldest,
           (unsigned long long)(stats.oldest + stats.versions - 1), label, (unsigned long long)stats.bytes_stored,
           (unsigned long long)stats.bytes_shared, all_wrong == 0 ? "verified" : "WRONG");
  CHECK(GDS_free(&newest));

  free(model);
  free(tmp);
  free(all);
  free(halo);
  free(next);
  CHECK(GDS_free(&rod));
  CHECK(GDS_finalize());
  return all_wrong == 0 && all_repairs == expected_repairs ? 0 : 1;
}
