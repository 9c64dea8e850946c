/* launcher_app.c: the job tests/launcher_test.py runs under gds-run.
 *
 *   launcher_app [--steps S] [--every K] [--size M] [--sleep-ms T]
 *
 * One GDS_alloc array of M uint64 elements (M independent of the process
 * count, so a relaunch on fewer processes, restarted from the prefix,
 * computes the same answer). Each step every element i becomes
 * x * 6364136223846793005 + (i ^ step); a version labelled "step=<s>" every
 * K steps, then GDS_should_exit: when it says so the program prints
 * "halted at step <s>" and ends with status 0. A restart prints "resuming at
 * step <s>"; the end prints "done: <hash of the array>" (FNV-1a). Each step
 * sleeps T ms, so that a test can kill or halt it in flight. */
#include <gds.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(call) do { GDS_status_t s_ = (call); if (s_ != GDS_STATUS_OK) { \
  fprintf(stderr, "launcher_app: %s: %s\n", #call, GDS_last_error_message()); MPI_Abort(MPI_COMM_WORLD, 2); } } while (0)

int main(int argc, char **argv) {
  long steps = 60, every = 5, size = 4096, sleep_ms = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    long *v = !strcmp(argv[i], "--steps") ? &steps : !strcmp(argv[i], "--every") ? &every
            : !strcmp(argv[i], "--size") ? &size : !strcmp(argv[i], "--sleep-ms") ? &sleep_ms : NULL;
    if (v == NULL) { fprintf(stderr, "launcher_app: unknown option %s\n", argv[i]); return 2; }
    *v = atol(argv[i + 1]);
  }
  GDS_thread_support_t provided;
  CHECK(GDS_init(&argc, &argv, GDS_THREAD_SINGLE, &provided));
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank), MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, GDS_NAME_KEY, "state");
  const GDS_size_t count = (GDS_size_t)size, min_chunks = 1;
  GDS_gds_t g;
  CHECK(GDS_alloc(1, &count, &min_chunks, GDS_DATA_UINT64, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info, &g));
  MPI_Info_free(&info);
  /* This process's share of the work: a contiguous range, whoever owns it. */
  const GDS_size_t lo = count * (GDS_size_t)rank / (GDS_size_t)nprocs;
  const GDS_size_t hi = count * (GDS_size_t)(rank + 1) / (GDS_size_t)nprocs;  /* exclusive */
  const GDS_size_t n = hi - lo, last = hi - 1, ld[1] = {0};
  uint64_t *x = malloc((n > 0 ? n : 1) * sizeof *x);
  GDS_restart_info_t took;
  CHECK(GDS_get_restart_info(g, &took));
  long step = 0;
  if (took.restarted) {
    char *held;
    size_t held_size;
    CHECK(GDS_get_version_label(g, &held, &held_size));
    step = atol(held + 5);
    if (rank == 0) printf("resuming at step %ld (version %llu, level %d) on %d processes\n", step,
                          (unsigned long long)took.version, (int)took.level, nprocs);
  } else {
    for (GDS_size_t i = 0; i < n; i++) x[i] = lo + i;
    if (n > 0) CHECK(GDS_put(x, ld, &lo, &last, g));
    CHECK(GDS_fence(g));
    if (rank == 0) printf("starting on %d processes\n", nprocs);
  }
  fflush(stdout);
  while (step < steps) {
    if (n > 0) CHECK(GDS_get(x, ld, &lo, &last, g));
    CHECK(GDS_wait(g));
    for (GDS_size_t i = 0; i < n; i++) x[i] = x[i] * 6364136223846793005ull + ((lo + i) ^ (uint64_t)step);
    if (n > 0) CHECK(GDS_put(x, ld, &lo, &last, g));
    CHECK(GDS_fence(g));
    step++;
    if (sleep_ms > 0) {
      struct timespec t = {sleep_ms / 1000, (sleep_ms % 1000) * 1000000L};
      nanosleep(&t, NULL);
    }
    if (step % every == 0) {
      char label[32];
      CHECK(GDS_version_inc(g, 1, label, (size_t)snprintf(label, sizeof label, "step=%ld", step)));
      int stop = 0;
      CHECK(GDS_should_exit(&stop));
      if (stop) {
        if (rank == 0) printf("halted at step %ld\n", step);
        free(x);
        CHECK(GDS_free(&g));
        CHECK(GDS_finalize());
        return 0;
      }
    }
  }
  if (rank == 0) {
    uint64_t *all = malloc((size_t)count * sizeof *all), h = 14695981039346656037ull;
    const GDS_size_t first = 0, end = count - 1;
    CHECK(GDS_get(all, ld, &first, &end, g));
    CHECK(GDS_wait(g));
    for (GDS_size_t i = 0; i < count; i++)
      for (int b = 0; b < 8; b++) h = (h ^ ((all[i] >> (8 * b)) & 0xff)) * 1099511628211ull;
    printf("done: steps=%ld hash=%016llx\n", steps, (unsigned long long)h);
    free(all);
  }
  free(x);
  CHECK(GDS_free(&g));
  CHECK(GDS_finalize());
  return 0;
}
