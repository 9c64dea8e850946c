// The program of the persistence levels' model-based random test
// (tests/persist_test.py, suite "random"): an array that every process
// changes by a different, random amount before each version, checked
// against a model after every version and after every restart.
//
//   persist_random_app key=value ...
//     seed=S          the model's seed (the same in every run of one array)
//     kind=K          alloc1 (1-D GDS_alloc), alloc2 (2-D GDS_alloc), create
//                     (1-D GDS_create, contiguous parts of the sizes `parts`)
//     dims=N[,M]      the array's extents
//     parts=c0,c1,..  create: elements per process (zeros allowed; they add up to N)
//     chunk=C         elements per chunk, the unit the model changes (within a row)
//     versions=V      versions this run makes (after restarting, if it does)
//     fracs=f0,f1,..  fixed fraction of its chunks each process changes in
//                     every version but the array's first (default: random
//                     per version and process: none, one or two chunks, 5%,
//                     30%, 70% or all)
//     restores=P      probability of a rollback (GDS_version_restore to one of
//                     the three previous retained versions) before a version
//     waits=P         probability of GDS_cache_wait after a version (its
//                     cached versions then survive any kill: "durable <k>")
//     sync=S          what comes between the writes and each version: fence
//                     (default), wait, wait_local or none (GDS_version_inc
//                     completes them)
//     slow=MS         before each version one process (another each time)
//                     sleeps MS milliseconds before it writes, so that the
//                     processes it writes into enter the version first
//     journal=PATH    the model's record of rollbacks (rank 0 rewrites it
//                     before each version; every run reads it)
//     expect=E        what GDS_alloc/GDS_create must find: alternatives
//                     separated by '|', each "fresh", a version range "a-b"
//                     (inclusive; "fresh-b": fresh or up to b) or a status
//                     name (the call's refusal: then the program stops)
//     navigable=LIST  the versions (comma-separated) that restart must make
//                     navigable, exactly; absent: any, each checked
//
// What the driver reads back goes to a file of each process's, <journal>.r<rank>
// (the launcher interleaves processes' output byte by byte): "restarted <k>"
// after GDS_alloc/GDS_create restarted, and "made <k>" as soon as
// GDS_version_inc(k) returned (what was complete before a kill), and
// "durable <k>" once GDS_cache_wait returned after it.
//
// Version k's content is a function of the seed, k and the version it was
// made from (k - 1, or the rollback's target), so that every run computes
// every version. Each chunk of version k has a writer (mostly the process
// that stores it, else another: GDS_put to remote parts) and changes with
// the writer's fraction for k. Writes go through GDS_put, or GDS_access
// DIRECT for local chunks of a 1-D GDS_alloc array, or the program's own
// stores for local chunks of a GDS_create array. After each version
// every process reads every retained version whole and compares it with
// the model. Rank 0 prints "persist_random: ok" if every check held.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gds.h"
#include "support/persist_apps.hpp"

namespace {

using persist_apps::g_failures;
using persist_apps::g_rank;
using persist_apps::mix;
using persist_apps::status_name;

int g_nprocs = 1;

std::vector<std::string> split(const std::string &s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, sep);) out.push_back(item);
  return out;
}

struct Spec {
  std::uint64_t seed = 1;
  std::string kind = "alloc1";
  std::vector<GDS_size_t> dims{64};
  std::vector<GDS_size_t> parts;
  GDS_size_t chunk = 4;
  std::uint64_t versions = 4;
  std::vector<double> fracs;
  double restores = 0, waits = 0;
  std::string sync = "fence";
  unsigned slow_ms = 0;
  std::string journal, expect = "fresh", navigable;
};

