// One helper thread for work off the application's path that makes no MPI
// call (today: faulting in memory for the next versions), so it is allowed
// whatever thread level MPI was given. Jobs run one at a time, in the order
// submitted; every wait is explicit.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

namespace gds::core {

class Background {
 public:
  using Ticket = std::uint64_t;  // 0: no job
  // A job gets a flag it should look at now and then: set, it stops early.
  using Job = std::function<void(const std::atomic<bool> &stop)>;

  // Queues a job; the thread starts with the first one.
  static Ticket submit(Job job);
  // Returns once job `t` (and every job before it) has finished.
  static void wait(Ticket t);
  // Asks job `t` to stop early (if it has not finished), then waits for it.
  static void stop_and_wait(Ticket t);
  // GDS_finalize: waits for every job and ends the thread.
  static void shutdown();
};

}  // namespace gds::core
