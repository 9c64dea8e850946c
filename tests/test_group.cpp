// Version groups and the restart query, in memory (the persisted side:
// group_test.py): random writes to three arrays of different shapes and
// mappings (processes holding different amounts, some none), group
// versions against a model, navigation and restore by group, labels after a
// restore, and every bad input of the group calls.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <string>

#include "support/gds_test.hpp"

using namespace gds::test;

namespace {

using Value = long long;

// An uneven cyclic mapping for GDS_create: global index i lives on rank
// (i * 7 / 3) % p (so some processes get more, and with n < p some none).
struct Uneven {
  static int owner(Index i, int p) { return static_cast<int>((i * 7 / 3) % static_cast<Index>(p)); }
};
int g_nprocs = 1;
Index g_create_n = 0;

GDS_status_t g2l(const GDS_size_t idx[], int *rank, GDS_size_t *off) {
  const Index i = idx[0];
  *rank = Uneven::owner(i, g_nprocs);
  Index before = 0;
  for (Index j = 0; j < i; ++j) before += Uneven::owner(j, g_nprocs) == *rank;
  *off = before;
  return GDS_STATUS_OK;
}
int g_my_rank = 0;
GDS_status_t l2g(GDS_size_t off, GDS_size_t idx[]) {
  Index seen = 0;
  for (Index j = 0; j < g_create_n; ++j)
    if (Uneven::owner(j, g_nprocs) == g_my_rank && seen++ == off) {
      idx[0] = j;
      return GDS_STATUS_OK;
    }
  return GDS_STATUS_INVALID;
}

class Group : public MpiTest {
 protected:
  static constexpr int kArrays = 3;
  GDS_gds_t a[kArrays] = {GDS_NULL, GDS_NULL, GDS_NULL};
  std::vector<Index> size;  // element count of each (1-D)
  std::vector<Value> create_buffer;
  std::map<Index, std::vector<std::vector<Value>>> versions;  // version -> per-array content
  std::vector<std::vector<Value>> current;

  void SetUp() override {
    g_nprocs = nprocs;
    g_my_rank = rank;
    size = {static_cast<Index>(1000 * nprocs + 17), static_cast<Index>(3), static_cast<Index>(5 * nprocs + 2)};
    g_create_n = size[2];
    ASSERT_ALL_GDS_OK(GDS_alloc(1, &size[0], nullptr, MPI_LONG_LONG, GDS_PRIORITY_HIGH, GDS_COMM_WORLD,
                                MPI_INFO_NULL, &a[0]));
    ASSERT_ALL_GDS_OK(GDS_alloc(1, &size[1], nullptr, MPI_LONG_LONG, GDS_PRIORITY_HIGH, GDS_COMM_WORLD,
                                MPI_INFO_NULL, &a[1]));  // 3 elements: processes past 3 hold none
    Index mine = 0;
    for (Index i = 0; i < size[2]; ++i) mine += Uneven::owner(i, nprocs) == rank;
    create_buffer.assign(mine, 0);
    ASSERT_ALL_GDS_OK(GDS_create(1, &size[2], MPI_LONG_LONG, g2l, l2g, mine ? create_buffer.data() : nullptr, mine,
                                 GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &a[2]));
    current.assign(kArrays, {});
    for (int k = 0; k < kArrays; ++k) current[k].assign(size[k], 0);
  }
  void TearDown() override {
    for (GDS_gds_t &x : a)
      if (x != GDS_NULL) EXPECT_GDS_OK(GDS_free(&x));
    MpiTest::TearDown();
  }

  // Each process writes a different number of elements (rank 0 none at times), all agree on the model.
  void random_writes(std::mt19937 &rng, Index step) {
    gds::test::barrier();  // every process is done reading what these writes change
    for (int k = 0; k < kArrays; ++k) {
      for (int r = 0; r < nprocs; ++r) {
        const Index writes = rng() % (r + 2);  // rank r writes 0..r+1 elements
        for (Index w = 0; w < writes; ++w) {
          // Writers own disjoint elements (i % nprocs == r): concurrent puts never overlap.
          const Index slots = (size[k] + static_cast<Index>(nprocs) - 1 - static_cast<Index>(r)) / static_cast<Index>(nprocs);
          if (slots == 0) break;
          const Index i = static_cast<Index>(r) + (rng() % slots) * static_cast<Index>(nprocs);
          const Value v = static_cast<Value>(step * 1000003 + k * 101 + static_cast<Index>(r) + w);
          current[k][i] = v;
          if (r == rank) ASSERT_GDS_OK(GDS_put(&v, nullptr, &i, &i, a[k]));
        }
      }
    }
    for (int k = 0; k < kArrays; ++k) EXPECT_GDS_OK(GDS_wait(a[k]));
    gds::test::barrier();
  }

  // Every element of every array through handles h, against content c.
  void expect_content(const GDS_gds_t h[], const std::vector<std::vector<Value>> &c, const char *what) {
    for (int k = 0; k < kArrays; ++k) {
      std::vector<Value> got(size[k]);
      const Index lo = 0, hi = size[k] - 1;
      EXPECT_GDS_OK(GDS_get(got.data(), nullptr, &lo, &hi, h[k]));
      EXPECT_GDS_OK(GDS_wait(h[k]));
      EXPECT_EQ(got, c[k]) << what << ", array " << k;
    }
  }