Spec parse(int argc, char **argv) {
  Spec s;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto eq = arg.find('=');
    const std::string key = arg.substr(0, eq), value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    const auto numbers = [&] {
      std::vector<GDS_size_t> v;
      for (const std::string &x : split(value, ',')) v.push_back(std::strtoull(x.c_str(), nullptr, 10));
      return v;
    };
    if (key == "seed") s.seed = std::strtoull(value.c_str(), nullptr, 10);
    else if (key == "kind") s.kind = value;
    else if (key == "dims") s.dims = numbers();
    else if (key == "parts") s.parts = numbers();
    else if (key == "chunk") s.chunk = std::strtoull(value.c_str(), nullptr, 10);
    else if (key == "versions") s.versions = std::strtoull(value.c_str(), nullptr, 10);
    else if (key == "fracs") for (const std::string &x : split(value, ',')) s.fracs.push_back(std::atof(x.c_str()));
    else if (key == "restores") s.restores = std::atof(value.c_str());
    else if (key == "waits") s.waits = std::atof(value.c_str());
    else if (key == "sync") s.sync = value;
    else if (key == "slow") s.slow_ms = static_cast<unsigned>(std::strtoul(value.c_str(), nullptr, 10));
    else if (key == "journal") s.journal = value;
    else if (key == "expect") s.expect = value;
    else if (key == "navigable") s.navigable = value;
    else FAIL("unknown argument %s", arg.c_str());
  }
  if (s.sync != "fence" && s.sync != "wait" && s.sync != "wait_local" && s.sync != "none")
    FAIL("sync=%s is not fence, wait, wait_local or none", s.sync.c_str());
  return s;
}

// The array as the model sees it: rows x cols elements (1-D: one row), cut
// into chunks of at most `chunk` elements within a row.
class Model {
 public:
  explicit Model(const Spec &s) : s_(s) {
    rows_ = s.dims.size() == 2 ? s.dims[0] : 1;
    cols_ = s.dims.back();
    per_row_ = (cols_ + s.chunk - 1) / s.chunk;
    bases_ = read_journal();
  }
  [[nodiscard]] std::uint64_t size() const { return rows_ * cols_; }
  [[nodiscard]] std::uint64_t chunks() const { return rows_ * per_row_; }
  // Chunk j: row, first column, elements.
  void chunk(std::uint64_t j, GDS_size_t *row, GDS_size_t *col, GDS_size_t *n) const {
    *row = j / per_row_;
    *col = (j % per_row_) * s_.chunk;
    *n = std::min<GDS_size_t>(s_.chunk, cols_ - *col);
  }
  void set_owners(std::vector<int> owners) { owner_ = std::move(owners); }

  [[nodiscard]] std::uint64_t hash(std::uint64_t k, std::uint64_t a, std::uint64_t what) const {
    return mix(s_.seed ^ mix(k * 0x9e3779b97f4a7c15ULL ^ mix(a * 0xbf58476d1ce4e5b9ULL ^ what)));
  }
  // The fraction of its chunks process w changes in version k (-1: one or two chunks).
  [[nodiscard]] double fraction(std::uint64_t k, int w) const {
    if (k == 0) return 1;
    if (!s_.fracs.empty()) return s_.fracs[static_cast<std::size_t>(w) % s_.fracs.size()];
    static const double choices[] = {0, -1, 0.05, 0.3, 0.7, 1};
    return choices[hash(k, static_cast<std::uint64_t>(w), 1) % 6];
  }
  [[nodiscard]] int writer(std::uint64_t k, std::uint64_t j) const {
    const std::uint64_t u = hash(k, j, 2);
    return u % 4 != 0 ? owner_[j] : static_cast<int>((u >> 8) % static_cast<std::uint64_t>(g_nprocs));
  }
  [[nodiscard]] bool changed(std::uint64_t k, std::uint64_t j) const {
    const double f = fraction(k, writer(k, j));
    const std::uint64_t u = hash(k, j, 3);
    if (f < 0) return u % std::max<std::uint64_t>(1, chunks() / 2) == 0;
    return static_cast<double>(u >> 11) * 0x1.0p-53 < f;
  }
  [[nodiscard]] long value(std::uint64_t k, std::uint64_t i) const {
    return static_cast<long>(hash(k, i, 4) & 0x7fffffffffffLL);
  }
  // The version version k was made from (a rollback's target, or k - 1).
  [[nodiscard]] std::int64_t base(std::uint64_t k) const {
    const auto it = bases_.find(k);
    return it != bases_.end() ? it->second : static_cast<std::int64_t>(k) - 1;
  }
  // Version k is made from version b (a run's choices replace what a run
  // killed before them recorded for k and later).
  void set_base(std::uint64_t k, std::int64_t b) {
    bases_.erase(bases_.lower_bound(k), bases_.end());
    bases_[k] = b;
    content_.erase(content_.lower_bound(static_cast<std::int64_t>(k)), content_.end());
    if (g_rank == 0 && !s_.journal.empty()) {
      const std::string tmp = s_.journal + ".tmp";
      {
        std::ofstream out(tmp);
        for (const auto &[v, from] : bases_) out << v << ' ' << from << '\n';
      }
      std::rename(tmp.c_str(), s_.journal.c_str());
    }
  }
  // Version k's content (k = -1: the zeros an array starts with).
  const std::vector<long> &content(std::int64_t k) {
    if (auto it = content_.find(k); it != content_.end()) return it->second;
    std::vector<long> c = k < 0 ? std::vector<long>(size(), 0) : content(base(static_cast<std::uint64_t>(k)));
    if (k >= 0)
      for (std::uint64_t j = 0; j < chunks(); ++j)
        if (changed(static_cast<std::uint64_t>(k), j)) {
          GDS_size_t row, col, n;
          chunk(j, &row, &col, &n);
          for (GDS_size_t e = 0; e < n; ++e) {
            const std::uint64_t i = row * cols_ + col + e;
            c[i] = value(static_cast<std::uint64_t>(k), i);
          }
        }
    return content_[k] = std::move(c);
  }

