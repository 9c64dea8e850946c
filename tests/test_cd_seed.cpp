// Containment domains through the CD document's API (cd.h over gds_cd.h):
// every call with its documented semantics, nesting and siblings, bad input,
// the MPI-log calls of the interposition layer, and the document's use cases
// (sections 2.5, 2.11.1, 3.1, 3.2.1, 3.2.2, 3.3, 3.4) with their CD calls as
// the document writes them. CDs made by create_cd() are per-process: each
// process preserves a different number of ranges and different values
// (depending on its rank), and checks each result right after the call that
// promises it.
#define CD_COMMIT_ALIAS
#include <gds/cd.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <future>
#include <thread>
#include <vector>

#include "support/gds_test.hpp"

using namespace gds::test;

namespace {

// The calling thread's current CD (GDS_CD_NULL if none).
cd_handle current_cd() {
  GDS_cd_t c = GDS_CD_NULL;
  EXPECT_EQ(GDS_cd_current(&c), GDS_STATUS_OK);
  return c;
}
cd_handle parent_of(cd_handle cd) {
  GDS_cd_t p = GDS_CD_NULL;
  EXPECT_EQ(GDS_cd_get_parent(cd, &p), GDS_STATUS_OK) << GDS_last_error_message();
  return p;
}
GDS_size_t preserved_bytes(cd_handle cd) {
  GDS_size_t n = 0;
  EXPECT_EQ(GDS_cd_get_preserved_bytes(cd, &n), GDS_STATUS_OK) << GDS_last_error_message();
  return n;
}
cd_addrspec rw(void *p, std::size_t n, addr_scope s = GLOBAL) { return cd_addrspec{p, n, READ_WRITE, s}; }
cd_addrspec ro(void *p, std::size_t n, addr_scope s = GLOBAL) { return cd_addrspec{p, n, READ_ONLY, s}; }

cd_handle new_root(comm_log log = COMM_LOGGING_DISABLED, const char *name = nullptr) {
  int error = -1;
  cd_handle cd = create_cd(nullptr, nullptr, log, name, &error);
  EXPECT_EQ(error, 0) << GDS_last_error_message();
  EXPECT_NE(cd, GDS_CD_NULL);
  return cd;
}
cd_handle new_child(cd_handle parent) {
  int error = -1;
  cd_handle cd = create_cd(parent, nullptr, COMM_LOGGING_INHERIT, nullptr, &error);
  EXPECT_EQ(error, 0) << GDS_last_error_message();
  EXPECT_NE(cd, GDS_CD_NULL);
  return cd;
}

// Expects a cd.h call to have failed with `status`.
#define EXPECT_CD_FAIL(call, status)                                   \
  do {                                                                 \
    EXPECT_EQ((call), FAILURE) << #call;                               \
    EXPECT_EQ(GDS_cd_last_status(), (status)) << #call << ": " << GDS_last_error_message(); \
  } while (0)
#define EXPECT_CD_OK(call)                                                     \
  do {                                                                         \
    EXPECT_EQ((call), 0) << #call << ": " << GDS_last_error_message();         \
    EXPECT_EQ(GDS_cd_last_status(), GDS_STATUS_OK) << #call;                   \
  } while (0)

// Commits whatever the test left current (a failed test must not leak CDs into the next).
class CdSeed : public MpiTest {
 protected:
  void TearDown() override {
    int left = 0;
    for (cd_handle c = current_cd(); c != GDS_CD_NULL && left < 64; c = current_cd(), ++left)
      if (commit_cd(c) != 0) break;
    EXPECT_EQ(left, 0) << "the test left " << left << " CD(s) uncommitted";
    MpiTest::TearDown();
  }
};

// ---- regeneration functions -------------------------------------------------

struct RegenRecord {
  int calls = 0;
  int count = -1;
  std::vector<cd_addrspec> ranges;
  int seen_x = -1, seen_y = -1;  // what the function saw of two other variables
  int value = 0;                 // written into every int of the ranges
  int result = 0;                // returned
  const int *watch_x = nullptr, *watch_y = nullptr;
};
RegenRecord g_regen;

int regen_fill(struct cd_addrspec addrlist[], int ascount) {
  ++g_regen.calls;
  g_regen.count = ascount;
  g_regen.ranges.assign(addrlist, addrlist + ascount);
  if (g_regen.watch_x != nullptr) g_regen.seen_x = *g_regen.watch_x;
  if (g_regen.watch_y != nullptr) g_regen.seen_y = *g_regen.watch_y;
  for (int i = 0; i < ascount; ++i) {
    int *p = static_cast<int *>(addrlist[i].address);
    for (std::size_t k = 0; k < addrlist[i].length / sizeof(int); ++k) p[k] = g_regen.value + static_cast<int>(k);
  }
  return g_regen.result;
}

}  // namespace

// ============================================================================
// create_cd
// ============================================================================

TEST_F(CdSeed, CreateRootThenChildrenEachBecomesCurrent) {
  EXPECT_EQ(current_cd(), GDS_CD_NULL);
  int error = -1;
  cd_handle root = create_cd(nullptr, nullptr, COMM_LOGGING_DISABLED, "root", &error);
  EXPECT_EQ(error, 0);
  EXPECT_EQ(GDS_cd_last_status(), GDS_STATUS_OK);
  EXPECT_EQ(current_cd(), root);
  EXPECT_EQ(parent_of(root), GDS_CD_NULL);
  MPI_Comm comm = MPI_COMM_NULL;
  EXPECT_EQ(GDS_cd_get_comm(root, &comm), GDS_STATUS_OK);
  EXPECT_EQ(comm, MPI_COMM_SELF);  // create_cd makes per-process CDs

  // 1 + rank % 3 nested children, the first by handle, the others by CURRENT_CD.
  const int depth = 1 + rank % 3;
  std::vector<cd_handle> chain{root};
  for (int i = 0; i < depth; ++i) {
    error = -1;
    cd_handle c = create_cd(i == 0 ? root : CURRENT_CD, nullptr, COMM_LOGGING_INHERIT, nullptr, &error);
    EXPECT_EQ(error, 0) << GDS_last_error_message();
    EXPECT_EQ(current_cd(), c);
    EXPECT_EQ(parent_of(c), chain.back());
    chain.push_back(c);
  }
  // Committing each makes its parent current again.
  for (int i = depth; i >= 1; --i) {
    EXPECT_CD_OK(commit_cd(chain[static_cast<std::size_t>(i)]));
    EXPECT_EQ(current_cd(), chain[static_cast<std::size_t>(i) - 1]);
  }
  EXPECT_CD_OK(commit_cd(root));
  EXPECT_EQ(current_cd(), GDS_CD_NULL);
}

TEST_F(CdSeed, CreateRefusesChildNameDuplicateRootNameAndInheritOnRoot) {
  cd_handle root = new_root(COMM_LOGGING_DISABLED, "root");
  int error = 0;
  cd_handle bad = create_cd(root, nullptr, COMM_LOGGING_INHERIT, "child", &error);
  EXPECT_EQ(error, FAILURE);
  EXPECT_EQ(bad, GDS_CD_NULL);
  EXPECT_EQ(GDS_cd_last_status(), GDS_STATUS_INVALID);
  EXPECT_EQ(current_cd(), root);  // nothing made

  error = 0;
  bad = create_cd(nullptr, nullptr, COMM_LOGGING_DISABLED, "root", &error);
  EXPECT_EQ(error, FAILURE);
  EXPECT_EQ(bad, GDS_CD_NULL);
  EXPECT_EQ(GDS_cd_last_status(), GDS_STATUS_INVALID);

  error = 0;
  bad = create_cd(nullptr, nullptr, COMM_LOGGING_INHERIT, nullptr, &error);
  EXPECT_EQ(error, FAILURE);
  EXPECT_EQ(GDS_cd_last_status(), GDS_STATUS_INVALID);
  EXPECT_EQ(current_cd(), root);

  // Another root with a different (rank-dependent) name is fine, and the name is free again once committed.
  const std::string other = "root" + std::to_string(rank);
  cd_handle r2 = new_root(COMM_LOGGING_DISABLED, other.c_str());
  EXPECT_CD_OK(commit_cd(r2));
  EXPECT_CD_OK(commit_cd(root));
  cd_handle again = new_root(COMM_LOGGING_DISABLED, "root");
  EXPECT_CD_OK(commit_cd(again));
}

TEST_F(CdSeed, CreateRefusesLoggingMismatchAndAcceptsMpiLoggingInherit) {
  const bool enabled = rank % 2 == 0;
  cd_handle root = new_root(enabled ? COMM_LOGGING_ENABLED : COMM_LOGGING_DISABLED);
  int error = 0;
  cd_handle bad = create_cd(root, nullptr, enabled ? COMM_LOGGING_DISABLED : COMM_LOGGING_ENABLED, nullptr, &error);
  EXPECT_EQ(error, FAILURE);
  EXPECT_EQ(bad, GDS_CD_NULL);
  EXPECT_EQ(GDS_cd_last_status(), GDS_STATUS_INVALID);

  // The same mode as the parent, spelled out, is accepted.
  cd_handle same = create_cd(root, nullptr, enabled ? COMM_LOGGING_ENABLED : COMM_LOGGING_DISABLED, nullptr, &error);
  EXPECT_EQ(error, 0) << GDS_last_error_message();
  EXPECT_CD_OK(commit_cd(same));

  static_assert(MPI_LOGGING_INHERIT == COMM_LOGGING_INHERIT, "the examples' alias");
  error = -1;
  cd_handle child = create_cd(root, nullptr, MPI_LOGGING_INHERIT, nullptr, &error);
  EXPECT_EQ(error, 0) << GDS_last_error_message();
  // The child inherited the parent's mode: it logs if and only if the root does.
  void *ent = std::malloc(8);
  const int r = add_MPI_log_to_cd(child, ent, 8);
  if (enabled) {
    EXPECT_EQ(r, 0) << GDS_last_error_message();
  } else {
    EXPECT_EQ(r, FAILURE);
    EXPECT_EQ(GDS_cd_last_status(), GDS_STATUS_CD_STATE);
    std::free(ent);  // refused: still ours
  }
  EXPECT_CD_OK(commit_cd(child));
  EXPECT_CD_OK(commit_cd(root));
}