  static std::string label_of(GDS_gds_t h) {
    char *l = nullptr;
    size_t n = 0;
    if (GDS_get_version_label(h, &l, &n) != GDS_STATUS_OK) return "?";
    return std::string(l, n);
  }
};

TEST_F(Group, VersionsNavigationAndRestoreAgainstAModel) {
  GDS_group_t g = GDS_GROUP_NULL;
  ASSERT_ALL_GDS_OK(GDS_group_create("state", kArrays, a, &g));
  std::mt19937 rng(1234);
  const int kVersions = 6;
  for (Index step = 1; step <= kVersions; ++step) {
    random_writes(rng, step);
    versions[step - 1] = current;
    const std::string label = "step=" + std::to_string(step);
    ASSERT_ALL_GDS_OK(GDS_group_version_inc(g, 1, label.data(), label.size()));
    GDS_size_t v = 0;
    EXPECT_GDS_OK(GDS_group_get_version_number(g, &v));
    EXPECT_EQ(v, step);
    for (int k = 0; k < kArrays; ++k) {
      EXPECT_GDS_OK(GDS_get_version_number(a[k], &v));
      EXPECT_EQ(v, step) << "array " << k;
      EXPECT_EQ(label_of(a[k]), label);
    }
  }
  // Back through every version with the group's handles, then forward again.
  for (Index v = kVersions; v-- > 0;) {
    ASSERT_ALL_GDS_OK(GDS_group_move_to_prev(g));
    expect_content(a, versions[v], ("version " + std::to_string(v)).c_str());
  }
  EXPECT_EQ(GDS_group_move_to_prev(g), GDS_STATUS_NO_VERSION);
  ASSERT_ALL_GDS_OK(GDS_group_move_to_next(g));
  expect_content(a, versions[1], "next of version 0");
  ASSERT_ALL_GDS_OK(GDS_group_version_dec(g, 1));
  expect_content(a, versions[0], "dec 1 from version 1");
  EXPECT_EQ(GDS_group_version_dec(g, 5), GDS_STATUS_NO_VERSION);
  // A handle moved alone breaks the group's navigation, clearly.
  ASSERT_ALL_GDS_OK(GDS_move_to_newest(a[1]));
  EXPECT_EQ(GDS_group_move_to_prev(g), GDS_STATUS_INVALID);
  ASSERT_ALL_GDS_OK(GDS_group_move_to_newest(g));
  // Writes, then a group restore: content and labels are version 2's.
  random_writes(rng, 99);
  ASSERT_ALL_GDS_OK(GDS_group_version_restore(g, 2));
  expect_content(a, versions[2], "restored version 2");
  for (int k = 0; k < kArrays; ++k) EXPECT_EQ(label_of(a[k]), "step=3") << "the label describing version 2";
  current = versions[2];
  // Version numbers go on together after a restore.
  random_writes(rng, 7);
  ASSERT_ALL_GDS_OK(GDS_group_version_inc(g, 2, "x", 1));
  GDS_size_t v = 0;
  EXPECT_GDS_OK(GDS_group_get_version_number(g, &v));
  EXPECT_EQ(v, kVersions + 2);
  GDS_gds_t old[kArrays];
  for (int k = 0; k < kArrays; ++k) {
    ASSERT_GDS_OK(GDS_descriptor_clone(a[k], &old[k]));
    ASSERT_GDS_OK(GDS_version_dec(old[k], 2));
  }
  expect_content(old, current, "the version after the restore");
  for (GDS_gds_t &o : old) EXPECT_GDS_OK(GDS_free(&o));
  // Members are versioned and freed through the group only.
  EXPECT_EQ(GDS_version_inc(a[0], 1, nullptr, 0), GDS_STATUS_INVALID);
  EXPECT_TRUE(message_names("GDS_version_inc", GDS_last_error_message()));
  EXPECT_EQ(GDS_free(&a[2]), GDS_STATUS_INVALID);
  EXPECT_NE(a[2], GDS_NULL);
  GDS_restart_info_t info{};
  EXPECT_GDS_OK(GDS_group_get_restart_info(g, &info));
  EXPECT_EQ(info.restarted, 0);
  ASSERT_ALL_GDS_OK(GDS_group_free(&g));
  EXPECT_EQ(g, GDS_GROUP_NULL);
  // Alone again.
  ASSERT_ALL_GDS_OK(GDS_version_inc(a[0], 1, nullptr, 0));
}

TEST_F(Group, AllOrNoneWhenAPhaseFails) {
  GDS_group_t g = GDS_GROUP_NULL;
  ASSERT_ALL_GDS_OK(GDS_group_create("state", kArrays, a, &g));
  std::mt19937 rng(77);
  random_writes(rng, 1);
  ASSERT_ALL_GDS_OK(GDS_group_version_inc(g, 1, nullptr, 0));
  random_writes(rng, 2);
  // Every phase fails in turn on the last process: no member gets the version.
  for (int phase = 1; phase <= 5; ++phase) {
    if (rank == nprocs - 1) ASSERT_GDS_OK(GDS_inject_fault(GDS_FAULT_VERSION_PHASE, static_cast<GDS_size_t>(phase)));
    const GDS_status_t s = GDS_group_version_inc(g, 1, nullptr, 0);
    EXPECT_NE(s, GDS_STATUS_OK) << "phase " << phase;
    for (int k = 0; k < kArrays; ++k) {
      GDS_size_t v = 0;
      EXPECT_GDS_OK(GDS_get_version_number(a[k], &v));
      EXPECT_EQ(v, 1u) << "phase " << phase << ", array " << k;
    }
  }
  ASSERT_ALL_GDS_OK(GDS_group_version_inc(g, 1, nullptr, 0));
  GDS_gds_t h[kArrays];
  for (int k = 0; k < kArrays; ++k) {
    ASSERT_GDS_OK(GDS_descriptor_clone(a[k], &h[k]));
    ASSERT_GDS_OK(GDS_move_to_prev(h[k]));
  }
  expect_content(h, current, "the version made after the failures");
  for (GDS_gds_t &x : h) EXPECT_GDS_OK(GDS_free(&x));
  ASSERT_ALL_GDS_OK(GDS_group_free(&g));
}

TEST_F(Group, BadInputs) {
  GDS_group_t g = GDS_GROUP_NULL;
  EXPECT_EQ(GDS_group_create("g", 0, a, &g), GDS_STATUS_INVALID);
  EXPECT_EQ(GDS_group_create("g", GDS_GROUP_MAX_MEMBERS + 1, a, &g), GDS_STATUS_INVALID);
  EXPECT_EQ(GDS_group_create("g", 1, nullptr, &g), GDS_STATUS_NULL_ARGUMENT);
  EXPECT_EQ(GDS_group_create(nullptr, 1, a, &g), GDS_STATUS_NULL_ARGUMENT);
  EXPECT_EQ(GDS_group_create("g", 1, a, nullptr), GDS_STATUS_NULL_ARGUMENT);
  for (const char *bad : {"", ".hidden", "a/b", "a@group", "with space"}) {
    EXPECT_EQ(GDS_group_create(bad, 1, a, &g), GDS_STATUS_INVALID) << bad;
    EXPECT_TRUE(message_names("GDS_group_create", GDS_last_error_message()));
  }
  const GDS_gds_t twice[2] = {a[0], a[0]};
  EXPECT_EQ(GDS_group_create("g", 2, twice, &g), GDS_STATUS_INVALID);
  // The same array through a clone is the same array.
  GDS_gds_t clone = GDS_NULL;
  ASSERT_GDS_OK(GDS_descriptor_clone(a[1], &clone));
  const GDS_gds_t cloned[2] = {a[1], clone};
  EXPECT_EQ(GDS_group_create("g", 2, cloned, &g), GDS_STATUS_INVALID);
  // One process passing a bad argument fails the call everywhere.
  EXPECT_NE(GDS_group_create(rank == nprocs - 1 ? "bad name" : "g", 1, a, &g), GDS_STATUS_OK);
  // Members at different versions.
  ASSERT_ALL_GDS_OK(GDS_version_inc(a[0], 1, nullptr, 0));
  EXPECT_EQ(GDS_group_create("g", 2, a, &g), GDS_STATUS_INVALID);
  ASSERT_ALL_GDS_OK(GDS_version_inc(a[1], 1, nullptr, 0));
  // An array in two groups.
  GDS_group_t g1 = GDS_GROUP_NULL, g2 = GDS_GROUP_NULL;
  ASSERT_ALL_GDS_OK(GDS_group_create("one", 2, a, &g1));
  const GDS_gds_t again[2] = {a[2], a[1]};
  EXPECT_EQ(GDS_group_create("two", 2, again, &g2), GDS_STATUS_INVALID);
  EXPECT_EQ(g2, GDS_GROUP_NULL);
  ASSERT_ALL_GDS_OK(GDS_group_free(&g1));
  // A freed member.
  GDS_gds_t gone = GDS_NULL;
  const Index n = 10;
  ASSERT_ALL_GDS_OK(GDS_alloc(1, &n, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &gone));
  const GDS_gds_t stale = gone;
  ASSERT_ALL_GDS_OK(GDS_free(&gone));
  const GDS_gds_t with_freed[2] = {a[0], stale};
  EXPECT_EQ(GDS_group_create("g", 2, with_freed, &g), GDS_STATUS_FREED_HANDLE);
  // A clone freed under a group: its navigation says so.
  ASSERT_GDS_OK(GDS_version_dec(clone, 0));
  const GDS_gds_t by_clone[2] = {a[0], clone};
  ASSERT_ALL_GDS_OK(GDS_group_create("g", 2, by_clone, &g));
  EXPECT_GDS_OK(GDS_free(&clone));
  EXPECT_EQ(GDS_group_move_to_prev(g), GDS_STATUS_INVALID);
  ASSERT_ALL_GDS_OK(GDS_group_version_inc(g, 1, nullptr, 0));  // versions do not need the handles
  ASSERT_ALL_GDS_OK(GDS_group_free(&g));
  // Members on different communicators (the same processes in another order).
  if (nprocs > 1) {
    MPI_Comm reversed = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, 0, nprocs - rank, &reversed);
    GDS_gds_t other = GDS_NULL;
    ASSERT_ALL_GDS_OK(GDS_alloc(1, &n, nullptr, MPI_INT, GDS_PRIORITY_HIGH, reversed, MPI_INFO_NULL, &other));
    ASSERT_ALL_GDS_OK(GDS_version_inc(other, 2, nullptr, 0));  // at a[0]'s version
    const GDS_gds_t apart[2] = {a[0], other};
    EXPECT_EQ(GDS_group_create("g", 2, apart, &g), GDS_STATUS_INVALID);
    EXPECT_NE(std::strstr(GDS_last_error_message(), "communicator"), nullptr) << GDS_last_error_message();
    EXPECT_GDS_OK(GDS_free(&other));
    MPI_Comm_free(&reversed);
  }
  // Members written to the cache one synchronously, one asynchronously.
  {
    char dir[] = "/tmp/gds_group_sync_XXXXXX";
    if (rank == 0 && mkdtemp(dir) == nullptr) dir[0] = 0;
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    GDS_gds_t cached[2] = {GDS_NULL, GDS_NULL};
    for (int i = 0; i < 2; ++i) {
      MPI_Info info;
      MPI_Info_create(&info);
      MPI_Info_set(info, GDS_COPY_TYPE_KEY, "SINGLE");
      MPI_Info_set(info, GDS_CACHE_BASE_KEY, dir);
      MPI_Info_set(info, GDS_CACHE_SYNC_KEY, i == 0 ? "1" : "0");
      ASSERT_ALL_GDS_OK(GDS_alloc(1, &n, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info, &cached[i]));
      MPI_Info_free(&info);
    }
    EXPECT_EQ(GDS_group_create("g", 2, cached, &g), GDS_STATUS_INVALID);
    EXPECT_NE(std::strstr(GDS_last_error_message(), "asynchronous"), nullptr) << GDS_last_error_message();
    EXPECT_EQ(g, GDS_GROUP_NULL);
    for (GDS_gds_t &c : cached) EXPECT_GDS_OK(GDS_free(&c));
    gds::test::barrier();
    if (rank == 0) std::filesystem::remove_all(dir);
  }
  // Calls on things that are not groups.
  GDS_size_t v = 0;
  EXPECT_EQ(GDS_group_version_inc(GDS_GROUP_NULL, 1, nullptr, 0), GDS_STATUS_NULL_HANDLE);
  EXPECT_EQ(GDS_group_get_version_number(reinterpret_cast<GDS_group_t>(a[0]), &v), GDS_STATUS_INVALID_HANDLE);
  EXPECT_EQ(GDS_group_free(&g), GDS_STATUS_NULL_HANDLE);  // set to GDS_GROUP_NULL when freed
  GDS_group_t stale_group = GDS_GROUP_NULL;
  ASSERT_ALL_GDS_OK(GDS_group_create("g", 1, a, &stale_group));
  GDS_group_t copy = stale_group;
  ASSERT_ALL_GDS_OK(GDS_group_free(&stale_group));
  EXPECT_EQ(GDS_group_free(&copy), GDS_STATUS_FREED_HANDLE);
  EXPECT_EQ(GDS_group_free(nullptr), GDS_STATUS_NULL_ARGUMENT);
  ASSERT_ALL_GDS_OK(GDS_group_create("g", 1, a, &g));
  EXPECT_EQ(GDS_group_get_version_number(g, nullptr), GDS_STATUS_NULL_ARGUMENT);
  EXPECT_EQ(GDS_group_get_restart_info(g, nullptr), GDS_STATUS_NULL_ARGUMENT);
  EXPECT_EQ(GDS_group_version_inc(g, 0, nullptr, 0), GDS_STATUS_INVALID);
  EXPECT_EQ(GDS_group_version_inc(g, 1, nullptr, 3), GDS_STATUS_NULL_ARGUMENT);
  EXPECT_EQ(GDS_group_version_inc(g, UINT64_MAX, nullptr, 0), GDS_STATUS_INVALID);
  EXPECT_EQ(GDS_group_version_restore(g, 12345), GDS_STATUS_NO_VERSION);
  ASSERT_ALL_GDS_OK(GDS_group_free(&g));
}