 private:
  std::map<std::uint64_t, std::int64_t> read_journal() const {
    std::map<std::uint64_t, std::int64_t> bases;
    std::ifstream in(s_.journal);
    std::uint64_t v;
    std::int64_t from;
    while (in >> v >> from) bases[v] = from;
    return bases;
  }
  const Spec &s_;
  GDS_size_t rows_ = 1, cols_ = 1, per_row_ = 1;
  std::vector<int> owner_;
  std::map<std::uint64_t, std::int64_t> bases_;
  std::map<std::int64_t, std::vector<long>> content_;
};

// GDS_create's contiguous mapping over parts of the given sizes.
struct Parts {
  std::vector<GDS_size_t> first;  // per process, and the end
};
GDS_status_t g2l(const GDS_size_t g[], int *rank, GDS_size_t *offset, void *ctx) {
  const auto &p = *static_cast<const Parts *>(ctx);
  const auto it = std::upper_bound(p.first.begin(), p.first.end(), g[0]);
  const int r = static_cast<int>(it - p.first.begin()) - 1;
  if (r < 0 || r >= g_nprocs) return GDS_STATUS_RANGE;
  *rank = r;
  *offset = g[0] - p.first[static_cast<std::size_t>(r)];
  return GDS_STATUS_OK;
}
GDS_status_t l2g(GDS_size_t offset, GDS_size_t g[], void *ctx) {
  g[0] = static_cast<const Parts *>(ctx)->first[static_cast<std::size_t>(g_rank)] + offset;
  return GDS_STATUS_OK;
}

class App {
 public:
  explicit App(const Spec &s) : s_(s), model_(s) {}

