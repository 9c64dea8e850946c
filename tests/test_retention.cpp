// Retention by default: the byte budget every array gets without
// GDS_MAX_VERSION_BYTES (4 x its part on the process, at least 1 MiB), the
// bound on all of a process's arrays together (half the host's memory,
// GDS_HOST_MEMORY here, shared by the processes on it), the explicit opt-out,
// and the warnings when retention drops a version a handle points at or the
// last version the array's checks vouched for.
//
// Every process changes a different amount per version, so their budgets
// bind at different times: the drops must still be the same everywhere.
#include <gds.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "support/capture.hpp"
#include "support/gds_test.hpp"

namespace {

using gds::test::CaptureStderr;
using gds::test::Index;

constexpr Index kMiB = Index{1} << 20;

class Retention : public gds::test::MpiTest {
 protected:
  // An int array of `part_bytes` per process in blocks of 256 KiB, with extra info keys.
  GDS_gds_t make(Index part_bytes, std::initializer_list<std::pair<const char *, const char *>> hints = {}) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, GDS_VERSION_BLOCK_SIZE_KEY, "262144");
    for (auto &[k, v] : hints) MPI_Info_set(info, k, v);
    const Index n = part_bytes / sizeof(int) * static_cast<Index>(nprocs);
    GDS_gds_t g = GDS_NULL;
    EXPECT_GDS_OK(GDS_alloc(1, &n, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info, &g));
    MPI_Info_free(&info);
    return g;
  }
  // This process writes value v into the first `bytes` of its own part, then a fence.
  void write_own(GDS_gds_t g, Index bytes, int v) {
    Index lo = 0, hi = 0;
    int owns = 0;
    EXPECT_GDS_OK(GDS_distribution(g, rank, &lo, &hi, &owns));
    const Index count = std::min<Index>(bytes / sizeof(int), owns ? hi - lo + 1 : 0);
    if (count > 0) {
      std::vector<int> data(count, v);
      const Index end = lo + count - 1;
      EXPECT_GDS_OK(GDS_put(data.data(), nullptr, &lo, &end, g));
    }
    EXPECT_GDS_OK(GDS_fence(g));
  }
  GDS_version_stats_t stats(GDS_gds_t g) {
    GDS_version_stats_t s{};
    EXPECT_GDS_OK(GDS_get_version_stats(g, &s));
    return s;
  }
  // Whether every process holds the same versions (the drops agreed).
  void expect_same_everywhere(const GDS_version_stats_t &s) {
    Index mine[2] = {s.versions, s.oldest}, lo[2], hi[2];
    MPI_Allreduce(mine, lo, 2, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(mine, hi, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    EXPECT_EQ(lo[0], hi[0]) << "processes hold different numbers of versions";
    EXPECT_EQ(lo[1], hi[1]) << "processes hold different oldest versions";
  }
  int host_processes() {
    MPI_Comm host;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host);
    int n = 1;
    MPI_Comm_size(host, &n);
    MPI_Comm_free(&host);
    return n;
  }
};

// Without GDS_MAX_VERSION_BYTES an array keeps what fits 4 x its part, at
// least 1 MiB: with a 4 MiB part, 16 MiB. Process r changes (r % 3 + 2) MiB
// per version, so the process changing most decides what everyone drops.
TEST_F(Retention, DefaultBudgetBoundsEveryArray) {
  const Index part = 4 * kMiB, budget = 16 * kMiB, changed = (rank % 3 + 2) * kMiB;
  GDS_gds_t g = make(part);
  for (int v = 1; v <= 40; ++v) {
    write_own(g, changed, v);
    ASSERT_ALL_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
    const GDS_version_stats_t s = stats(g);
    if (s.versions > 1) {
      EXPECT_LE(s.bytes_stored, budget) << "after version " << v;
    }
    expect_same_everywhere(s);
  }
  const GDS_version_stats_t s = stats(g);
  // 40 versions of 2-4 MiB do not fit 16 MiB: old ones went, about budget / changed of them stay.
  EXPECT_LT(s.versions, 40u);
  EXPECT_GT(s.oldest, 0u);
  const Index most_changed = (nprocs >= 3 ? 4 : nprocs == 2 ? 3 : 2) * kMiB;
  EXPECT_GE(s.versions, budget / most_changed - 1) << "the budget let fewer versions stay than it has room for";
  // The newest version still reads back.
  GDS_gds_t c = GDS_NULL;
  EXPECT_GDS_OK(GDS_descriptor_clone(g, &c));
  EXPECT_GDS_OK(GDS_move_to_prev(c));
  Index lo = 0, hi = 0;
  int owns = 0, got = -1;
  EXPECT_GDS_OK(GDS_distribution(g, rank, &lo, &hi, &owns));
  EXPECT_GDS_OK(GDS_get(&got, nullptr, &lo, &lo, c));
  EXPECT_GDS_OK(GDS_wait(c));
  EXPECT_EQ(got, 40);
  EXPECT_GDS_OK(GDS_free(&c));
  EXPECT_GDS_OK(GDS_free(&g));
}

