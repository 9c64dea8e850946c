// GDS data access against raw MPI RMA and Global Arrays, in one run on 2 processes.
//
// Rank 0 times operations on data owned by rank 1; rank 1 only serves as the
// target (it waits in a barrier, which keeps MPI's progress engine running).
// Every timed operation includes its completion with the same guarantee:
//   GDS:  GDS_put/get/acc + GDS_wait            (local completion)
//   MPI:  MPI_Put/Get/Accumulate + MPI_Win_flush_local on an
//         MPI_Win_allocate window under MPI_Win_lock_all (datatypes built once)
//   GA:   NGA_Put/Get/Acc                       (blocking, local completion)
// Google Benchmark repeats each case and interleaves the repetitions of all
// cases at random, so drift hits every implementation alike; the table uses
// the median of the repetitions.
//
//   mpiexec.mpich -bind-to core -n 2 gds_bench_rma [--benchmark_repetitions=N]
// (bench/run.sh does this; binding to cores steadies the timings.)
#include <benchmark/benchmark.h>
#include <gds.h>
#include <mpi.h>

extern "C" {
#include <ga.h>
#include <macdecls.h>
}

#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace {

constexpr GDS_size_t kHalf = 131072;  // doubles per process in the 1-D arrays (1 MiB)
constexpr GDS_size_t kSide = 512;     // the 2-D arrays are kSide x kSide doubles
constexpr GDS_size_t kPatch = 256;    // the patch is kPatch x kPatch, strided on both sides

// ---- the three implementations' arrays -------------------------------------------------

struct Gds {
  GDS_gds_t line = GDS_NULL, square = GDS_NULL;
  void setup() {
    const GDS_size_t n = 2 * kHalf, sq[2] = {kSide, kSide};
    GDS_alloc(1, &n, nullptr, MPI_DOUBLE, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &line);
    GDS_alloc(2, sq, nullptr, MPI_DOUBLE, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &square);
  }
  void teardown() {
    GDS_free(&line);
    GDS_free(&square);
  }
};

struct RawMpi {
  MPI_Win line = MPI_WIN_NULL, square = MPI_WIN_NULL;
  double *line_base = nullptr, *square_base = nullptr;
  MPI_Datatype patch = MPI_DATATYPE_NULL;  // kPatch rows of kPatch, row stride kSide
  void setup() {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "same_disp_unit", "true");
    MPI_Win_allocate(kHalf * sizeof(double), sizeof(double), info, MPI_COMM_WORLD, &line_base, &line);
    MPI_Win_allocate(kPatch * kSide * sizeof(double), sizeof(double), info, MPI_COMM_WORLD, &square_base, &square);
    MPI_Info_free(&info);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, line);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, square);
    MPI_Type_vector(kPatch, kPatch, kSide, MPI_DOUBLE, &patch);
    MPI_Type_commit(&patch);
  }
  void teardown() {
    MPI_Type_free(&patch);
    MPI_Win_unlock_all(line);
    MPI_Win_unlock_all(square);
    MPI_Win_free(&line);
    MPI_Win_free(&square);
  }
};

struct GlobalArrays {
  int line = 0, square = 0;
  void setup() {
    int dims1[1] = {static_cast<int>(2 * kHalf)}, nb1[1] = {2}, map1[2] = {0, static_cast<int>(kHalf)};
    line = NGA_Create_irreg(C_DBL, 1, dims1, const_cast<char *>("line"), nb1, map1);
    int dims2[2] = {kSide, kSide}, nb2[2] = {2, 1}, map2[3] = {0, static_cast<int>(kPatch), 0};
    square = NGA_Create_irreg(C_DBL, 2, dims2, const_cast<char *>("square"), nb2, map2);
  }
  void teardown() {
    GA_Destroy(line);
    GA_Destroy(square);
  }
};

Gds g_gds;
RawMpi g_mpi;
GlobalArrays g_ga;
std::vector<double> g_buffer(kPatch * kSide, 1.0);  // origin: big enough for every case

// ---- the cases ---------------------------------------------------------------------------

enum class Op { put, get, acc, get_put };
const char *op_name(Op op) {
  return op == Op::put ? "put" : op == Op::get ? "get" : op == Op::acc ? "acc" : "get+put";
}

// Contiguous: `count` doubles at the start of rank 1's part.
void gds_contiguous(benchmark::State &state, Op op, GDS_size_t count) {
  const GDS_size_t lo = kHalf, hi = kHalf + count - 1;
  double *buf = g_buffer.data();
  for (auto _ : state) {
    switch (op) {
      case Op::put: GDS_put(buf, nullptr, &lo, &hi, g_gds.line); break;
      case Op::get: GDS_get(buf, nullptr, &lo, &hi, g_gds.line); break;
      case Op::acc: GDS_acc(buf, nullptr, &lo, &hi, MPI_SUM, g_gds.line); break;
      case Op::get_put: {  // a get, then a put elsewhere on the same process, one wait
        const GDS_size_t plo = lo + count, phi = hi + count;
        GDS_get(buf, nullptr, &lo, &hi, g_gds.line);
        GDS_put(buf + count, nullptr, &plo, &phi, g_gds.line);
        break;
      }
    }
    GDS_wait(g_gds.line);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * count * sizeof(double)));
}