// Without persistence (no job id) nothing is found, and the bad inputs are refused on every process.
TEST_F(Group, RestartQueryWithoutPersistence) {
  GDS_persisted_t st;
  std::memset(&st, 0x5a, sizeof st);
  ASSERT_ALL_GDS_OK(GDS_restart_query(nullptr, &st));
  EXPECT_EQ(st.found, 0);
  EXPECT_EQ(st.level, GDS_LEVEL_NONE);
  ASSERT_ALL_GDS_OK(GDS_restart_query("cg", &st));
  EXPECT_EQ(st.found, 0);
  EXPECT_EQ(GDS_restart_query("a/b", &st), GDS_STATUS_INVALID);
  EXPECT_EQ(GDS_restart_query("cg", nullptr), GDS_STATUS_NULL_ARGUMENT);
  const GDS_status_t one_bad = GDS_restart_query("cg", rank == nprocs - 1 ? nullptr : &st);
  EXPECT_EQ(one_bad, rank == nprocs - 1 ? GDS_STATUS_NULL_ARGUMENT : GDS_STATUS_REMOTE_ERROR);
}

// A single array's restore: the current label describes the restored content.
// One block of one member damaged after its checksum: the group's verify
// finds it on every process; the version before stays sound.
TEST_F(Group, VerifyChecksEveryMember) {
  GDS_group_t g = GDS_GROUP_NULL;
  ASSERT_ALL_GDS_OK(GDS_group_create("verify", kArrays, a, &g));
  std::mt19937 rng(11u + static_cast<unsigned>(rank));
  random_writes(rng, 1);
  ASSERT_ALL_GDS_OK(GDS_group_version_inc(g, 1, "first", 5));  // version 0
  // The last process changes an element of its own part of the first member, whose copy then flips.
  Index lo = 0, hi = 0;
  int owns = 0;
  EXPECT_GDS_OK(GDS_distribution(a[0], nprocs - 1, &lo, &hi, &owns));
  const Value v = 7;
  if (rank == nprocs - 1) {
    EXPECT_GDS_OK(GDS_put(&v, nullptr, &lo, &lo, a[0]));
    EXPECT_GDS_OK(GDS_inject_fault(GDS_FAULT_VERSION_CORRUPT, 1));
  }
  EXPECT_GDS_OK(GDS_fence(a[0]));
  ASSERT_ALL_GDS_OK(GDS_group_version_inc(g, 1, "second", 6));  // version 1, damaged on the last process
  EXPECT_GDS_OK(GDS_group_version_verify(g, 0));
  EXPECT_EQ(GDS_group_version_verify(g, 1), GDS_STATUS_CORRUPT);
  EXPECT_EQ(GDS_group_version_verify(g, 2), GDS_STATUS_NO_VERSION);  // the current content has no copy
  EXPECT_EQ(GDS_group_version_verify(GDS_GROUP_NULL, 0), GDS_STATUS_NULL_HANDLE);
  ASSERT_ALL_GDS_OK(GDS_group_free(&g));
}

