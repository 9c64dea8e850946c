// Versions against the flat-array baseline, in one run on 2 processes.
//
//  1. GDS_version_inc on 256 MiB per process against a memcpy of as many
//     bytes as the part (what a flat copy of the array costs), timed right
//     after each version by both processes at once, so both see the same
//     machine. Two configurations: the default retention (4x the part: from
//     the fifth version on, freed slots reused) and every version kept. Patterns: 0.1%, 1%, 10% and 100% of
//     the blocks changed (one element each), and 1% of the data changed in
//     scattered 4 KiB runs. 3 warm-up versions per pattern, then 11 timed;
//     times are the slower process's.
//  2. Memory held by the versions after 50 versions with 1% of the blocks
//     changed each, against the size of the part.
//  3. A 1 MiB GDS_get of the other process's part from an old version
//     against the same get from the current version (alternating).
//
// Medians of the repetitions. GDS_version_inc is collective, so both
// processes run the same fixed sequence (no adaptive iteration counts).
//
//   mpiexec.mpich -bind-to core -n 2 gds_bench_versions [MiB per process]
#include <gds.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void check(GDS_status_t s, const char *what) {
  if (s != GDS_STATUS_OK) {
    std::fprintf(stderr, "gds_bench_versions: %s: %s\n", what, GDS_last_error_message());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

struct Setup {
  int rank, nprocs;
  GDS_size_t per_rank;  // doubles per process
  GDS_size_t block;     // bytes
};

// With a retention key and value (nullptr: the default retention).
GDS_gds_t make_array(const Setup &s, const char *key, const char *value = nullptr) {
  MPI_Info info;
  MPI_Info_create(&info);
  if (key != nullptr) MPI_Info_set(info, key, value);
  const GDS_size_t n = s.per_rank * static_cast<GDS_size_t>(s.nprocs);
  GDS_gds_t g = GDS_NULL;
  check(GDS_alloc(1, &n, nullptr, MPI_DOUBLE, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info, &g), "GDS_alloc");
  MPI_Info_free(&info);
  return g;
}

// Writes one element in `changed` distinct random blocks of this process's part.
void change_blocks(const Setup &s, GDS_gds_t g, GDS_size_t changed, std::mt19937 &rng, double value) {
  const GDS_size_t per_block = s.block / sizeof(double), nblocks = s.per_rank / per_block;
  GDS_size_t first = s.per_rank * static_cast<GDS_size_t>(s.rank);
  std::vector<GDS_size_t> blocks(nblocks);
  std::iota(blocks.begin(), blocks.end(), 0);
  if (changed < nblocks) std::shuffle(blocks.begin(), blocks.end(), rng);
  for (GDS_size_t i = 0; i < changed; ++i) {
    const GDS_size_t at = first + blocks[i] * per_block + rng() % per_block;
    check(GDS_put(&value, nullptr, &at, &at, g), "GDS_put");
  }
  check(GDS_wait(g), "GDS_wait");
}

// Writes `runs` distinct 4 KiB runs at random 4 KiB-aligned places of this process's part.
void change_runs(const Setup &s, GDS_gds_t g, GDS_size_t runs, std::mt19937 &rng, double value) {
  const GDS_size_t per_run = 4096 / sizeof(double), nruns = s.per_rank / per_run;
  const GDS_size_t first = s.per_rank * static_cast<GDS_size_t>(s.rank);
  std::vector<GDS_size_t> at(nruns);
  std::iota(at.begin(), at.end(), 0);
  std::shuffle(at.begin(), at.end(), rng);
  std::vector<double> run(per_run, value);
  for (GDS_size_t i = 0; i < runs; ++i) {
    const GDS_size_t lo = first + at[i] * per_run, hi = lo + per_run - 1;
    check(GDS_put(run.data(), nullptr, &lo, &hi, g), "GDS_put");
  }
  check(GDS_wait(g), "GDS_wait");
}

// The slower process's time of f() run by both at once, in ms.
template <typename F>
double timed(F f) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  f();
  double t = (MPI_Wtime() - t0) * 1e3, slowest = 0;
  MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

double timed_version(GDS_gds_t g) {
  return timed([g] { check(GDS_version_inc(g, 1, nullptr, 0), "GDS_version_inc"); });
}

double timed_copy(char *to, const char *from, std::size_t bytes) {
  return timed([=] { std::memcpy(to, from, bytes); });
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  Setup s{};
  MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &s.nprocs);
  if (s.nprocs != 2) {
    if (s.rank == 0) std::fprintf(stderr, "gds_bench_versions: run on exactly 2 processes\n");
    MPI_Finalize();
    return 2;
  }
  GDS_thread_support_t provided;
  // The last column times the helper thread's fault-in ahead: on for this
  // benchmark (off by default), unless the environment says otherwise.
  setenv("GDS_VERSION_PREFAULT", "1", 0);
  check(GDS_init(&argc, &argv, GDS_THREAD_SINGLE, &provided), "GDS_init");
  const GDS_size_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 256;
  s.per_rank = mib * 1024 * 1024 / sizeof(double);
  const GDS_size_t bytes = s.per_rank * sizeof(double);
  {
    // The block size a user gets by default.
    GDS_gds_t probe = make_array(s, nullptr);
    GDS_version_stats_t st{};
    check(GDS_get_version_stats(probe, &st), "GDS_get_version_stats");
    s.block = st.block_bytes;
    check(GDS_free(&probe), "GDS_free");
  }
  const GDS_size_t nblocks = bytes / s.block;
  std::mt19937 rng(7 + static_cast<unsigned>(s.rank));
  const int reps = 11;
  // 1. version_inc against memcpy, both configurations, five patterns.
  struct Pattern {
    const char *name;
    bool runs;        // 4 KiB runs rather than one element per block
    double fraction;  // of the blocks, or of the data
    double limit;     // target ratio, 0: none
  };
  const Pattern patterns[] = {{"0.1% of blocks", false, 0.001, 0},   {"1% of blocks", false, 0.01, 0},
                              {"10% of blocks", false, 0.1, 0},      {"100% of blocks", false, 1.0, 1.30},
                              {"1% of data, 4 KiB runs", true, 0.01, 0.03}};
  constexpr int kPatterns = 5;
  struct Config {
    const char *name;
    const char *key, *value;
  };
  const Config configs[] = {{"default retention (4x the part)", nullptr, nullptr},
                            {"every version kept (GDS_MAX_VERSION_BYTES=0)", GDS_MAX_VERSION_BYTES_KEY, "0"}};
  double version_ms[2][kPatterns] = {}, flat_ms[2][kPatterns] = {}, background_ms[2][kPatterns] = {};
  std::vector<char> flat_from(bytes, 1), flat_to(bytes, 2);
  std::vector<double> fill(s.per_rank, 1.0);
  const GDS_size_t lo = s.per_rank * static_cast<GDS_size_t>(s.rank), hi = lo + s.per_rank - 1;
  for (int c = 0; c < 2; ++c) {
    GDS_gds_t g = make_array(s, configs[c].key, configs[c].value);
    check(GDS_put(fill.data(), nullptr, &lo, &hi, g), "GDS_put");
    check(GDS_wait(g), "GDS_wait");
    check(GDS_version_inc(g, 1, nullptr, 0), "GDS_version_inc");
    for (int f = 0; f < kPatterns; ++f) {
      const Pattern &p = patterns[f];
      const GDS_size_t changed =
          p.runs ? std::max<GDS_size_t>(1, static_cast<GDS_size_t>(p.fraction * static_cast<double>(bytes) / 4096 + 0.5))
                 : std::max<GDS_size_t>(1, static_cast<GDS_size_t>(p.fraction * static_cast<double>(nblocks) + 0.5));
      std::vector<double> t, cp, bg;
      for (int r = 0; r < 3 + reps; ++r) {
        if (p.runs) change_runs(s, g, changed, rng, r + 2.0);
        else change_blocks(s, g, changed, rng, r + 2.0);
        const double ms = timed_version(g);
        // What version_inc left to the background (memory for the next version when
        // every version is kept) is done before the flat copy is timed, and timed itself.
        const double background = timed([g] { check(GDS_version_wait(g), "GDS_version_wait"); });
        const double copy_ms = timed_copy(flat_to.data(), flat_from.data(), bytes);
        if (r >= 3) {
          t.push_back(ms);
          cp.push_back(copy_ms);
          bg.push_back(background);
        }
      }
      version_ms[c][f] = median(t);
      flat_ms[c][f] = median(cp);
      background_ms[c][f] = median(bg);
    }
    check(GDS_free(&g), "GDS_free");
  }
  std::vector<char>().swap(flat_from);
  std::vector<char>().swap(flat_to);

  // 2. Memory after 50 versions at 1% changed.
  GDS_gds_t g = make_array(s, nullptr);  // (50 versions of 1% stay within the default budget)
  fill.assign(s.per_rank, 2.0);
  check(GDS_put(fill.data(), nullptr, &lo, &hi, g), "GDS_put");
  check(GDS_wait(g), "GDS_wait");
  std::vector<double>().swap(fill);
  for (int v = 0; v < 50; ++v) {
    if (v > 0) change_blocks(s, g, nblocks / 100, rng, v);
    check(GDS_version_inc(g, 1, nullptr, 0), "GDS_version_inc");
  }
  GDS_version_stats_t stats{};
  check(GDS_get_version_stats(g, &stats), "GDS_get_version_stats");

  // 3. 1 MiB from the other process's part, current and old (version 1).
  const GDS_size_t count = 1024 * 1024 / sizeof(double);
  const GDS_size_t other = s.per_rank * static_cast<GDS_size_t>(1 - s.rank) + s.per_rank / 3;
  const GDS_size_t olo = other, ohi = other + count - 1;
  std::vector<double> buf(count);
  GDS_gds_t old = GDS_NULL;
  check(GDS_descriptor_clone(g, &old), "GDS_descriptor_clone");
  check(GDS_version_dec(old, stats.current - 1), "GDS_version_dec");
  std::vector<double> current_us, old_us;
  MPI_Barrier(MPI_COMM_WORLD);
  if (s.rank == 0) {
    for (int r = 0; r < 201; ++r) {
      double t0 = MPI_Wtime();
      check(GDS_get(buf.data(), nullptr, &olo, &ohi, g), "GDS_get");
      check(GDS_wait(g), "GDS_wait");
      current_us.push_back((MPI_Wtime() - t0) * 1e6);
      t0 = MPI_Wtime();
      check(GDS_get(buf.data(), nullptr, &olo, &ohi, old), "GDS_get (old)");
      old_us.push_back((MPI_Wtime() - t0) * 1e6);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  check(GDS_free(&old), "GDS_free");
  check(GDS_free(&g), "GDS_free");

  if (s.rank == 0) {
    std::printf("GDS versions, 2 processes, %llu MiB per process, %llu KiB blocks, medians\n",
                static_cast<unsigned long long>(mib), static_cast<unsigned long long>(s.block / 1024));
    int missed = 0;
    for (int c = 0; c < 2; ++c) {
      std::printf("version_inc, %s\n", configs[c].name);
      std::printf("  %-30s %12s %12s %12s  %-16s %s\n", "changed since the last version", "GDS ms", "memcpy ms",
                  "GDS/memcpy", "target", "then in background ms (/memcpy)");
      for (int f = 0; f < kPatterns; ++f) {
        const double ratio = version_ms[c][f] / flat_ms[c][f];
        char verdict[32] = "";
        if (patterns[f].limit > 0) {
          const bool ok = ratio <= patterns[f].limit;
          std::snprintf(verdict, sizeof verdict, "<= %.2f %s", patterns[f].limit, ok ? "ok" : "MISSED");
          missed += ok ? 0 : 1;
        }
        std::printf("  %-30s %12.3f %12.3f %12.4f  %-16s %.3f (%.3f)\n", patterns[f].name, version_ms[c][f],
                    flat_ms[c][f], ratio, verdict, background_ms[c][f], background_ms[c][f] / flat_ms[c][f]);
      }
    }
    const double held = static_cast<double>(stats.bytes_allocated) / static_cast<double>(bytes);
    std::printf("memory after 50 versions at 1%%: %.1f MiB held (%.1f MiB stored) for a %llu MiB part: %.3fx  "
                "<= 1.60%s\n",
                stats.bytes_allocated / 1048576.0, stats.bytes_stored / 1048576.0,
                static_cast<unsigned long long>(mib), held, held <= 1.6 ? " ok" : " MISSED");
    missed += held <= 1.6 ? 0 : 1;
    const double ratio = median(old_us) / median(current_us);
    std::printf("1 MiB get from the other process: current %.1f us, old version %.1f us: %.3fx  <= 2.00%s\n",
                median(current_us), median(old_us), ratio, ratio <= 2.0 ? " ok" : " MISSED");
    missed += ratio <= 2.0 ? 0 : 1;
    std::printf("%d target(s) missed\n", missed);
  }
  check(GDS_finalize(), "GDS_finalize");
  MPI_Finalize();
  return 0;
}