void mpi_contiguous(benchmark::State &state, Op op, GDS_size_t count) {
  const int n = static_cast<int>(count);
  double *buf = g_buffer.data();
  for (auto _ : state) {
    switch (op) {
      case Op::put: MPI_Put(buf, n, MPI_DOUBLE, 1, 0, n, MPI_DOUBLE, g_mpi.line); break;
      case Op::get: MPI_Get(buf, n, MPI_DOUBLE, 1, 0, n, MPI_DOUBLE, g_mpi.line); break;
      case Op::acc: MPI_Accumulate(buf, n, MPI_DOUBLE, 1, 0, n, MPI_DOUBLE, MPI_SUM, g_mpi.line); break;
      case Op::get_put:  // with MPICH 4.0.2 ch4:ucx the flush_local below leaves the get incomplete
        MPI_Get(buf, n, MPI_DOUBLE, 1, 0, n, MPI_DOUBLE, g_mpi.line);
        MPI_Put(buf + count, n, MPI_DOUBLE, 1, n, n, MPI_DOUBLE, g_mpi.line);
        break;
    }
    MPI_Win_flush_local(1, g_mpi.line);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * count * sizeof(double)));
}

void ga_contiguous(benchmark::State &state, Op op, GDS_size_t count) {
  int lo = static_cast<int>(kHalf), hi = static_cast<int>(kHalf + count - 1), ld = 1;
  double alpha = 1.0;
  double *buf = g_buffer.data();
  for (auto _ : state) {
    switch (op) {
      case Op::put: NGA_Put(g_ga.line, &lo, &hi, buf, &ld); break;
      case Op::get: NGA_Get(g_ga.line, &lo, &hi, buf, &ld); break;
      case Op::acc: NGA_Acc(g_ga.line, &lo, &hi, buf, &ld, &alpha); break;
      case Op::get_put: {
        int plo = lo + static_cast<int>(count), phi = hi + static_cast<int>(count);
        NGA_Get(g_ga.line, &lo, &hi, buf, &ld);
        NGA_Put(g_ga.line, &plo, &phi, buf + count, &ld);
        break;
      }
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * count * sizeof(double)));
}

// The patch: rows kPatch..2*kPatch-1 (rank 1's), columns 128..383 of the 2-D
// array, from columns 128..383 of a kPatch x kSide origin buffer.
void gds_patch(benchmark::State &state, Op op) {
  const GDS_size_t lo[2] = {kPatch, 128}, hi[2] = {2 * kPatch - 1, 128 + kPatch - 1}, ld[1] = {kSide};
  double *buf = g_buffer.data() + 128;
  for (auto _ : state) {
    switch (op) {
      case Op::put: GDS_put(buf, ld, lo, hi, g_gds.square); break;
      case Op::get: GDS_get(buf, ld, lo, hi, g_gds.square); break;
      case Op::acc: GDS_acc(buf, ld, lo, hi, MPI_SUM, g_gds.square); break;
    }
    GDS_wait(g_gds.square);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kPatch * kPatch * sizeof(double)));
}

void mpi_patch(benchmark::State &state, Op op) {
  double *buf = g_buffer.data() + 128;
  const MPI_Datatype t = g_mpi.patch;
  for (auto _ : state) {
    switch (op) {
      case Op::put: MPI_Put(buf, 1, t, 1, 128, 1, t, g_mpi.square); break;
      case Op::get: MPI_Get(buf, 1, t, 1, 128, 1, t, g_mpi.square); break;
      case Op::acc: MPI_Accumulate(buf, 1, t, 1, 128, 1, t, MPI_SUM, g_mpi.square); break;
    }
    MPI_Win_flush_local(1, g_mpi.square);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kPatch * kPatch * sizeof(double)));
}

void ga_patch(benchmark::State &state, Op op) {
  int lo[2] = {kPatch, 128}, hi[2] = {2 * kPatch - 1, 128 + kPatch - 1}, ld[1] = {kSide};
  double alpha = 1.0;
  double *buf = g_buffer.data() + 128;
  for (auto _ : state) {
    switch (op) {
      case Op::put: NGA_Put(g_ga.square, lo, hi, buf, ld); break;
      case Op::get: NGA_Get(g_ga.square, lo, hi, buf, ld); break;
      case Op::acc: NGA_Acc(g_ga.square, lo, hi, buf, ld, &alpha); break;
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kPatch * kPatch * sizeof(double)));
}

struct Row {
  std::string name;  // "put 8 B"
  bool latency;      // latency target (8 B) or bandwidth target (1 MiB)
  bool bandwidth;
};
std::vector<Row> g_rows;