// The group's own restore of its newest version and its label: processes
// write different amounts, navigate differently (local calls), one holds a
// region open; bad inputs are refused with a status and a message.
TEST_F(Group, RestoreNewestAndLabel) {
  GDS_group_t g = GDS_GROUP_NULL;
  ASSERT_ALL_GDS_OK(GDS_group_create("newest", kArrays, a, &g));
  char *l = nullptr;
  size_t n = 0;
  ASSERT_GDS_OK(GDS_group_get_version_label(g, &l, &n));
  EXPECT_EQ(std::string(l, n), "") << "version 0 has an empty label";
  // No version yet: refused on every process, nothing restored.
  GDS_size_t restored = 99;
  EXPECT_EQ(GDS_group_version_restore_newest(g, &restored), GDS_STATUS_NO_VERSION);
  EXPECT_TRUE(message_names("GDS_group_version_restore_newest", "no version"));
  EXPECT_EQ(restored, 99u);
  std::mt19937 rng(4321);
  for (Index step = 1; step <= 2; ++step) {
    random_writes(rng, step);
    versions[step - 1] = current;
    const std::string label = "step=" + std::to_string(step);
    ASSERT_ALL_GDS_OK(GDS_group_version_inc(g, 1, label.data(), label.size()));
  }
  ASSERT_GDS_OK(GDS_group_get_version_label(g, &l, &n));
  EXPECT_EQ(std::string(l, n), "step=2");
  // Navigation is local: even processes look at version 0, odd ones stay.
  if (rank % 2 == 0) {
    ASSERT_GDS_OK(GDS_group_move_to_prev(g));
    ASSERT_GDS_OK(GDS_group_move_to_prev(g));
    ASSERT_GDS_OK(GDS_group_get_version_label(g, &l, &n));
    EXPECT_EQ(std::string(l, n), "") << "version 0's own label";
    ASSERT_GDS_OK(GDS_group_move_to_next(g));
    ASSERT_GDS_OK(GDS_group_get_version_label(g, &l, &n));
    EXPECT_EQ(std::string(l, n), "step=1") << "version 1's own label";
    ASSERT_GDS_OK(GDS_group_move_to_newest(g));
  }
  // Writes after the last version, then the newest version back; odd processes do not ask which.
  random_writes(rng, 3);
  ASSERT_ALL_GDS_OK(GDS_group_version_restore_newest(g, rank % 2 == 0 ? &restored : nullptr));
  if (rank % 2 == 0) {
    EXPECT_EQ(restored, 1u);
  }
  expect_content(a, versions[1], "the newest version restored");
  ASSERT_GDS_OK(GDS_group_get_version_label(g, &l, &n));
  EXPECT_EQ(std::string(l, n), "step=2") << "the label describing the restored content";
  current = versions[1];
  // A region open on the last process: every process refuses, nothing restored.
  random_writes(rng, 4);
  GDS_access_handle_t open = nullptr;
  void *buf = nullptr;
  const Index last = size[0] - 1;  // the last process's own element
  if (rank == nprocs - 1) ASSERT_GDS_OK(GDS_access(a[0], &last, &last, GDS_ACCESS_BUFFER_DIRECT, &buf, &open));
  const GDS_status_t s = GDS_group_version_restore_newest(g, nullptr);
  EXPECT_EQ(s, rank == nprocs - 1 ? GDS_STATUS_ACCESS_CONFLICT : GDS_STATUS_REMOTE_ERROR);
  if (rank == nprocs - 1) {
    EXPECT_TRUE(message_names("GDS_group_version_restore_newest", "GDS_release"));
    ASSERT_GDS_OK(GDS_release(&open));
  }
  expect_content(a, current, "nothing restored while a region was open");
  // Bad inputs to the label getter.
  EXPECT_EQ(GDS_group_get_version_label(g, nullptr, &n), GDS_STATUS_NULL_ARGUMENT);
  EXPECT_TRUE(message_names("GDS_group_get_version_label", "label is NULL"));
  EXPECT_EQ(GDS_group_get_version_label(g, &l, nullptr), GDS_STATUS_NULL_ARGUMENT);
  EXPECT_TRUE(message_names("GDS_group_get_version_label", "label_size is NULL"));
  ASSERT_GDS_OK(GDS_move_to_prev(a[2]));  // one handle moved alone
  EXPECT_EQ(GDS_group_get_version_label(g, &l, &n), GDS_STATUS_INVALID);
  EXPECT_TRUE(message_names("GDS_group_get_version_label", "different versions"));
  ASSERT_GDS_OK(GDS_group_move_to_newest(g));
  EXPECT_EQ(GDS_group_get_version_label(GDS_GROUP_NULL, &l, &n), GDS_STATUS_NULL_HANDLE);
  EXPECT_EQ(GDS_group_version_restore_newest(GDS_GROUP_NULL, nullptr), GDS_STATUS_NULL_HANDLE);
  EXPECT_TRUE(message_names("GDS_group_version_restore_newest", "group"));
  // A freed group.
  const GDS_group_t stale = g;
  ASSERT_ALL_GDS_OK(GDS_group_free(&g));
  EXPECT_EQ(GDS_group_get_version_label(stale, &l, &n), GDS_STATUS_FREED_HANDLE);
  EXPECT_TRUE(message_names("GDS_group_get_version_label", "group"));
  EXPECT_EQ(GDS_group_version_restore_newest(stale, &restored), GDS_STATUS_FREED_HANDLE);
  EXPECT_TRUE(message_names("GDS_group_version_restore_newest", "group"));
  // Members labelled apart before they were grouped: the group has no one label.
  for (int k = 0; k < kArrays; ++k) {
    const std::string own = "own" + std::to_string(k);
    ASSERT_ALL_GDS_OK(GDS_version_inc(a[k], 1, own.data(), own.size()));
  }
  ASSERT_ALL_GDS_OK(GDS_group_create("apart", kArrays, a, &g));
  EXPECT_EQ(GDS_group_get_version_label(g, &l, &n), GDS_STATUS_INVALID);
  EXPECT_TRUE(message_names("GDS_group_get_version_label", "different labels"));
  ASSERT_ALL_GDS_OK(GDS_group_version_inc(g, 1, "together", 8));
  ASSERT_GDS_OK(GDS_group_get_version_label(g, &l, &n));
  EXPECT_EQ(std::string(l, n), "together");
  ASSERT_ALL_GDS_OK(GDS_group_free(&g));
}