TEST_F(CdSeed, CreateStorageInfo) {
  int error = 0;
  cd_handle bad = create_cd(nullptr, "bogus", COMM_LOGGING_DISABLED, nullptr, &error);
  EXPECT_EQ(error, FAILURE);
  EXPECT_EQ(bad, GDS_CD_NULL);
  EXPECT_EQ(GDS_cd_last_status(), GDS_STATUS_INVALID_INFO);
  bad = create_cd(nullptr, "level=tape", COMM_LOGGING_DISABLED, nullptr, &error);
  EXPECT_EQ(error, FAILURE);
  EXPECT_EQ(GDS_cd_last_status(), GDS_STATUS_INVALID_INFO);

  cd_handle root = create_cd(nullptr, rank % 2 ? "" : "level=memory", COMM_LOGGING_DISABLED, nullptr, &error);
  EXPECT_EQ(error, 0) << GDS_last_error_message();
  // level applies to roots only.
  bad = create_cd(root, "level=memory", COMM_LOGGING_INHERIT, nullptr, &error);
  EXPECT_EQ(error, FAILURE);
  EXPECT_EQ(GDS_cd_last_status(), GDS_STATUS_INVALID_INFO);
  // A NULL error pointer is allowed (the handle says it all).
  cd_handle child = create_cd(root, nullptr, COMM_LOGGING_INHERIT, nullptr, nullptr);
  EXPECT_NE(child, GDS_CD_NULL);
  EXPECT_CD_OK(commit_cd(child));
  EXPECT_CD_OK(commit_cd(root));
}

// cd.h: "a message names the call". GDS_cd_create's argument checks run in a
// lambda whose __func__ is "operator()" (src/cd/api.cpp:146).
TEST_F(CdSeed, RefusalMessagesNameTheCall) {
  cd_handle root = new_root();
  int error = 0;
  EXPECT_EQ(create_cd(root, nullptr, COMM_LOGGING_INHERIT, rank % 2 ? "x" : "child", &error), GDS_CD_NULL);
  EXPECT_EQ(error, FAILURE);
  EXPECT_TRUE(message_names("GDS_cd_create", "only a root CD has a name"));
  EXPECT_EQ(create_cd(nullptr, nullptr, COMM_LOGGING_INHERIT, nullptr, &error), GDS_CD_NULL);
  EXPECT_TRUE(message_names("GDS_cd_create", "INHERIT"));
  int a[4];
  cd_addrspec overlap[2] = {rw(&a[0], 3 * sizeof(int)), rw(&a[2], sizeof(int))};
  EXPECT_CD_FAIL(add_to_cd_via_copy(root, overlap, 2), GDS_STATUS_BUFFER_OVERLAP);
  EXPECT_TRUE(message_names("add_to_cd_via_copy", "overlap"));  // the add calls name themselves
  EXPECT_CD_OK(commit_cd(root));
}

// gds_cd.h documents `level=memory|cache|prefix` for a root's storage_info;
// the implementation (api.cpp parse_storage) knows only "memory".
// ============================================================================
// add_to_cd_via_copy / restore_cd
// ============================================================================

TEST_F(CdSeed, ViaCopyThenModifyThenRestoreGivesTheOldBytes) {
  // rank + 1 ranges of different lengths.
  const int n = rank + 1;
  std::vector<std::vector<int>> bufs(static_cast<std::size_t>(n));
  std::vector<cd_addrspec> list;
  for (int i = 0; i < n; ++i) {
    auto &b = bufs[static_cast<std::size_t>(i)];
    b.resize(static_cast<std::size_t>(3 + i));
    for (std::size_t k = 0; k < b.size(); ++k) b[k] = 1000 * rank + 10 * i + static_cast<int>(k);
    list.push_back(rw(b.data(), b.size() * sizeof(int)));
  }
  auto orig = bufs;
  cd_handle root = new_root();
  EXPECT_CD_OK(add_to_cd_via_copy(root, list.data(), n));
  std::size_t bytes = 0;
  for (auto &b : bufs) bytes += b.size() * sizeof(int);
  EXPECT_EQ(preserved_bytes(root), bytes);
  for (auto &b : bufs)
    for (int &v : b) v = -v - 1;
  EXPECT_CD_OK(restore_cd(root));
  EXPECT_EQ(bufs, orig);
  EXPECT_EQ(current_cd(), root);  // the restored CD stays and is current
  int restored = 0;
  EXPECT_EQ(GDS_cd_restored(root, &restored), GDS_STATUS_OK);
  EXPECT_EQ(restored, 1);
  // Restore again: the same values (the store stays).
  for (auto &b : bufs) b.assign(b.size(), 7);
  EXPECT_CD_OK(restore_cd(CURRENT_CD));
  EXPECT_EQ(bufs, orig);
  EXPECT_CD_OK(commit_cd(CURRENT_CD));
}

TEST_F(CdSeed, BracedListOverloads) {
  int x = 10 + rank, y = 20 + rank;
  cd_handle root = new_root();
  EXPECT_CD_OK(add_to_cd_via_copy(root, {&x, sizeof x, READ_WRITE, GLOBAL}, 1));
  EXPECT_CD_OK(add_to_cd_via_copy(CURRENT_CD, {&y, sizeof y, READ_ONLY, CONSTRAINED}, 1));
  EXPECT_EQ(preserved_bytes(root), 2 * sizeof(int));
  // ascount other than 1 with a single braced range is refused, not read past.
  EXPECT_CD_FAIL(add_to_cd_via_copy(root, {&x, sizeof x, READ_WRITE, GLOBAL}, 2), GDS_STATUS_NULL_ARGUMENT);
  cd_handle child = new_child(root);
  EXPECT_CD_OK(add_to_cd_via_parent(child, {&x, sizeof x, READ_WRITE, GLOBAL}, 1));
  x = 0;
  y = 0;
  EXPECT_CD_OK(restore_cd(child));
  EXPECT_EQ(x, 10 + rank);  // via parent
  EXPECT_EQ(y, 0);          // only the root has y
  EXPECT_CD_OK(commit_cd(child));
  EXPECT_CD_OK(delete_from_cd(root, {&y, sizeof y, READ_ONLY, CONSTRAINED}, 1));
  EXPECT_EQ(preserved_bytes(root), sizeof(int));
  EXPECT_CD_OK(restore_cd(root));
  EXPECT_EQ(y, 0);
  EXPECT_CD_OK(commit_cd(root));
}

TEST_F(CdSeed, DocumentSection25AddrspecInitialisation) {
  cd_handle cd = new_root();
  // L464-466 verbatim (brace elision).
  int x;
  x = 5 * rank + 1;
  struct cd_addrspec as[1] = {&x, sizeof(x), READ_WRITE, GLOBAL};
  EXPECT_CD_OK(add_to_cd_via_copy(cd, as, 1));
  x = -1;
  EXPECT_CD_OK(restore_cd(cd));
  EXPECT_EQ(x, 5 * rank + 1);
  EXPECT_CD_OK(commit_cd(cd));
}

TEST_F(CdSeed, OverlappingReAddKeepsEarlierDataAndAddsOnlyTheNewPart) {
  const int n = 4 + 2 * rank;
  std::vector<int> a(static_cast<std::size_t>(2 * n));
  for (int i = 0; i < 2 * n; ++i) a[static_cast<std::size_t>(i)] = i;
  cd_handle root = new_root();
  EXPECT_CD_OK(add_to_cd_via_copy(root, {a.data(), n * sizeof(int), READ_WRITE, GLOBAL}, 1));
  for (int &v : a) v += 100;  // a = i + 100
  // Re-add the whole array: the first half keeps its earlier copy, the second half is copied now.
  EXPECT_CD_OK(add_to_cd_via_copy(root, {a.data(), 2 * n * sizeof(int), READ_WRITE, GLOBAL}, 1));
  EXPECT_EQ(preserved_bytes(root), 2 * n * sizeof(int));
  for (int &v : a) v = -1;
  EXPECT_CD_OK(restore_cd(root));
  for (int i = 0; i < 2 * n; ++i) EXPECT_EQ(a[static_cast<std::size_t>(i)], i < n ? i : i + 100) << i;
  // Re-adding with another scope or another way is refused, all or nothing.
  int other = 0;
  cd_addrspec two[2] = {rw(&other, sizeof other), rw(a.data(), sizeof(int), CONSTRAINED)};
  EXPECT_CD_FAIL(add_to_cd_via_copy(root, two, 2), GDS_STATUS_INVALID);
  EXPECT_EQ(preserved_bytes(root), 2 * n * sizeof(int));  // `other` not added either
  EXPECT_CD_OK(commit_cd(root));
}

TEST_F(CdSeed, RangeArgumentsRefusedWithClearStatuses) {
  int a[8] = {};
  cd_handle root = new_root();
  cd_addrspec overlap[2] = {rw(&a[0], 4 * sizeof(int)), rw(&a[3], 2 * sizeof(int))};
  EXPECT_CD_FAIL(add_to_cd_via_copy(root, overlap, 2), GDS_STATUS_BUFFER_OVERLAP);
  cd_addrspec zero = rw(&a[0], 0);
  EXPECT_CD_FAIL(add_to_cd_via_copy(root, &zero, 1), GDS_STATUS_INVALID);
  cd_addrspec null_addr = rw(nullptr, 4);
  EXPECT_CD_FAIL(add_to_cd_via_copy(root, &null_addr, 1), GDS_STATUS_NULL_ARGUMENT);
  cd_addrspec one = rw(&a[0], sizeof(int));
  EXPECT_CD_FAIL(add_to_cd_via_copy(root, &one, -1 - rank), GDS_STATUS_INVALID);
  EXPECT_CD_FAIL(add_to_cd_via_copy(root, static_cast<cd_addrspec *>(nullptr), 1), GDS_STATUS_NULL_ARGUMENT);
  cd_addrspec bad_type{&a[0], sizeof(int), static_cast<addr_type>(7), GLOBAL};
  EXPECT_CD_FAIL(add_to_cd_via_copy(root, &bad_type, 1), GDS_STATUS_INVALID);
  cd_addrspec bad_scope{&a[0], sizeof(int), READ_WRITE, static_cast<addr_scope>(9)};
  EXPECT_CD_FAIL(add_to_cd_via_copy(root, &bad_scope, 1), GDS_STATUS_INVALID);
  EXPECT_CD_FAIL(delete_from_cd(root, overlap, 2), GDS_STATUS_BUFFER_OVERLAP);
  EXPECT_EQ(preserved_bytes(root), 0u);  // nothing added by any of them
  EXPECT_CD_OK(add_to_cd_via_copy(root, static_cast<cd_addrspec *>(nullptr), 0));  // nothing to add
  // Adjacent (not overlapping) ranges are fine.
  cd_addrspec adjacent[2] = {rw(&a[0], 4 * sizeof(int)), rw(&a[4], 4 * sizeof(int))};
  EXPECT_CD_OK(add_to_cd_via_copy(root, adjacent, 2));
  EXPECT_CD_OK(commit_cd(root));
}

// ============================================================================
// add_to_cd_via_parent
// ============================================================================

