#include "core/killpoint.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "core/log.hpp"
#include "core/mpi_args.hpp"

namespace gds::core {

bool g_kill_point_armed = false;

namespace {
std::string g_name;
std::uint64_t g_left = 0;
}  // namespace

void configure_kill_point() {
  g_kill_point_armed = false;
  const char *v = std::getenv("GDS_TEST_KILL");
  if (v == nullptr || *v == '\0') return;
  const char *colon = std::strrchr(v, ':');
  const std::optional<std::uint64_t> n = colon != nullptr ? parse_unsigned(colon + 1) : std::nullopt;
  if (colon == nullptr || colon == v || !n || *n == 0) {
    log(Level::warning, "GDS_init", "GDS_TEST_KILL=%s is not <kill point>:<n> with n >= 1; ignored", v);
    return;
  }
  g_name.assign(v, static_cast<std::size_t>(colon - v));
  g_left = *n;
  g_kill_point_armed = true;
}

void kill_point_reached(const char *name) {
  if (g_name != name || --g_left != 0) return;
  log(Level::warning, "GDS_TEST_KILL", "killing this process at kill point %s", name);
  ::kill(::getpid(), SIGKILL);
}

}  // namespace gds::core