// Members the program did not name are named after their group in the
// cache (<group>.<i>), and restart under that name at GDS_group_create; a
// named member keeps its name. Each process writes its own part.
// Three arrays of n elements with a SINGLE cache in `dir` (restart "0" or
// "1"), named names[k] (nullptr: unnamed).
void alloc_cached(const char *dir, const char *restart, Index n, const char *const names[3], GDS_gds_t out[3]) {
  for (int k = 0; k < 3; ++k) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, GDS_COPY_TYPE_KEY, "SINGLE");
    MPI_Info_set(info, GDS_CACHE_BASE_KEY, dir);
    MPI_Info_set(info, GDS_RESTART_KEY, restart);
    if (names[k] != nullptr) MPI_Info_set(info, GDS_NAME_KEY, names[k]);
    ASSERT_ALL_GDS_OK(GDS_alloc(1, &n, nullptr, MPI_LONG_LONG, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info, &out[k]));
    MPI_Info_free(&info);
  }
}

// This process's part of array a set to value(i), then a fence.
template <class F>
void put_own(GDS_gds_t a, int rank, F value) {
  Index lo = 0, hi = 0;
  int owns = 0;
  ASSERT_GDS_OK(GDS_distribution(a, rank, &lo, &hi, &owns));
  std::vector<Value> part;
  for (Index i = lo; owns && i <= hi; ++i) part.push_back(value(i));
  if (owns) ASSERT_GDS_OK(GDS_put(part.data(), nullptr, &lo, &hi, a));
  EXPECT_GDS_OK(GDS_fence(a));
}