TEST_F(CdSeed, ViaParentRestoresTheParentsPreservedValue) {
  std::vector<int> v(static_cast<std::size_t>(2 + rank));
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = rank * 50 + static_cast<int>(k);
  const auto orig = v;
  cd_handle root = new_root();
  EXPECT_CD_OK(add_to_cd_via_copy(root, {v.data(), v.size() * sizeof(int), READ_WRITE, GLOBAL}, 1));
  for (int &x : v) x += 1;  // changed after the parent preserved it
  cd_handle child = new_child(root);
  // Only part of the parent's range.
  EXPECT_CD_OK(add_to_cd_via_parent(child, {v.data() + 1, (v.size() - 1) * sizeof(int), READ_WRITE, GLOBAL}, 1));
  EXPECT_EQ(preserved_bytes(child), 0u);  // no copy
  for (int &x : v) x = -7;
  EXPECT_CD_OK(restore_cd(child));
  EXPECT_EQ(v[0], -7);  // not preserved by the child
  for (std::size_t k = 1; k < v.size(); ++k) EXPECT_EQ(v[k], orig[k]) << k;  // the parent's value, not the child-time one
  EXPECT_CD_OK(commit_cd(child));
  EXPECT_CD_OK(commit_cd(root));
}

TEST_F(CdSeed, ViaParentRefusals) {
  int x = rank, y = 2 * rank, z = 0;
  cd_handle root = new_root();
  EXPECT_CD_FAIL(add_to_cd_via_parent(root, {&x, sizeof x, READ_WRITE, GLOBAL}, 1), GDS_STATUS_CD_STATE);
  EXPECT_CD_OK(add_to_cd_via_copy(root, {&x, sizeof x, READ_WRITE, GLOBAL}, 1));
  cd_addrspec zr = ro(&z, sizeof z);
  g_regen = RegenRecord{};
  EXPECT_CD_OK(add_to_cd_via_regen(root, &zr, 1, regen_fill));
  cd_handle child = new_child(root);
  // y: the parent lacks it.
  EXPECT_CD_FAIL(add_to_cd_via_parent(child, {&y, sizeof y, READ_WRITE, GLOBAL}, 1), GDS_STATUS_NOT_PRESERVED);
  // x and y: all or nothing (x not added).
  cd_addrspec xy[2] = {rw(&x, sizeof x), rw(&y, sizeof y)};
  EXPECT_CD_FAIL(add_to_cd_via_parent(child, xy, 2), GDS_STATUS_NOT_PRESERVED);
  // z: the parent has it only via regen.
  EXPECT_CD_FAIL(add_to_cd_via_parent(child, {&z, sizeof z, READ_ONLY, GLOBAL}, 1), GDS_STATUS_NOT_PRESERVED);
  x = 99;
  EXPECT_CD_OK(restore_cd(child));
  EXPECT_EQ(x, 99);  // the child preserved nothing
  EXPECT_EQ(g_regen.calls, 0);
  EXPECT_CD_OK(commit_cd(child));
  EXPECT_CD_OK(commit_cd(root));
}

// ============================================================================
// add_to_cd_via_regen
// ============================================================================

TEST_F(CdSeed, ViaRegenCalledOnRestoreWithTheRanges) {
  const int n = 1 + rank % 3;
  std::vector<int> a(static_cast<std::size_t>(2 * n), 0);
  std::vector<cd_addrspec> list;
  for (int i = 0; i < n; ++i) list.push_back(ro(&a[static_cast<std::size_t>(2 * i)], sizeof(int)));
  g_regen = RegenRecord{};
  g_regen.value = 300 + rank;
  cd_handle root = new_root();
  cd_addrspec rwr = rw(&a[1], sizeof(int));
  EXPECT_CD_FAIL(add_to_cd_via_regen(root, &rwr, 1, regen_fill), GDS_STATUS_INVALID);  // READ_WRITE via regen
  EXPECT_CD_FAIL(add_to_cd_via_regen(root, list.data(), n, nullptr), GDS_STATUS_NULL_ARGUMENT);
  EXPECT_CD_OK(add_to_cd_via_regen(root, list.data(), n, regen_fill));
  EXPECT_EQ(g_regen.calls, 0);          // not called when added
  EXPECT_EQ(preserved_bytes(root), 0u);  // nothing copied
  for (int &v : a) v = -1;
  EXPECT_CD_OK(restore_cd(root));
  EXPECT_EQ(g_regen.calls, 1);
  EXPECT_EQ(g_regen.count, n);
  ASSERT_EQ(g_regen.ranges.size(), static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(g_regen.ranges[static_cast<std::size_t>(i)].address, list[static_cast<std::size_t>(i)].address);
    EXPECT_EQ(g_regen.ranges[static_cast<std::size_t>(i)].length, sizeof(int));
    EXPECT_EQ(a[static_cast<std::size_t>(2 * i)], 300 + rank);
    EXPECT_EQ(a[static_cast<std::size_t>(2 * i + 1)], -1);
  }
  EXPECT_CD_OK(commit_cd(root));
}

TEST_F(CdSeed, ViaRegenFailureIsRecoveryFailed) {
  int z = 0;
  g_regen = RegenRecord{};
  g_regen.result = 1 + rank;
  cd_handle root = new_root();
  EXPECT_CD_OK(add_to_cd_via_regen(root, {}, 0, regen_fill));
  cd_addrspec zr = ro(&z, sizeof z);
  EXPECT_CD_OK(add_to_cd_via_regen(root, &zr, 1, regen_fill));
  EXPECT_CD_FAIL(restore_cd(root), GDS_STATUS_RECOVERY_FAILED);
  EXPECT_EQ(g_regen.calls, 1);
  EXPECT_EQ(current_cd(), root);
  g_regen.result = 0;
  EXPECT_CD_OK(restore_cd(root));
  EXPECT_CD_OK(commit_cd(root));
}

TEST_F(CdSeed, RestoreOrderCopyThenParentThenRegen) {
  int x = 1 + rank, y = 10 + rank, z = 0;
  cd_handle root = new_root();
  EXPECT_CD_OK(add_to_cd_via_copy(root, {&y, sizeof y, READ_WRITE, GLOBAL}, 1));
  cd_handle child = new_child(root);
  g_regen = RegenRecord{};
  g_regen.watch_x = &x;
  g_regen.watch_y = &y;
  g_regen.value = 77;
  cd_addrspec zr = ro(&z, sizeof z);
  // Added in the opposite order to the restore order.
  EXPECT_CD_OK(add_to_cd_via_regen(child, &zr, 1, regen_fill));
  EXPECT_CD_OK(add_to_cd_via_parent(child, {&y, sizeof y, READ_WRITE, GLOBAL}, 1));
  EXPECT_CD_OK(add_to_cd_via_copy(child, {&x, sizeof x, READ_WRITE, GLOBAL}, 1));
  x = y = z = -5;
  EXPECT_CD_OK(restore_cd(child));
  EXPECT_EQ(g_regen.calls, 1);
  EXPECT_EQ(g_regen.seen_x, 1 + rank);   // the copy was restored before regen ran
  EXPECT_EQ(g_regen.seen_y, 10 + rank);  // and the via-parent entry too
  EXPECT_EQ(x, 1 + rank);
  EXPECT_EQ(y, 10 + rank);
  EXPECT_EQ(z, 77);
  EXPECT_CD_OK(commit_cd(child));
  EXPECT_CD_OK(commit_cd(root));
  g_regen = RegenRecord{};
}

// ============================================================================
// restore_cd with descendants: oldest wins
// ============================================================================

TEST_F(CdSeed, RestoreParentRestoresChildFirstThenParentAndFreesChild) {
  int x = 1, y = 100 + rank;
  cd_handle root = new_root();
  EXPECT_CD_OK(add_to_cd_via_copy(root, {&x, sizeof x, READ_WRITE, GLOBAL}, 1));
  x = 2 + rank;
  cd_handle child = new_child(root);
  cd_addrspec both[2] = {rw(&x, sizeof x), rw(&y, sizeof y)};
  EXPECT_CD_OK(add_to_cd_via_copy(child, both, 2));  // x=2+rank (also in the parent), y only here
  x = 50;
  y = 60;
  EXPECT_CD_OK(restore_cd(root));
  EXPECT_EQ(x, 1);           // the parent's (oldest) value wins
  EXPECT_EQ(y, 100 + rank);  // the child's entry was restored too
  EXPECT_EQ(current_cd(), root);
  EXPECT_CD_FAIL(commit_cd(child), GDS_STATUS_FREED_HANDLE);
  // Child entries are not added to the parent by a restore.
  y = 61;
  EXPECT_CD_OK(restore_cd(root));
  EXPECT_EQ(y, 61);
  EXPECT_CD_OK(commit_cd(root));
}

TEST_F(CdSeed, NestingFourDeep) {
  // Each level preserves its own variable (and rank + 1 extra ints at the deepest).
  int v[4] = {10, 20, 30, 40};
  std::vector<int> extra(static_cast<std::size_t>(rank + 1), rank);
  cd_handle cd[4];
  cd[0] = new_root();
  EXPECT_CD_OK(add_to_cd_via_copy(cd[0], {&v[0], sizeof(int), READ_WRITE, GLOBAL}, 1));
  for (int i = 1; i < 4; ++i) {
    cd[i] = new_child(CURRENT_CD);
    EXPECT_EQ(parent_of(cd[i]), cd[i - 1]);
    EXPECT_CD_OK(add_to_cd_via_copy(cd[i], {&v[i], sizeof(int), READ_WRITE, GLOBAL}, 1));
  }
  // The deepest cannot take v[0] via parent: its parent does not hold it (the root does).
  EXPECT_CD_FAIL(add_to_cd_via_parent(cd[3], {&v[0], sizeof(int), READ_WRITE, GLOBAL}, 1), GDS_STATUS_NOT_PRESERVED);
  // Level 2 takes v[0] via parent, then level 3 via parent of level 2 (resolves up to the root).
  EXPECT_CD_OK(add_to_cd_via_parent(cd[1], {&v[0], sizeof(int), READ_WRITE, GLOBAL}, 1));
  EXPECT_CD_OK(add_to_cd_via_parent(cd[2], {&v[0], sizeof(int), READ_WRITE, GLOBAL}, 1));
  EXPECT_CD_OK(add_to_cd_via_parent(cd[3], {&v[0], sizeof(int), READ_WRITE, GLOBAL}, 1));
  EXPECT_CD_OK(add_to_cd_via_copy(cd[3], {extra.data(), extra.size() * sizeof(int), READ_WRITE, GLOBAL}, 1));
  for (int &x : v) x = -1;
  extra.assign(extra.size(), -1);
  EXPECT_CD_OK(restore_cd(cd[3]));
  EXPECT_EQ(v[0], 10);  // via parent through three levels
  EXPECT_EQ(v[1], -1);
  EXPECT_EQ(v[2], -1);
  EXPECT_EQ(v[3], 40);
  EXPECT_EQ(extra, std::vector<int>(static_cast<std::size_t>(rank + 1), rank));
  for (int &x : v) x = -2;
  // Restoring level 1 restores levels 3, 2, 1 and discards 2 and 3.
  EXPECT_CD_OK(restore_cd(cd[1]));
  EXPECT_EQ(v[0], 10);
  EXPECT_EQ(v[1], 20);
  EXPECT_EQ(v[2], 30);
  EXPECT_EQ(v[3], 40);
  EXPECT_EQ(current_cd(), cd[1]);
  EXPECT_CD_FAIL(restore_cd(cd[3]), GDS_STATUS_FREED_HANDLE);
  EXPECT_CD_FAIL(advance_cd_point_in_time(cd[2]), GDS_STATUS_FREED_HANDLE);
  EXPECT_CD_OK(commit_cd(cd[1]));
  EXPECT_EQ(current_cd(), cd[0]);
  EXPECT_CD_OK(commit_cd(cd[0]));
}

