// White-box tests of the block distribution: process-grid choice, block
// bounds, ownership and the owner walk the transfer planner relies on.
// Single process: the layouts are pure functions of shape and process count.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <vector>

#include "core/layout.hpp"

using gds::core::BlockLayout;
using gds::core::BlockPiece;
using gds::core::Dims;
using gds::core::Index;
using gds::core::Order;

namespace {

Dims dims(std::initializer_list<Index> v) { return Dims(v.begin(), v.end()); }

Dims grid(std::initializer_list<Index> count, int p, std::vector<Index> min_chunks = {},
          Order order = Order::row_major) {
  return BlockLayout::choose_grid(dims(count), min_chunks.empty() ? nullptr : min_chunks.data(), p, order);
}

Index product(const Dims &d) {
  Index p = 1;
  for (Index v : d) p *= v;
  return p;
}

// The largest number of processes any grid could use (brute force).
Index best_product(const Dims &count, const Dims &maxb, int p, std::size_t d = 0, Index used = 1) {
  if (d == count.size()) return used;
  Index best = 0;
  for (Index f = 1; f <= maxb[d] && used * f <= static_cast<Index>(p); ++f)
    best = std::max(best, best_product(count, maxb, p, d + 1, used * f));
  return best;
}

}  // namespace

TEST(Grid, OneProcessKeepsEverythingWhole) {
  EXPECT_EQ(grid({10, 20, 30}, 1), dims({1, 1, 1}));
}

TEST(Grid, OneDimensionUsesEveryProcess) {
  EXPECT_EQ(grid({10}, 4), dims({4}));
  EXPECT_EQ(grid({3}, 4), dims({3}));  // never more blocks than elements
  EXPECT_EQ(grid({1}, 4), dims({1}));
}

TEST(Grid, MinChunksBoundTheBlockCount) {
  EXPECT_EQ(grid({10}, 4, {3}), dims({3}));   // 4 + 3 + 3
  EXPECT_EQ(grid({10}, 4, {4}), dims({2}));   // 5 + 5
  EXPECT_EQ(grid({10}, 4, {11}), dims({1}));  // larger than the extent: kept whole
  EXPECT_EQ(grid({10}, 4, {0}), dims({4}));   // 0 and 1 mean no minimum
  EXPECT_EQ(grid({10}, 4, {1}), dims({4}));
  EXPECT_EQ(grid({100, 8}, 4, {0, 8}), dims({4, 1}));
}

TEST(Grid, BlocksAreAsSquareAsPossible) {
  EXPECT_EQ(grid({100, 100}, 4), dims({2, 2}));
  EXPECT_EQ(grid({1000, 10}, 4), dims({4, 1}));
  EXPECT_EQ(grid({10, 1000}, 4), dims({1, 4}));
  EXPECT_EQ(grid({64, 64, 64}, 8), dims({2, 2, 2}));
}

TEST(Grid, TiesSplitTheSlowestDimensionFirst) {
  EXPECT_EQ(grid({100, 100}, 2, {}, Order::row_major), dims({2, 1}));
  EXPECT_EQ(grid({100, 100}, 2, {}, Order::col_major), dims({1, 2}));
  EXPECT_EQ(grid({100, 100}, 7), dims({7, 1}));  // a prime count uses every process
}

TEST(Grid, PropertiesOverManyShapes) {
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 3000; ++trial) {
    const std::size_t n = 1 + rng() % 4;
    const int p = 1 + static_cast<int>(rng() % 24);
    Dims count(n), mc(n), maxb(n);
    for (std::size_t d = 0; d < n; ++d) {
      count[d] = 1 + rng() % 12;
      mc[d] = rng() % 4 == 0 ? rng() % 6 : 0;
      const Index m = count[d] / std::max<Index>(mc[d], 1);
      maxb[d] = std::max<Index>(m, 1);
    }
    const Dims g = BlockLayout::choose_grid(count, mc.data(), p, Order::row_major);
    SCOPED_TRACE(::testing::Message() << "trial " << trial << " p=" << p);
    ASSERT_EQ(g.size(), n);
    EXPECT_LE(product(g), static_cast<Index>(p));
    EXPECT_EQ(product(g), best_product(count, maxb, p)) << "a grid using more processes exists";
    for (std::size_t d = 0; d < n; ++d) {
      EXPECT_GE(g[d], 1u);
      EXPECT_LE(g[d], count[d]);
      if (g[d] > 1 && mc[d] > 1) EXPECT_GE(count[d] / g[d], mc[d]) << "a block is smaller than min_chunks";
    }
  }
}

