// Creating, describing and freeing arrays: attributes, the block layout seen
// through the public API, uneven distributions, min_chunks, sub-communicators
// and the agreement of collective calls.
#include <algorithm>
#include <set>

#include "support/gds_test.hpp"

using namespace gds::test;

namespace {

struct Shape {
  std::vector<Index> count;
  bool row_major;
};

class AllocTest : public MpiTest, public ::testing::WithParamInterface<Shape> {};

std::string shape_name(const ::testing::TestParamInfo<Shape> &info) {
  std::string s = info.param.row_major ? "row" : "col";
  for (Index c : info.param.count) {
    s += '_';
    s += std::to_string(c);
  }
  return s;
}

}  // namespace

TEST_P(AllocTest, AttributesLayoutAndZeroedMemory) {
  const Shape &shape = GetParam();
  const std::size_t n = shape.count.size();
  OrderInfo info(shape.row_major);
  GDS_gds_t g = GDS_NULL;
  ASSERT_GDS_OK(GDS_alloc(n, shape.count.data(), nullptr, MPI_DOUBLE, GDS_PRIORITY_MEDIUM, GDS_COMM_WORLD,
                          info.get(), &g));

  int flag = 0;
  GDS_datatype_t type;
  EXPECT_GDS_OK(GDS_get_attr(g, GDS_TYPE, &type, &flag));
  EXPECT_EQ(flag, 1);
  EXPECT_EQ(type, MPI_DOUBLE);
  GDS_flavor_t flavor;
  EXPECT_GDS_OK(GDS_get_attr(g, GDS_CREATE_FLAVOR, &flavor, &flag));
  EXPECT_EQ(flavor, GDS_FLAVOR_ALLOC);
  GDS_size_t ndims = 0;
  EXPECT_GDS_OK(GDS_get_attr(g, GDS_NUMBER_DIMENSIONS, &ndims, &flag));
  EXPECT_EQ(ndims, n);
  std::vector<Index> count(n), chunk(n), grid(n);
  EXPECT_GDS_OK(GDS_get_attr(g, GDS_COUNT, count.data(), &flag));
  EXPECT_EQ(count, shape.count);
  EXPECT_GDS_OK(GDS_get_attr(g, GDS_CHUNK_SIZE, chunk.data(), &flag));
  EXPECT_EQ(flag, 1);
  EXPECT_GDS_OK(GDS_get_attr(g, GDS_GLOBAL_LAYOUT, grid.data(), &flag));
  EXPECT_EQ(flag, 1);
  Index blocks = 1;
  for (std::size_t d = 0; d < n; ++d) {
    blocks *= grid[d];
    // The documented rule: block k of n/b + (k < n%b) elements; chunk = the largest.
    EXPECT_EQ(chunk[d], count[d] / grid[d] + (count[d] % grid[d] ? 1 : 0));
  }
  EXPECT_LE(blocks, static_cast<Index>(nprocs));

  // The ranks' boxes tile the array; ranks beyond the grid own nothing.
  Index covered = 0;
  std::vector<std::vector<Index>> los, his;
  for (int r = 0; r < nprocs; ++r) {
    std::vector<Index> lo(n), hi(n);
    int owns = -1;
    EXPECT_GDS_OK(GDS_distribution(g, r, lo.data(), hi.data(), &owns));
    EXPECT_EQ(owns, r < static_cast<int>(blocks) ? 1 : 0);
    if (!owns) continue;
    Index v = 1;
    for (std::size_t d = 0; d < n; ++d) {
      const Index ext = hi[d] - lo[d] + 1;
      EXPECT_TRUE(ext == count[d] / grid[d] || ext == count[d] / grid[d] + 1);
      v *= ext;
    }
    covered += v;
    los.push_back(lo);
    his.push_back(hi);
  }
  EXPECT_EQ(covered, volume(count));

  // GDS_locate agrees with the boxes, and offsets follow the storage order.
  std::vector<Index> idx(n, 0), zero(n, 0), last(n);
  for (std::size_t d = 0; d < n; ++d) last[d] = count[d] - 1;
  do {
    int owner = -1;
    Index offset = 0;
    EXPECT_GDS_OK(GDS_locate(g, idx.data(), &owner, &offset));
    EXPECT_TRUE(owner >= 0 && owner < static_cast<int>(los.size())) << "owner " << owner;
    if (owner < 0 || owner >= static_cast<int>(los.size())) break;  // on to the collectives, not out
    std::vector<Index> ext(n), rel(n);
    for (std::size_t d = 0; d < n; ++d) {
      EXPECT_GE(idx[d], los[owner][d]);
      EXPECT_LE(idx[d], his[owner][d]);
      ext[d] = his[owner][d] - los[owner][d] + 1;
      rel[d] = idx[d] - los[owner][d];
    }
    EXPECT_EQ(offset, linear(ext, rel.data(), shape.row_major));
  } while (next_index(zero, last, idx, shape.row_major));

  // Fresh memory is zero everywhere.
  std::vector<double> all(volume(count), -1.0);
  EXPECT_GDS_OK(GDS_get(all.data(), nullptr, zero.data(), last.data(), g));
  EXPECT_GDS_OK(GDS_wait(g));
  EXPECT_TRUE(std::all_of(all.begin(), all.end(), [](double v) { return v == 0.0; }));

  EXPECT_GDS_OK(GDS_free(&g));
  EXPECT_EQ(g, GDS_NULL);
}

