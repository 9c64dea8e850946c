// Helper threads for work off the application's path that makes no MPI
// call, so they are allowed whatever thread level MPI was given: one per
// lane, so that a long flush never delays the memory the next version needs,
// nor removing old files the next flush.
// On a lane jobs run one at a time, in the order submitted; every wait is
// explicit.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

namespace gds::core {

enum class Lane {
  memory,   // faulting in memory for the next versions
  flush,    // writing versions to the prefix (file I/O only)
  cleanup,  // removing old flushes (file I/O only; slow on some file systems)
  cache,    // writing cached versions' files (file I/O only)
};
inline constexpr int kLanes = 4;

class Background {
 public:
  using Ticket = std::uint64_t;  // 0: no job; tickets count per lane
  // A job gets a flag it should look at now and then: set, it stops early.
  using Job = std::function<void(const std::atomic<bool> &stop)>;

  // Queues a job; the thread starts with the first one.
  static Ticket submit(Job job, Lane lane = Lane::memory);
  // Returns once job `t` (and every job before it on its lane) has finished.
  static void wait(Ticket t, Lane lane = Lane::memory);
  // Whether job `t` of the lane has finished (without waiting).
  static bool finished(Ticket t, Lane lane = Lane::memory);
  // Asks job `t` to stop early (if it has not finished), then waits for it.
  static void stop_and_wait(Ticket t, Lane lane = Lane::memory);
  // GDS_finalize: waits for every job and ends the threads.
  static void shutdown();
};

}  // namespace gds::core
