// Failure groups: the sets of processes that fail together (nodes). Set at
// GDS_init, for every process of GDS_COMM_WORLD alike: by default the
// processes sharing a host (MPI_COMM_TYPE_SHARED); GDS_NODE_ID (set on every
// process) or GDS_RANKS_PER_NODE override it, so one host can act as several
// nodes. Groups are numbered 0..count-1 in the order of their lowest world
// rank. Persistent levels place redundancy across groups.
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
  const char *source = "host";  // what decided them: "host", "GDS_NODE_ID", "GDS_RANKS_PER_NODE"
  int host_processes = 1;       // processes of GDS_COMM_WORLD sharing this process's host (memory), whatever
                                // the groups are
};

// Collective over `world` (GDS_COMM_WORLD's duplicate, `rank` of `size`).
// Bad or inconsistent overrides are reported (warnings, on the lowest rank
// that sees them) and the default used.
GDS_status_t find_failure_groups(const char *func, MPI_Comm world, int rank, int size, FailureGroups *out);

// The groups found at GDS_init.
const FailureGroups &failure_groups();
void set_failure_groups(FailureGroups groups);

}  // namespace gds::core
