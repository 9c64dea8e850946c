// Test support shared by the model tests of GDS_create arrays: a contiguous
// mapping over parts of given sizes (GDS_create_with_context's context),
// and the run's seed (GDS_TEST_SEED, else drawn on rank 0 and broadcast).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <vector>

#include "support/gds_test.hpp"

namespace gds::test {

// GDS_create's contiguous mapping over parts of the given sizes.
struct Parts {
  std::vector<Index> first;  // per process, and the end
  int rank = 0;
  [[nodiscard]] int owner(Index i) const {
    return static_cast<int>(std::upper_bound(first.begin(), first.end(), i) - first.begin()) - 1;
  }
};
inline GDS_status_t parts_g2l(const GDS_size_t g[], int *rank, GDS_size_t *offset, void *ctx) {
  const auto &p = *static_cast<const Parts *>(ctx);
  const int r = p.owner(g[0]);
  if (r < 0 || r + 1 >= static_cast<int>(p.first.size())) return GDS_STATUS_RANGE;
  *rank = r;
  *offset = g[0] - p.first[static_cast<std::size_t>(r)];
  return GDS_STATUS_OK;
}
inline GDS_status_t parts_l2g(GDS_size_t offset, GDS_size_t g[], void *ctx) {
  const auto &p = *static_cast<const Parts *>(ctx);
  g[0] = p.first[static_cast<std::size_t>(p.rank)] + offset;
  return GDS_STATUS_OK;
}

inline unsigned seed_of_run() {
  if (const char *s = std::getenv("GDS_TEST_SEED"); s != nullptr && *s != '\0')
    return static_cast<unsigned>(std::strtoul(s, nullptr, 10));
  unsigned seed = static_cast<unsigned>(std::random_device{}());
  MPI_Bcast(&seed, 1, MPI_UNSIGNED, 0, MPI_COMM_WORLD);
  return seed;
}

}  // namespace gds::test
