// GDS_init, GDS_finalize and the communicator queries.
#include "core/runtime.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/array.hpp"
#include "core/background.hpp"
#include "core/costs.hpp"
#include "core/datatypes.hpp"
#include "core/mpi_library.hpp"
#include "core/groups.hpp"
#include "core/log.hpp"
#include "core/module.hpp"
#include "core/mpi_args.hpp"
#include "core/phase.hpp"
#include "gds_runtime.h"

namespace gds::core {

Runtime g_rt{};

namespace {

int to_mpi_level(GDS_thread_support_t level) {
  switch (level) {
    case GDS_THREAD_SINGLE: return MPI_THREAD_SINGLE;
    case GDS_THREAD_FUNNELED: return MPI_THREAD_FUNNELED;
    case GDS_THREAD_SERIALIZED: return MPI_THREAD_SERIALIZED;
    case GDS_THREAD_MULTIPLE: return MPI_THREAD_MULTIPLE;
  }
  return MPI_THREAD_SINGLE;
}

GDS_thread_support_t from_mpi_level(int level) {
  if (level >= MPI_THREAD_MULTIPLE) return GDS_THREAD_MULTIPLE;
  if (level >= MPI_THREAD_SERIALIZED) return GDS_THREAD_SERIALIZED;
  if (level >= MPI_THREAD_FUNNELED) return GDS_THREAD_FUNNELED;
  return GDS_THREAD_SINGLE;
}

const char *level_name(GDS_thread_support_t level) {
  switch (level) {
    case GDS_THREAD_SINGLE: return "SINGLE";
    case GDS_THREAD_FUNNELED: return "FUNNELED";
    case GDS_THREAD_SERIALIZED: return "SERIALIZED";
    case GDS_THREAD_MULTIPLE: return "MULTIPLE";
  }
  return "?";
}

bool env_flag(const char *name) {
  std::uint64_t v = 0;
  env_unsigned(name, 1, &v);
  return v != 0;
}

void show_info(GDS_thread_support_t requested) {
  char mpi_version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(mpi_version, &len);
  char *newline = std::strchr(mpi_version, '\n');
  if (newline != nullptr) *newline = '\0';
  const Config &c = g_rt.config;
  log(Level::info, "GDS_init", "GDS %s, built %s %s with %s", GDS_VERSION_STRING, __DATE__,
      __TIME__, __VERSION__);
  log(Level::info, "GDS_init", "MPI: %s; %d processes; MPI %s by %s", mpi_version, g_rt.world_size,
      g_rt.owns_mpi ? "initialized" : "already initialized", g_rt.owns_mpi ? "GDS" : "the application");
  log(Level::info, "GDS_init", "threads: requested %s, provided %s", level_name(requested),
      level_name(g_rt.provided));
  log(Level::info, "GDS_init", "GDS_DEBUG_LEVEL=%d GDS_SHOW_INFO=1 GDS_SANITY_CHECK=%d GDS_HUGE_PAGES=%d",
      c.debug_level, c.sanity_check ? 1 : 0, c.huge_pages ? 1 : 0);
  const FailureGroups &g = failure_groups();
  log(Level::info, "GDS_init", "failure groups (nodes): %d, from %s; this process's node: %s", g.count, g.source,
      g.node.c_str());
  for (const Module *m : modules()) m->show_info();
}

}  // namespace

void env_unsigned(const char *name, std::uint64_t max, std::uint64_t *out) {
  const char *text = std::getenv(name);
  if (text == nullptr || *text == '\0') return;
  if (const std::optional<std::uint64_t> v = parse_unsigned(text, max)) {
    *out = *v;
    return;
  }
  log(Level::warning, "GDS_init", "%s=\"%s\" is not an integer in [0, %llu]; using %llu", name, text,
      static_cast<unsigned long long>(max), static_cast<unsigned long long>(*out));
}

Config read_config() {
  Config c;
  std::uint64_t level = 0;
  const char *gds = std::getenv("GDS_DEBUG_LEVEL");
  env_unsigned(gds != nullptr && *gds != '\0' ? "GDS_DEBUG_LEVEL" : "SCR_DEBUG", 2, &level);  // SCR's 0-2 alike
  c.debug_level = static_cast<int>(level);
  c.show_info = env_flag("GDS_SHOW_INFO");
  c.sanity_check = env_flag("GDS_SANITY_CHECK");
  c.print_costs = env_flag("GDS_PRINT_COSTS");
  c.huge_pages = env_flag("GDS_HUGE_PAGES");
  return c;
}

GDS_status_t entry_refused(const char *func) {
  if (!g_rt.initialized)
    return fail(GDS_STATUS_NOT_INITIALIZED, func, "GDS_init has not been called");
  if (g_rt.config.sanity_check && g_rt.provided < GDS_THREAD_SERIALIZED &&
      std::this_thread::get_id() != g_rt.init_thread)
    return fail(GDS_STATUS_WRONG_THREAD, func,
                "called from a thread other than the one that called GDS_init "
                "(thread level %s)",
                level_name(g_rt.provided));
  return GDS_STATUS_OK;
}

}  // namespace gds::core

using namespace gds::core;