TEST_F(Group, UnnamedMembersAreNamedAfterTheGroupAndRestart) {
  char dir[] = "/tmp/gds_group_names_XXXXXX";
  if (rank == 0 && mkdtemp(dir) == nullptr) dir[0] = 0;
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  ASSERT_ALL(dir[0] != 0);
  int node = 0, nodes = 0;
  ASSERT_GDS_OK(GDS_failure_group(rank, &node, &nodes));
  const std::string cache = std::string(dir) + "/gds.default/node" + std::to_string(node) + "/";
  const Index n = 10 * static_cast<Index>(nprocs) + 1;
  const char *const names[3] = {nullptr, "named", nullptr};
  const auto make = [&](const char *restart, GDS_gds_t out[3]) { alloc_cached(dir, restart, n, names, out); };
  const auto value = [](int k, Index i, int step) { return static_cast<Value>(k * 100000 + i * 10 + step); };
  GDS_gds_t m[3];
  make("0", m);
  GDS_group_t g = GDS_GROUP_NULL;
  ASSERT_ALL_GDS_OK(GDS_group_create("st", 3, m, &g));
  for (int step = 1; step <= 2; ++step) {
    for (int k = 0; k < 3; ++k) put_own(m[k], rank, [&](Index i) { return value(k, i, step); });
    const std::string label = "step=" + std::to_string(step);
    ASSERT_ALL_GDS_OK(GDS_group_version_inc(g, 1, label.data(), label.size()));
  }
  EXPECT_TRUE(std::filesystem::is_directory(cache + "st.0/r" + std::to_string(rank)));
  EXPECT_TRUE(std::filesystem::is_directory(cache + "named/r" + std::to_string(rank)));
  EXPECT_TRUE(std::filesystem::is_directory(cache + "st.2/r" + std::to_string(rank)));
  gds::test::barrier();
  for (const auto &e : std::filesystem::directory_iterator(cache))
    EXPECT_NE(e.path().filename().string().rfind("array", 0), 0u) << "a member left under its default name: " << e.path();
  ASSERT_ALL_GDS_OK(GDS_group_free(&g));
  for (GDS_gds_t &x : m) ASSERT_ALL_GDS_OK(GDS_free(&x));
  // The rerun: the unnamed members find nothing at their creation, everything at the group's.
  make("1", m);
  GDS_restart_info_t info{};
  ASSERT_GDS_OK(GDS_get_restart_info(m[0], &info));
  EXPECT_EQ(info.restarted, 0) << "an unnamed member restarts with its group";
  ASSERT_GDS_OK(GDS_get_restart_info(m[1], &info));
  EXPECT_EQ(info.restarted, 1) << "a named member restarts at its creation";
  ASSERT_ALL_GDS_OK(GDS_group_create("st", 3, m, &g));
  ASSERT_GDS_OK(GDS_group_get_restart_info(g, &info));
  EXPECT_EQ(info.restarted, 1);
  EXPECT_EQ(info.level, GDS_LEVEL_CACHE);
  EXPECT_EQ(info.version, 1u);
  char *l = nullptr;
  size_t len = 0;
  ASSERT_GDS_OK(GDS_group_get_version_label(g, &l, &len));
  EXPECT_EQ(std::string(l, len), "step=2");
  for (int k = 0; k < 3; ++k) {
    ASSERT_GDS_OK(GDS_get_restart_info(m[k], &info));
    EXPECT_EQ(info.restarted, 1) << "member " << k;
    std::vector<Value> got(n);
    const Index lo = 0, hi = n - 1;
    EXPECT_GDS_OK(GDS_get(got.data(), nullptr, &lo, &hi, m[k]));
    EXPECT_GDS_OK(GDS_wait(m[k]));
    for (Index i = 0; i < n; ++i) ASSERT_EQ(got[i], value(k, i, 2)) << "member " << k << ", element " << i;
  }
  GDS_size_t restored = 0;
  ASSERT_ALL_GDS_OK(GDS_group_version_restore_newest(g, &restored));
  EXPECT_EQ(restored, 1u);
  ASSERT_ALL_GDS_OK(GDS_group_free(&g));
  for (GDS_gds_t &x : m) ASSERT_ALL_GDS_OK(GDS_free(&x));
  gds::test::barrier();
  if (rank == 0) std::filesystem::remove_all(dir);
}

