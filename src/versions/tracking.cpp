#include "versions/tracking.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/costs.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"
#include "rma/state.hpp"
#include "versions/state.hpp"

namespace gds::versions {

namespace {

// Where no trap could be timed: about what this test VM measures.
constexpr double kTrapGuess = 10e-6;
// A scan's cost before one was timed: about what this test VM measures for
// a small array (most of it the TLB flush of protecting again).
constexpr double kScanGuess = 50e-6;
constexpr std::uint64_t kPage = 4096;
// Bytes per second a compare reads at the slowest (memory reads at 5-20 GB/s).
constexpr double kSlowestCompare = 1e9;

double trap_seconds() {
  const double t = core::PageTracker::trap_seconds();
  return t > 0 ? t : kTrapGuess;
}

// The kernel failed: the array's versions compare every block from now on.
void give_up(core::Array &a, const std::string &why) {
  Tracking &t = state(a).tracking;
  core::log(core::Level::warning, "GDS_version_inc",
            "array %llu: the kernel's write tracking failed (%s); its versions compare every block from now on",
            static_cast<unsigned long long>(a.id), why.c_str());
  t.tracker.reset();
  t.method = "compared block by block: tracking failed (" + why + ")";
}

}  // namespace

bool parse_write_tracking(const char *text, WriteTracking *out) {
  if (std::strcmp(text, "auto") == 0) *out = WriteTracking::automatic;
  else if (std::strcmp(text, "kernel") == 0) *out = WriteTracking::kernel;
  else if (std::strcmp(text, "compare") == 0) *out = WriteTracking::compare;
  else return false;
  return true;
}

const char *write_tracking_name(WriteTracking w) {
  switch (w) {
    case WriteTracking::automatic: return "auto";
    case WriteTracking::kernel: return "kernel";
    case WriteTracking::compare: return "compare";
  }
  return "?";
}

void open_tracking(core::Array &a, WriteTracking setting) {
  Tracking &t = state(a).tracking;
  t = Tracking{};
  if (a.user == nullptr) return;  // GDS_alloc: GDS sees every write itself
  const std::uint64_t bytes = a.local_count * a.type->extent;
  if (setting == WriteTracking::compare) {
    t.method = "compared block by block (GDS_WRITE_TRACKING=compare)";
  } else if (bytes == 0) {
    t.method = "nothing to compare (no part on this process)";
  } else {
    std::string why;
    // auto starts paused: a program that rewrites most of its arrays then
    // never pays a trap; the first versions compare, and tracking starts
    // once one finds little changed.
    t.tracker = core::PageTracker::open(rma::state(a).base, bytes, setting == WriteTracking::kernel,
                                        setting == WriteTracking::automatic, &why);
    t.adapt = setting == WriteTracking::automatic;
    const char *model = std::getenv("GDS_TEST_TRACKING_MODEL");
    t.modelled = model != nullptr && std::strcmp(model, "1") == 0;
    if (t.tracker) {
      t.method = "tracked by the kernel (userfaultfd write-protect, PAGEMAP_SCAN)";
    } else {
      t.method = "compared block by block: " + why;
      if (setting == WriteTracking::kernel)
        core::log(core::Level::warning, "GDS_create", "GDS_WRITE_TRACKING=kernel, but array %llu's writes cannot be tracked: %s; its versions compare every block",
                  static_cast<unsigned long long>(a.id), why.c_str());
    }
  }
  core::log(core::Level::info, "GDS_create", "array %llu, process %d: changes %s", static_cast<unsigned long long>(a.id), a.rank, t.method.c_str());
}

void take_tracked(core::Array &a) {
  ArrayState &s = state(a);
  Tracking &t = s.tracking;
  t.now = false;
  t.written = 0;
  t.trapped = 0;
  if (!t.tracker) return;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> written;
  std::string why;
  bool taken = false, everything = false;
  {
    core::Timed timed(core::Work::tracking, false);
    const bool scans = !t.tracker->paused();
    taken = t.tracker->take(&written, &everything, &why);
    if (taken && scans) t.take_seconds = timed.elapsed();
  }
  if (!taken) {  // nothing is known of what was written: compared, now and from now on
    give_up(a, why);
    return;
  }
  // Nothing known (the first version, or paused): compared in one pass with the copy.
  if (everything) return;
  std::vector<rma::BlockRange> blocks;
  blocks.reserve(written.size());
  const unsigned shift = s.block_shift;
  for (const auto &[from, to] : written) {
    t.written += to - from;
    t.trapped += (to - from + kPage - 1) / kPage;  // at least a page each: a range is clipped to the array
    const auto first = static_cast<std::uint32_t>(from >> shift), last = static_cast<std::uint32_t>((to - 1) >> shift);
    if (!blocks.empty() && blocks.back().last + 1 >= first) blocks.back().last = std::max(blocks.back().last, last);
    else blocks.push_back(rma::BlockRange{a.rank, first, last});
  }
  s.store->suspect(blocks);
  t.now = true;
}

void adapt_tracking(core::Array &a, std::uint64_t changed_bytes) {
  Tracking &t = state(a).tracking;
  if (t.now) {  // a version made by tracking
    core::add_call(core::Work::tracking);
    core::add_bytes(core::Work::tracking, t.written);
  }
  if (!t.tracker || !t.adapt) return;
  // What comparing everything costs: the fastest compared version's time,
  // not the first version's, whose copy first touched the store's new
  // memory (1.3 ms for MD's 8-byte count against 1 us later: it kept a scan
  // of 50-450 us going at every version), and never more than reading the
  // part at 1 GB/s (a slower one met something else: a slab grown for it,
  // 0.57 ms for the same 8 bytes at the second version). Erring low only
  // compares more.
  if (!t.now && !t.first) {
    const double bound = static_cast<double>(a.local_count * a.type->extent) / kSlowestCompare;
    const double seconds = std::min(t.freeze_seconds, bound);
    if (t.compare_seconds <= 0 || seconds < t.compare_seconds) t.compare_seconds = seconds;
  }
  t.first = false;
  if (t.modelled) t.compare_seconds = static_cast<double>(t.tracker->pages());
  if (t.compare_seconds <= 0) return;
  const double scan = t.modelled ? 0 : t.take_seconds > 0 ? t.take_seconds : kScanGuess;
  // Timed once per process, on first need (1-3 ms: not for a small array,
  // whose scan alone costs more than comparing it).
  const auto trap = [&] { return t.modelled ? 1.0 : trap_seconds(); };
  std::string why;
  bool ok = true;
  if (!t.tracker->paused()) {
    // The program paid a trap per page written since the last version, and
    // the version the scan.
    if (t.now && scan + static_cast<double>(t.trapped) * trap() > 0.5 * t.compare_seconds)
      ok = t.tracker->pause(&why);
  } else if (const double budget = 0.25 * t.compare_seconds;
             scan < budget && scan + static_cast<double>((changed_bytes + kPage - 1) / kPage) * trap() < budget) {
    ok = t.tracker->resume(&why);
  }
  if (!ok) give_up(a, why);
}

}  // namespace gds::versions
