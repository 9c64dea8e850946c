// The expensive checks GDS_SANITY_CHECK=1 turns on (ctest sets it for this
// program): GDS_create maps every local offset to global and back, and
// DIRECT access to a GDS_create array checks that the box is local.
#include <cstdlib>

#include "support/gds_test.hpp"

using namespace gds::test;

namespace {

int g_nprocs = 1, g_rank = 0;
GDS_status_t cyclic_g2l(const GDS_size_t global[], int *rank, GDS_size_t *offset) {
  *rank = static_cast<int>(global[0] % static_cast<Index>(g_nprocs));
  *offset = global[0] / static_cast<Index>(g_nprocs);
  return GDS_STATUS_OK;
}
GDS_status_t cyclic_l2g(GDS_size_t offset, GDS_size_t global[]) {
  global[0] = offset * static_cast<Index>(g_nprocs) + static_cast<Index>(g_rank);
  return GDS_STATUS_OK;
}
// Not the inverse of cyclic_g2l on rank 0: offset 1 claims index 0.
GDS_status_t skewed_l2g(GDS_size_t offset, GDS_size_t global[]) {
  global[0] = (g_rank == 0 && offset == 1 ? 0 : offset) * static_cast<Index>(g_nprocs) + static_cast<Index>(g_rank);
  return GDS_STATUS_OK;
}

class Sanity : public MpiTest {
 protected:
  void SetUp() override {
    ASSERT_STREQ(std::getenv("GDS_SANITY_CHECK"), "1") << "run with GDS_SANITY_CHECK=1";
    g_nprocs = nprocs;
    g_rank = rank;
  }
};

}  // namespace

TEST_F(Sanity, CreateRejectsAMappingThatIsNotItsOwnInverse) {
  const Index n = 4 * static_cast<Index>(nprocs);
  std::vector<int> local(4);
  GDS_gds_t g = GDS_NULL;
  const GDS_status_t s = GDS_create(1, &n, MPI_INT, cyclic_g2l, skewed_l2g, local.data(), 4, GDS_PRIORITY_HIGH,
                                    GDS_COMM_WORLD, MPI_INFO_NULL, &g);
  EXPECT_EQ(s, rank == 0 ? GDS_STATUS_INVALID_MAPPING : GDS_STATUS_REMOTE_ERROR);
  if (rank == 0) {
    EXPECT_TRUE(message_names("GDS_create", "local offset 1"));
  }
  EXPECT_EQ(g, GDS_NULL);
  // The consistent mapping passes the same check.
  ASSERT_GDS_OK(GDS_create(1, &n, MPI_INT, cyclic_g2l, cyclic_l2g, local.data(), 4, GDS_PRIORITY_HIGH,
                           GDS_COMM_WORLD, MPI_INFO_NULL, &g));
  EXPECT_GDS_OK(GDS_free(&g));
}

TEST_F(Sanity, DirectAccessToAGdsCreateArrayNeedsALocalBox) {
  const Index n = 4 * static_cast<Index>(nprocs);
  std::vector<int> local(4);
  GDS_gds_t g = GDS_NULL;
  ASSERT_GDS_OK(GDS_create(1, &n, MPI_INT, cyclic_g2l, cyclic_l2g, local.data(), 4, GDS_PRIORITY_HIGH,
                           GDS_COMM_WORLD, MPI_INFO_NULL, &g));
  void *buffer = nullptr;
  GDS_access_handle_t h = GDS_ACCESS_HANDLE_NULL;
  const Index mine = static_cast<Index>(rank), lo = 0, hi = n - 1;
  EXPECT_GDS_OK(GDS_access(g, &mine, &mine, GDS_ACCESS_BUFFER_DIRECT, &buffer, &h));
  EXPECT_GDS_OK(GDS_release(&h));
  const GDS_status_t s = GDS_access(g, &lo, &hi, GDS_ACCESS_BUFFER_DIRECT, &buffer, &h);
  EXPECT_EQ(s, nprocs == 1 ? GDS_STATUS_OK : GDS_STATUS_NOT_LOCAL);
  if (s == GDS_STATUS_OK) {
    EXPECT_GDS_OK(GDS_release(&h));
  } else {
    EXPECT_TRUE(message_names("GDS_access", "stored on rank"));
  }
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_GDS_OK(GDS_free(&g));
}
