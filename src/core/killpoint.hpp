// Kill points: named places in GDS's multi-step collectives where a test can
// have this process killed (SIGKILL, as a crash would), to check that what a
// crash there leaves behind is never taken for complete.
//
// GDS_TEST_KILL=<name>:<n> (read at GDS_init) kills the process the n-th time
// it reaches the kill point <name> (n >= 1). Names are the phases of
// GDS_version_inc ("settle" ... "commit") and of the persistent cache
// ("cache.write", "cache.redundancy", "cache.agree", "cache.record",
// "cache.drop"). Without the variable a kill point is one predictable branch.
#pragma once

namespace gds::core {

void configure_kill_point();
void kill_point_reached(const char *name);

extern bool g_kill_point_armed;
inline void kill_point(const char *name) {
  if (g_kill_point_armed) [[unlikely]] kill_point_reached(name);
}

}  // namespace gds::core