// CRC32C (Castagnoli, reflected), bit by bit: the test reads and writes the
// documented file formats without the library's code.
std::uint32_t crc32c(const unsigned char *p, std::size_t n) {
  std::uint32_t c = ~0u;
  for (std::size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
  }
  return ~c;
}
std::uint64_t le(const std::vector<unsigned char> &b, std::size_t at, int n) {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= std::uint64_t{b[at + static_cast<std::size_t>(i)]} << (8 * i);
  return v;
}
std::vector<unsigned char> slurp(const std::filesystem::path &p) {
  std::FILE *f = std::fopen(p.c_str(), "rb");
  std::vector<unsigned char> b;
  if (f == nullptr) return b;
  for (int c; (c = std::fgetc(f)) != EOF;) b.push_back(static_cast<unsigned char>(c));
  std::fclose(f);
  return b;
}
void spill(const std::filesystem::path &p, const unsigned char *data, std::size_t n) {
  std::FILE *f = std::fopen(p.c_str(), "wb");
  ASSERT_NE(f, nullptr) << p;
  ASSERT_EQ(std::fwrite(data, 1, n, f), n);
  std::fclose(f);
}

// A cache written before group versions were one file per process (each
// member's v<n>.gdsv in its own directory, group commit records of format
// 1): made here from the current layout as docs/file-formats.md describes
// both, then restarted from.
TEST_F(Group, RestartsFromACacheOfTheFormerLayout) {
  char dir[] = "/tmp/gds_group_former_XXXXXX";
  if (rank == 0 && mkdtemp(dir) == nullptr) dir[0] = 0;
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  ASSERT_ALL(dir[0] != 0);
  int node = 0, nodes = 0;
  ASSERT_GDS_OK(GDS_failure_group(rank, &node, &nodes));
  const std::string cache = std::string(dir) + "/gds.default/node" + std::to_string(node) + "/";
  const std::string r = "/r" + std::to_string(rank);
  const Index n = 7 * static_cast<Index>(nprocs) + 3;
  const char *const names[3] = {"fa", "fb", "fc"};
  const auto make = [&](const char *restart, GDS_gds_t out[3]) { alloc_cached(dir, restart, n, names, out); };
  const auto value = [](int k, Index i, int step) { return static_cast<Value>(k * 100000 + i * 10 + step); };
  GDS_gds_t m[3];
  make("0", m);
  GDS_group_t g = GDS_GROUP_NULL;
  ASSERT_ALL_GDS_OK(GDS_group_create("former", 3, m, &g));
  for (int step = 1; step <= 3; ++step) {
    // Member 2 changes at step 1 only; the others at every step, member 1 in part.
    for (int k = 0; k < 3; ++k)
      put_own(m[k], rank, [&](Index i) { return value(k, i, k == 2 ? 1 : k == 1 && i % 2 ? 1 : step); });
    const std::string label = "step=" + std::to_string(step);
    ASSERT_ALL_GDS_OK(GDS_group_version_inc(g, 1, label.data(), label.size()));
  }
  ASSERT_ALL_GDS_OK(GDS_group_free(&g));
  for (GDS_gds_t &x : m) ASSERT_ALL_GDS_OK(GDS_free(&x));
  // The current layout: one group file per process per version, none in the members' directories.
  const std::filesystem::path gdir = cache + "former@group" + r;
  int group_files = 0;
  for (const auto &e : std::filesystem::directory_iterator(gdir)) {
    const std::string name = e.path().filename().string();
    if (name[0] != 'v' || e.path().extension() != ".gdsg") continue;
    ++group_files;
    // The former layout: each member's segment its own file, the record of format 1.
    const std::vector<unsigned char> b = slurp(e.path());
    ASSERT_GE(b.size(), 44u);
    ASSERT_EQ(std::string(b.begin(), b.begin() + 8), "GDSGVER\n");
    const std::uint64_t count = le(b, 12, 4), head = le(b, 32, 8);
    ASSERT_EQ(le(b, head - 4, 4), crc32c(b.data(), head - 4));
    std::size_t at = 40;
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::size_t len = le(b, at, 4);
      const std::string member(b.begin() + static_cast<std::ptrdiff_t>(at) + 4,
                               b.begin() + static_cast<std::ptrdiff_t>(at + 4 + len));
      at += 4 + len;
      const std::uint64_t seg = le(b, at, 8), bytes = le(b, at + 8, 8);
      at += 20;
      spill(cache + member + r + "/" + name.substr(0, name.size() - 5) + ".gdsv", b.data() + seg, bytes);
    }
    std::filesystem::remove(e.path());
    const std::filesystem::path rec = gdir / (name.substr(0, name.size() - 5) + ".done");
    std::vector<unsigned char> d = slurp(rec);
    ASSERT_GE(d.size(), 28u);
    ASSERT_EQ(le(d, 8, 4), 2u) << "a group commit record of the current layout";
    d[8] = 1;
    const std::uint32_t c = crc32c(d.data(), d.size() - 4);
    for (int i = 0; i < 4; ++i) d[d.size() - 4 + static_cast<std::size_t>(i)] = static_cast<unsigned char>(c >> (8 * i));
    spill(rec, d.data(), d.size());
  }
  EXPECT_GE(group_files, 1);
  gds::test::barrier();
  make("1", m);
  ASSERT_ALL_GDS_OK(GDS_group_create("former", 3, m, &g));
  GDS_restart_info_t info{};
  ASSERT_GDS_OK(GDS_group_get_restart_info(g, &info));
  EXPECT_EQ(info.restarted, 1);
  EXPECT_EQ(info.version, 2u);
  for (int k = 0; k < 3; ++k) {
    std::vector<Value> got(static_cast<std::size_t>(n));
    const Index lo = 0, hi = n - 1;
    EXPECT_GDS_OK(GDS_get(got.data(), nullptr, &lo, &hi, m[k]));
    EXPECT_GDS_OK(GDS_wait(m[k]));
    for (Index i = 0; i < n; ++i)
      ASSERT_EQ(got[static_cast<std::size_t>(i)], value(k, i, k == 2 ? 1 : k == 1 && i % 2 ? 1 : 3)) << k << " " << i;
  }
  // Versions made after the restart are of the current layout again.
  const std::string label = "step=4";
  ASSERT_ALL_GDS_OK(GDS_group_version_inc(g, 1, label.data(), label.size()));
  EXPECT_TRUE(std::filesystem::exists(gdir / "v3.gdsg"));
  EXPECT_FALSE(std::filesystem::exists(cache + "fa" + r + "/v3.gdsv"));
  ASSERT_ALL_GDS_OK(GDS_group_free(&g));
  for (GDS_gds_t &x : m) ASSERT_ALL_GDS_OK(GDS_free(&x));
  gds::test::barrier();
  if (rank == 0) std::filesystem::remove_all(dir);
}

TEST_F(Group, LabelAfterRestoreDescribesTheContent) {
  for (int step = 1; step <= 3; ++step) {
    const std::string l = "iter=" + std::to_string(step * 10);
    ASSERT_ALL_GDS_OK(GDS_version_inc(a[0], 1, l.data(), l.size()));
  }
  ASSERT_ALL_GDS_OK(GDS_version_restore(a[0], 1));  // holds iteration 20
  EXPECT_EQ(label_of(a[0]), "iter=20");
  ASSERT_ALL_GDS_OK(GDS_version_restore(a[0], 2));  // the newest: holds iteration 30
  EXPECT_EQ(label_of(a[0]), "iter=30");
}

}  // namespace