extern "C" {

GDS_API GDS_status_t GDS_init(int *argc, char ***argv, GDS_thread_support_t requested,
                              GDS_thread_support_t *provided) try {
  if (g_rt.initialized)
    return fail(GDS_STATUS_ALREADY_INITIALIZED, __func__, "GDS_init has been called already");
  GDS_REQUIRE(provided != nullptr, GDS_STATUS_NULL_ARGUMENT, "provided_thread_support is NULL");
  GDS_REQUIRE(requested >= GDS_THREAD_SINGLE && requested <= GDS_THREAD_MULTIPLE,
              GDS_STATUS_INVALID, "requested_thread_support=%d is not a GDS_THREAD_* level",
              static_cast<int>(requested));
  g_rt.config = read_config();
  configure_steps();

  // GDS serializes nothing itself, so it never asks MPI for more than SERIALIZED.
  GDS_thread_support_t wanted = std::min(requested, GDS_THREAD_SERIALIZED);
  int finalized = 0, initialized = 0, mpi_provided = MPI_THREAD_SINGLE;
  MPI_Finalized(&finalized);
  GDS_REQUIRE(!finalized, GDS_STATUS_MPI_ERROR, "MPI has been finalized already");
  MPI_Initialized(&initialized);
  bool owns_mpi = false;
  if (!initialized) {
    prepare_open_mpi();
    if (const int rc = MPI_Init_thread(argc, argv, to_mpi_level(wanted), &mpi_provided); rc != MPI_SUCCESS) {
      finish_open_mpi_windows();
      return mpi_fail(__func__, "MPI_Init_thread", rc);
    }
    owns_mpi = true;
  } else {
    GDS_MPI(MPI_Query_thread(&mpi_provided));
  }

  MPI_Comm world = MPI_COMM_NULL;
  GDS_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &world));
  MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
  g_rt.world = world;
  g_rt.owns_mpi = owns_mpi;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rt.world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_rt.world_size);
  learn_open_mpi_window_files(world);
  g_rt.provided = std::min(wanted, from_mpi_level(mpi_provided));
  g_rt.init_thread = std::this_thread::get_id();
  init_element_types();
  FailureGroups groups;
  if (const GDS_status_t s = find_failure_groups(__func__, world, g_rt.world_rank, g_rt.world_size, &groups);
      s != GDS_STATUS_OK) {
    MPI_Comm_free(&g_rt.world);
    if (owns_mpi) {
      MPI_Finalize();
      finish_open_mpi_windows();
    }
    return s;
  }
  set_failure_groups(std::move(groups));
  reset_costs();
  for (Module *m : modules()) {
    m->configure();
    if (auto *r = dynamic_cast<Resilience *>(m)) set_resilience(r);
  }
  g_rt.initialized = true;
  *provided = g_rt.provided;

  if (g_rt.config.show_info && g_rt.world_rank == 0) show_info(requested);
  GDS_DEBUG("initialized: %d processes, thread level %s", g_rt.world_size, level_name(g_rt.provided));
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_finalize(void) try {
  GDS_ENTER();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) {
    // Nothing can be freed without MPI; GDS only stops accepting calls
    // (and its background work).
    Background::shutdown();
    g_rt.initialized = false;
    g_rt.world = MPI_COMM_NULL;
    return fail(GDS_STATUS_MPI_ERROR, __func__,
                "MPI was finalized before GDS_finalize; call GDS_finalize first");
  }
  GDS_status_t status = free_all_arrays(__func__);
  const std::span<Module *const> all = modules();
  for (std::size_t i = all.size(); i-- > 0;) all[i]->finalize();
  Background::shutdown();
  if (g_rt.config.print_costs) print_costs(g_rt.world_rank);
  set_resilience(nullptr);
  MPI_Comm_free(&g_rt.world);
  g_rt.initialized = false;
  if (g_rt.owns_mpi) {
    int rc = MPI_Finalize();
    g_rt.owns_mpi = false;
    if (rc != MPI_SUCCESS && status == GDS_STATUS_OK) status = mpi_fail(__func__, "MPI_Finalize", rc);
    finish_open_mpi_windows();
  }
  g_rt.world_rank = -1;
  g_rt.world_size = 0;
  return status;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_initialized(int *flag) try {
  GDS_REQUIRE(flag != nullptr, GDS_STATUS_NULL_ARGUMENT, "flag is NULL");
  *flag = g_rt.initialized ? 1 : 0;
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_comm_t GDS_comm_world(void) { return g_rt.world; }

GDS_API GDS_status_t GDS_failure_group(int rank, int *group, int *ngroups) try {
  GDS_ENTER();
  GDS_REQUIRE(group != nullptr, GDS_STATUS_NULL_ARGUMENT, "group is NULL");
  GDS_REQUIRE(rank >= 0 && rank < g_rt.world_size, GDS_STATUS_RANGE,
              "rank=%d is not a rank of GDS_COMM_WORLD (0 to %d)", rank, g_rt.world_size - 1);
  const FailureGroups &g = failure_groups();
  *group = g.of_rank[static_cast<std::size_t>(rank)];
  if (ngroups != nullptr) *ngroups = g.count;
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_comm_rank(GDS_comm_t comm, int *rank) try {
  GDS_ENTER();
  GDS_REQUIRE(rank != nullptr, GDS_STATUS_NULL_ARGUMENT, "rank is NULL");
  if (comm != g_rt.world) GDS_TRY(check_comm(__func__, comm, "comm"));
  GDS_MPI(MPI_Comm_rank(comm, rank));
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_comm_size(GDS_comm_t comm, int *size) try {
  GDS_ENTER();
  GDS_REQUIRE(size != nullptr, GDS_STATUS_NULL_ARGUMENT, "size is NULL");
  if (comm != g_rt.world) GDS_TRY(check_comm(__func__, comm, "comm"));
  GDS_MPI(MPI_Comm_size(comm, size));
  return GDS_STATUS_OK;
} GDS_API_CATCH

}  // extern "C"