TEST_F(CdSeed, SiblingsRestoringTheParentDiscardsBoth) {
  int a = rank, b = 10 * rank, p = 7;
  cd_handle root = new_root();
  EXPECT_CD_OK(add_to_cd_via_copy(root, {&p, sizeof p, READ_WRITE, GLOBAL}, 1));
  cd_handle s1 = new_child(root);
  EXPECT_CD_OK(add_to_cd_via_copy(s1, {&a, sizeof a, READ_WRITE, GLOBAL}, 1));
  cd_handle s2 = new_child(root);  // a sibling: parent given by handle, s1 still live
  EXPECT_EQ(parent_of(s2), root);
  EXPECT_CD_OK(add_to_cd_via_copy(s2, {&b, sizeof b, READ_WRITE, GLOBAL}, 1));
  EXPECT_CD_FAIL(commit_cd(root), GDS_STATUS_CD_STATE);
  a = b = p = -3;
  EXPECT_CD_OK(restore_cd(root));
  EXPECT_EQ(a, rank);
  EXPECT_EQ(b, 10 * rank);
  EXPECT_EQ(p, 7);
  EXPECT_EQ(current_cd(), root);
  EXPECT_CD_FAIL(commit_cd(s1), GDS_STATUS_FREED_HANDLE);
  EXPECT_CD_FAIL(commit_cd(s2), GDS_STATUS_FREED_HANDLE);
  EXPECT_CD_OK(commit_cd(root));
}

// ============================================================================
// commit_cd
// ============================================================================

TEST_F(CdSeed, CommitMovesChildOnlyGlobalEntriesNotConstrainedOnes) {
  const int n = 1 + rank;
  std::vector<int> g(static_cast<std::size_t>(n), 5), c(static_cast<std::size_t>(n), 6);
  cd_handle root = new_root();
  cd_handle child = new_child(root);
  cd_addrspec list[2] = {rw(g.data(), g.size() * sizeof(int), GLOBAL),
                         rw(c.data(), c.size() * sizeof(int), CONSTRAINED)};
  EXPECT_CD_OK(add_to_cd_via_copy(child, list, 2));
  g.assign(g.size(), 8);
  c.assign(c.size(), 9);
  EXPECT_CD_OK(commit_cd(child));
  EXPECT_EQ(current_cd(), root);
  EXPECT_EQ(preserved_bytes(root), g.size() * sizeof(int));  // the GLOBAL entry only, with the child's data
  EXPECT_CD_OK(restore_cd(root));
  EXPECT_EQ(g, std::vector<int>(static_cast<std::size_t>(n), 5));
  EXPECT_EQ(c, std::vector<int>(static_cast<std::size_t>(n), 9));
  EXPECT_CD_OK(commit_cd(root));
}

TEST_F(CdSeed, CommitHandsChildRegenEntryToParent) {
  std::vector<int> z(static_cast<std::size_t>(1 + rank), 0);
  g_regen = RegenRecord{};
  g_regen.value = 40 + rank;
  cd_handle root = new_root();
  cd_handle child = new_child(root);
  cd_addrspec zr = ro(z.data(), z.size() * sizeof(int));
  EXPECT_CD_OK(add_to_cd_via_regen(child, &zr, 1, regen_fill));
  EXPECT_CD_OK(commit_cd(child));
  EXPECT_EQ(g_regen.calls, 0);
  z.assign(z.size(), -1);
  EXPECT_CD_OK(restore_cd(root));
  EXPECT_EQ(g_regen.calls, 1);
  for (std::size_t k = 0; k < z.size(); ++k) EXPECT_EQ(z[k], 40 + rank + static_cast<int>(k));
  EXPECT_CD_OK(commit_cd(root));
  g_regen = RegenRecord{};
}

TEST_F(CdSeed, CommitParentWins) {
  int x = 1 + rank;
  cd_handle root = new_root();
  EXPECT_CD_OK(add_to_cd_via_copy(root, {&x, sizeof x, READ_WRITE, GLOBAL}, 1));
  x = 2;
  cd_handle child = new_child(root);
  EXPECT_CD_OK(add_to_cd_via_copy(child, {&x, sizeof x, READ_WRITE, GLOBAL}, 1));
  x = 3;
  EXPECT_CD_OK(commit_cd(child));
  EXPECT_EQ(preserved_bytes(root), sizeof x);
  x = 4;
  EXPECT_CD_OK(restore_cd(root));
  EXPECT_EQ(x, 1 + rank);
  EXPECT_CD_OK(commit_cd(root));
}

TEST_F(CdSeed, CommitPromotesParentReadOnlyEntryWrittenByChild) {
  for (int promote = 0; promote < 2; ++promote) {
    int x = 1 + rank;
    cd_handle root = new_root();
    EXPECT_CD_OK(add_to_cd_via_copy(root, {&x, sizeof x, READ_ONLY, GLOBAL}, 1));
    cd_handle child = new_child(root);
    EXPECT_CD_OK(add_to_cd_via_copy(child, {&x, sizeof x, promote ? READ_WRITE : READ_ONLY, GLOBAL}, 1));
    x = 7;
    EXPECT_CD_OK(commit_cd(child));
    x = 9;
    EXPECT_CD_OK(advance_cd_point_in_time(root));  // refreshes x only if it was promoted
    x = 11;
    EXPECT_CD_OK(restore_cd(root));
    EXPECT_EQ(x, promote ? 9 : 1 + rank) << "promote=" << promote;
    EXPECT_CD_OK(commit_cd(root));
  }
}

TEST_F(CdSeed, CommitAndAdvanceRefusedWithUncommittedChildren) {
  int x = rank;
  cd_handle root = new_root();
  EXPECT_CD_OK(add_to_cd_via_copy(root, {&x, sizeof x, READ_WRITE, GLOBAL}, 1));
  cd_handle child = new_child(root);
  EXPECT_CD_FAIL(commit_cd(root), GDS_STATUS_CD_STATE);
  x = 3 + rank;
  EXPECT_CD_FAIL(advance_cd_point_in_time(root), GDS_STATUS_CD_STATE);
  EXPECT_EQ(current_cd(), child);  // nothing changed
  EXPECT_CD_OK(commit_cd(child));
  EXPECT_CD_OK(restore_cd(root));
  EXPECT_EQ(x, rank);  // the refused advance did not refresh
  EXPECT_CD_OK(commit_cd(root));
}

// ============================================================================
// advance_cd_point_in_time
// ============================================================================

TEST_F(CdSeed, AdvanceRefreshesReadWriteCopiesAndDemotesThem) {
  std::vector<int> big(static_cast<std::size_t>(16 + rank), 1);
  int small = 2, ro_v = 3;
  cd_handle cd = new_root();
  cd_addrspec l[2] = {rw(big.data(), big.size() * sizeof(int)), ro(&ro_v, sizeof ro_v)};
  EXPECT_CD_OK(add_to_cd_via_copy(cd, l, 2));
  big.assign(big.size(), 10);
  ro_v = 30;
  EXPECT_CD_OK(advance_cd_point_in_time(cd));  // big refreshed and demoted, ro_v untouched
  big.assign(big.size(), 11);
  EXPECT_CD_OK(restore_cd(cd));
  EXPECT_EQ(big, std::vector<int>(big.size(), 10));
  EXPECT_EQ(ro_v, 3);
  // A second modification + advance does not refresh the demoted entry.
  big.assign(big.size(), 12);
  EXPECT_CD_OK(add_to_cd_via_copy(cd, {&small, sizeof small, READ_WRITE, GLOBAL}, 1));
  small = 20;
  EXPECT_CD_OK(advance_cd_point_in_time(cd));  // only `small`
  big.assign(big.size(), 13);
  small = 21;
  EXPECT_CD_OK(restore_cd(cd));
  EXPECT_EQ(big, std::vector<int>(big.size(), 10));
  EXPECT_EQ(small, 20);
  // Re-adding READ_WRITE promotes without copying; the next advance refreshes.
  big.assign(big.size(), 14);
  EXPECT_CD_OK(add_to_cd_via_copy(cd, {big.data(), big.size() * sizeof(int), READ_WRITE, GLOBAL}, 1));
  big.assign(big.size(), 15);
  EXPECT_CD_OK(restore_cd(cd));
  EXPECT_EQ(big, std::vector<int>(big.size(), 10));  // no copy was taken by the re-add
  big.assign(big.size(), 16);
  EXPECT_CD_OK(advance_cd_point_in_time(cd));
  big.assign(big.size(), 17);
  EXPECT_CD_OK(restore_cd(cd));
  EXPECT_EQ(big, std::vector<int>(big.size(), 16));
  EXPECT_CD_OK(commit_cd(cd));
}

TEST_F(CdSeed, AdvanceOnChildCommitsIntoParentAndChildStays) {
  int c = 1 + rank, p = 100;
  cd_handle root = new_root();
  EXPECT_CD_OK(add_to_cd_via_copy(root, {&p, sizeof p, READ_WRITE, GLOBAL}, 1));
  cd_handle child = new_child(root);
  cd_addrspec l[2] = {rw(&c, sizeof c), rw(&p, sizeof p)};
  p = 101;
  EXPECT_CD_OK(add_to_cd_via_copy(child, l, 2));
  c = 2 + rank;
  p = 102;
  EXPECT_CD_OK(advance_cd_point_in_time(child));
  EXPECT_EQ(current_cd(), child);  // the child stays
  EXPECT_EQ(preserved_bytes(root), 2 * sizeof(int));  // c was handed to the root
  c = -1;
  p = -1;
  EXPECT_CD_OK(restore_cd(child));
  EXPECT_EQ(c, 2 + rank);  // the child's copy moved to now
  EXPECT_EQ(p, 102);
  EXPECT_CD_OK(commit_cd(child));
  c = -2;
  p = -2;
  EXPECT_CD_OK(restore_cd(root));
  EXPECT_EQ(c, 1 + rank);  // the child's value at its old point in time, handed up by the advance
  EXPECT_EQ(p, 100);       // parent wins
  EXPECT_CD_OK(commit_cd(root));
}

