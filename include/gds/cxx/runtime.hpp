/// \file runtime.hpp
/// \brief gds::runtime: GDS_init and GDS_finalize as an object.
#ifndef GDS_CXX_RUNTIME_HPP
#define GDS_CXX_RUNTIME_HPP

#include "../gds.h"
#include "error.hpp"

namespace gds {

/// Thread support asked of GDS_init() (GDS_thread_support_t).
enum class thread_level : int {
  single = GDS_THREAD_SINGLE,
  funneled = GDS_THREAD_FUNNELED,
  serialized = GDS_THREAD_SERIALIZED,
  multiple = GDS_THREAD_MULTIPLE,
};

/// Initializes GDS (and MPI, if the program has not) for its lifetime.
/// One per process; construction and destruction are collective over
/// MPI_COMM_WORLD. Arrays must be destroyed before it.
class runtime {
 public:
  /// GDS_init() without the program's arguments; starts MPI if it is not running.
  explicit runtime(thread_level requested = thread_level::single) : runtime(nullptr, nullptr, requested) {}
  /// GDS_init() with the program's arguments; starts MPI if it is not running.
  runtime(int *argc, char ***argv, thread_level requested = thread_level::single) {
    GDS_thread_support_t provided = GDS_THREAD_SINGLE;
    detail::check(GDS_init(argc, argv, static_cast<GDS_thread_support_t>(requested), &provided));
    provided_ = static_cast<thread_level>(provided);
  }
  runtime(const runtime &) = delete;
  runtime &operator=(const runtime &) = delete;
  /// Calls GDS_finalize(); a failure is printed by GDS, not thrown.
  ~runtime() {
    int initialized = 0;
    GDS_initialized(&initialized);
    if (initialized) static_cast<void>(GDS_finalize());
  }

  /// Finalizes now, throwing on failure.
  void finalize() { detail::check(GDS_finalize()); }

  /// The thread level GDS provides.
  [[nodiscard]] thread_level provided() const noexcept { return provided_; }

  /// This process's rank in `comm`.
  [[nodiscard]] static int rank(GDS_comm_t comm = GDS_COMM_WORLD) {
    int r = 0;
    detail::check(GDS_comm_rank(comm, &r));
    return r;
  }
  /// The number of processes in `comm`.
  [[nodiscard]] static int size(GDS_comm_t comm = GDS_COMM_WORLD) {
    int s = 0;
    detail::check(GDS_comm_size(comm, &s));
    return s;
  }

 private:
  thread_level provided_ = thread_level::single;
};

/// Whether the job should stop now, right after a persisted version
/// (GDS_should_exit(): a halt file or too little time left, and the newest
/// version persisted). Call it after each version and leave the loop when it
/// is true; a relaunch with the same job id resumes from that version.
/// Collective over GDS_COMM_WORLD; the same answer on every process.
[[nodiscard]] inline bool should_exit() {
  int flag = 0;
  detail::check(GDS_should_exit(&flag));
  return flag != 0;
}

/// What resilience cost this process so far (GDS_get_costs()): calls,
/// seconds and bytes of versions, restores, cache writes, redundancy,
/// flushes and restarts.
[[nodiscard]] inline GDS_costs_t costs() {
  GDS_costs_t c{};
  detail::check(GDS_get_costs(&c));
  return c;
}

/// Starts this process's cost accounts afresh (GDS_reset_costs()).
inline void reset_costs() { detail::check(GDS_reset_costs()); }

}  // namespace gds

#endif  // GDS_CXX_RUNTIME_HPP