INSTANTIATE_TEST_SUITE_P(Shapes, AllocTest,
                         ::testing::Values(Shape{{10}, true}, Shape{{1}, true}, Shape{{7, 5}, true},
                                           Shape{{7, 5}, false}, Shape{{4, 3, 5}, true}, Shape{{4, 3, 5}, false},
                                           Shape{{3, 2, 4, 2}, true}, Shape{{3, 1, 2, 5}, false}),
                         shape_name);

class Alloc : public MpiTest {};

TEST_F(Alloc, MinChunksLeaveSomeRanksEmpty) {
  const Index count[1] = {10}, min_chunks[1] = {4};
  GDS_gds_t g = GDS_NULL;
  ASSERT_GDS_OK(GDS_alloc(1, count, min_chunks, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &g));
  Index grid = 0, chunk = 0;
  int flag = 0;
  EXPECT_GDS_OK(GDS_get_attr(g, GDS_GLOBAL_LAYOUT, &grid, &flag));
  EXPECT_GDS_OK(GDS_get_attr(g, GDS_CHUNK_SIZE, &chunk, &flag));
  EXPECT_EQ(grid, static_cast<Index>(std::min(nprocs, 2)));
  EXPECT_EQ(chunk, nprocs >= 2 ? 5u : 10u);
  for (int r = 0; r < nprocs; ++r) {
    Index lo = 0, hi = 0;
    int owns = -1;
    EXPECT_GDS_OK(GDS_distribution(g, r, &lo, &hi, &owns));
    EXPECT_EQ(owns, r < 2 ? 1 : 0);
    if (owns) {
      EXPECT_GE(hi - lo + 1, 4u);
    }
  }
  // Every rank, owner or not, can write and read the whole array.
  const Index lo = 0, hi = 9;
  if (rank == nprocs - 1) {
    int v[10];
    for (int i = 0; i < 10; ++i) v[i] = 100 + i;
    EXPECT_GDS_OK(GDS_put(v, nullptr, &lo, &hi, g));
  }
  EXPECT_GDS_OK(GDS_fence(g));
  int out[10] = {};
  EXPECT_GDS_OK(GDS_get(out, nullptr, &lo, &hi, g));
  EXPECT_GDS_OK(GDS_wait(g));
  for (int i = 0; i < 10; ++i) EXPECT_EQ(out[i], 100 + i);
  EXPECT_GDS_OK(GDS_free(&g));
}

