#include "core/phase.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "core/collective.hpp"
#include "core/log.hpp"
#include "core/module.hpp"
#include "core/mpi_args.hpp"

namespace gds::core {

namespace {

// A step armed by GDS_TEST_KILL or GDS_TEST_FAIL: its name and how many more times it is reached first.
struct Armed {
  std::string name;
  std::uint64_t left = 0;
  std::uint64_t delay_ms = 0;  // GDS_TEST_KILL: how long the process lives on after reaching the point
  [[nodiscard]] bool armed() const { return left > 0; }
  // Whether this is the time: the n-th reach of the step named `step`.
  bool hit(const char *step) {
    if (left == 0 || name != step) return false;
    return --left == 0;
  }
};

Armed g_kill, g_fail;

// <name>:<n> with n >= 1, naming one of the modules' steps (`agreed`: a
// phase); GDS_TEST_KILL also takes <name>:<n>:<milliseconds>.
Armed parse(const char *variable, bool phases_only) {
  const char *v = std::getenv(variable);
  if (v == nullptr || *v == '\0') return {};
  const char *colon = std::strchr(v, ':');
  const char *second = colon != nullptr ? std::strchr(colon + 1, ':') : nullptr;
  const std::string count = colon == nullptr ? "" : second == nullptr ? std::string(colon + 1)
                                                                      : std::string(colon + 1, second);
  const std::optional<std::uint64_t> n = parse_unsigned(count.c_str());
  const std::optional<std::uint64_t> delay = second != nullptr ? parse_unsigned(second + 1) : std::uint64_t{0};
  if (colon == nullptr || colon == v || !n || *n == 0 || !delay || *delay > 60000 || (second != nullptr && phases_only)) {
    log(Level::warning, "GDS_init", "%s=%s is not <step>:<n>%s with n >= 1; ignored", variable, v,
        phases_only ? "" : "[:<milliseconds up to 60000>]");
    return {};
  }
  Armed a{std::string(v, static_cast<std::size_t>(colon - v)), *n, *delay};
  for (const Step *s : all_steps())
    if (a.name == s->name() && (s->agreed() || !phases_only)) return a;
  log(Level::warning, "GDS_init", "%s=%s names no %s of GDS (tests/list_steps lists them); ignored", variable, v,
      phases_only ? "phase" : "step");
  return {};
}

void kill_if_armed(const char *name) {
  if (!g_kill.hit(name)) [[likely]]
    return;
  log(Level::warning, "GDS_TEST_KILL", "killing this process at kill point %s", name);
  if (g_kill.delay_ms > 0) ::usleep(static_cast<useconds_t>(g_kill.delay_ms * 1000));  // the others go on meanwhile
  ::kill(::getpid(), SIGKILL);
}

}  // namespace

void Point::reach() const { kill_if_armed(name_); }

GDS_status_t Phase::reach(const char *func, GDS_status_t local) const {
  kill_if_armed(name_);
  if (!g_fail.hit(name_)) [[likely]]
    return local;
  // Asked for by the program or the test: a warning, not an ERROR line a handler cannot take back.
  log(Level::warning, func, "injected failure in phase %s", name_);
  const GDS_status_t injected = fail(GDS_STATUS_MPI_ERROR, func, "injected failure in phase %s", name_);
  return local != GDS_STATUS_OK ? local : injected;
}

GDS_status_t Phase::end(const char *func, MPI_Comm comm, GDS_status_t local, std::span<std::uint64_t> values,
                        std::uint64_t signature) const {
  return agree(func, comm, reach(func, local), values, signature);
}

void configure_steps() {
  g_kill = parse("GDS_TEST_KILL", false);
  g_fail = parse("GDS_TEST_FAIL", true);
}

std::vector<const Step *> all_steps() {
  std::vector<const Step *> all;
  for (const Module *m : modules())
    for (const Step *s : m->steps()) all.push_back(s);
  return all;
}

void inject_failure(const char *name, std::uint64_t n) {
  g_fail = name == nullptr ? Armed{} : Armed{name, n};
}

bool failure_armed() { return g_fail.armed(); }

}  // namespace gds::core
