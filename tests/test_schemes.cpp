// White-box tests of the redundancy schemes' placement: XOR sets and PARTNER
// holders for every way of putting 1-8 processes into failure groups (pure
// functions of the group of each rank), against the properties a lost
// group's files depend on.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "persist/scheme.hpp"

using gds::persist::partners;
using gds::persist::xor_sets;

namespace {

// Every assignment of n ranks to groups, groups numbered densely in order of
// their lowest rank (as GDS numbers them): restricted growth strings.
void layouts(int n, std::vector<int> &cur, int groups, std::vector<std::vector<int>> *out) {
  if (static_cast<int>(cur.size()) == n) {
    out->push_back(cur);
    return;
  }
  for (int g = 0; g <= groups; ++g) {
    cur.push_back(g);
    layouts(n, cur, std::max(groups, g + 1), out);
    cur.pop_back();
  }
}

std::vector<std::vector<int>> all_layouts(int max_procs) {
  std::vector<std::vector<int>> out;
  for (int n = 1; n <= max_procs; ++n) {
    std::vector<int> cur;
    layouts(n, cur, 0, &out);
  }
  return out;
}

int groups_of(const std::vector<int> &group_of) {
  return static_cast<int>(std::set<int>(group_of.begin(), group_of.end()).size());
}

// The old rule for groups of one size: rows of equal position, cut into sets of set_size, the rest joining the last.
std::vector<std::vector<int>> rows_cut(const std::vector<int> &group_of, int set_size) {
  const int g = groups_of(group_of), per = static_cast<int>(group_of.size()) / g;
  std::vector<std::vector<int>> sets;
  for (int pos = 0; pos < per; ++pos) {
    std::vector<int> row;
    for (int grp = 0; grp < g; ++grp) {
      int seen = 0;
      for (int r = 0; r < static_cast<int>(group_of.size()); ++r)
        if (group_of[r] == grp && seen++ == pos) row.push_back(r);
    }
    const int count = std::max(1, g / set_size);
    for (int i = 0; i < count; ++i)
      sets.emplace_back(row.begin() + i * set_size, i + 1 == count ? row.end() : row.begin() + (i + 1) * set_size);
  }
  return sets;
}

}  // namespace

// Every process is in exactly one set of 2 or more processes of distinct
// groups, so losing any one group loses at most one member of each set;
// sets are empty only where no such sets exist (one group holds more than
// half of the processes, or there is one group).
TEST(XorSets, EveryProcessInOneSetOfDistinctGroupsWheneverOneExists) {
  int checked = 0, refused = 0;
  for (const std::vector<int> &group_of : all_layouts(8)) {
    const int n = static_cast<int>(group_of.size()), g = groups_of(group_of);
    int largest = 0;
    for (int grp = 0; grp < g; ++grp)
      largest = std::max(largest, static_cast<int>(std::count(group_of.begin(), group_of.end(), grp)));
    const bool possible = g >= 2 && largest <= n - largest;
    for (int set_size = 2; set_size <= g; ++set_size) {
      const std::vector<std::vector<int>> sets = xor_sets(group_of, set_size);
      ++checked;
      if (!possible) {
        EXPECT_TRUE(sets.empty()) << "n=" << n << " groups=" << g;
        ++refused;
        continue;
      }
      ASSERT_FALSE(sets.empty()) << "no sets for n=" << n << " groups=" << g << " set size " << set_size;
      std::vector<int> in(static_cast<std::size_t>(n), 0);
      for (const std::vector<int> &set : sets) {
        EXPECT_GE(set.size(), 2u);
        std::set<int> groups;
        for (const int r : set) {
          ++in[static_cast<std::size_t>(r)];
          groups.insert(group_of[static_cast<std::size_t>(r)]);
        }
        EXPECT_EQ(groups.size(), set.size()) << "two members of one group in a set";
        EXPECT_TRUE(std::is_sorted(set.begin(), set.end(), [&](int a, int b) { return group_of[a] < group_of[b]; }));
      }
      for (int r = 0; r < n; ++r) EXPECT_EQ(in[static_cast<std::size_t>(r)], 1) << "rank " << r;
    }
  }
  EXPECT_GT(checked, 10000);
  EXPECT_GT(refused, 0);
}

// Where every group has as many processes, the sets are what earlier GDS
// made (caches written before keep restarting): rows cut into sets of the
// set size, the rest joining the last.
TEST(XorSets, GroupsOfOneSizeKeepTheRowsCutIntoSets) {
  for (const std::vector<int> &group_of : all_layouts(8)) {
    const int g = groups_of(group_of), n = static_cast<int>(group_of.size());
    bool even = g >= 2;
    for (int grp = 0; grp < g && even; ++grp) even = std::count(group_of.begin(), group_of.end(), grp) * g == n;
    if (!even) continue;
    for (int set_size = 2; set_size <= g; ++set_size) EXPECT_EQ(xor_sets(group_of, set_size), rows_cut(group_of, set_size));
  }
}

// A set never exceeds the set size where the groups allow it: with no group
// larger than the rest, a process alone in its row joins a set with room
// or pairs with a process taken from a set of three or more.
TEST(XorSets, UnevenGroupsShareProcessesAcrossRows) {
  // 4 processes on 3 nodes (2, 1, 1): {0, 2} and {1, 3}, not a refusal.
  const std::vector<std::vector<int>> sets = xor_sets({0, 0, 1, 2}, 3);
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0], (std::vector<int>{0, 2}));
  EXPECT_EQ(sets[1], (std::vector<int>{1, 3}));
  // 3 processes on 2 nodes (2, 1): no XOR set can hold rank 1.
  EXPECT_TRUE(xor_sets({0, 0, 1}, 2).empty());
  // 6 processes on nodes of 3, 1, 1, 1: three pairs.
  EXPECT_EQ(xor_sets({0, 0, 0, 1, 2, 3}, 4).size(), 3u);
}

// PARTNER: every process's holder is in another group whenever there are two.
TEST(Partners, HolderInAnotherGroup) {
  for (const std::vector<int> &group_of : all_layouts(7)) {
    if (groups_of(group_of) < 2) continue;
    const std::vector<int> holder = partners(group_of);
    for (std::size_t r = 0; r < group_of.size(); ++r)
      EXPECT_NE(group_of[static_cast<std::size_t>(holder[r])], group_of[r]);
  }
}