TEST_F(Alloc, EveryPriorityIsAccepted) {
  for (GDS_priority_t p : {GDS_PRIORITY_HIGH, GDS_PRIORITY_MEDIUM, GDS_PRIORITY_LOW}) {
    const Index count = 3;
    GDS_gds_t g = GDS_NULL;
    EXPECT_GDS_OK(GDS_alloc(1, &count, nullptr, MPI_BYTE, p, GDS_COMM_WORLD, MPI_INFO_NULL, &g));
    EXPECT_GDS_OK(GDS_free(&g));
  }
}

TEST_F(Alloc, CommWorldIsAllProcesses) {
  int r = -1, s = -1, cmp = MPI_UNEQUAL;
  EXPECT_GDS_OK(GDS_comm_rank(GDS_COMM_WORLD, &r));
  EXPECT_GDS_OK(GDS_comm_size(GDS_COMM_WORLD, &s));
  EXPECT_EQ(r, rank);
  EXPECT_EQ(s, nprocs);
  MPI_Comm_compare(GDS_COMM_WORLD, MPI_COMM_WORLD, &cmp);
  EXPECT_EQ(cmp, MPI_CONGRUENT);
}

// Arrays on the two halves of a split: each half sees only its own array, a
// rank-wise fence over GDS_ROOT covers both, and GDS_get_comm returns the half.
TEST_F(Alloc, SubCommunicators) {
  MPI_Comm half;
  const int color = rank % 2;
  MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
  int half_size = 0, half_rank = 0;
  EXPECT_GDS_OK(GDS_comm_size(half, &half_size));
  EXPECT_GDS_OK(GDS_comm_rank(half, &half_rank));
  const Index count[2] = {5, 6};
  GDS_gds_t mine = GDS_NULL, world = GDS_NULL;
  ASSERT_ALL_GDS_OK(GDS_alloc(2, count, nullptr, MPI_INT, GDS_PRIORITY_HIGH, half, MPI_INFO_NULL, &mine));
  ASSERT_GDS_OK(GDS_alloc(1, count, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &world));

  MPI_Comm dup;
  int cmp = MPI_UNEQUAL;
  EXPECT_GDS_OK(GDS_get_comm(mine, &dup));
  MPI_Comm_compare(dup, half, &cmp);
  EXPECT_EQ(cmp, MPI_CONGRUENT);
  MPI_Comm_free(&dup);

  // The last rank of each half writes the whole array with its color.
  const Index lo[2] = {0, 0}, hi[2] = {4, 5};
  std::vector<int> v(30, 10 + color);
  if (half_rank == half_size - 1) EXPECT_GDS_OK(GDS_put(v.data(), nullptr, lo, hi, mine));
  EXPECT_GDS_OK(GDS_wait(GDS_ROOT));
  EXPECT_GDS_OK(GDS_fence(GDS_ROOT));
  std::vector<int> out(30, -1);
  EXPECT_GDS_OK(GDS_get(out.data(), nullptr, lo, hi, mine));
  EXPECT_GDS_OK(GDS_wait_local(GDS_ROOT));
  EXPECT_GDS_OK(GDS_wait(mine));
  for (int x : out) EXPECT_EQ(x, 10 + color);
  EXPECT_GDS_OK(GDS_free(&mine));
  EXPECT_GDS_OK(GDS_free(&world));
  MPI_Comm_free(&half);
}

TEST_F(Alloc, OneProcessCommunicator) {
  const Index count = 4, lo = 0, hi = 3;
  GDS_gds_t g = GDS_NULL;
  ASSERT_GDS_OK(GDS_alloc(1, &count, nullptr, MPI_LONG, GDS_PRIORITY_LOW, MPI_COMM_SELF, MPI_INFO_NULL, &g));
  long v[4] = {rank, rank, rank, rank}, out[4] = {};
  EXPECT_GDS_OK(GDS_put(v, nullptr, &lo, &hi, g));
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_GDS_OK(GDS_get(out, nullptr, &lo, &hi, g));
  EXPECT_GDS_OK(GDS_wait(g));
  for (long x : out) EXPECT_EQ(x, rank);
  EXPECT_GDS_OK(GDS_free(&g));
}