// ============================================================================
// add_file_to_cd / delete_file_from_cd
// ============================================================================

TEST_F(CdSeed, FilePositionRestoredAndAdvanced) {
  char path[] = "/tmp/gds_cd_seed_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  unlink(path);
  std::vector<char> bytes(static_cast<std::size_t>(64 * (rank + 1)), 'x');
  ASSERT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  const off_t start = 10 * (rank + 1);
  ASSERT_EQ(lseek(fd, start, SEEK_SET), start);

  cd_handle cd = new_root();
  EXPECT_CD_OK(add_file_to_cd(cd, fd));
  EXPECT_CD_FAIL(add_file_to_cd(cd, fd), GDS_STATUS_INVALID);  // preserved already
  EXPECT_CD_FAIL(add_file_to_cd(cd, -1), GDS_STATUS_INVALID);
  EXPECT_CD_FAIL(add_file_to_cd(cd, 1000000), GDS_STATUS_INVALID);
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  EXPECT_CD_FAIL(add_file_to_cd(cd, pipefd[0]), GDS_STATUS_INVALID);  // not seekable
  close(pipefd[0]);
  close(pipefd[1]);

  ASSERT_EQ(write(fd, "abc", 3), 3);
  EXPECT_CD_OK(restore_cd(cd));
  EXPECT_EQ(lseek(fd, 0, SEEK_CUR), start);
  ASSERT_EQ(lseek(fd, 7, SEEK_CUR), start + 7);
  EXPECT_CD_OK(advance_cd_point_in_time(cd));
  ASSERT_EQ(lseek(fd, 0, SEEK_SET), 0);
  EXPECT_CD_OK(restore_cd(cd));
  EXPECT_EQ(lseek(fd, 0, SEEK_CUR), start + 7);
  EXPECT_CD_OK(delete_file_from_cd(cd, fd));
  EXPECT_CD_FAIL(delete_file_from_cd(cd, fd), GDS_STATUS_NOT_PRESERVED);
  ASSERT_EQ(lseek(fd, 1, SEEK_SET), 1);
  EXPECT_CD_OK(restore_cd(cd));
  EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 1);  // no longer preserved
  EXPECT_CD_OK(commit_cd(cd));
  close(fd);
}

TEST_F(CdSeed, FilePositionOfChildGoesToParentOnCommitParentWins) {
  char path[] = "/tmp/gds_cd_seed_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  unlink(path);
  std::vector<char> bytes(256, 'y');
  ASSERT_EQ(write(fd, bytes.data(), bytes.size()), 256);
  ASSERT_EQ(lseek(fd, 5 + rank, SEEK_SET), 5 + rank);
  cd_handle root = new_root();
  EXPECT_CD_OK(add_file_to_cd(root, fd));
  ASSERT_EQ(lseek(fd, 50, SEEK_SET), 50);
  cd_handle child = new_child(root);
  EXPECT_CD_OK(add_file_to_cd(child, fd));
  EXPECT_CD_OK(commit_cd(child));
  ASSERT_EQ(lseek(fd, 100, SEEK_SET), 100);
  EXPECT_CD_OK(restore_cd(root));
  EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 5 + rank);  // the parent's position
  EXPECT_CD_OK(commit_cd(root));
  close(fd);
}

// gds_cd.h: advance is "all or nothing". A child whose preserved descriptor
// was closed cannot record its position (GDS_STATUS_IO_ERROR); the implicit
// commit into the parent (api.cpp GDS_cd_advance) has happened already by then.
TEST_F(CdSeed, FailedAdvanceOfChildChangesNothing) {
  char path[] = "/tmp/gds_cd_seed_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  unlink(path);
  int c = 3 + rank;
  cd_handle root = new_root();
  cd_handle child = new_child(root);
  EXPECT_CD_OK(add_to_cd_via_copy(child, {&c, sizeof c, READ_WRITE, GLOBAL}, 1));
  EXPECT_CD_OK(add_file_to_cd(child, fd));
  close(fd);
  c = 4;
  EXPECT_CD_FAIL(advance_cd_point_in_time(child), GDS_STATUS_IO_ERROR);
  EXPECT_EQ(preserved_bytes(root), 0u) << "the failed advance handed the child's entries to the parent";
  c = 5;
  EXPECT_CD_FAIL(restore_cd(child), GDS_STATUS_IO_ERROR);  // the closed descriptor's position
  EXPECT_EQ(c, 3 + rank);  // not refreshed: memory restored before the files
  EXPECT_CD_OK(delete_file_from_cd(child, fd));
  EXPECT_CD_OK(commit_cd(child));
  (void)delete_file_from_cd(root, fd);  // if the failed advance handed it up
  EXPECT_CD_OK(commit_cd(root));
}

// ============================================================================
// delete_from_cd
// ============================================================================

TEST_F(CdSeed, DeleteFromCdRemovesAndSplits) {
  const int n = 6 + rank;
  std::vector<int> a(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) a[static_cast<std::size_t>(i)] = i;
  int other = 42;
  cd_handle cd = new_root();
  cd_addrspec l[2] = {rw(a.data(), a.size() * sizeof(int)), rw(&other, sizeof other)};
  EXPECT_CD_OK(add_to_cd_via_copy(cd, l, 2));
  // The middle of a: [2, 4).
  EXPECT_CD_OK(delete_from_cd(cd, {&a[2], 2 * sizeof(int), READ_ONLY, CONSTRAINED}, 1));  // labels ignored
  EXPECT_EQ(preserved_bytes(cd), (a.size() - 2 + 1) * sizeof(int));
  // Again: not preserved any more; and all or nothing with `other`.
  cd_addrspec again[2] = {rw(&other, sizeof other), rw(&a[3], 2 * sizeof(int))};
  EXPECT_CD_FAIL(delete_from_cd(cd, again, 2), GDS_STATUS_NOT_PRESERVED);
  EXPECT_EQ(preserved_bytes(cd), (a.size() - 2 + 1) * sizeof(int));
  int never = 0;
  EXPECT_CD_FAIL(delete_from_cd(cd, {&never, sizeof never, READ_WRITE, GLOBAL}, 1), GDS_STATUS_NOT_PRESERVED);
  a.assign(a.size(), -1);
  other = -1;
  EXPECT_CD_OK(restore_cd(cd));
  for (int i = 0; i < n; ++i) EXPECT_EQ(a[static_cast<std::size_t>(i)], (i == 2 || i == 3) ? -1 : i) << i;
  EXPECT_EQ(other, 42);
  // Deleting the last entries does not discard the CD.
  cd_addrspec rest[3] = {rw(a.data(), 2 * sizeof(int)), rw(&a[4], (a.size() - 4) * sizeof(int)),
                         rw(&other, sizeof other)};
  EXPECT_CD_OK(delete_from_cd(cd, rest, 3));
  EXPECT_EQ(preserved_bytes(cd), 0u);
  EXPECT_EQ(current_cd(), cd);
  EXPECT_CD_OK(commit_cd(cd));
}

// ============================================================================
// Bad handles and threads
// ============================================================================

namespace {
// Every call of cd.h on `cd` fails with `status`.
// (create_cd: as the parent, except GDS_CD_NULL, which makes a root.)
void expect_all_refused(cd_handle cd, GDS_status_t status) {
  int x = 0;
  cd_addrspec r = rw(&x, sizeof x);
  cd_addrspec r_ro = ro(&x, sizeof x);
  EXPECT_CD_FAIL(commit_cd(cd), status);
  EXPECT_CD_FAIL(restore_cd(cd), status);
  EXPECT_CD_FAIL(advance_cd_point_in_time(cd), status);
  EXPECT_CD_FAIL(add_to_cd_via_copy(cd, &r, 1), status);
  EXPECT_CD_FAIL(add_to_cd_via_parent(cd, &r, 1), status);
  EXPECT_CD_FAIL(add_to_cd_via_regen(cd, &r_ro, 1, regen_fill), status);
  EXPECT_CD_FAIL(add_file_to_cd(cd, 0), status);
  EXPECT_CD_FAIL(delete_file_from_cd(cd, 0), status);
  EXPECT_CD_FAIL(delete_from_cd(cd, &r, 1), status);
  void *ent = std::malloc(4);
  EXPECT_CD_FAIL(add_MPI_log_to_cd(cd, ent, 4), status);
  std::free(ent);
  int error = 0;
  EXPECT_EQ(get_MPI_log_from_cd(cd, &error), nullptr);
  EXPECT_EQ(error, FAILURE);
  EXPECT_EQ(GDS_cd_last_status(), status);
  EXPECT_CD_FAIL(delete_MPI_log_from_cd(cd), status);
  if (cd == GDS_CD_NULL) return;
  error = 0;
  EXPECT_EQ(create_cd(cd, nullptr, COMM_LOGGING_INHERIT, nullptr, &error), GDS_CD_NULL);
  EXPECT_EQ(error, FAILURE);
  EXPECT_EQ(GDS_cd_last_status(), status);
}
}  // namespace

TEST_F(CdSeed, NullHandleRefused) {
  expect_all_refused(GDS_CD_NULL, GDS_STATUS_NULL_HANDLE);
}

TEST_F(CdSeed, CurrentCdWithNoCurrentCdIsNullHandle) {
  ASSERT_EQ(current_cd(), GDS_CD_NULL);
  expect_all_refused(CURRENT_CD, GDS_STATUS_NULL_HANDLE);
}

TEST_F(CdSeed, CommittedHandleRefusedAsFreed) {
  cd_handle cd = new_root();
  if (rank % 2 == 1) {  // odd ranks free it through a restore of its parent instead
    cd_handle child = new_child(cd);
    EXPECT_CD_OK(restore_cd(cd));
    expect_all_refused(child, GDS_STATUS_FREED_HANDLE);
  }
  EXPECT_CD_OK(commit_cd(cd));
  expect_all_refused(cd, GDS_STATUS_FREED_HANDLE);
}

TEST_F(CdSeed, GarbageHandleRefusedAsInvalid) {
  expect_all_refused(reinterpret_cast<cd_handle>(static_cast<std::uintptr_t>(0x1234 + rank)),
                     GDS_STATUS_INVALID_HANDLE);
  expect_all_refused(reinterpret_cast<cd_handle>(GDS_ROOT), GDS_STATUS_INVALID_HANDLE);  // a handle of another kind
}

