// What the persistence test programs (persist_app, persist_random_app) share:
// failure messages counted per process, the mixing function their models are
// built from, and the status names the drivers expect.
#pragma once

#include <gds.h>

#include <cstdint>
#include <cstdio>
#include <string>

namespace persist_apps {

inline const char *g_program = "persist";  // set by main
inline int g_rank = 0;
inline int g_failures = 0;

// A splitmix64 finalizer: a pseudo-random function of x, the same everywhere.
inline std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

inline std::string status_name(GDS_status_t s) {
  switch (s) {
    case GDS_STATUS_OK: return "GDS_STATUS_OK";
    case GDS_STATUS_INVALID: return "GDS_STATUS_INVALID";
    case GDS_STATUS_INVALID_INFO: return "GDS_STATUS_INVALID_INFO";
    case GDS_STATUS_IO_ERROR: return "GDS_STATUS_IO_ERROR";
    case GDS_STATUS_CORRUPT: return "GDS_STATUS_CORRUPT";
    case GDS_STATUS_UNRECOVERABLE: return "GDS_STATUS_UNRECOVERABLE";
    case GDS_STATUS_REMOTE_ERROR: return "GDS_STATUS_REMOTE_ERROR";
    default: return "status " + std::to_string(static_cast<int>(s));
  }
}

}  // namespace persist_apps

// Reports a failed check on this process ("<program>: rank N: ...") and counts it.
#define FAIL(...)                                                                             \
  do {                                                                                        \
    std::fprintf(stderr, "%s: rank %d: ", persist_apps::g_program, persist_apps::g_rank);     \
    std::fprintf(stderr, __VA_ARGS__);                                                        \
    std::fprintf(stderr, "\n");                                                               \
    ++persist_apps::g_failures;                                                               \
  } while (0)