void register_cases() {
  struct Size {
    const char *label;
    GDS_size_t count;
  };
  const Size sizes[] = {{"8 B", 1}, {"4 KiB", 512}, {"1 MiB", kHalf}};
  for (Op op : {Op::put, Op::get, Op::acc}) {
    for (const Size &s : sizes) {
      const std::string row = std::string(op_name(op)) + " " + s.label;
      g_rows.push_back({row, s.count == 1, s.count == kHalf});
      benchmark::RegisterBenchmark((row + "/GDS").c_str(), gds_contiguous, op, s.count)->UseRealTime();
      benchmark::RegisterBenchmark((row + "/MPI").c_str(), mpi_contiguous, op, s.count)->UseRealTime();
      benchmark::RegisterBenchmark((row + "/GA").c_str(), ga_contiguous, op, s.count)->UseRealTime();
    }
    const std::string row = std::string(op_name(op)) + " 256x256 patch";
    g_rows.push_back({row, false, false});
    benchmark::RegisterBenchmark((row + "/GDS").c_str(), gds_patch, op)->UseRealTime();
    benchmark::RegisterBenchmark((row + "/MPI").c_str(), mpi_patch, op)->UseRealTime();
    benchmark::RegisterBenchmark((row + "/GA").c_str(), ga_patch, op)->UseRealTime();
  }
  // A get then a put to the same process before one completion: what GDS's
  // remote flush (the MPICH get/put workaround) costs against MPI's local one.
  for (const Size &s : {sizes[0], sizes[1]}) {
    const std::string row = std::string(op_name(Op::get_put)) + " " + s.label;
    g_rows.push_back({row, false, false});
    benchmark::RegisterBenchmark((row + "/GDS").c_str(), gds_contiguous, Op::get_put, s.count)->UseRealTime();
    benchmark::RegisterBenchmark((row + "/MPI").c_str(), mpi_contiguous, Op::get_put, s.count)->UseRealTime();
    benchmark::RegisterBenchmark((row + "/GA").c_str(), ga_contiguous, Op::get_put, s.count)->UseRealTime();
  }
}

// Keeps the median of every case and prints the comparison at the end.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run> &runs) override {
    for (const Run &r : runs)
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median")
        median_[r.run_name.function_name] = r.GetAdjustedRealTime() * 1e-3;  // ns -> us
    ConsoleReporter::ReportRuns(runs);
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf("\nGDS against raw MPI RMA and Global Arrays, 2 processes, median per operation "
                "(including completion)\n");
    std::printf("%-20s %11s %11s %11s %9s %9s  %s\n", "", "GDS us", "MPI us", "GA us", "GDS/MPI", "GDS/GA",
                "targets");
    int missed = 0;
    for (const Row &row : g_rows) {
      if (!median_.contains(row.name + "/GDS")) continue;  // filtered out
      const double gds = median_[row.name + "/GDS"], mpi = median_[row.name + "/MPI"],
                   ga = median_[row.name + "/GA"];
      std::string verdict;
      const auto judge = [&](bool ok, const std::string &what) {
        verdict += (verdict.empty() ? "" : ", ") + what + (ok ? " ok" : " MISSED");
        missed += ok ? 0 : 1;
      };
      if (row.latency) judge(gds / mpi <= 1.10, "<=1.10x MPI latency");
      if (row.bandwidth) judge(mpi / gds >= 0.95, "bandwidth " + fmt(mpi / gds) + "x MPI >=0.95");
      judge(gds <= ga, "<=GA");
      std::printf("%-20s %11.3f %11.3f %11.3f %9.3f %9.3f  %s\n", row.name.c_str(), gds, mpi, ga, gds / mpi,
                  gds / ga, verdict.c_str());
    }
    std::printf("%d target(s) missed\n", missed);
  }

 private:
  static std::string fmt(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3f", v);
    return b;
  }
  std::map<std::string, double> median_;
};

}  // namespace

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) std::fprintf(stderr, "gds_bench_rma: run on exactly 2 processes\n");
    MPI_Finalize();
    return 2;
  }
  GDS_thread_support_t gds_provided;
  GDS_init(&argc, &argv, GDS_THREAD_SINGLE, &gds_provided);
  GA_Initialize();
  g_gds.setup();
  g_mpi.setup();
  g_ga.setup();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    std::vector<char *> args(argv, argv + argc);
    std::string interleave = "--benchmark_enable_random_interleaving=true";
    std::string aggregates = "--benchmark_report_aggregates_only=true";
    std::string repetitions = "--benchmark_repetitions=31", min_time = "--benchmark_min_time=0.1";
    bool has_repetitions = false, has_min_time = false;
    for (int i = 1; i < argc; ++i) {
      has_repetitions = has_repetitions || std::strstr(argv[i], "repetitions");
      has_min_time = has_min_time || std::strstr(argv[i], "min_time");
    }
    args.insert(args.begin() + 1, interleave.data());
    args.insert(args.begin() + 1, aggregates.data());
    if (!has_repetitions) args.insert(args.begin() + 1, repetitions.data());
    if (!has_min_time) args.insert(args.begin() + 1, min_time.data());
    int n = static_cast<int>(args.size());
    benchmark::Initialize(&n, args.data());
    register_cases();
    RatioReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  g_ga.teardown();
  g_mpi.teardown();
  g_gds.teardown();
  GA_Terminate();
  GDS_finalize();
  MPI_Finalize();
  return 0;
}
