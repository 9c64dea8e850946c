// core::Ballot: the values of one agreement, as the parties that reserve
// them see them (each a field of records of its own type).
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "core/collective.hpp"

namespace {

struct Vote {
  std::uint64_t pending, data;
  double seconds;
};

TEST(Ballot, FieldsFollowEachOtherZeroAndKeepTheirRecords) {
  gds::core::Ballot b;
  const auto votes = b.reserve<Vote>(3);
  const auto flag = b.reserve<std::uint64_t>();
  const auto wishes = b.reserve<std::uint64_t>(2);
  ASSERT_EQ(b.values().size(), 3u * 3 + 1 + 2);
  for (const std::uint64_t v : b.values()) EXPECT_EQ(v, 0u);
  EXPECT_FALSE(b.any(votes, &Vote::pending));
  b.put(votes, 1, Vote{1, 7, 0.25});
  b.update(votes, 2, [](Vote &v) { v.data = 9; });
  b.put(flag, 0, std::uint64_t{1});
  b.put(wishes, 1, std::uint64_t{5});
  // Where each party's values lie: in reservation order, a record's members in order.
  const std::vector<std::uint64_t> want = {0, 0, 0, 1, 7, std::bit_cast<std::uint64_t>(0.25), 0, 9, 0, 1, 0, 5};
  EXPECT_EQ(std::vector<std::uint64_t>(b.values().begin(), b.values().end()), want);
  EXPECT_EQ(b.get(votes, 1).seconds, 0.25);
  EXPECT_EQ(b.get(votes, 2).data, 9u);
  EXPECT_EQ(b.get(votes, 2).pending, 0u);
  EXPECT_TRUE(b.any(votes, &Vote::pending));
  EXPECT_TRUE(b.any(votes, &Vote::seconds));
  EXPECT_EQ(b.get(wishes, 1), 5u);
  // As the agreement leaves them (each value its maximum): read back through the fields.
  b.values()[0] = 1;
  EXPECT_EQ(b.get(votes, 0).pending, 1u);
  b.clear();
  EXPECT_TRUE(b.values().empty());
  const auto again = b.reserve<Vote>();
  EXPECT_EQ(again.at, 0u);
  EXPECT_FALSE(b.any(again, &Vote::data));
}

TEST(Ballot, ARecordOutsideItsFieldIsRefused) {
  gds::core::Ballot b;
  const auto votes = b.reserve<Vote>(2);
  const auto after = b.reserve<std::uint64_t>(4);  // values follow, but not votes'
  EXPECT_THROW((void)b.get(votes, 2), std::out_of_range);
  EXPECT_THROW(b.put(after, 4, std::uint64_t{1}), std::out_of_range);
  EXPECT_NO_THROW(b.put(after, 3, std::uint64_t{1}));
  // A field of a ballot cleared since lies past its values.
  b.clear();
  (void)b.reserve<std::uint64_t>(2);
  EXPECT_THROW((void)b.get(votes, 1), std::out_of_range);
  EXPECT_THROW(b.put(votes, 0, Vote{}), std::out_of_range);
}

}  // namespace
