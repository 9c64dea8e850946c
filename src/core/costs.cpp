#include "core/costs.hpp"

#include <chrono>
#include <cstdio>

#include "core/log.hpp"
#include "core/runtime.hpp"
#include "gds_costs.h"

namespace gds::core {

namespace {

struct Account {
  std::uint64_t calls = 0;
  double seconds = 0;
  std::atomic<std::uint64_t> bytes{0};
  int depth = 0;  // Timed scopes open (the application's thread)
};

constexpr const char *kNames[kWorks] = {"versions", "restores", "cache", "redundancy", "flushes", "restarts", "tracking"};

std::array<Account, kWorks> g_accounts;
double g_since = now();

Account &account(Work w) { return g_accounts[static_cast<std::size_t>(w)]; }

}  // namespace

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::array<Cost, kWorks> costs(double *elapsed) {
  std::array<Cost, kWorks> out;
  for (std::size_t k = 0; k < out.size(); ++k)
    out[k] = Cost{g_accounts[k].calls, g_accounts[k].seconds, g_accounts[k].bytes.load(std::memory_order_relaxed)};
  if (elapsed != nullptr) *elapsed = now() - g_since;
  return out;
}

void reset_costs() {
  for (Account &a : g_accounts) {
    a.calls = 0;
    a.seconds = 0;
    a.bytes.store(0, std::memory_order_relaxed);
  }
  g_since = now();
}

void print_costs(int rank) {
  double elapsed = 0;
  const std::array<Cost, kWorks> all = costs(&elapsed);
  // Each line written whole (one fputs on an unbuffered stderr): the
  // processes of a node print at once.
  char line[256];
  std::snprintf(line, sizeof line, "GDS costs, process %d: %.3f s since GDS_init\n", rank, elapsed);
  std::fputs(line, stderr);
  for (std::size_t k = 0; k < all.size(); ++k) {
    const Cost &c = all[k];
    if (c.calls == 0 && c.bytes == 0 && c.seconds == 0) continue;
    int n = std::snprintf(line, sizeof line, "GDS costs, process %d: %-10s %8llu calls %10.6f s (%5.2f%%) %14llu bytes",
                          rank, kNames[k], static_cast<unsigned long long>(c.calls), c.seconds,
                          elapsed > 0 ? 100 * c.seconds / elapsed : 0.0, static_cast<unsigned long long>(c.bytes));
    if (c.seconds > 0 && c.bytes > 0 && n > 0 && static_cast<std::size_t>(n) < sizeof line)
      n += std::snprintf(line + n, sizeof line - static_cast<std::size_t>(n), " %10.1f MiB/s",
                         static_cast<double>(c.bytes) / c.seconds / 1048576.0);
    if (n > 0 && static_cast<std::size_t>(n) + 1 < sizeof line) {
      line[n] = '\n';
      line[n + 1] = '\0';
    }
    std::fputs(line, stderr);
  }
  std::fflush(stderr);
}

void add_bytes(Work w, std::uint64_t bytes) { account(w).bytes.fetch_add(bytes, std::memory_order_relaxed); }

void add_call(Work w) { ++account(w).calls; }

Timed::Timed(Work w, bool count) : w_(w), start_(now()), outer_(account(w).depth++ == 0) {
  if (outer_ && count) ++account(w).calls;
}

Timed::~Timed() {
  Account &a = account(w_);
  --a.depth;
  if (outer_) a.seconds += now() - start_;
}

}  // namespace gds::core

using namespace gds::core;

extern "C" {

GDS_API GDS_status_t GDS_get_costs(GDS_costs_t *out) try {
  GDS_ENTER();
  GDS_REQUIRE(out != nullptr, GDS_STATUS_NULL_ARGUMENT, "costs is NULL");
  double elapsed = 0;
  const std::array<Cost, kWorks> all = costs(&elapsed);
  const auto put = [&](Work w, GDS_cost_t *c) {
    const Cost &from = all[static_cast<std::size_t>(w)];
    *c = GDS_cost_t{from.calls, from.seconds, from.bytes};
  };
  out->elapsed = elapsed;
  put(Work::version, &out->versions);
  put(Work::restore, &out->restores);
  put(Work::cache, &out->cache);
  put(Work::redundancy, &out->redundancy);
  put(Work::flush, &out->flushes);
  put(Work::restart, &out->restarts);
  put(Work::tracking, &out->tracking);
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_reset_costs(void) try {
  GDS_ENTER();
  reset_costs();
  return GDS_STATUS_OK;
} GDS_API_CATCH

}  // extern "C"
