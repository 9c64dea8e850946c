// Failure groups: the sets of processes that fail together (nodes). Set at
// GDS_init, for every process of GDS_COMM_WORLD alike, from the first of:
// GDS_NODE_ID (set on every process), GDS_RANKS_PER_NODE (one value), the
// Slurm node each process runs on (SLURMD_NODENAME, which srun gives every
// task: several virtual nodes of one host are nodes of their own, as SCR
// takes its failure groups from the node), the host (the processes sharing
// memory, MPI_COMM_TYPE_SHARED). Groups are numbered 0..count-1 in the order
// of their lowest world rank. Persistent levels place redundancy across groups.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "gds_types.h"

namespace gds::core {

struct FailureGroups {
  int mine = 0;              // this process's group
  int count = 1;             // how many groups
  std::vector<int> of_rank;  // world rank -> group
  std::vector<long long> host_of_rank;  // world rank -> its host's key (the lowest world rank sharing its memory)
  const char *source = "host";  // what decided them: "host", "GDS_NODE_ID", "GDS_RANKS_PER_NODE", "Slurm"
  int host_processes = 1;       // processes of GDS_COMM_WORLD sharing this process's host (memory), whatever
                                // the groups are
  // This process's node by name, as the source knows it: the Slurm node
  // (n17), node<GDS_NODE_ID>, node<rank / GDS_RANKS_PER_NODE>, or the host
  // name up to its first dot. What {node} in a cache base becomes.
  std::string node;
};

// Collective over `world` (GDS_COMM_WORLD's duplicate, `rank` of `size`).
// Bad or inconsistent overrides are reported (warnings, on the lowest rank
// that sees them) and the default used.
GDS_status_t find_failure_groups(const char *func, MPI_Comm world, int rank, int size, FailureGroups *out);

// The groups found at GDS_init.
const FailureGroups &failure_groups();

// The failure group and the host key of each process of `comm` (by its
// rank in comm), from what GDS_init found: a local translation of ranks, no
// communication, where every process of comm is one of GDS_COMM_WORLD's
// (else, alike on every process, an allgather of 16 bytes a process).
// Collective only in that case.
GDS_status_t groups_of(const char *func, MPI_Comm comm, std::vector<int> *groups, std::vector<long long> *hosts);
void set_failure_groups(FailureGroups groups);

}  // namespace gds::core
