// GDS_should_exit (SCR's SCR_Should_exit): whether the job should stop now,
// agreed by every process. A halt condition (a halt file, or too little
// time before the allocation ends) holds on some process, AND the job's
// newest version is persisted: every array that persists has its newest
// version at every level it is configured for (the cache's and the
// prefix's schedules, GDS_CACHE_EVERY and GDS_FLUSH), and what of it is in
// flight is complete. A program that calls this after each version and
// leaves its loop when it says so therefore stops right after a version a
// relaunch resumes from.
//
// Read at every call (cheap next to the one allreduce, and a launcher or a
// test may change them between calls):
//   GDS_HALT_FILE     a path; the condition holds while it exists. Unset or
//                     empty: no halt file
//   GDS_END_TIME      seconds since 1970 when the allocation ends (gds-run
//                     sets it); unset or empty: no time limit
//   GDS_HALT_SECONDS  the condition holds once fewer seconds than this are
//                     left before GDS_END_TIME; default 300
// (SCR_END_TIME and SCR_HALT_SECONDS where the GDS ones are not set.)
#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <string>

#include "core/array.hpp"
#include "core/collective.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"
#include "persist/cache.hpp"
#include "persist/prefix_level.hpp"
#include "persist/state.hpp"
#include "versions/state.hpp"

namespace gds::persist {

namespace {

constexpr std::uint64_t kDefaultHaltSeconds = 300;

// A variable holding an integer in [lo, hi]; unset or empty: *out untouched.
Result env_integer(const char *name, long long lo, long long hi, long long *out) {
  const char *text = std::getenv(name);
  if (text == nullptr || *text == '\0') return {};
  errno = 0;
  char *end = nullptr;
  const bool digit_first = *text >= '0' && *text <= '9';  // strtoll would take blanks and signs
  const long long v = std::strtoll(text, &end, 10);
  if (!digit_first || errno != 0 || *end != '\0' || v < lo || v > hi)
    return Result::failure(GDS_STATUS_INVALID, std::string(name) + "=\"" + text + "\" is not an integer from " +
                                                   std::to_string(lo) + " to " + std::to_string(hi));
  *out = v;
  return {};
}

// GDS_<name>, else SCR's SCR_<name> (set by a job script written for SCR), as env_integer reads them.
Result env_integer_or_scr(const char *name, long long lo, long long hi, long long *out) {
  const std::string gds = std::string("GDS_") + name, scr = std::string("SCR_") + name;
  const char *given = std::getenv(gds.c_str());
  return env_integer(given != nullptr && *given != '\0' ? gds.c_str() : scr.c_str(), lo, hi, out);
}

// Whether a halt condition holds on this process.
Result halt_condition(bool *halt) {
  long long end_time = -1, seconds = static_cast<long long>(kDefaultHaltSeconds);
  PERSIST_TRY(env_integer_or_scr("END_TIME", 0, LLONG_MAX / 2, &end_time));
  PERSIST_TRY(env_integer_or_scr("HALT_SECONDS", 0, LLONG_MAX / 2, &seconds));
  *halt = end_time >= 0 && static_cast<long long>(std::time(nullptr)) + seconds >= end_time;
  if (*halt) return {};
  const char *file = std::getenv("GDS_HALT_FILE");
  struct stat st;
  *halt = file != nullptr && *file != '\0' && ::stat(file, &st) == 0;
  return {};
}

// Whether the array's newest version went to every level it persists to
// (the same on every process of the array: the schedules are agreed). No
// version made yet: nothing is persisted.
bool newest_scheduled(core::Array &a) {
  const ArrayState &s = state(a);
  if (!s.persistent() && !s.flushing()) return true;
  const versions::ArrayState &v = versions::state(a);
  if (v.current == 0 && !v.restarted) return false;
  if (s.persistent() && s.cacher->since_cached != 0) return false;
  // A prefix whose agreements failed makes no more flushes: waiting for one
  // would never end (flush_wait reports the failure instead); nor does one
  // without periodic flushes (GDS_FLUSH=0, SCR_FLUSH=0).
  return !s.flushing() || !s.flusher || s.flusher->broken || s.flush == 0 || s.flusher->since == 0;
}

// Completes the arrays' cached versions and flushes in flight, in creation
// order (every process meets the arrays it shares in the same order).
GDS_status_t complete_persisted(const char *func) {
  GDS_status_t status = GDS_STATUS_OK;
  for (core::Array *a : core::arrays_in_creation_order()) {
    const ArrayState &s = state(*a);
    if (s.persistent() && status == GDS_STATUS_OK) status = cache_wait(func, *a);
    if (s.flushing() && status == GDS_STATUS_OK) status = flush_wait(func, *a);
  }
  return status;
}

}  // namespace

}  // namespace gds::persist

using namespace gds::core;

extern "C" {

GDS_API GDS_status_t GDS_should_exit(int *flag) try {
  GDS_ENTER();
  const char *func = __func__;
  if (flag != nullptr) *flag = 0;
  GDS_status_t local = flag != nullptr ? GDS_STATUS_OK : fail(GDS_STATUS_NULL_ARGUMENT, func, "flag is NULL");
  bool halt = false;
  if (local == GDS_STATUS_OK) local = gds::persist::halt_condition(&halt).report(func);
  // Every process looks at its arrays, so that the halt seen by one waits for all of them.
  bool scheduled = true;
  for (Array *a : arrays_in_creation_order()) scheduled = scheduled && gds::persist::newest_scheduled(*a);
  // values[0]: a halt condition holds somewhere; values[1]: some process's newest version is not persisted.
  std::uint64_t values[2] = {halt ? 1u : 0u, scheduled ? 0u : 1u};
  GDS_TRY(agree(func, g_rt.world, local, values));
  if (values[0] == 0 || values[1] != 0) return GDS_STATUS_OK;
  GDS_TRY(agree(func, g_rt.world, gds::persist::complete_persisted(func)));
  gds::persist::job_halted();  // to be resumed: not finished
  *flag = 1;
  return GDS_STATUS_OK;
} GDS_API_CATCH

}  // extern "C"
