/* restart.c: a program that carries on where it was killed.
 *   export GDS_JOB_ID=demo     # the job whose versions a rerun finds (GDS_COPY_TYPE, GDS_CACHE_BASE
 *                              # and GDS_PREFIX say where they are kept: nothing in the code)
 *   mpiexec -n 2 ./restart 37  # dies at step 37 (or kill it any way you like)
 *   mpiexec -n 2 ./restart     # "resuming at step 30 (version 3)", then finishes */
#include <gds.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call) do { GDS_status_t s_ = (call); if (s_ != GDS_STATUS_OK) { \
  fprintf(stderr, "%s: %s\n", #call, GDS_last_error_message()); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

enum { N = 4096 };        /* elements per process */
static double x[N], v[N]; /* the state: this process's positions and velocities */
static int rank, nprocs;

int main(int argc, char **argv) {
  GDS_thread_support_t provided;
  CHECK(GDS_init(&argc, &argv, GDS_THREAD_SINGLE, &provided));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank), MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  /* 1. Before making any array: has this job persisted state of the group "oscillators"? */
  GDS_persisted_t saved;
  CHECK(GDS_restart_query("oscillators", &saved));
  if (!saved.found) for (int i = 0; i < N; i++) x[i] = 1.0 + rank, v[i] = 0.0; /* a fresh start */
  /* 2. x and v become GDS arrays over the program's own buffers, versioned together as a group.
   *    On a restart, GDS_group_create fills the buffers with the newest persisted version (it names
   *    the unnamed arrays oscillators.0 and .1, and restarts them under those names). */
  const GDS_size_t count = (GDS_size_t)N * nprocs;
  double *buffers[2] = {x, v};
  GDS_gds_t arrays[2];
  for (int a = 0; a < 2; a++) /* no mapping functions: element k of process r's buffer is r * N + k */
    CHECK(GDS_create(1, &count, GDS_DATA_DBL, NULL, NULL, buffers[a], N, GDS_PRIORITY_HIGH, GDS_COMM_WORLD,
                     MPI_INFO_NULL, &arrays[a]));
  GDS_group_t group;
  CHECK(GDS_group_create("oscillators", 2, arrays, &group));
  /* 3. What the restart took (an older version if the newest was unreadable); its label is "step=<s>". */
  GDS_restart_info_t took;
  CHECK(GDS_group_get_restart_info(group, &took));
  if (saved.found && !took.restarted) { fprintf(stderr, "persisted state unreadable\n"); MPI_Abort(MPI_COMM_WORLD, 1); }
  char label[32], *held;  size_t size;
  CHECK(GDS_get_version_label(arrays[0], &held, &size));
  int step = took.restarted ? atoi(held + 5) : 0;
  if (rank == 0 && took.restarted) printf("resuming at step %d (version %llu)\n", step, (unsigned long long)took.version);
  /* 4. Compute; every 10 steps make a version of x and v at once, labelled with the step. */
  for (; step < 100; step++) {
    if (step % 10 == 0) CHECK(GDS_group_version_inc(group, 1, label, snprintf(label, sizeof label, "step=%d", step)));
    if (argc > 1 && step == atoi(argv[1])) raise(SIGKILL); /* a crash, for the demonstration */
    for (int i = 0; i < N; i++) v[i] -= 0.01 * x[i], x[i] += 0.01 * v[i];
  }
  if (rank == 0) printf("done: x[0] = %.17g\n", x[0]);
  CHECK(GDS_group_free(&group));
  CHECK(GDS_finalize()); /* frees the arrays */
  return 0;
}