TEST_F(CdSeed, AnotherThreadsCdIsWrongThreadForCommitRestoreAdvance) {
  std::promise<cd_handle> made;
  std::promise<void> release;
  std::promise<int> committed;
  std::future<void> released = release.get_future();
  std::thread t([&] {
    int error = -1;
    cd_handle c = create_cd(nullptr, nullptr, COMM_LOGGING_DISABLED, nullptr, &error);
    made.set_value(error == 0 ? c : GDS_CD_NULL);
    released.wait();
    committed.set_value(restore_cd(c) == 0 ? commit_cd(c) : FAILURE);
  });
  const cd_handle c = made.get_future().get();
  EXPECT_NE(c, GDS_CD_NULL);
  EXPECT_EQ(current_cd(), GDS_CD_NULL);  // CDs are current per thread
  EXPECT_CD_FAIL(restore_cd(c), GDS_STATUS_WRONG_THREAD);
  EXPECT_CD_FAIL(commit_cd(c), GDS_STATUS_WRONG_THREAD);
  EXPECT_CD_FAIL(advance_cd_point_in_time(c), GDS_STATUS_WRONG_THREAD);
  // Adding and deleting are thread safe: allowed from any thread.
  int y = 3 + rank;
  EXPECT_CD_OK(add_to_cd_via_copy(c, {&y, sizeof y, READ_WRITE, GLOBAL}, 1));
  EXPECT_EQ(preserved_bytes(c), sizeof y);
  EXPECT_CD_OK(delete_from_cd(c, {&y, sizeof y, READ_WRITE, GLOBAL}, 1));
  EXPECT_CD_FAIL(restore_cd(c), GDS_STATUS_WRONG_THREAD);
  std::future<int> done = committed.get_future();
  release.set_value();
  EXPECT_EQ(done.get(), 0);
  t.join();
  // The other thread's statuses are its own.
  EXPECT_EQ(GDS_cd_last_status(), GDS_STATUS_WRONG_THREAD);
}

// ============================================================================
// MPI log calls (interposition layer)
// ============================================================================

namespace {
void *entry(int value) {
  int *p = static_cast<int *>(std::malloc(sizeof(int)));
  *p = value;
  return p;
}
int value_of(void *p) { return p != nullptr ? *static_cast<int *>(p) : -999; }
}  // namespace

TEST_F(CdSeed, MpiLogFifoRewindReplayAndDelete) {
  cd_handle cd = new_root(COMM_LOGGING_ENABLED);
  const int n = 2 + rank;
  for (int i = 0; i < n; ++i) EXPECT_CD_OK(add_MPI_log_to_cd(cd, entry(100 * rank + i), sizeof(int)));
  int error = -1;
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(value_of(get_MPI_log_from_cd(cd, &error)), 100 * rank + i) << i;
    EXPECT_EQ(error, 0);
  }
  error = -1;
  EXPECT_EQ(get_MPI_log_from_cd(cd, &error), nullptr);
  EXPECT_EQ(error, 0);
  // restore_cd rewinds; during replay adding is refused.
  EXPECT_CD_OK(restore_cd(cd));
  EXPECT_EQ(value_of(get_MPI_log_from_cd(cd, &error)), 100 * rank);
  void *late = entry(-1);
  EXPECT_CD_FAIL(add_MPI_log_to_cd(cd, late, sizeof(int)), GDS_STATUS_CD_STATE);
  for (int i = 1; i < n; ++i) EXPECT_EQ(value_of(get_MPI_log_from_cd(cd, &error)), 100 * rank + i);
  EXPECT_EQ(get_MPI_log_from_cd(CURRENT_CD, &error), nullptr);  // replay over
  EXPECT_CD_OK(add_MPI_log_to_cd(cd, late, sizeof(int)));        // logging live again
  EXPECT_EQ(value_of(get_MPI_log_from_cd(cd, &error)), -1);
  // Bad arguments.
  EXPECT_CD_FAIL(add_MPI_log_to_cd(cd, nullptr, 4), GDS_STATUS_NULL_ARGUMENT);
  void *e = entry(0);
  EXPECT_CD_FAIL(add_MPI_log_to_cd(cd, e, 0), GDS_STATUS_INVALID);
  EXPECT_CD_OK(add_MPI_log_to_cd(cd, e, sizeof(int)));
  // delete_MPI_log_from_cd discards everything.
  EXPECT_CD_OK(delete_MPI_log_from_cd(cd));
  EXPECT_CD_OK(restore_cd(cd));
  EXPECT_EQ(get_MPI_log_from_cd(cd, &error), nullptr);
  EXPECT_EQ(error, 0);
  EXPECT_CD_OK(commit_cd(cd));  // frees what is left (checked by ASan/valgrind runs)
}

TEST_F(CdSeed, MpiLogRefusedWhenLoggingDisabled) {
  cd_handle cd = new_root(COMM_LOGGING_DISABLED);
  void *e = entry(rank);
  EXPECT_CD_FAIL(add_MPI_log_to_cd(cd, e, sizeof(int)), GDS_STATUS_CD_STATE);
  std::free(e);
  int error = -1;
  EXPECT_EQ(get_MPI_log_from_cd(cd, &error), nullptr);
  EXPECT_EQ(error, 0);
  EXPECT_CD_OK(delete_MPI_log_from_cd(cd));
  EXPECT_CD_OK(commit_cd(cd));
}

TEST_F(CdSeed, MpiLogAdvanceDiscardsIt) {
  cd_handle cd = new_root(COMM_LOGGING_ENABLED);
  for (int i = 0; i <= rank; ++i) EXPECT_CD_OK(add_MPI_log_to_cd(cd, entry(i), sizeof(int)));
  EXPECT_CD_OK(advance_cd_point_in_time(cd));
  EXPECT_CD_OK(restore_cd(cd));
  int error = -1;
  EXPECT_EQ(get_MPI_log_from_cd(cd, &error), nullptr);
  EXPECT_CD_OK(add_MPI_log_to_cd(cd, entry(5), sizeof(int)));  // not replaying: the log was empty
  EXPECT_CD_OK(commit_cd(cd));
}

TEST_F(CdSeed, MpiLogChildMergedIntoParentOnCommitUnlessSiblings) {
  cd_handle root = new_root(COMM_LOGGING_ENABLED);
  EXPECT_CD_OK(add_MPI_log_to_cd(root, entry(1), sizeof(int)));
  cd_handle c1 = new_child(root);
  for (int i = 0; i <= rank; ++i) EXPECT_CD_OK(add_MPI_log_to_cd(c1, entry(10 + i), sizeof(int)));
  EXPECT_CD_OK(commit_cd(c1));  // the only child so far: merged
  cd_handle c2 = new_child(root);
  EXPECT_CD_OK(add_MPI_log_to_cd(c2, entry(20), sizeof(int)));
  EXPECT_CD_OK(commit_cd(c2));  // had a sibling: discarded
  int error = -1;
  EXPECT_EQ(value_of(get_MPI_log_from_cd(root, &error)), 1);
  for (int i = 0; i <= rank; ++i) EXPECT_EQ(value_of(get_MPI_log_from_cd(root, &error)), 10 + i);
  EXPECT_EQ(get_MPI_log_from_cd(root, &error), nullptr);
  EXPECT_CD_OK(commit_cd(root));
}

// Section 2.10 (L561-563, L865): "the MPI logs of children are merged with
// their ancestor's MPI logs on a restore" when strictly hierarchical.
TEST_F(CdSeed, MpiLogChildMergedIntoParentOnRestoreWhenHierarchical) {
  cd_handle root = new_root(COMM_LOGGING_ENABLED);
  EXPECT_CD_OK(add_MPI_log_to_cd(root, entry(1), sizeof(int)));
  cd_handle child = new_child(root);
  EXPECT_CD_OK(add_MPI_log_to_cd(child, entry(2 + rank), sizeof(int)));
  EXPECT_CD_OK(restore_cd(root));
  int error = -1;
  EXPECT_EQ(value_of(get_MPI_log_from_cd(root, &error)), 1);
  EXPECT_EQ(value_of(get_MPI_log_from_cd(root, &error)), 2 + rank) << "the child's log was not merged on restore";
  EXPECT_EQ(get_MPI_log_from_cd(root, &error), nullptr);
  EXPECT_CD_OK(commit_cd(root));
}

// ============================================================================
// The document's examples
// ============================================================================

// 2.11.1 Motivation (L939-963), with the 5-argument create_cd: the advance of
// a parent with an uncommitted child must be refused (L613, L932).
namespace motivation {
int x = 0, y = 0;  // Initial state; Time T0
cd_handle parent, child;
}  // namespace motivation

TEST_F(CdSeed, DocumentMotivationExample) {
  using namespace motivation;
  x = 0;
  y = 0;
  char *storage_info = NULL;
  struct cd_addrspec addrlist1[1] = {&x, sizeof(x), READ_WRITE, GLOBAL};
  struct cd_addrspec addrlist2[1] = {&y, sizeof(y), READ_WRITE, GLOBAL};

  // The document's 3-argument create_cd (section 2.11.1), unchanged.
  parent = create_cd(NULL, storage_info, COMM_LOGGING_ENABLED);
  EXPECT_NE(parent, GDS_CD_NULL);
  add_to_cd_via_copy(parent, addrlist1, 1);  // parent contains: x=0
  x += 1;                                    // x=1;

  child = create_cd(parent, NULL, MPI_LOGGING_INHERIT);
  EXPECT_NE(child, GDS_CD_NULL);
  add_to_cd_via_copy(child, addrlist2, 1);  // child contains: y=0

  y += 1;  // y=1;

  EXPECT_EQ(advance_cd_point_in_time(parent), FAILURE);  // refused: parent has an uncommitted child
  EXPECT_EQ(GDS_cd_last_status(), GDS_STATUS_CD_STATE);

  EXPECT_EQ(commit(child), 0);
  EXPECT_EQ(commit(parent), 0);  // This commit will discard the CD 'parent'.
  EXPECT_EQ(current_cd(), GDS_CD_NULL);
}

// Use case 3.1 (L1000-1020): one CD, transient CPU failure.
namespace uc31 {
struct Data {
  int step;
  long sum;
} data;
int compute_done;
int target, fail_at, failures;
Data before_failure;
int compute() {  // Sets compute_done when finished.
  if (data.step + 1 == fail_at && failures == 0) {
    before_failure = data;
    ++failures;
    data.sum = -999;  // a corrupted partial result
    data.step += 1;
    return 1;
  }
  data.step += 1;
  data.sum += data.step;
  if (data.step == target) compute_done = 1;
  return 0;
}
}  // namespace uc31

