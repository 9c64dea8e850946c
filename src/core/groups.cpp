#include "core/groups.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <unordered_map>

#include <unistd.h>

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

// This process's Slurm node (SLURMD_NODENAME, set by slurmd in every task
// it starts, so also in the processes an mpiexec inside an allocation starts
// through srun), or "" outside Slurm.
std::string slurm_node() {
  const char *name = std::getenv("SLURMD_NODENAME");
  return name != nullptr ? std::string(name) : std::string();
}

// A node name as a key the processes can compare by one 64-bit word (FNV-1a,
// top bit clear: a key is never negative). Distinct names of one job
// colliding is a 1 in 2^63 chance per pair.
long long name_key(const std::string &name) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const unsigned char c : name) h = (h ^ c) * 0x100000001b3ULL;
  return static_cast<long long>(h >> 1);
}

std::string host_name() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) return "host";
  std::string h(host);
  return h.substr(0, h.find('.'));
}

}  // namespace

GDS_status_t find_failure_groups(const char *func, MPI_Comm world, int rank, int size, FailureGroups *out) {
  // The processes sharing this host's memory: how many (the versions'
  // default budget divides the host among them) and the lowest world rank
  // of them (the host's key).
  int host_processes = 1;
  long long host = rank;
  {
    MPI_Comm shared = MPI_COMM_NULL;
    int rc = MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared);
    if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Comm_split_type", rc);
    rc = MPI_Comm_size(shared, &host_processes);
    if (rc == MPI_SUCCESS) rc = allreduce(MPI_IN_PLACE, &host, 1, MPI_LONG_LONG, MPI_MIN, shared);
    MPI_Comm_free(&shared);
    if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Allreduce", rc);
  }
  // Every process's GDS_NODE_ID, GDS_RANKS_PER_NODE, Slurm node and host, so
  // that all decide alike (the groups need every process's: 32 bytes a
  // process, once, at GDS_init).
  const std::string slurm = slurm_node();
  constexpr int kWords = 4;
  long long mine[kWords] = {env_id("GDS_NODE_ID", 0, INT_MAX), env_id("GDS_RANKS_PER_NODE", 1, INT_MAX),
                            slurm.empty() ? -1 : name_key(slurm), host};
  std::vector<long long> all(kWords * static_cast<std::size_t>(size));
  const int rc = allgather(mine, kWords, MPI_LONG_LONG, all.data(), kWords, MPI_LONG_LONG, world);
  if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Allgather", rc);
  const auto column = [&](int c) {
    std::vector<long long> v(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) v[static_cast<std::size_t>(r)] = all[kWords * static_cast<std::size_t>(r) + c];
    return v;
  };
  const std::vector<long long> ids = column(0), per_node = column(1), slurm_keys = column(2), hosts = column(3);
  const auto all_set = [](const std::vector<long long> &v) {
    return std::all_of(v.begin(), v.end(), [](long long x) { return x >= 0; });
  };
  const auto none_set = [](const std::vector<long long> &v) {
    return std::all_of(v.begin(), v.end(), [](long long x) { return x == -1; });
  };

  std::vector<long long> key(static_cast<std::size_t>(size));
  const char *source = "host";
  std::string node;
  if (all_set(ids)) {
    key = ids;
    source = "GDS_NODE_ID";
    node = "node" + std::to_string(ids[static_cast<std::size_t>(rank)]);
  } else {
    if (!none_set(ids) && rank == 0)
      log(Level::warning, func, "GDS_NODE_ID is not set to a valid value on every process; ignored");
    const bool same = all_set(per_node) && std::all_of(per_node.begin(), per_node.end(),
                                                       [&](long long x) { return x == per_node[0]; });
    if (!same && !none_set(per_node) && rank == 0)
      log(Level::warning, func, "GDS_RANKS_PER_NODE is not set to one valid value on every process; ignored");
    if (same) {
      for (int r = 0; r < size; ++r) key[static_cast<std::size_t>(r)] = r / per_node[0];
      source = "GDS_RANKS_PER_NODE";
      node = "node" + std::to_string(rank / per_node[0]);
    } else if (all_set(slurm_keys)) {
      // The Slurm node and the host together: a node name an mpiexec passed
      // on to every process it started (its own, from a batch script) puts
      // processes of several hosts in one node only if the hosts agree.
      for (std::size_t r = 0; r < key.size(); ++r)
        key[r] = static_cast<long long>((static_cast<std::uint64_t>(slurm_keys[r]) * 0x9e3779b97f4a7c15ULL ^
                                         static_cast<std::uint64_t>(hosts[r])) >> 1);
      source = "Slurm";
      node = slurm;
    } else {
      if (!none_set(slurm_keys) && rank == 0)
        log(Level::warning, func, "SLURMD_NODENAME is set on some processes only (a launch that mixes Slurm tasks "
            "and others?); the failure groups follow the hosts");
      key = hosts;
      node = host_name();
    }
  }

  // Dense numbers, in the order of each group's lowest world rank.
  std::unordered_map<long long, int> number;
  FailureGroups g;
  g.of_rank.resize(static_cast<std::size_t>(size));
  g.host_of_rank = hosts;
  for (int r = 0; r < size; ++r) {
    const auto [it, added] = number.try_emplace(key[static_cast<std::size_t>(r)], static_cast<int>(number.size()));
    g.of_rank[static_cast<std::size_t>(r)] = it->second;
  }
  g.count = static_cast<int>(number.size());
  g.mine = g.of_rank[static_cast<std::size_t>(rank)];
  g.source = source;
  g.host_processes = host_processes;
  g.node = std::move(node);
  *out = std::move(g);
  return GDS_STATUS_OK;
}

