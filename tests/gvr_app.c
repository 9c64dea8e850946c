/* A GVR 1.0 program, unchanged: only GVR calls (no GDS extension, no info
 * keys), persistence configured by the job script's SCR_* variables alone.
 * It versions a 1-D array every step; one process can kill the job before a
 * version; a rerun with the same SCR_JOB_ID finds the newest complete
 * version as the current content, numbering continued, older versions
 * navigable, and goes on.
 *
 *   gvr_app <steps> <die_before_version (0: none)> <expected first version: N or LO-HI>
 *
 * Prints "gvr_app: ok" when every check passed. */
#include <gds.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

static double value(GDS_size_t version, GDS_size_t i) { return (double)version * 1e6 + (double)i; }

static int failures = 0;
#define CHECK(c, ...)                        \
  do {                                       \
    if (!(c)) {                              \
      fprintf(stderr, "gvr_app: " __VA_ARGS__); \
      fprintf(stderr, "\n");                 \
      ++failures;                            \
    }                                        \
  } while (0)

/* Every process reads its share of the array through `h` and compares with version v. */
static void check_content(GDS_gds_t h, GDS_size_t n, GDS_size_t v, int rank, int nprocs) {
  GDS_size_t lo = n * (GDS_size_t)rank / (GDS_size_t)nprocs, hi = n * (GDS_size_t)(rank + 1) / (GDS_size_t)nprocs;
  if (hi == lo) return;
  hi -= 1;
  double *buf = malloc(sizeof(double) * (hi - lo + 1));
  GDS_size_t ld[1] = {0};
  CHECK(GDS_get(buf, ld, &lo, &hi, h) == GDS_STATUS_OK && GDS_wait(h) == GDS_STATUS_OK, "GDS_get failed");
  for (GDS_size_t i = lo; i <= hi; ++i)
    if (buf[i - lo] != value(v, i)) {
      CHECK(0, "element %llu is %.0f, version %llu holds %.0f", (unsigned long long)i, buf[i - lo],
            (unsigned long long)v, value(v, i));
      break;
    }
  free(buf);
}

int main(int argc, char **argv) {
  if (argc != 4) return 2;
  char *dash = NULL;
  const GDS_size_t steps = strtoull(argv[1], NULL, 10), die = strtoull(argv[2], NULL, 10),
                   lowest = strtoull(argv[3], &dash, 10), highest = *dash == '-' ? strtoull(dash + 1, NULL, 10) : lowest;
  GDS_thread_support_t provided;
  if (GDS_init(&argc, &argv, GDS_THREAD_SINGLE, &provided) != GDS_STATUS_OK) return 1;
  int rank = 0, nprocs = 1;
  GDS_comm_rank(GDS_COMM_WORLD, &rank);
  GDS_comm_size(GDS_COMM_WORLD, &nprocs);
  const GDS_size_t n = 3000 * (GDS_size_t)nprocs + 7;
  GDS_gds_t g = GDS_NULL;
  CHECK(GDS_alloc(1, &n, NULL, MPI_DOUBLE, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &g) == GDS_STATUS_OK,
        "GDS_alloc failed");
  GDS_size_t current = 0;
  GDS_get_version_number(g, &current);
  CHECK(current >= lowest && current <= highest, "the array starts at version %llu, expected %s",
        (unsigned long long)current, argv[3]);
  if (current > 0) {
    /* Restarted: the content is the newest version's; the older ones are there to read. */
    check_content(g, n, current - 1, rank, nprocs);
    GDS_gds_t old = GDS_NULL;
    GDS_descriptor_clone(g, &old);
    int navigable = 0;
    while (GDS_move_to_prev(old) == GDS_STATUS_OK) {
      GDS_size_t v = 0;
      GDS_get_version_number(old, &v);
      check_content(old, n, v, rank, nprocs);
      ++navigable;
    }
    CHECK(navigable >= 1, "no persisted version is navigable after the restart");
    GDS_free(&old);
  }
  for (GDS_size_t v = current; v < steps; ++v) {
    /* Every process writes a share through the global view. */
    const GDS_size_t lo = n * (GDS_size_t)rank / (GDS_size_t)nprocs,
                     hi = n * (GDS_size_t)(rank + 1) / (GDS_size_t)nprocs - 1;
    double *buf = malloc(sizeof(double) * (hi - lo + 1));
    for (GDS_size_t i = lo; i <= hi; ++i) buf[i - lo] = value(v, i);
    GDS_size_t ld[1] = {0};
    CHECK(GDS_put(buf, ld, &lo, &hi, g) == GDS_STATUS_OK, "GDS_put failed");
    free(buf);
    GDS_fence(g);
    if (die > 0 && v == die && rank == nprocs - 1) raise(SIGKILL); /* the job dies before version v exists */
    CHECK(GDS_version_inc(g, 1, NULL, 0) == GDS_STATUS_OK, "GDS_version_inc failed");
  }
  check_content(g, n, steps - 1, rank, nprocs);
  GDS_free(&g);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  GDS_finalize();
  if (rank == 0 && all == 0) printf("gvr_app: ok\n");
  return all == 0 ? 0 : 1;
}
