// A program whose state lives in a persisted root CD (storage_info level=cache), driven by
// app_test.py (the protocol of the mini-applications: ANSWER, RECOVERED, RESTARTED).
//
// Every process holds a different amount of state: a vector of 1000 + 37 * rank doubles, none on
// rank 1 (an empty part), the step and an accumulator, a log file whose position the root
// preserves, and its part of a GDS array of 64 * processes + 5 elements (uneven blocks) whose
// whole box the root preserves (a new job allocates it afresh: the root's point refills it). The root spans every process; it advances (and so persists its point) every
// --every steps. Each step is a per-process child CD preserving what the step changes; the step
// has a global sum (an allreduce, outside the child) and a local update checked by its own
// checksum.
//
//   --inject flip: a process (seeded) changes one value after its update at a step (seeded);
//                  the check finds it, the child restores and re-executes the update alone
//   --inject kill: a process (seeded) raises SIGKILL at a step (seeded); run again with the
//                  same GDS_JOB_ID, the root CD comes back by name with the step, the vector,
//                  the accumulator and the file's position of its last persisted point
//
// The seed is --seed, else the time; it is printed. ANSWER is the sum of every process's
// accumulator and vector, and a checksum of every log file's content: the same with and
// without faults.
#include <fcntl.h>
#include <unistd.h>

#include <gds.h>

#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <ctime>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {

void check(GDS_status_t s, const char *what) {
  if (s != GDS_STATUS_OK) {
    std::fprintf(stderr, "cd_persist_app: %s: %s\n", what, GDS_status_string(s));
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
}

double update(std::vector<double> &v, double global, int step) {
  double sum = 0.0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = 0.75 * v[i] + 0.25 * std::cos(global * 1e-3 + double(i) * 0.01 + step);
    sum += v[i];
  }
  return sum;
}

double total(const std::vector<double> &v) {
  double sum = 0.0;
  for (double x : v) sum += x;
  return sum;
}

}  // namespace

