// Phases: the steps of GDS's multi-step collectives (GDS_version_inc, a
// cached version's commit, a flush to the prefix, a restart). Each phase ends
// with a status every process agrees on (redset's alltrue after every step),
// so that all processes go on to the next phase or all stop, and a test can
// stop a job between any two. Phase keeps that rule in one place: its end
// runs, in this order,
//   1. its kill point: GDS_TEST_KILL=<phase>:<n> (read at GDS_init) kills
//      this process there (SIGKILL, as a crash would) the n-th time;
//   2. an injected failure: GDS_TEST_FAIL=<phase>:<n> (read at GDS_init),
//      or GDS_inject_fault(GDS_FAULT_VERSION_PHASE) for GDS_version_inc's
//      phases, makes this process's status GDS_STATUS_MPI_ERROR there;
//   3. the agreement (core::agree) on every process's status and values.
// A Point is a kill point that ends no phase (a background job's step, the
// local step after a phase's last agreement): only 1 runs there.
//
// Each module names its phases and points (Module::steps()), so tests
// enumerate them rather than keep a list of their own (tests/list_steps,
// tests/test_phases.cpp).
//
// Where one agreement ends the phases of several operations in flight (the
// cache's units, cache_pipeline.cpp), each reaches its phase, then the
// caller agrees once for all of them.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gds_types.h"

namespace gds::core {

// A named place in a protocol: a phase's end (agreed) or a point.
class Step {
 public:
  // `name`: the kill point's and injection's name ("cache.durable");
  // `after`: what holds on every process once the step is passed.
  constexpr Step(const char *name, const char *after, bool agreed) : name_(name), after_(after), agreed_(agreed) {}
  [[nodiscard]] constexpr const char *name() const { return name_; }
  [[nodiscard]] constexpr const char *after() const { return after_; }
  [[nodiscard]] constexpr bool agreed() const { return agreed_; }

 protected:
  const char *name_;
  const char *after_;
  bool agreed_;
};

class Point final : public Step {
 public:
  constexpr Point(const char *name, const char *after) : Step(name, after, false) {}
  // The kill point.
  void reach() const;
};

class Phase final : public Step {
 public:
  constexpr Phase(const char *name, const char *after) : Step(name, after, true) {}
  // The phase's local work is over on this process: its kill point, then
  // an injected failure, which becomes the status if `local` is OK. For a
  // phase whose agreement is a collective of its own (it must agree on the
  // result, as end() does).
  [[nodiscard]] GDS_status_t reach(const char *func, GDS_status_t local) const;
  // reach(), then the agreement over `comm` (core::agree, with `values`:
  // each becomes its maximum over the processes).
  [[nodiscard]] GDS_status_t end(const char *func, MPI_Comm comm, GDS_status_t local,
                                 std::span<std::uint64_t> values = {}, std::uint64_t signature = 0) const;
};

// GDS_init: reads GDS_TEST_KILL and GDS_TEST_FAIL (a name that no module's
// steps have is warned about and ignored).
void configure_steps();
// The steps of every module (core's and each Module's steps()), in protocol order per module.
std::vector<const Step *> all_steps();

// Arms a failure of phase `name` the n-th time this process reaches it
// (GDS_inject_fault; nullptr cancels).
void inject_failure(const char *name, std::uint64_t n = 1);
// Whether an armed failure has not happened yet (for tests).
bool failure_armed();

}  // namespace gds::core
