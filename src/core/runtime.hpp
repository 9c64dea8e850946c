// Process-wide state of the library: initialization, configuration, GDS_COMM_WORLD.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <thread>

#include "gds_types.h"

namespace gds::core {

// Core's settings, read from the environment at GDS_init() (the modules read their own).
struct Config {
  int debug_level = 0;        // GDS_DEBUG_LEVEL: 0, 1 or 2
  bool show_info = false;     // GDS_SHOW_INFO
  bool sanity_check = false;  // GDS_SANITY_CHECK
  bool print_costs = false;   // GDS_PRINT_COSTS: each process prints its costs at GDS_finalize
  bool huge_pages = false;    // GDS_HUGE_PAGES: GDS's own memory asks for transparent huge pages
};

struct Runtime {
  bool initialized = false;
  bool owns_mpi = false;  // GDS_init() called MPI_Init_thread(), GDS_finalize() ends MPI
  MPI_Comm world = MPI_COMM_NULL;
  int world_rank = -1;  // in MPI_COMM_WORLD; -1 before GDS_init()
  int world_size = 0;
  GDS_thread_support_t provided = GDS_THREAD_SINGLE;
  std::thread::id init_thread{};
  Config config{};
};

extern Runtime g_rt;

// The slow part of GDS_ENTER: why the call may not proceed.
GDS_status_t entry_refused(const char *func);

// Config from the environment; bad values are reported and replaced by defaults.
Config read_config();

// Reads an unsigned integer environment variable into *out if it is set to
// one in [0, max]; any other value is reported and *out kept.
void env_unsigned(const char *name, std::uint64_t max, std::uint64_t *out);

}  // namespace gds::core

// First statement of every entry point that needs GDS_init(): refuses calls
// before initialization and, with GDS_SANITY_CHECK, from threads the thread
// level does not allow.
#define GDS_ENTER()                                                                   \
  do {                                                                                \
    if (!::gds::core::g_rt.initialized || ::gds::core::g_rt.config.sanity_check)      \
        [[unlikely]] {                                                                \
      GDS_status_t gds_enter_status_ = ::gds::core::entry_refused(__func__);          \
      if (gds_enter_status_ != GDS_STATUS_OK) return gds_enter_status_;               \
    }                                                                                 \
  } while (0)
