#include "core/groups.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <unordered_map>

#include "core/collective.hpp"
#include "core/log.hpp"
#include "core/mpi_args.hpp"
#include "core/runtime.hpp"

namespace gds::core {
namespace {

FailureGroups g_groups;

// "Is this environment variable set, and to what": -1 unset, -2 bad, else the value.
long long env_id(const char *name, std::uint64_t min, std::uint64_t max) {
  const char *text = std::getenv(name);
  if (text == nullptr || *text == '\0') return -1;
  const std::optional<std::uint64_t> v = parse_unsigned(text, max);
  if (!v || *v < min) {
    log(Level::warning, "GDS_init", "%s=\"%s\" is not an integer in [%llu, %llu]; ignored", name, text,
        static_cast<unsigned long long>(min), static_cast<unsigned long long>(max));
    return -2;
  }
  return static_cast<long long>(*v);
}

}  // namespace

GDS_status_t find_failure_groups(const char *func, MPI_Comm world, int rank, int size, FailureGroups *out) {
  // Every process's GDS_NODE_ID and GDS_RANKS_PER_NODE, so all decide alike.
  long long mine[2] = {env_id("GDS_NODE_ID", 0, INT_MAX), env_id("GDS_RANKS_PER_NODE", 1, INT_MAX)};
  std::vector<long long> all(2 * static_cast<std::size_t>(size));
  int rc = allgather(mine, 2, MPI_LONG_LONG, all.data(), 2, MPI_LONG_LONG, world);
  if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Allgather", rc);
  const auto column = [&](int c) {
    std::vector<long long> v(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) v[static_cast<std::size_t>(r)] = all[2 * static_cast<std::size_t>(r) + c];
    return v;
  };
  const std::vector<long long> ids = column(0), per_node = column(1);
  const auto all_set = [](const std::vector<long long> &v) {
    return std::all_of(v.begin(), v.end(), [](long long x) { return x >= 0; });
  };
  const auto none_set = [](const std::vector<long long> &v) {
    return std::all_of(v.begin(), v.end(), [](long long x) { return x == -1; });
  };

  // The processes sharing this host's memory (the versions' default budget divides it among them).
  int host_processes = 1;
  {
    MPI_Comm host = MPI_COMM_NULL;
    rc = MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host);
    if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Comm_split_type", rc);
    rc = MPI_Comm_size(host, &host_processes);
    MPI_Comm_free(&host);
    if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Comm_size", rc);
  }

  std::vector<long long> key(static_cast<std::size_t>(size));
  const char *source = "host";
  if (all_set(ids)) {
    key = ids;
    source = "GDS_NODE_ID";
  } else {
    if (!none_set(ids) && rank == 0)
      log(Level::warning, func, "GDS_NODE_ID is not set to a valid value on every process; ignored");
    const bool same = all_set(per_node) && std::all_of(per_node.begin(), per_node.end(),
                                                       [&](long long x) { return x == per_node[0]; });
    if (same) {
      for (int r = 0; r < size; ++r) key[static_cast<std::size_t>(r)] = r / per_node[0];
      source = "GDS_RANKS_PER_NODE";
    } else {
      if (!none_set(per_node) && rank == 0)
        log(Level::warning, func, "GDS_RANKS_PER_NODE is not set to one valid value on every process; ignored");
      // The host: the lowest world rank among the processes sharing memory.
      MPI_Comm node = MPI_COMM_NULL;
      rc = MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
      if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Comm_split_type", rc);
      long long lowest = rank;
      rc = allreduce(MPI_IN_PLACE, &lowest, 1, MPI_LONG_LONG, MPI_MIN, node);
      MPI_Comm_free(&node);
      if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Allreduce", rc);
      rc = allgather(&lowest, 1, MPI_LONG_LONG, key.data(), 1, MPI_LONG_LONG, world);
      if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Allgather", rc);
    }
  }

  // Dense numbers, in the order of each group's lowest world rank.
  std::unordered_map<long long, int> number;
  FailureGroups g;
  g.of_rank.resize(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    const auto [it, added] = number.try_emplace(key[static_cast<std::size_t>(r)], static_cast<int>(number.size()));
    g.of_rank[static_cast<std::size_t>(r)] = it->second;
  }
  g.count = static_cast<int>(number.size());
  g.mine = g.of_rank[static_cast<std::size_t>(rank)];
  g.source = source;
  g.host_processes = host_processes;
  *out = std::move(g);
  return GDS_STATUS_OK;
}

const FailureGroups &failure_groups() { return g_groups; }
void set_failure_groups(FailureGroups groups) { g_groups = std::move(groups); }

}  // namespace gds::core