  GDS_status_t make() {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, GDS_VERSION_BLOCK_SIZE_KEY, "64");
    MPI_Info_set(info, GDS_NAME_KEY, "random");
    GDS_status_t st;
    if (s_.kind == "create") {
      parts_.first.assign(1, 0);
      for (const GDS_size_t c : s_.parts) parts_.first.push_back(parts_.first.back() + c);
      const GDS_size_t mine = s_.parts.at(static_cast<std::size_t>(g_rank));
      buffer_.assign(mine, 0);
      st = GDS_create_with_context(1, s_.dims.data(), GDS_DATA_LONG, g2l, l2g, &parts_,
                                   mine > 0 ? buffer_.data() : nullptr, mine, GDS_PRIORITY_HIGH, MPI_COMM_WORLD, info,
                                   &g_);
    } else {
      st = GDS_alloc(s_.dims.size(), s_.dims.data(), nullptr, GDS_DATA_LONG, GDS_PRIORITY_HIGH, MPI_COMM_WORLD, info,
                     &g_);
    }
    MPI_Info_free(&info);
    if (st != GDS_STATUS_OK) return st;
    std::vector<int> owners(model_.chunks());
    for (std::uint64_t j = 0; j < model_.chunks(); ++j) {
      GDS_size_t row, col, n, offset;
      model_.chunk(j, &row, &col, &n);
      const GDS_size_t at[2] = {row, col};
      if (GDS_locate(g_, s_.dims.size() == 2 ? at : at + 1, &owners[j], &offset) != GDS_STATUS_OK) FAIL("GDS_locate");
    }
    model_.set_owners(std::move(owners));
    return GDS_STATUS_OK;
  }

  // A line to this process's progress file (kept when the process is killed: no fsync is needed).
  void progress(const std::string &line) {
    if (s_.journal.empty()) return;
    std::FILE *f = std::fopen((s_.journal + ".r" + std::to_string(g_rank)).c_str(), "a");
    if (f == nullptr) {
      FAIL("cannot write the progress file");
      return;
    }
    std::fprintf(f, "%s\n", line.c_str());
    std::fclose(f);
  }

  // Restart: what GDS_alloc/GDS_create found, against the expectation.
  bool check_restart() {
    GDS_restart_info_t info;
    if (GDS_get_restart_info(g_, &info) != GDS_STATUS_OK) FAIL("GDS_get_restart_info");
    bool fresh_ok = false, in_range = false;
    for (const std::string &alt : split(s_.expect, '|')) {
      if (alt.rfind("GDS_STATUS_", 0) == 0) continue;
      const std::vector<std::string> range = split(alt, '-');
      fresh_ok = fresh_ok || range.at(0) == "fresh";
      if (range.size() == 2 && info.restarted && info.version <= std::strtoull(range[1].c_str(), nullptr, 10) &&
          (range[0] == "fresh" || info.version >= std::strtoull(range[0].c_str(), nullptr, 10)))
        in_range = true;
    }
    if (!info.restarted) {
      if (!fresh_ok) FAIL("did not restart; expected %s", s_.expect.c_str());
      return false;
    }
    if (!in_range) FAIL("restarted from version %" PRIu64 ", expected %s", info.version, s_.expect.c_str());
    GDS_size_t current = 0;
    GDS_get_version_number(g_, &current);
    if (current != info.version + 1) FAIL("current version %" PRIu64 " after restarting from %" PRIu64, current, info.version);
    next_ = current;
    std::vector<GDS_size_t> seen = check_all(info.version);
    std::string list;
    for (const GDS_size_t k : seen) {
      if (!list.empty()) list += ',';
      list += std::to_string(k);
    }
    if (seen.size() != info.versions) FAIL("%zu versions navigable; restart info says %" PRIu64, seen.size(), info.versions);
    if (!s_.navigable.empty() && list != s_.navigable)
      FAIL("navigable versions %s; expected %s", list.c_str(), s_.navigable.c_str());
    progress("restarted " + std::to_string(info.version));
    if (g_rank == 0)
      std::printf("persist_random: restarted from %" PRIu64 " navigable %s (%d process(es) rebuilt)\n", info.version,
                  list.c_str(), info.rebuilt_processes);
    retained_.assign(seen.begin(), seen.end());
    return true;
  }

  // Makes versions next_ .. next_ + versions - 1.
  void run() {
    for (std::uint64_t made = 0; made < s_.versions; ++made) {
      const std::uint64_t k = next_;
      std::int64_t from = static_cast<std::int64_t>(k) - 1;
      // A rollback to one of the three previous retained versions, after some writes it discards.
      if (k > 0 && static_cast<double>(model_.hash(k, 0, 6) >> 11) * 0x1.0p-53 < s_.restores) {
        std::vector<GDS_size_t> recent;
        for (auto it = retained_.rbegin(); it != retained_.rend() && recent.size() < 3; ++it) recent.push_back(*it);
        if (!recent.empty()) {
          const GDS_size_t to = recent[model_.hash(k, 0, 7) % recent.size()];
          scribble(k);
          const GDS_status_t st = GDS_version_restore(g_, to);
          if (st != GDS_STATUS_OK) FAIL("GDS_version_restore(%" PRIu64 "): %s", to, GDS_status_string(st));
          from = static_cast<std::int64_t>(to);
          compare(g_, model_.content(from), "after the rollback to", to);
          MPI_Barrier(MPI_COMM_WORLD);  // read by all before anyone writes
        }
      }
      model_.set_base(k, from);
      if (s_.slow_ms > 0 && g_nprocs > 1 && static_cast<int>(model_.hash(k, 0, 9) % static_cast<std::uint64_t>(g_nprocs)) == g_rank)
        usleep(s_.slow_ms * 1000);  // the processes it writes into enter the version first
      write(k);
      synchronise();
      const std::string label = std::string("L").append(std::to_string(k + 1));
      const GDS_status_t st = GDS_version_inc(g_, 1, label.data(), label.size());
      pending_.clear();  // complete: GDS_put's buffers are free again
      if (st != GDS_STATUS_OK) {
        FAIL("GDS_version_inc at %" PRIu64 ": %s", k, GDS_status_string(st));
        return;
      }
      progress("made " + std::to_string(k));
      if (static_cast<double>(model_.hash(k, 0, 8) >> 11) * 0x1.0p-53 < s_.waits) {
        if (const GDS_status_t w = GDS_cache_wait(g_); w != GDS_STATUS_OK)
          FAIL("GDS_cache_wait after %" PRIu64 ": %s", k, GDS_status_string(w));
        progress("durable " + std::to_string(k));
      }
      retained_.push_back(k);
      next_ = k + 1;
      const std::vector<GDS_size_t> seen = check_all(k);
      if (seen.size() != retained_.size()) FAIL("%zu versions navigable after version %" PRIu64 ", expected %zu", seen.size(), k, retained_.size());
    }
  }

  void finish() {
    if (g_ != GDS_NULL && GDS_free(&g_) != GDS_STATUS_OK) FAIL("GDS_free");
  }

 private:
  // This process's writes of version k.
  void write(std::uint64_t k) {
    for (std::uint64_t j = 0; j < model_.chunks(); ++j) {
      if (!model_.changed(k, j) || model_.writer(k, j) != g_rank) continue;
      GDS_size_t row, col, n;
      model_.chunk(j, &row, &col, &n);
      const std::uint64_t first = row * s_.dims.back() + col;
      std::vector<long> &v = pending_.emplace_back(n);
      for (GDS_size_t e = 0; e < n; ++e) v[e] = model_.value(k, first + e);
      put(row, col, n, v.data(), model_.hash(k, j, 5) % 2 == 0);
    }
  }
  // Random writes that a rollback then discards.
  void scribble(std::uint64_t k) {
    for (std::uint64_t j = static_cast<std::uint64_t>(g_rank); j < model_.chunks(); j += 3 * static_cast<std::uint64_t>(g_nprocs)) {
      GDS_size_t row, col, n;
      model_.chunk(j, &row, &col, &n);
      put(row, col, n, pending_.emplace_back(n, -static_cast<long>(k) - 7).data(), false);
    }
    fence();
  }
  void fence() {
    if (GDS_fence(g_) != GDS_STATUS_OK) FAIL("GDS_fence");
    pending_.clear();  // GDS_put's buffers are free again
  }
  // Between the writes and the version: sync=.
  void synchronise() {
    if (s_.sync == "fence") fence();
    if (s_.sync == "wait" && GDS_wait(g_) != GDS_STATUS_OK) FAIL("GDS_wait");
    if (s_.sync == "wait_local" && GDS_wait_local(g_) != GDS_STATUS_OK) FAIL("GDS_wait_local");
  }
  // Writes n elements of a row (v stays valid until fence()).
  void put(GDS_size_t row, GDS_size_t col, GDS_size_t n, const long *v, bool direct) {
    const bool two = s_.dims.size() == 2;
    GDS_size_t lo[2] = {row, col}, hi[2] = {row, col + n - 1};
    GDS_size_t *l = two ? lo : lo + 1, *h = two ? hi : hi + 1;
    if (direct && s_.kind == "alloc1") {
      int a = 0, b = 0;
      GDS_size_t off;
      GDS_locate(g_, l, &a, &off);
      GDS_locate(g_, h, &b, &off);
      if (a == g_rank && b == g_rank) {
        void *p = nullptr;
        GDS_access_handle_t acc = GDS_ACCESS_HANDLE_NULL;
        if (GDS_access(g_, l, h, GDS_ACCESS_BUFFER_DIRECT, &p, &acc) != GDS_STATUS_OK) {
          FAIL("GDS_access");
          return;
        }
        std::memcpy(p, v, n * sizeof(long));
        if (GDS_release(&acc) != GDS_STATUS_OK) FAIL("GDS_release");
        return;
      }
    }
    if (direct && s_.kind == "create") {  // the program's own stores, where the run is all in its part
      const GDS_size_t first = parts_.first[static_cast<std::size_t>(g_rank)];
      const GDS_size_t end = parts_.first[static_cast<std::size_t>(g_rank) + 1];
      if (col >= first && col + n <= end) {
        std::memcpy(buffer_.data() + (col - first), v, n * sizeof(long));
        return;
      }
    }
    const GDS_size_t ld[1] = {n};
    if (GDS_put(v, ld, l, h, g_) != GDS_STATUS_OK) FAIL("GDS_put");
  }
  // Reads the whole array through h and compares it with `want`.
  void compare(GDS_gds_t h, const std::vector<long> &want, const char *what, std::uint64_t k) {
    if (want.empty()) return;
    std::vector<long> got(want.size(), -1);
    const GDS_size_t lo[2] = {0, 0};
    GDS_size_t hi[2] = {s_.dims[0] - 1, s_.dims.size() == 2 ? s_.dims[1] - 1 : 0};
    const GDS_size_t ld[1] = {s_.dims.back()};
    if (GDS_get(got.data(), ld, lo, hi, h) != GDS_STATUS_OK || GDS_wait(h) != GDS_STATUS_OK) {
      FAIL("GDS_get of version %" PRIu64, k);
      return;
    }
    int wrong = 0;
    for (std::size_t i = 0; i < want.size(); ++i)
      if (got[i] != want[i] && wrong++ < 3)
        FAIL("%s version %" PRIu64 ": element %zu is %ld, the model says %ld", what, k, i, got[i], want[i]);
  }
  // The current content (= version `newest`) and every navigable version,
  // each against the model. Returns the navigable versions, newest first.
  std::vector<GDS_size_t> check_all(std::uint64_t newest) {
    compare(g_, model_.content(static_cast<std::int64_t>(newest)), "current content, which is", newest);
    std::vector<GDS_size_t> seen;
    GDS_gds_t old = GDS_NULL;
    if (GDS_descriptor_clone(g_, &old) != GDS_STATUS_OK) {
      FAIL("GDS_descriptor_clone");
      return seen;
    }
    while (GDS_move_to_prev(old) == GDS_STATUS_OK) {
      GDS_size_t k = 0;
      GDS_get_version_number(old, &k);
      compare(old, model_.content(static_cast<std::int64_t>(k)), "retained", k);
      seen.push_back(k);
    }
    GDS_free(&old);
    // Nobody writes the next version before every process has read this one.
    MPI_Barrier(MPI_COMM_WORLD);
    std::reverse(seen.begin(), seen.end());
    return seen;
  }

  const Spec &s_;
  Model model_;
  Parts parts_;
  std::vector<long> buffer_;
  std::deque<std::vector<long>> pending_;  // buffers of GDS_put in flight
  GDS_gds_t g_ = GDS_NULL;
  std::uint64_t next_ = 0;
  std::vector<GDS_size_t> retained_;  // navigable versions, oldest first
};

}  // namespace

