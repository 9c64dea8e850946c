// Containment domains against their baselines, in one run on 2 processes:
//
//  1. create + commit of an empty per-process CD (target < 1 us), and of a
//     collective CD over both processes against one MPI_Allreduce of an int;
//  2. preserve via copy of N bytes of memory against a memcpy of N bytes
//     (target <= 1.1), for 4 KiB, 1 MiB and 64 MiB;
//  3. restore of those N bytes against a memcpy of N bytes (target <= 1.2);
//  4. advance of a collective CD holding a box of a GDS array (16 MiB per
//     process) with 1% of its blocks changed, against advance with 100%
//     changed (target <= 0.05: a box's point in time is a version), and the
//     same for a per-process CD (a snapshot of the process's part: it copies
//     the whole part, so its ratio is about 1).
//
// Medians of the repetitions; both processes run the same fixed sequence
// (collective CDs). Memory figures allocate: the first touch of new memory
// costs 0.2-4 ms per MiB on the development VM, so the 64 MiB rows vary.
//
//   mpiexec.mpich -bind-to core -n 2 gds_bench_cd
#include <gds.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void check(GDS_status_t s, const char *what) {
  if (s != GDS_STATUS_OK) {
    std::fprintf(stderr, "gds_bench_cd: %s: %s\n", what, GDS_last_error_message());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

template <class F>
double seconds(F f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The slower process's time.
double slowest(double t) {
  double m = 0;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

int g_rank = 0;

void row(const char *what, double ours, double base, const char *base_name, const char *target) {
  if (g_rank == 0)
    std::printf("%-44s %11.3f us %11.3f us (%s)  ratio %7.3f  target %s\n", what, ours * 1e6, base * 1e6, base_name,
                ours / base, target);
}

void create_commit() {
  constexpr int kReps = 20000;
  std::vector<double> ours, base;
  for (int round = 0; round < 5; ++round) {
    ours.push_back(seconds([&] {
                     for (int i = 0; i < kReps; ++i) {
                       GDS_cd_t cd = GDS_CD_NULL;
                       check(GDS_cd_create(GDS_CD_NULL, MPI_COMM_SELF, nullptr, nullptr, GDS_CD_LOGGING_DISABLED, &cd),
                             "create");
                       check(GDS_cd_commit(&cd), "commit");
                     }
                   }) /
                   kReps);
  }
  if (g_rank == 0)
    std::printf("%-44s %11.3f us                                          target < 1 us\n",
                "create + commit, empty per-process CD", median(ours) * 1e6);
  constexpr int kCollective = 2000;
  ours.clear();
  for (int round = 0; round < 5; ++round) {
    MPI_Barrier(MPI_COMM_WORLD);
    ours.push_back(slowest(seconds([&] {
                             for (int i = 0; i < kCollective; ++i) {
                               GDS_cd_t cd = GDS_CD_NULL;
                               check(GDS_cd_create(GDS_CD_NULL, GDS_COMM_WORLD, nullptr, nullptr,
                                                   GDS_CD_LOGGING_DISABLED, &cd),
                                     "create");
                               check(GDS_cd_commit(&cd), "commit");
                             }
                           })) /
                   kCollective);
    MPI_Barrier(MPI_COMM_WORLD);
    base.push_back(slowest(seconds([&] {
                             for (int i = 0; i < kCollective; ++i) {
                               int x = i, y = 0;
                               MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
                             }
                           })) /
                   kCollective);
  }
  row("create + commit, collective CD (2 procs)", median(ours), median(base), "allreduce", "2 allreduces (create, commit agree)");
}

void memory(std::size_t bytes, int reps) {
  std::vector<char> data(bytes, 1), copy(bytes, 2);
  std::vector<double> pres, rest, mc_a, mc_b;
  for (int r = 0; r < reps; ++r) {
    GDS_cd_t cd = GDS_CD_NULL;
    check(GDS_cd_create(GDS_CD_NULL, MPI_COMM_SELF, nullptr, nullptr, GDS_CD_LOGGING_DISABLED, &cd), "create");
    const GDS_cd_range_t range{data.data(), bytes, GDS_CD_READ_WRITE, GDS_CD_GLOBAL};
    mc_a.push_back(seconds([&] { std::memcpy(copy.data(), data.data(), bytes); }));
    pres.push_back(seconds([&] { check(GDS_cd_preserve(cd, GDS_CD_VIA_COPY, &range, 1, nullptr, nullptr), "preserve"); }));
    data[r % bytes] = static_cast<char>(r);
    mc_b.push_back(seconds([&] { std::memcpy(data.data(), copy.data(), bytes); }));
    rest.push_back(seconds([&] { check(GDS_cd_restore(cd), "restore"); }));
    check(GDS_cd_commit(&cd), "commit");
  }
  char what[80];
  std::snprintf(what, sizeof what, "preserve via copy, %zu KiB", bytes >> 10);
  row(what, median(pres), median(mc_a), "memcpy", "<= 1.1");
  std::snprintf(what, sizeof what, "restore, %zu KiB", bytes >> 10);
  row(what, median(rest), median(mc_b), "memcpy", "<= 1.2");
}

void advance(bool collective) {
  const GDS_size_t per = (16u << 20) / sizeof(double);
  int nprocs = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  const GDS_size_t n = per * static_cast<GDS_size_t>(nprocs);
  GDS_gds_t g = GDS_NULL;
  check(GDS_alloc(1, &n, nullptr, MPI_DOUBLE, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &g), "alloc");
  GDS_size_t lo = 0, hi = 0;
  int owns = 0;
  check(GDS_distribution(g, g_rank, &lo, &hi, &owns), "distribution");
  std::vector<double> part(hi - lo + 1, 1.0);
  check(GDS_put(part.data(), nullptr, &lo, &hi, g), "put");
  check(GDS_fence(g), "fence");
  GDS_cd_t cd = GDS_CD_NULL;
  check(GDS_cd_create(GDS_CD_NULL, collective ? GDS_COMM_WORLD : MPI_COMM_SELF, nullptr, nullptr,
                      GDS_CD_LOGGING_DISABLED, &cd),
        "create");
  const GDS_size_t zero = 0, last = n - 1;
  if (collective) check(GDS_cd_preserve_box(cd, GDS_CD_VIA_COPY, g, &zero, &last, GDS_CD_READ_WRITE, nullptr, nullptr), "box");
  else check(GDS_cd_preserve_box(cd, GDS_CD_VIA_COPY, g, &lo, &hi, GDS_CD_READ_WRITE, nullptr, nullptr), "box");
  const GDS_size_t per_block = 4096 / sizeof(double);
  std::vector<double> t1, t100;
  for (int r = 0; r < 9; ++r) {
    for (int pct : {1, 100}) {
      // Change one element in pct% of this process's blocks.
      const GDS_size_t blocks = (hi - lo + 1) / per_block, step = 100 / static_cast<GDS_size_t>(pct);
      for (GDS_size_t b = 0; b < blocks; b += step) {
        const GDS_size_t i = lo + b * per_block;
        const double v = r + pct + 0.5;
        check(GDS_put(&v, nullptr, &i, &i, g), "put");
      }
      check(GDS_fence(g), "fence");
      // Advance re-adds READ_WRITE each time (it demotes to READ_ONLY).
      if (collective) check(GDS_cd_preserve_box(cd, GDS_CD_VIA_COPY, g, &zero, &last, GDS_CD_READ_WRITE, nullptr, nullptr), "box");
      const double t = slowest(seconds([&] { check(GDS_cd_advance(cd), "advance"); }));
      (pct == 1 ? t1 : t100).push_back(t);
      if (!collective) {
        check(GDS_cd_commit(&cd), "commit");
        check(GDS_cd_create(GDS_CD_NULL, MPI_COMM_SELF, nullptr, nullptr, GDS_CD_LOGGING_DISABLED, &cd), "create");
        check(GDS_cd_preserve_box(cd, GDS_CD_VIA_COPY, g, &lo, &hi, GDS_CD_READ_WRITE, nullptr, nullptr), "box");
      }
    }
  }
  row(collective ? "advance, collective box 16 MiB/proc, 1%" : "advance, per-process box 16 MiB, 1%", median(t1),
      median(t100), "100%", collective ? "<= 0.05" : "~1 (a copy)");
  check(GDS_cd_commit(&cd), "commit");
  check(GDS_free(&g), "free");
}

}  // namespace

int main(int argc, char **argv) {
  GDS_thread_support_t provided;
  check(GDS_init(&argc, &argv, GDS_THREAD_SINGLE, &provided), "init");
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  if (g_rank == 0) std::printf("Containment domains (medians; slower process for collective rows)\n");
  create_commit();
  memory(4u << 10, 201);
  memory(1u << 20, 31);
  memory(64u << 20, 5);
  advance(true);
  advance(false);
  check(GDS_finalize(), "finalize");
  return 0;
}