// A small part gets the floor: 1 MiB keeps 16 versions of a 64 KiB part
// rewritten whole (not 4), and recycles memory from then on.
TEST_F(Retention, DefaultBudgetHasAFloorForSmallParts) {
  const Index part = 64 * 1024;
  GDS_gds_t g = make(part, {{GDS_VERSION_BLOCK_SIZE_KEY, "4096"}});
  for (int v = 1; v <= 200; ++v) {
    write_own(g, part, v);
    ASSERT_ALL_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
  }
  const GDS_version_stats_t s = stats(g);
  EXPECT_LE(s.bytes_stored, kMiB);
  EXPECT_GE(s.versions, kMiB / part - 3);
  EXPECT_LT(s.versions, 200u);
  expect_same_everywhere(s);
  EXPECT_GDS_OK(GDS_free(&g));
}

// All of a process's arrays together stay within half the host's memory
// shared among its processes (GDS_HOST_MEMORY stands for the host here); an
// array with an explicit budget (0: none) is outside that bound.
TEST_F(Retention, DefaultBudgetBoundsAllArraysOfAProcess) {
  const Index cap = 12 * kMiB;  // below the arrays' own budgets (8 and 12 MiB): it binds
  const std::string host = std::to_string(2 * cap * static_cast<Index>(host_processes()));
  ASSERT_EQ(setenv("GDS_HOST_MEMORY", host.c_str(), 1), 0);
  GDS_gds_t a = make(2 * kMiB), b = make(3 * kMiB), unbounded = make(kMiB / 4, {{GDS_MAX_VERSION_BYTES_KEY, "0"}});
  unsetenv("GDS_HOST_MEMORY");
  for (int v = 1; v <= 20; ++v) {
    write_own(a, 2 * kMiB, v);
    ASSERT_ALL_GDS_OK(GDS_version_inc(a, 1, nullptr, 0));
    write_own(b, (rank % 2 + 2) * kMiB, v);
    ASSERT_ALL_GDS_OK(GDS_version_inc(b, 1, nullptr, 0));
    write_own(unbounded, kMiB / 4, v);
    ASSERT_ALL_GDS_OK(GDS_version_inc(unbounded, 1, nullptr, 0));
    const GDS_version_stats_t sa = stats(a), sb = stats(b);
    EXPECT_LE(sa.bytes_stored + sb.bytes_stored, cap) << "after version " << v;
    expect_same_everywhere(sa);
    expect_same_everywhere(sb);
  }
  EXPECT_GE(stats(a).versions, 1u);
  EXPECT_GE(stats(b).versions, 1u);
  EXPECT_EQ(stats(unbounded).versions, 20u);  // GDS_MAX_VERSION_BYTES=0: every version stays
  EXPECT_GDS_OK(GDS_free(&a));
  EXPECT_GDS_OK(GDS_free(&b));
  EXPECT_GDS_OK(GDS_free(&unbounded));
}

// A handle moved back to a version that retention then drops: a warning on
// the process holding it (rank 0 only), and reads through it are refused.
TEST_F(Retention, WarnsWhenDroppingAVersionAHandlePointsAt) {
  GDS_gds_t g = make(kMiB / 4, {{GDS_MAX_VERSIONS_KEY, "2"}});
  ASSERT_ALL_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));  // version 0
  GDS_gds_t old = GDS_NULL;
  if (rank == 0) {
    EXPECT_GDS_OK(GDS_descriptor_clone(g, &old));
    EXPECT_GDS_OK(GDS_move_to_prev(old));
  }
  std::string text;
  {
    CaptureStderr capture;
    ASSERT_ALL_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));  // 1: versions 0 and 1 kept
    ASSERT_ALL_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));  // 2: version 0 goes
    text = capture.text();
  }
  const bool warned = text.find("drops version 0") != std::string::npos &&
                      text.find("a handle points at") != std::string::npos;
  EXPECT_EQ(warned, rank == 0) << text;
  if (rank == 0) {
    int x = 0;
    Index i = 0;
    EXPECT_EQ(GDS_get(&x, nullptr, &i, &i, old), GDS_STATUS_VERSION_DROPPED);
    EXPECT_GDS_OK(GDS_free(&old));
  }
  EXPECT_GDS_OK(GDS_free(&g));
}

GDS_status_t sound(GDS_gds_t, GDS_priority_t) { return GDS_STATUS_OK; }

// The array's checks pass after version 0 and never run again; when
// retention drops version 0 no retained version was made before a check
// passed: one warning (not one per drop after it). Without checks, none.
TEST_F(Retention, WarnsOnceWhenDroppingTheLastVersionChecksVouchedFor) {
  for (bool checked : {true, false}) {
    SCOPED_TRACE(checked ? "with a check" : "without checks");
    GDS_gds_t g = make(kMiB / 4, {{GDS_MAX_VERSIONS_KEY, "2"}});
    if (checked) EXPECT_GDS_OK(GDS_register_local_error_check(g, sound, GDS_PRIORITY_LOW));
    ASSERT_ALL_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));  // version 0
    ASSERT_ALL_GDS_OK(GDS_check_all_errors(g));            // vouches for version 0
    std::string text;
    {
      CaptureStderr capture;
      for (int v = 1; v <= 5; ++v) {
        write_own(g, 4096, v);
        ASSERT_ALL_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
      }
      text = capture.text();
    }
    const std::string what = "the newest one made before its checks last passed";
    int count = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
    EXPECT_EQ(count, checked ? 1 : 0) << text;
    if (checked) {
      EXPECT_NE(text.find("drops version 0"), std::string::npos) << text;
    }
    EXPECT_GDS_OK(GDS_free(&g));
  }
}

}  // namespace