TEST(Blocks, ExtentsDifferByAtMostOneAndTileTheDimension) {
  BlockLayout layout(dims({10}), dims({4}), Order::row_major);
  std::vector<std::pair<Index, Index>> boxes;
  for (int r = 0; r < 4; ++r) {
    Index lo[1], hi[1];
    ASSERT_TRUE(layout.owned_box(r, lo, hi));
    boxes.emplace_back(lo[0], hi[0]);
  }
  EXPECT_EQ(boxes, (std::vector<std::pair<Index, Index>>{{0, 2}, {3, 5}, {6, 7}, {8, 9}}));
  EXPECT_EQ(layout.chunk(0), 3u);
  Index lo[1], hi[1];
  EXPECT_FALSE(layout.owned_box(4, lo, hi));
  EXPECT_EQ(layout.local_volume(4), 0u);
}

TEST(Blocks, RanksFollowTheArrayOrder) {
  Index lo[2], hi[2];
  BlockLayout row(dims({4, 6}), dims({2, 3}), Order::row_major);
  ASSERT_TRUE(row.owned_box(1, lo, hi));  // row-major: last grid dimension fastest
  EXPECT_EQ(lo[0], 0u);
  EXPECT_EQ(lo[1], 2u);
  BlockLayout col(dims({4, 6}), dims({2, 3}), Order::col_major);
  ASSERT_TRUE(col.owned_box(1, lo, hi));  // column-major: first grid dimension fastest
  EXPECT_EQ(lo[0], 2u);
  EXPECT_EQ(lo[1], 0u);
}

// Every element is owned by exactly one rank, locate() agrees with
// owned_box(), and offsets enumerate each rank's block in storage order.
TEST(Blocks, LocateAgreesWithOwnership) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = 1 + rng() % 4;
    const int p = 1 + static_cast<int>(rng() % 9);
    const Order order = rng() % 2 ? Order::row_major : Order::col_major;
    Dims count(n);
    for (auto &c : count) c = 1 + rng() % 7;
    BlockLayout layout(count, BlockLayout::choose_grid(count, nullptr, p, order), order);
    std::map<int, std::set<Index>> offsets;
    Index total = 0;
    Dims idx(n, 0), zero(n, 0), last(n);
    for (std::size_t d = 0; d < n; ++d) last[d] = count[d] - 1;
    do {
      int rank = -1;
      Index off = 0;
      ASSERT_EQ(layout.locate("test", idx.data(), &rank, &off), GDS_STATUS_OK);
      Dims lo(n), hi(n);
      ASSERT_TRUE(layout.owned_box(rank, lo.data(), hi.data()));
      for (std::size_t d = 0; d < n; ++d) {
        EXPECT_GE(idx[d], lo[d]);
        EXPECT_LE(idx[d], hi[d]);
      }
      EXPECT_TRUE(offsets[rank].insert(off).second) << "two elements share an offset";
      ++total;
    } while (layout.next_index(zero.data(), last.data(), idx.data()));
    EXPECT_EQ(total, layout.volume());
    for (auto &[rank, offs] : offsets) {
      EXPECT_EQ(offs.size(), layout.local_volume(rank));
      EXPECT_EQ(*offs.rbegin(), offs.size() - 1) << "offsets of rank " << rank << " are not dense";
    }
  }
}

// for_each_owner cuts a box into one piece per owner that together cover it exactly.
TEST(Blocks, OwnerWalkCoversBoxesExactly) {
  std::mt19937 rng(99);
  for (int trial = 0; trial < 500; ++trial) {
    const std::size_t n = 1 + rng() % 4;
    const int p = 1 + static_cast<int>(rng() % 9);
    Dims count(n), lo(n), hi(n);
    for (std::size_t d = 0; d < n; ++d) {
      count[d] = 1 + rng() % 9;
      lo[d] = rng() % count[d];
      hi[d] = lo[d] + rng() % (count[d] - lo[d]);
    }
    BlockLayout layout(count, BlockLayout::choose_grid(count, nullptr, p, Order::row_major), Order::row_major);
    std::set<int> ranks;
    Index covered = 0;
    layout.for_each_owner(lo.data(), hi.data(), [&](const BlockPiece &piece) {
      EXPECT_TRUE(ranks.insert(piece.rank).second) << "an owner was visited twice";
      Dims olo(n), ohi(n);
      ASSERT_TRUE(layout.owned_box(piece.rank, olo.data(), ohi.data()));
      Index volume = 1;
      for (std::size_t d = 0; d < n; ++d) {
        EXPECT_EQ(piece.block_lo[d], olo[d]);
        EXPECT_EQ(piece.block_ext[d], ohi[d] - olo[d] + 1);
        EXPECT_LE(lo[d], piece.lo[d]);
        EXPECT_LE(piece.hi[d], hi[d]);
        EXPECT_LE(olo[d], piece.lo[d]);
        EXPECT_LE(piece.hi[d], ohi[d]);
        volume *= piece.hi[d] - piece.lo[d] + 1;
      }
      covered += volume;
    });
    Index expected = 1;
    for (std::size_t d = 0; d < n; ++d) expected *= hi[d] - lo[d] + 1;
    EXPECT_EQ(covered, expected);
  }
}
