// What the resilience work costs this process, accounted in one place that
// GDS_get_costs, GDS_PRINT_COSTS (at GDS_finalize), the interval guidance
// and the benchmarks all read: per kind of work, calls, seconds inside them
// (on the application's thread) and bytes (from any thread: the background
// writes add theirs).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

namespace gds::core {

enum class Work : int { version, restore, cache, redundancy, flush, restart, tracking };
inline constexpr int kWorks = 7;

// Seconds of a steady clock.
double now();

struct Cost {
  std::uint64_t calls = 0;
  double seconds = 0;
  std::uint64_t bytes = 0;
};

// This process's costs of each kind so far, and the seconds since GDS_init
// (or the last reset).
std::array<Cost, kWorks> costs(double *elapsed);
void reset_costs();
// Prints this process's costs to stderr, a line per kind of work
// (GDS_PRINT_COSTS=1 at GDS_finalize).
void print_costs(int rank);
// Bytes of work `w`, from any thread.
void add_bytes(Work w, std::uint64_t bytes);
// One call (or operation) of work `w` that is not timed (the application's thread).
void add_call(Work w);

// Time of work `w` on the application's thread: its seconds added when the
// scope ends, and (with `count`) a call counted. Nested scopes of the same
// work count once.
class Timed {
 public:
  explicit Timed(Work w, bool count = true);
  ~Timed();
  Timed(const Timed &) = delete;
  Timed &operator=(const Timed &) = delete;
  // Seconds since the scope began.
  [[nodiscard]] double elapsed() const { return now() - start_; }

 private:
  Work w_;
  double start_;
  bool outer_;
};

}  // namespace gds::core
