// Failure groups (nodes): found at GDS_init from the host, or set from
// outside with GDS_NODE_ID / GDS_RANKS_PER_NODE so that one host acts as
// several nodes; bad or inconsistent settings are ignored with a warning.
// Each test sets the variables (differently per process where it needs to),
// starts GDS on MPI the program started, checks, and finalizes GDS.
#include <gds.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "support/mpi_test.hpp"

using gds::test::MpiTest;

namespace {

class Groups : public MpiTest {
 protected:
  void SetUp() override {
    unsetenv("GDS_NODE_ID");
    unsetenv("GDS_RANKS_PER_NODE");
  }
  void TearDown() override {
    unsetenv("GDS_NODE_ID");
    unsetenv("GDS_RANKS_PER_NODE");
    MpiTest::TearDown();
  }
  // GDS_init, every process's group, GDS_finalize.
  std::vector<int> groups(int *count) {
    GDS_thread_support_t provided;
    EXPECT_EQ(GDS_init(nullptr, nullptr, GDS_THREAD_SINGLE, &provided), GDS_STATUS_OK);
    std::vector<int> g(static_cast<std::size_t>(nprocs), -1);
    *count = 0;
    for (int r = 0; r < nprocs; ++r) {
      int n = 0;
      EXPECT_EQ(GDS_failure_group(r, &g[static_cast<std::size_t>(r)], &n), GDS_STATUS_OK);
      if (r == 0) *count = n;
      EXPECT_EQ(n, *count);
    }
    // Every process sees the same groups.
    std::vector<int> all(static_cast<std::size_t>(nprocs) * g.size());
    MPI_Allgather(g.data(), nprocs, MPI_INT, all.data(), nprocs, MPI_INT, MPI_COMM_WORLD);
    for (int p = 0; p < nprocs; ++p)
      for (int r = 0; r < nprocs; ++r)
        EXPECT_EQ(all[static_cast<std::size_t>(p * nprocs + r)], g[static_cast<std::size_t>(r)]) << p << " " << r;
    EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
    return g;
  }
  static void set(const char *name, const std::string &value) { setenv(name, value.c_str(), 1); }
};

TEST_F(Groups, DefaultIsTheHost) {
  int count = 0;
  const std::vector<int> g = groups(&count);
  EXPECT_EQ(count, 1);  // the tests run on one host
  for (int x : g) EXPECT_EQ(x, 0);
}

TEST_F(Groups, RanksPerNode) {
  for (int k = 1; k <= 3; ++k) {
    SCOPED_TRACE("GDS_RANKS_PER_NODE=" + std::to_string(k));
    set("GDS_RANKS_PER_NODE", std::to_string(k));
    int count = 0;
    const std::vector<int> g = groups(&count);
    EXPECT_EQ(count, (nprocs + k - 1) / k);
    for (int r = 0; r < nprocs; ++r) EXPECT_EQ(g[static_cast<std::size_t>(r)], r / k);
  }
}

// Groups are numbered in the order of their lowest rank, whatever the ids.
TEST_F(Groups, NodeIdSetOnEveryProcess) {
  set("GDS_NODE_ID", std::to_string(1000 - (rank / 2) * 7));
  set("GDS_RANKS_PER_NODE", "1");  // GDS_NODE_ID wins
  int count = 0;
  const std::vector<int> g = groups(&count);
  EXPECT_EQ(count, (nprocs + 1) / 2);
  for (int r = 0; r < nprocs; ++r) EXPECT_EQ(g[static_cast<std::size_t>(r)], r / 2);
}

TEST_F(Groups, NodeIdsNeedNotBeContiguous) {
  set("GDS_NODE_ID", std::to_string(rank % 2 == 0 ? 2147483647 : 5));
  int count = 0;
  const std::vector<int> g = groups(&count);
  EXPECT_EQ(count, nprocs > 1 ? 2 : 1);
  for (int r = 0; r < nprocs; ++r) EXPECT_EQ(g[static_cast<std::size_t>(r)], r % 2);
}

// GDS_NODE_ID on some processes only (or bad on one) is ignored everywhere:
// GDS_RANKS_PER_NODE then applies, or the host.
TEST_F(Groups, NodeIdOnSomeProcessesIsIgnored) {
  if (rank != 0) set("GDS_NODE_ID", std::to_string(rank));
  set("GDS_RANKS_PER_NODE", "2");
  int count = 0;
  std::vector<int> g = groups(&count);
  for (int r = 0; r < nprocs; ++r) EXPECT_EQ(g[static_cast<std::size_t>(r)], nprocs == 1 ? 0 : r / 2);
  unsetenv("GDS_RANKS_PER_NODE");
  set("GDS_NODE_ID", rank == nprocs - 1 ? "node-a" : std::to_string(rank));
  g = groups(&count);
  EXPECT_EQ(count, 1);
}

TEST_F(Groups, BadOrUnequalRanksPerNodeIsIgnored) {
  for (const std::string bad : {"0", "-1", "two", "2147483648", "99999999999999999999999"}) {
    SCOPED_TRACE("GDS_RANKS_PER_NODE=" + bad);
    set("GDS_RANKS_PER_NODE", bad);
    int count = 0;
    groups(&count);
    EXPECT_EQ(count, 1);
  }
  if (nprocs > 1) {
    set("GDS_RANKS_PER_NODE", std::to_string(rank + 1));
    int count = 0;
    groups(&count);
    EXPECT_EQ(count, 1);
  }
}

TEST_F(Groups, QueryArguments) {
  int group = -1, count = -1;
  EXPECT_EQ(GDS_failure_group(0, &group, &count), GDS_STATUS_NOT_INITIALIZED);
  GDS_thread_support_t provided;
  ASSERT_EQ(GDS_init(nullptr, nullptr, GDS_THREAD_SINGLE, &provided), GDS_STATUS_OK);
  EXPECT_EQ(GDS_failure_group(0, nullptr, &count), GDS_STATUS_NULL_ARGUMENT);
  EXPECT_EQ(GDS_failure_group(0, &group, nullptr), GDS_STATUS_OK);  // the count is optional
  EXPECT_EQ(group, 0);
  for (const int bad : {-1, nprocs, nprocs + 1, -2147483647 - 1, 2147483647})
    EXPECT_EQ(GDS_failure_group(bad, &group, &count), GDS_STATUS_RANGE) << bad;
  EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
}

}  // namespace