TEST_F(Alloc, FreedHandlesAreRecognized) {
  const Index count = 8;
  GDS_gds_t g = GDS_NULL;
  ASSERT_GDS_OK(GDS_alloc(1, &count, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &g));
  GDS_gds_t copy = g;
  EXPECT_GDS_OK(GDS_free(&g));
  EXPECT_EQ(g, GDS_NULL);
  EXPECT_EQ(GDS_free(&copy), GDS_STATUS_FREED_HANDLE);
  EXPECT_TRUE(message_names("GDS_free", "freed"));
  EXPECT_EQ(GDS_free(&g), GDS_STATUS_NULL_HANDLE);
  int x = 0;
  const Index i = 0;
  EXPECT_EQ(GDS_put(&x, nullptr, &i, &i, copy), GDS_STATUS_FREED_HANDLE);
  // A new array may reuse the slot; the old handle still reads as freed.
  GDS_gds_t h = GDS_NULL;
  ASSERT_GDS_OK(GDS_alloc(1, &count, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &h));
  EXPECT_NE(h, copy);
  EXPECT_EQ(GDS_get(&x, nullptr, &i, &i, copy), GDS_STATUS_FREED_HANDLE);
  EXPECT_GDS_OK(GDS_free(&h));
}

// Processes that disagree on the shape all fail, and all fail alike.
TEST_F(Alloc, DisagreeingArgumentsFailEverywhere) {
  const Index count = 10 + static_cast<Index>(rank);
  GDS_gds_t g = GDS_NULL;
  const GDS_status_t s = GDS_alloc(1, &count, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &g);
  if (nprocs == 1) {
    EXPECT_EQ(s, GDS_STATUS_OK);
    EXPECT_GDS_OK(GDS_free(&g));
  } else {
    EXPECT_EQ(s, GDS_STATUS_COLLECTIVE_MISMATCH);
    EXPECT_TRUE(message_names("GDS_alloc", "different arguments"));
    EXPECT_EQ(g, GDS_NULL);
  }
  // Order is part of the agreement too.
  OrderInfo info(rank % 2 == 0);
  const Index same = 6;
  const GDS_status_t t = GDS_alloc(1, &same, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info.get(), &g);
  if (nprocs == 1) {
    EXPECT_EQ(t, GDS_STATUS_OK);
    EXPECT_GDS_OK(GDS_free(&g));
  } else {
    EXPECT_EQ(t, GDS_STATUS_COLLECTIVE_MISMATCH);
  }
}

// One process's bad argument fails the call there with its own status and
// everywhere else with GDS_STATUS_REMOTE_ERROR; nothing is allocated.
TEST_F(Alloc, OneBadProcessFailsTheCollective) {
  const Index count = 10;
  GDS_gds_t g = GDS_NULL;
  const GDS_datatype_t type = rank == 0 ? MPI_DATATYPE_NULL : MPI_INT;
  const GDS_status_t s = GDS_alloc(1, &count, nullptr, type, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &g);
  EXPECT_EQ(s, rank == 0 ? GDS_STATUS_INVALID_TYPE : GDS_STATUS_REMOTE_ERROR);
  EXPECT_EQ(g, GDS_NULL);
  // And GDS_free agrees likewise: a process with an open access blocks it.
  ASSERT_GDS_OK(GDS_alloc(1, &count, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &g));
  GDS_access_handle_t a = GDS_ACCESS_HANDLE_NULL;
  void *buf = nullptr;
  const Index lo = 0, hi = 0;
  if (rank == 0) EXPECT_GDS_OK(GDS_access(g, &lo, &hi, GDS_ACCESS_BUFFER_COPY, &buf, &a));
  const GDS_status_t f = GDS_free(&g);
  EXPECT_EQ(f, rank == 0 ? GDS_STATUS_ACCESS_CONFLICT : GDS_STATUS_REMOTE_ERROR);
  EXPECT_NE(g, GDS_NULL);
  if (rank == 0) EXPECT_GDS_OK(GDS_release(&a));
  EXPECT_GDS_OK(GDS_free(&g));
}
