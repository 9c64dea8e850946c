// The program group_test.py runs, kills and restarts: three arrays of
// different shapes in one version group ("g"), whose content after step k
// is a known function of (array, k), versioned every step with label "k=<k>".
//
//   group_app <steps> [unnamed]
// With "unnamed", the second array gets no GDS_NAME_KEY: the group names it
// g.1, and a restart fills it at GDS_group_create rather than at its
// creation. Asks GDS_restart_query("g") first. Starting afresh, it writes step 0's
// content; restarting, it checks right after GDS_group_create that every
// member holds the same step's content (the step its current label names,
// the same for all, and the step the query reported) and resumes from it.
// Then steps until <steps>. Prints "group_app: ok restarted=<0|1> from=<k>
// level=<l>" on rank 0 when every check held; exits 1 otherwise.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gds.h"

namespace {

int g_rank = 0, g_failures = 0;

#define CHECK(cond, ...)                                  \
  do {                                                    \
    if (!(cond)) {                                        \
      std::fprintf(stderr, "group_app rank %d: ", g_rank); \
      std::fprintf(stderr, __VA_ARGS__);                  \
      std::fprintf(stderr, "\n");                         \
      ++g_failures;                                       \
    }                                                     \
  } while (0)
#define OK(call)                                                                                          \
  do {                                                                                                    \
    const GDS_status_t s_ = (call);                                                                       \
    if (s_ != GDS_STATUS_OK) {                                                                            \
      std::fprintf(stderr, "group_app rank %d: %s: %s\n", g_rank, #call, GDS_last_error_message());       \
      std::exit(1);                                                                                       \
    }                                                                                                     \
  } while (0)

double value(int m, GDS_size_t k, GDS_size_t i) { return (m + 1) * 1e9 + static_cast<double>(k) * 1e5 + (i % 9973); }

constexpr int kArrays = 3;

// This process's box of array a: [lo, hi], false if it holds none.
bool own_box(GDS_gds_t a, GDS_size_t *lo, GDS_size_t *hi) {
  int owns = 0;
  OK(GDS_distribution(a, g_rank, lo, hi, &owns));
  return owns != 0;
}

// Writes step k's content into this process's part of every array.
void write_step(GDS_gds_t a[], GDS_size_t k) {
  for (int m = 0; m < kArrays; ++m) {
    GDS_size_t lo = 0, hi = 0;
    if (!own_box(a[m], &lo, &hi)) continue;
    std::vector<double> v(hi - lo + 1);
    for (GDS_size_t i = lo; i <= hi; ++i) v[i - lo] = value(m, k, i);
    OK(GDS_put(v.data(), nullptr, &lo, &hi, a[m]));
    OK(GDS_wait(a[m]));
  }
}

// Checks that every element of every array is step k's.
void check_step(GDS_gds_t a[], const GDS_size_t count[], GDS_size_t k) {
  for (int m = 0; m < kArrays; ++m) {
    std::vector<double> v(count[m]);
    const GDS_size_t lo = 0, hi = count[m] - 1;
    OK(GDS_get(v.data(), nullptr, &lo, &hi, a[m]));
    OK(GDS_wait(a[m]));
    GDS_size_t bad = 0;
    for (GDS_size_t i = 0; i < count[m]; ++i) bad += v[i] != value(m, k, i);
    CHECK(bad == 0, "array %d: %llu of %llu elements are not step %llu's", m, static_cast<unsigned long long>(bad),
          static_cast<unsigned long long>(count[m]), static_cast<unsigned long long>(k));
  }
}

GDS_size_t step_of(GDS_gds_t a) {
  char *l = nullptr;
  size_t n = 0;
  OK(GDS_get_version_label(a, &l, &n));
  return std::string(l, n).rfind("k=", 0) == 0 ? std::strtoull(l + 2, nullptr, 10) : ~GDS_size_t{0};
}

}  // namespace

int main(int argc, char **argv) {
  GDS_thread_support_t provided;
  OK(GDS_init(&argc, &argv, GDS_THREAD_SINGLE, &provided));
  int np = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const GDS_size_t steps = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10;
  GDS_persisted_t st;
  OK(GDS_restart_query("g", &st));
  // Processes hold different amounts: a grows by 1000 per process plus an odd
  // tail; b has fewer elements than 4 processes; c is tiny.
  const GDS_size_t count[kArrays] = {static_cast<GDS_size_t>(1000 * np + 333), 3, static_cast<GDS_size_t>(np + 1)};
  const bool unnamed = argc > 2 && std::strcmp(argv[2], "unnamed") == 0;
  const char *names[kArrays] = {"a", unnamed ? nullptr : "b", "c"};
  GDS_gds_t a[kArrays];
  for (int m = 0; m < kArrays; ++m) {
    MPI_Info info;
    MPI_Info_create(&info);
    if (names[m] != nullptr) MPI_Info_set(info, GDS_NAME_KEY, names[m]);
    OK(GDS_alloc(1, &count[m], nullptr, MPI_DOUBLE, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info, &a[m]));
    MPI_Info_free(&info);
  }
  GDS_group_t g;
  OK(GDS_group_create("g", kArrays, a, &g));
  GDS_restart_info_t ri;
  OK(GDS_group_get_restart_info(g, &ri));
  GDS_size_t k = 0;
  if (st.found) {
    CHECK(ri.restarted == 1, "the query found version %llu but the group did not restart",
          static_cast<unsigned long long>(st.version));
    k = step_of(a[0]);
    for (int m = 1; m < kArrays; ++m) CHECK(step_of(a[m]) == k, "array %d restarted at another step than array 0", m);
    CHECK(std::string(st.holds) == "k=" + std::to_string(k) || ri.version < st.version,
          "the query said the newest version holds \"%s\", the arrays hold k=%llu", st.holds,
          static_cast<unsigned long long>(k));
    check_step(a, count, k);
  } else {
    CHECK(ri.restarted == 0, "the query found nothing but the group restarted");
    write_step(a, 0);
  }
  for (GDS_size_t step = k + 1; step <= steps; ++step) {
    // Every member changes, each process writes its own part.
    MPI_Barrier(MPI_COMM_WORLD);
    const std::string label = "k=" + std::to_string(step - 1);  // what the version being made holds
    OK(GDS_group_version_inc(g, 1, label.data(), label.size()));
    write_step(a, step);
  }
  const std::string label = "k=" + std::to_string(steps);
  OK(GDS_group_version_inc(g, 1, label.data(), label.size()));
  check_step(a, count, steps);
  int failures = 0;
  MPI_Allreduce(&g_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  OK(GDS_group_free(&g));
  for (GDS_gds_t &x : a) OK(GDS_free(&x));
  if (g_rank == 0 && failures == 0)
    std::printf("group_app: ok restarted=%d from=%llu level=%d\n", ri.restarted, static_cast<unsigned long long>(k),
                ri.level);
  OK(GDS_finalize());
  return failures == 0 ? 0 : 1;
}