TEST_F(CdSeed, DocumentUseCase31OneCd) {
  using namespace uc31;
  data = Data{0, 0};
  target = 4 + rank;
  fail_at = 2 + rank % 3;
  failures = 0;
  cd_handle cd;
  int restores = 0;

  int done = 0, error, compute_error;
  compute_done = 0;
  char *storage_info = NULL;
  struct cd_addrspec addrlist[2] = {{&data, sizeof(data), READ_WRITE, GLOBAL},
                                    {&compute_done, sizeof(compute_done), READ_WRITE, GLOBAL}};

  cd = create_cd(NULL, storage_info, COMM_LOGGING_DISABLED, "root", &error);
  EXPECT_EQ(error, 0);

  while (!done) {
    add_to_cd_via_copy(cd, addrlist, 2);
    compute_error = compute();  // Sets compute_done when finished.
    if (compute_error) {
      restore_cd(cd);
      ++restores;
      EXPECT_EQ(data.step, before_failure.step);  // the state at the last advance
      EXPECT_EQ(data.sum, before_failure.sum);
    } else {
      if (compute_done) {
        done = 1;
      } else if (advance_cd_point_in_time(cd) == FAILURE) {
        restore_cd(cd);
      }
    }
  }
  commit_cd(cd);

  EXPECT_EQ(GDS_cd_last_status(), GDS_STATUS_OK);
  EXPECT_EQ(restores, 1);
  EXPECT_EQ(data.step, target);
  EXPECT_EQ(data.sum, static_cast<long>(target) * (target + 1) / 2);
  EXPECT_EQ(current_cd(), GDS_CD_NULL);
}

// Use case 3.2.1 STATIC 1 (L1113-1170) and its table (L1182-1185).
namespace static1 {
int x = 0;
cd_handle root, cd_a, cd_b;
std::vector<int> compute_fails;  // which calls of compute_stuff fail (1-based)
int compute_calls, other_calls, other_fails;
std::vector<int> x_after_restore_a, x_after_restore_b;
int compute_stuff() { return std::find(compute_fails.begin(), compute_fails.end(), ++compute_calls) != compute_fails.end(); }
int do_some_other_stuff_that_may_error() { return ++other_calls <= other_fails; }

int b(cd_handle parent) {
  int error, compute_error, function_error;
  struct cd_addrspec addrlist[1] = { {&x, sizeof(x), READ_WRITE, GLOBAL} };
  cd_b = create_cd(parent, NULL, MPI_LOGGING_INHERIT, NULL, &error);
  EXPECT_EQ(error, 0);
  add_to_cd_via_copy(cd_b, addrlist, 1); // cd_b contains: x=1
TOP:
  x += 1;                    // x=2;
  compute_error = compute_stuff();

  if (compute_error) {
    restore_cd(cd_b);      // Restore app memory to: x=1;
    x_after_restore_b.push_back(x);
    goto TOP;
  } else {
    commit_cd(cd_b);       // Commit to parent(cd_a): x=0 (parent wins)
  }

  function_error = do_some_other_stuff_that_may_error();
  return function_error;
}

int a(cd_handle parent) {
  int error, compute_error, function_error;
  struct cd_addrspec addrlist[1] = { {&x, sizeof(x), READ_WRITE, GLOBAL} };
  cd_a = create_cd(parent, NULL, MPI_LOGGING_INHERIT, NULL, &error);
  EXPECT_EQ(error, 0);
  add_to_cd_via_copy(cd_a, addrlist, 1); // cd_a contains: x=0
TOP:
  x += 1;                    // x=1;
  compute_error = compute_stuff();

  if (compute_error) {
    restore_cd(cd_a);      // Restore app memory to: x=0
    x_after_restore_a.push_back(x);
    goto TOP;
  }

  //Call another function.
  function_error = b(cd_a);

  if (function_error) {
    restore_cd(cd_a);      // Restore app memory to: x=0
    x_after_restore_a.push_back(x);
    goto TOP;
  } else {
    commit_cd(cd_a);       // Commit to parent(root): x=0 (child wins)
  }

  return 0;
}
}  // namespace static1

TEST_F(CdSeed, DocumentUseCaseStatic1) {
  using namespace static1;
  x = 0;
  compute_calls = other_calls = 0;
  // a fails first; b fails on its first call; rank-dependent: odd ranks also fail in b's second round,
  // and ranks >= 2 have do_some_other_stuff fail once (restoring cd_a after cd_b was committed).
  compute_fails = rank % 2 ? std::vector<int>{1, 3, 4} : std::vector<int>{1, 3};
  other_fails = rank >= 2 ? 1 : 0;
  x_after_restore_a.clear();
  x_after_restore_b.clear();

  char *storage_info = NULL;
  int error;
  root = create_cd(NULL, storage_info, COMM_LOGGING_ENABLED, "root", &error);
  EXPECT_EQ(error, 0);
  a(root);
  // Upon return from function a(), the CD 'root' contains x=0.
  EXPECT_EQ(x, 2);
  x = 42;
  EXPECT_EQ(restore_cd(root), 0);  // (check) root holds x=0
  EXPECT_EQ(x, 0);

  commit_cd(root);  // This commit will discard the CD 'root'.
  EXPECT_EQ(GDS_cd_last_status(), GDS_STATUS_OK);
  EXPECT_EQ(current_cd(), GDS_CD_NULL);

  EXPECT_EQ(x_after_restore_a, std::vector<int>(static_cast<std::size_t>(1 + other_fails), 0));
  EXPECT_EQ(x_after_restore_b, std::vector<int>(compute_fails.size() - 1, 1));
}

// STATIC 1's table at T4 (x=2, cd_a holds 0, cd_b holds 1): restore cd_b, restore cd_a, commit cd_b.
TEST_F(CdSeed, DocumentStatic1Table) {
  for (int column = 0; column < 3; ++column) {
    int x = 0;
    cd_handle root = new_root(COMM_LOGGING_ENABLED, "root");
    cd_handle cd_a = new_child(root);
    EXPECT_CD_OK(add_to_cd_via_copy(cd_a, {&x, sizeof x, READ_WRITE, GLOBAL}, 1));
    x += 1;
    cd_handle cd_b = new_child(cd_a);
    EXPECT_CD_OK(add_to_cd_via_copy(cd_b, {&x, sizeof x, READ_WRITE, GLOBAL}, 1));
    x += 1;  // T4: x=2
    if (column == 0) {
      EXPECT_CD_OK(restore_cd(cd_b));
      EXPECT_EQ(x, 1);
      EXPECT_CD_OK(commit_cd(cd_b));
    } else if (column == 1) {
      EXPECT_CD_OK(restore_cd(cd_a));
      EXPECT_EQ(x, 0);  // parent wins
      EXPECT_CD_FAIL(commit_cd(cd_b), GDS_STATUS_FREED_HANDLE);  // DISCARDED
    } else {
      EXPECT_CD_OK(commit_cd(cd_b));
      EXPECT_EQ(x, 2);  // application memory unchanged
      EXPECT_CD_OK(restore_cd(cd_a));
      EXPECT_EQ(x, 0);  // cd_a still holds x=0 (parent wins)
    }
    EXPECT_CD_OK(commit_cd(cd_a));
    EXPECT_CD_OK(commit_cd(root));
  }
}

// Use case 3.2.2 STATIC 2 (L1197-1273) and its tables (L1285-1288, L1413-1417).
namespace static2 {
int x = 0, y = 0, z = 0;
cd_handle root, cd_a, cd_b;
bool profitable;
int compute_calls, other_calls;
struct State {
  int x, y, z;
  bool operator==(const State &o) const { return x == o.x && y == o.y && z == o.z; }
};
std::vector<State> after_restore_a, after_restore_b;
int compute_stuff() { ++compute_calls; return compute_calls == 1 || compute_calls == 3; }  // a's first, b's first
int do_some_other_stuff_that_may_error() { return ++other_calls == 1; }
int cray_is_profitable() { return profitable; }

int b(cd_handle parent) {
  int error, compute_error, function_error;
  struct cd_addrspec addrlist[2] = {{&x, sizeof(x), READ_WRITE, GLOBAL},
                                    {&y, sizeof(y), READ_WRITE, GLOBAL}};
  cd_b = create_cd(parent, NULL, MPI_LOGGING_INHERIT, NULL, &error);
  EXPECT_EQ(error, 0);
  add_to_cd_via_copy(cd_b, addrlist, 2); // cd_b contains: x=1 and y=0
  if (cray_is_profitable()) {
    // Note: this is a single variable and not an array.
    struct cd_addrspec addrlist1 = {&z, sizeof(z), READ_WRITE, GLOBAL};

    add_to_cd_via_copy(cd_b, &addrlist1, 1); // cd_b contains: x=1, y=0, z=0
  }
TOP:
  x += 1; // x=2;
  y += 1; // y=1;
  if (cray_is_profitable()) {
    z += 1; // z=1;
  }

  compute_error = compute_stuff();
  if (compute_error) {
    restore_cd(cd_b); // Restore app memory to: x=1, y=0, and z=0 (Conditionally) ;
    after_restore_b.push_back({x, y, z});
    goto TOP;
  } else {
    commit(cd_b); // Commit to parent(cd_a):
    // x=0 (parent wins)
    // y=0 (child wins)
    // z=0 (child wins.)
    // This last line is conditional upon whether z was ever added to cd_b.
  }

  function_error = do_some_other_stuff_that_may_error();
  return function_error;
}

int a(cd_handle parent) {
  int error, compute_error, function_error;
  struct cd_addrspec addrlist[1] = { {&x, sizeof(x), READ_WRITE, GLOBAL} };
  cd_a = create_cd(parent, NULL, MPI_LOGGING_INHERIT, NULL, &error);
  EXPECT_EQ(error, 0);

  add_to_cd_via_copy(cd_a, addrlist, 1); // cd_a contains: x=0
TOP:
  x += 1; // x=1;
  compute_error = compute_stuff();

  if (compute_error) {
    restore_cd(cd_a); // Restore app memory to:
    // x=0,
    // y=0 (y is not restored, but this is its value in application memory)
    after_restore_a.push_back({x, y, z});
    goto TOP;
  }

  //Call another function.
  function_error = b(cd_a);

  if (function_error) {
    restore_cd(cd_a); // Restore app memory to: x=0, y=0
    after_restore_a.push_back({x, y, z});
    goto TOP;
  } else {
    commit(cd_a); // Commit to parent(root): x=0 (child wins), y=0 (child wins)
  }

  return 0;
}
}  // namespace static2

TEST_F(CdSeed, DocumentUseCaseStatic2) {
  using namespace static2;
  x = y = z = 0;
  compute_calls = other_calls = 0;
  profitable = rank % 2 == 0;
  after_restore_a.clear();
  after_restore_b.clear();

  char *storage_info = NULL;
  int error;

  root = create_cd(NULL, storage_info, COMM_LOGGING_ENABLED, "root", &error);
  EXPECT_EQ(error, 0);
  a(root);
  // Upon return from function a(), the CD 'root' contains x=0, y=0, z=0 (Conditionally)
  const int zp = profitable ? 1 : 0;
  EXPECT_EQ((State{x, y, z}), (State{2, 1, zp}));
  x = y = z = 77;
  EXPECT_EQ(restore_cd(root), 0);  // (check) what root holds
  EXPECT_EQ((State{x, y, z}), (State{0, 0, profitable ? 0 : 77}));
  commit(root); // This commit will discard the CD 'root'.
  EXPECT_EQ(GDS_cd_last_status(), GDS_STATUS_OK);
  EXPECT_EQ(current_cd(), GDS_CD_NULL);

  // a's first restore: x=0, y=0 (never touched yet), z=0.
  // b's restore: x=1, y=0, z=0.
  // a's restore after b committed: x=0, y=0 (child wins), z=0 if z was added to cd_b, else z stays 1? (z is
  // only incremented when profitable, so it is 0 either way).
  ASSERT_EQ(after_restore_a.size(), 2u);
  EXPECT_EQ(after_restore_a[0], (State{0, 0, 0}));
  EXPECT_EQ(after_restore_a[1], (State{0, 0, 0}));
  ASSERT_EQ(after_restore_b.size(), 1u);
  EXPECT_EQ(after_restore_b[0], (State{1, 0, 0}));
}