int main(int argc, char **argv) {
  GDS_thread_support_t provided;
  if (GDS_init(&argc, &argv, GDS_THREAD_SINGLE, &provided) != GDS_STATUS_OK) return 2;
  persist_apps::g_program = "persist_random";
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_nprocs);
  const Spec spec = parse(argc, argv);
  App app(spec);
  const GDS_status_t st = app.make();
  const std::string got = status_name(st);
  const std::vector<std::string> alts = split(spec.expect, '|');
  const bool refusal_ok = std::find(alts.begin(), alts.end(), got) != alts.end();
  const bool success_ok = std::any_of(alts.begin(), alts.end(), [](const std::string &a) {
    return a.rfind("GDS_STATUS_", 0) != 0;
  });
  if (st != GDS_STATUS_OK) {
    if (!refusal_ok) FAIL("GDS_alloc/GDS_create returned %s, expected %s", got.c_str(), spec.expect.c_str());
  } else if (!success_ok) {
    FAIL("GDS_alloc/GDS_create succeeded, expected %s", spec.expect.c_str());
    app.finish();
  } else {
    app.check_restart();
    app.run();
    app.finish();
  }
  int failures = 0;
  MPI_Allreduce(&g_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0 && failures == 0) std::printf("persist_random: ok\n");
  GDS_finalize();
  return failures == 0 ? 0 : 1;
}