int main(int argc, char **argv) {
  GDS_thread_support_t provided{};
  check(GDS_init(&argc, &argv, GDS_THREAD_SINGLE, &provided), "GDS_init");
  int rank = 0, nprocs = 1;
  MPI_Comm_rank(GDS_COMM_WORLD, &rank);
  MPI_Comm_size(GDS_COMM_WORLD, &nprocs);
  std::map<std::string, std::string> opt;
  for (int a = 1; a + 1 < argc; a += 2) opt[argv[a]] = argv[a + 1];
  const auto num = [&](const char *k, long d) { return opt.count(k) ? std::atol(opt[k].c_str()) : d; };
  const int steps = int(num("--steps", 40)), every = int(num("--every", 5));
  const std::string inject = opt.count("--inject") ? opt["--inject"] : "none";
  unsigned long seed = static_cast<unsigned long>(num("--seed", long(std::time(nullptr))));
  MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG, 0, GDS_COMM_WORLD);
  std::mt19937 draw(static_cast<unsigned>(seed));
  // A kill after two points: the cache writes a point in the background, durable by the next.
  const int first = std::min(2 * every + 1, steps - 1);
  const int at = first + int(draw() % unsigned(std::max(1, steps - first)));
  int victim = int(draw() % unsigned(nprocs));
  if (inject == "flip" && victim == 1) victim = 0;  // rank 1 holds no vector to flip
  if (rank == 0) std::printf("SEED %lu (inject %s at step %d on rank %d)\n", seed, inject.c_str(), at, victim);

  // The state, initialised; a restarted root CD gives it back when it is preserved.
  std::vector<double> v(rank == 1 ? 0 : 1000 + 37 * std::size_t(rank));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::sin(double(i) + rank);
  int step = 0;
  double acc = 0.0;

  GDS_cd_t root = GDS_CD_NULL;
  check(GDS_cd_create(GDS_CD_NULL, GDS_COMM_WORLD, "sim", "level=cache", GDS_CD_LOGGING_DISABLED, &root),
        "GDS_cd_create");
  int restarted = 0;
  check(GDS_cd_restored(root, &restarted), "GDS_cd_restored");

  const char *job = std::getenv("GDS_JOB_ID");
  const std::string log = std::string("/tmp/gds-cd-app-") + (job ? job : "plain-" + std::to_string(seed)) + "-" +
                          std::to_string(rank) + ".log";
  const int fd = ::open(log.c_str(), O_RDWR | O_CREAT | (restarted ? 0 : O_TRUNC), 0600);
  if (fd < 0) MPI_Abort(MPI_COMM_WORLD, 3);

  std::vector<GDS_cd_range_t> ranges = {{&step, sizeof step, GDS_CD_READ_WRITE, GDS_CD_GLOBAL},
                                        {&acc, sizeof acc, GDS_CD_READ_WRITE, GDS_CD_GLOBAL}};
  if (!v.empty()) ranges.push_back({v.data(), v.size() * sizeof(double), GDS_CD_READ_WRITE, GDS_CD_GLOBAL});
  check(GDS_cd_preserve(root, GDS_CD_VIA_COPY, ranges.data(), int(ranges.size()), nullptr, nullptr), "preserve");
  check(GDS_cd_preserve_file(root, fd), "preserve_file");
  // The field: every process adds to its own part each step.
  GDS_gds_t field = GDS_NULL;
  const GDS_size_t count = 64 * GDS_size_t(nprocs) + 5, lo0 = 0, last = count - 1;
  MPI_Info info = MPI_INFO_NULL;
  MPI_Info_create(&info);
  MPI_Info_set(info, GDS_COPY_TYPE_KEY, "NONE");  // the array itself is not persisted: the root's point is
  check(GDS_alloc(1, &count, nullptr, MPI_DOUBLE, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info, &field), "GDS_alloc");
  MPI_Info_free(&info);
  GDS_size_t own_lo = 0, own_hi = 0;
  int owns = 0;
  check(GDS_distribution(field, rank, &own_lo, &own_hi, &owns), "GDS_distribution");
  std::vector<double> part(owns ? own_hi - own_lo + 1 : 0);
  for (std::size_t i = 0; i < part.size(); ++i) part[i] = double(own_lo + i);
  if (owns) check(GDS_put(part.data(), nullptr, &own_lo, &own_hi, field), "GDS_put");
  check(GDS_fence(field), "GDS_fence");
  check(GDS_cd_preserve_box(root, GDS_CD_VIA_COPY, field, &lo0, &last, GDS_CD_READ_WRITE, nullptr, nullptr),
        "preserve_box");
  if (restarted && rank == 0) std::printf("RESTARTED from=step %d\n", step);

  bool struck = false;
  while (step < steps) {
    if (step % every == 0) check(GDS_cd_advance(root), "GDS_cd_advance");  // the point persisted
    if (inject == "kill" && step == at && rank == victim) raise(SIGKILL);
    double mine = total(v), global = 0.0;
    MPI_Allreduce(&mine, &global, 1, MPI_DOUBLE, MPI_SUM, GDS_COMM_WORLD);

    GDS_cd_t child = GDS_CD_NULL;
    check(GDS_cd_create(root, MPI_COMM_SELF, nullptr, nullptr, GDS_CD_LOGGING_INHERIT, &child), "child");
    // All the step changes, READ_WRITE: its commit promotes the root's entries, so the root's next
    // advance refreshes them (an advance refreshes READ_WRITE entries and demotes them).
    check(GDS_cd_preserve(child, GDS_CD_VIA_COPY, ranges.data(), int(ranges.size()), nullptr, nullptr),
          "child preserve");
    for (;;) {
      const double sum = update(v, global, step);
      if (inject == "flip" && step == at && rank == victim && !struck && !v.empty()) {
        struck = true;
        v[v.size() / 2] += 1.0;
      }
      if (total(v) == sum) break;  // the step's check
      check(GDS_cd_restore(child), "GDS_cd_restore");
      std::printf("RECOVERED flip step=%d from=child CD on rank %d\n", step, rank);
    }
    acc += total(v);
    if (owns) {  // the field's own part, through GDS
      check(GDS_get(part.data(), nullptr, &own_lo, &own_hi, field), "GDS_get");
      check(GDS_wait(field), "GDS_wait");
      for (double &x : part) x = 0.5 * x + step;
      check(GDS_put(part.data(), nullptr, &own_lo, &own_hi, field), "GDS_put");
      check(GDS_wait(field), "GDS_wait");
    }
    char line[64];
    const int n = std::snprintf(line, sizeof line, "step %d acc %.17g\n", step, acc);
    if (::write(fd, line, std::size_t(n)) != n) MPI_Abort(MPI_COMM_WORLD, 3);
    ++step;
    check(GDS_cd_commit(&child), "child commit");
    // The root's box READ_WRITE again (an advance demotes it), so the next advance refreshes it.
    check(GDS_cd_preserve_box(root, GDS_CD_VIA_COPY, field, &lo0, &last, GDS_CD_READ_WRITE, nullptr, nullptr),
          "preserve_box");
  }

  // The log file's content up to its position (a rerun overwrote what followed the persisted one).
  const off_t end = ::lseek(fd, 0, SEEK_CUR);
  std::vector<char> content(static_cast<std::size_t>(end));
  if (::pread(fd, content.data(), content.size(), 0) != end) MPI_Abort(MPI_COMM_WORLD, 3);
  std::uint64_t hash = 1469598103934665603ULL;
  for (char c : content) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  ::close(fd);
  ::unlink(log.c_str());
  check(GDS_fence(field), "GDS_fence");
  std::vector<double> all(count);
  check(GDS_get(all.data(), nullptr, &lo0, &last, field), "GDS_get");
  check(GDS_wait(field), "GDS_wait");
  double mine = acc + total(v) + (rank == 0 ? total(all) : 0.0), sum = 0.0;
  unsigned long long hashes = 0;
  MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, GDS_COMM_WORLD);
  MPI_Reduce(&hash, &hashes, 1, MPI_UNSIGNED_LONG_LONG, MPI_BXOR, 0, GDS_COMM_WORLD);
  check(GDS_cd_commit(&root), "GDS_cd_commit");
  check(GDS_free(&field), "GDS_free");
  if (rank == 0) std::printf("STEPS %d\nANSWER %.17g %016llx\n", steps, sum, hashes);
  check(GDS_finalize(), "GDS_finalize");
  return 0;
}