// STATIC 2's table at T4 (x=2, y=1, z=1; cd_a holds x=0; cd_b holds x=1, y=0, z=0 if profitable).
TEST_F(CdSeed, DocumentStatic2Table) {
  const bool profitable = rank % 2 == 0;
  for (int column = 0; column < 3; ++column) {
    int x = 0, y = 0, z = 0;
    cd_handle root = new_root(COMM_LOGGING_ENABLED, "root");
    cd_handle cd_a = new_child(root);
    EXPECT_CD_OK(add_to_cd_via_copy(cd_a, {&x, sizeof x, READ_WRITE, GLOBAL}, 1));
    x += 1;
    cd_handle cd_b = new_child(cd_a);
    cd_addrspec l[2] = {rw(&x, sizeof x), rw(&y, sizeof y)};
    EXPECT_CD_OK(add_to_cd_via_copy(cd_b, l, 2));
    if (profitable) EXPECT_CD_OK(add_to_cd_via_copy(cd_b, {&z, sizeof z, READ_WRITE, GLOBAL}, 1));
    x += 1;
    y += 1;
    z += 1;  // T4 (z changed on every process, so that "conditionally" shows)
    if (column == 0) {  // Restore CD_B
      EXPECT_CD_OK(restore_cd(cd_b));
      EXPECT_EQ(x, 1);
      EXPECT_EQ(y, 0);
      EXPECT_EQ(z, profitable ? 0 : 1);
      EXPECT_CD_OK(commit_cd(cd_b));
    } else if (column == 1) {  // Restore CD_A
      EXPECT_CD_OK(restore_cd(cd_a));
      EXPECT_EQ(x, 0);  // parent wins
      EXPECT_EQ(y, 0);  // child wins
      EXPECT_EQ(z, profitable ? 0 : 1);
      EXPECT_CD_FAIL(commit_cd(cd_b), GDS_STATUS_FREED_HANDLE);
    } else {  // Commit CD_B: memory unchanged; CD_A now X=0, Y=0, Z=0
      EXPECT_CD_OK(commit_cd(cd_b));
      EXPECT_EQ(x, 2);
      EXPECT_EQ(y, 1);
      EXPECT_EQ(z, 1);
      EXPECT_EQ(preserved_bytes(cd_a), (profitable ? 3 : 2) * sizeof(int));
      x = y = z = 9;
      EXPECT_CD_OK(restore_cd(cd_a));
      EXPECT_EQ(x, 0);
      EXPECT_EQ(y, 0);
      EXPECT_EQ(z, profitable ? 0 : 9);
      // 3.5's table: commit CD_A -> root {X=0, Y=0}.
      EXPECT_CD_OK(commit_cd(cd_a));
      x = y = z = 8;
      EXPECT_CD_OK(restore_cd(root));
      EXPECT_EQ(x, 0);
      EXPECT_EQ(y, 0);
      EXPECT_EQ(z, profitable ? 0 : 8);
      EXPECT_CD_OK(commit_cd(root));
      continue;
    }
    EXPECT_CD_OK(commit_cd(cd_a));
    EXPECT_CD_OK(commit_cd(root));
  }
}

// Use case 3.3 Delete_from_cd (L1303-1336).
namespace uc33 {
cd_handle root;
int calls_1, calls_2, fail_1, fail_2;
std::vector<int> x_after_restore_main, y_after_restore_calc;
int *x_ptr;
int compute_stuff(int y) { (void)y; return ++calls_1 <= fail_1; }
int compute_stuff(int x, int answer) { (void)x; (void)answer; return ++calls_2 <= fail_2; }
GDS_size_t bytes_after_delete;

int calculator(cd_handle cd) {
  int comp_error;
  int y = 0;
  add_to_cd_via_copy(cd, {&y, sizeof(y), READ_WRITE, GLOBAL}, 1); // cd contains: x=0 and y=0
TOP:
  y += 1;
  comp_error = compute_stuff(y);
  if (comp_error) {
    restore_cd(cd);    // Restore app memory to: x=0 and y=0
    y_after_restore_calc.push_back(y * 1000 + *x_ptr);
    goto TOP;
  } else {
    delete_from_cd(cd, {&y, sizeof(y), READ_WRITE, GLOBAL}, 1); // cd contains: x=0
    bytes_after_delete = preserved_bytes(cd);
  }

  return y;
}
}  // namespace uc33

TEST_F(CdSeed, DocumentUseCase33DeleteFromCd) {
  using namespace uc33;
  calls_1 = calls_2 = 0;
  fail_1 = 1 + rank % 2;  // calculator fails once or twice
  fail_2 = 1;             // main fails once
  x_after_restore_main.clear();
  y_after_restore_calc.clear();

  char *storage_info = NULL;
  int cd_error, comp_error;
  int x = 0, answer;
  x_ptr = &x;
  root = create_cd(NULL, storage_info, COMM_LOGGING_DISABLED, "root", &cd_error);
  EXPECT_EQ(cd_error, 0);
  add_to_cd_via_copy(root, {&x, sizeof(x), READ_WRITE, GLOBAL}, 1); // root contains: x=0
TOP:
  answer = calculator(root);
  EXPECT_EQ(answer, 1);
  EXPECT_EQ(bytes_after_delete, sizeof(int));  // only x left
  x += 1;
  comp_error = compute_stuff(x, answer);
  if (comp_error) {
    restore_cd(root);    // Restores x = 0;
    x_after_restore_main.push_back(x);
    goto TOP;
  }
  commit_cd(root);        // This commit will discard the CD 'root'.
  EXPECT_EQ(GDS_cd_last_status(), GDS_STATUS_OK);

  EXPECT_EQ(x, 1);
  EXPECT_EQ(x_after_restore_main, std::vector<int>{0});
  // y=0 and x=0 after each restore inside calculator (y*1000 + x).
  EXPECT_EQ(y_after_restore_calc, std::vector<int>(static_cast<std::size_t>(fail_1), 0));
}

// Use case 3.4 Sibling CDs (L1345-1399), one thread per sibling (one after
// the other: GDS is initialised MPI_THREAD_SERIALIZED) instead of fork. The
// first round, one rank-dependent sibling "terminates abnormally": its
// thread ends without committing, and the root is restored.
namespace uc34 {
std::vector<int> compute_fails_left;  // per data row
int abnormal_row = -1;
int compute(int *data_ptr, int row) {
  *data_ptr = *data_ptr * 2 + 1;
  return compute_fails_left[static_cast<std::size_t>(row)]-- > 0;
}
int calculator(cd_handle parent, int *data_ptr, int row, bool *committed) {
  int cd_error, calc_error;
  cd_handle child = create_cd(parent, NULL, MPI_LOGGING_INHERIT, NULL, &cd_error);
  EXPECT_EQ(cd_error, 0);
  const int initial = *data_ptr;
  add_to_cd_via_copy(child, {data_ptr, sizeof(int), READ_WRITE, GLOBAL}, 1);
  /* Recover when encountering an error. */
  while ((calc_error = compute(data_ptr, row))) {
    restore_cd(child);
    EXPECT_EQ(*data_ptr, initial);
  }
  if (row == abnormal_row) {
    abnormal_row = -1;
    return 1;  // "terminated abnormally": no commit
  }

  /* This commit updates the parent CD with initial data, prior to changing that data.*/
  /* This initial data can later be used for recovery, if needed. */
  *committed = commit_cd(child) == 0;
  return 0;
}
int initialize_data(std::vector<int> &data, int rank) {
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = rank * 10 + static_cast<int>(i);
  return 0;
}
}  // namespace uc34

TEST_F(CdSeed, DocumentUseCase34Siblings) {
  using namespace uc34;
  const int num_ranks = 2 + rank % 3;  // siblings on this process
  compute_fails_left.assign(static_cast<std::size_t>(num_ranks), 1);
  compute_fails_left[0] = 0;
  abnormal_row = num_ranks - 1;
  int rounds = 0;

  int cd_error;
  int num_rows = num_ranks, i = 0;
  std::vector<int> data(static_cast<std::size_t>(num_rows));

  /* Some initial internal state */
  int x = 0, y = 0, z = 0;
  struct cd_addrspec addrlist[3] = {{&x, sizeof(x), READ_WRITE, GLOBAL},
                                    {&y, sizeof(y), READ_WRITE, GLOBAL},
                                    {&z, sizeof(z), READ_ONLY, GLOBAL}};

  cd_handle root = create_cd(NULL, NULL, COMM_LOGGING_ENABLED, "root", &cd_error);
  EXPECT_EQ(cd_error, 0);
  add_to_cd_via_copy(root, addrlist, 3);
  initialize_data(data, rank);
  const std::vector<int> initial = data;
TOP:
  ++rounds;
  x += 1;
  y += 2;
  bool abnormal = false;
  for (i = 0; i < num_ranks; i++) {
    bool committed = false;
    int result = 0;
    std::thread t([&, i] { result = calculator(root, &data[static_cast<std::size_t>(i)], i, &committed); });
    t.join();
    if (result != 0) abnormal = true;
    else EXPECT_TRUE(committed) << "sibling " << i;
  }
  EXPECT_EQ(current_cd(), root);  // the siblings lived on their own threads
  if (abnormal) {
    restore_cd(root);
    EXPECT_EQ(x, 0);
    EXPECT_EQ(y, 0);
    EXPECT_EQ(data, initial);  // committed siblings handed their initial data up; the abnormal one was discarded
    goto TOP;
  }

  /* Discard the root CD via commit_cd. */
  commit_cd(root);
  EXPECT_EQ(GDS_cd_last_status(), GDS_STATUS_OK);
  EXPECT_EQ(rounds, 2);
  EXPECT_EQ(x, 1);
  EXPECT_EQ(y, 2);
  // Second round: each row computed once (fails were used up in round 1).
  for (int r = 0; r < num_ranks; ++r)
    EXPECT_EQ(data[static_cast<std::size_t>(r)], initial[static_cast<std::size_t>(r)] * 2 + 1) << r;
  EXPECT_EQ(current_cd(), GDS_CD_NULL);
}