const FailureGroups &failure_groups() { return g_groups; }
void set_failure_groups(FailureGroups groups) { g_groups = std::move(groups); }

GDS_status_t groups_of(const char *func, MPI_Comm comm, std::vector<int> *groups, std::vector<long long> *hosts) {
  int n = 0;
  MPI_Comm_size(comm, &n);
  const auto count = static_cast<std::size_t>(n);
  groups->assign(count, 0);
  hosts->assign(count, 0);
  std::vector<int> ranks(count), world(count, MPI_UNDEFINED);
  for (int i = 0; i < n; ++i) ranks[static_cast<std::size_t>(i)] = i;
  MPI_Group in = MPI_GROUP_NULL, all = MPI_GROUP_NULL;
  if (g_rt.world != MPI_COMM_NULL && MPI_Comm_group(comm, &in) == MPI_SUCCESS &&
      MPI_Comm_group(g_rt.world, &all) == MPI_SUCCESS)
    MPI_Group_translate_ranks(in, n, ranks.data(), all, world.data());
  if (in != MPI_GROUP_NULL) MPI_Group_free(&in);
  if (all != MPI_GROUP_NULL) MPI_Group_free(&all);
  // The same groups on every process of comm: every one takes the same branch.
  const std::size_t known = std::min(g_groups.of_rank.size(), g_groups.host_of_rank.size());
  const bool local = std::none_of(world.begin(), world.end(), [&](int w) {
    return w == MPI_UNDEFINED || w < 0 || static_cast<std::size_t>(w) >= known;
  });
  if (local) {
    for (std::size_t i = 0; i < count; ++i) {
      (*groups)[i] = g_groups.of_rank[static_cast<std::size_t>(world[i])];
      (*hosts)[i] = g_groups.host_of_rank[static_cast<std::size_t>(world[i])];
    }
    return GDS_STATUS_OK;
  }
  const long long mine[2] = {g_groups.mine, g_groups.host_of_rank.empty() ? 0 : g_groups.host_of_rank.at(
                                                static_cast<std::size_t>(std::max(g_rt.world_rank, 0)))};
  std::vector<long long> both(2 * count);
  const int rc = allgather(mine, 2, MPI_LONG_LONG, both.data(), 2, MPI_LONG_LONG, comm);
  if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Allgather", rc);
  for (std::size_t i = 0; i < count; ++i) {
    (*groups)[i] = static_cast<int>(both[2 * i]);
    (*hosts)[i] = both[2 * i + 1];
  }
  return GDS_STATUS_OK;
}

}  // namespace gds::core
