// Containment domains over GDS arrays and Open Resilience (GDS extensions):
// boxes preserved by collective CDs (pinned versions) and per-process CDs
// (snapshots of a process's own part), via parent and via regen; restore
// refused when a per-process CD wrote to another process; handlers matched
// on the current CD, then its ancestors, then the array; escalation;
// gds::cd::run re-executing after a restore, with results bit-identical to
// an error-free run. Each process changes a different amount.
#include <gds.hpp>

#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

#include "support/gds_test.hpp"

using namespace gds::test;

namespace {

using Value = long long;

class Cd : public MpiTest {
 protected:
  void SetUp() override {
    n = 64 * static_cast<Index>(nprocs) + 5;  // uneven blocks
    ASSERT_GDS_OK(GDS_alloc(1, &n, nullptr, MPI_LONG_LONG, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &g));
    ASSERT_ALL_GDS_OK(GDS_distribution(g, rank, &lo, &hi, &owns));
    fill(1);
  }
  void TearDown() override {
    GDS_cd_t c = GDS_CD_NULL;
    EXPECT_GDS_OK(GDS_cd_current(&c));
    EXPECT_EQ(c, GDS_CD_NULL) << "a test left a CD current";
    EXPECT_GDS_OK(GDS_free(&g));
    MpiTest::TearDown();
  }
  // Every element i = i * k, written by its owner.
  void fill(Value k) {
    if (owns) {
      std::vector<Value> v(hi - lo + 1);
      for (Index i = lo; i <= hi; ++i) v[i - lo] = static_cast<Value>(i) * k;
      EXPECT_GDS_OK(GDS_put(v.data(), nullptr, &lo, &hi, g));
    }
    EXPECT_GDS_OK(GDS_fence(g));
  }
  // The whole array, read by every process (collective).
  std::vector<Value> all() {
    std::vector<Value> v(n);
    const Index zero = 0, last = n - 1;
    EXPECT_GDS_OK(GDS_get(v.data(), nullptr, &zero, &last, g));
    EXPECT_GDS_OK(GDS_wait(g));
    EXPECT_GDS_OK(GDS_fence(g));  // every process has read before anyone writes again
    return v;
  }
  // This process changes `count` of its own elements (count differs by rank).
  void scribble_own(Index count, Value value) {
    for (Index k = 0; owns && k < count && lo + k <= hi; ++k) {
      const Index i = lo + k;
      EXPECT_GDS_OK(GDS_put(&value, nullptr, &i, &i, g));
    }
    EXPECT_GDS_OK(GDS_wait(g));
  }
  Index n = 0, lo = 0, hi = 0;
  int owns = 0;
  GDS_gds_t g = GDS_NULL;
};

TEST_F(Cd, ACollectiveCdRestoresABoxFromItsPinnedVersionAfterUnevenChanges) {
  GDS_cd_t cd = GDS_CD_NULL;
  ASSERT_ALL_GDS_OK(GDS_cd_create(GDS_CD_NULL, GDS_COMM_WORLD, "box", nullptr, GDS_CD_LOGGING_DISABLED, &cd));
  const Index blo = 3, bhi = n - 2;
  ASSERT_ALL_GDS_OK(GDS_cd_preserve_box(cd, GDS_CD_VIA_COPY, g, &blo, &bhi, GDS_CD_READ_WRITE, nullptr, nullptr));
  const std::vector<Value> before = all();
  scribble_own(static_cast<Index>(rank) * 7, -5);  // rank 0 changes nothing
  EXPECT_GDS_OK(GDS_fence(g));
  ASSERT_ALL_GDS_OK(GDS_cd_restore(cd));
  EXPECT_GDS_OK(GDS_fence(g));
  const std::vector<Value> after = all();
  for (Index i = blo; i <= bhi; ++i) EXPECT_EQ(after[i], before[i]) << "element " << i;
  int again = 0;
  EXPECT_GDS_OK(GDS_cd_restored(cd, &again));
  EXPECT_EQ(again, 1);
  ASSERT_ALL_GDS_OK(GDS_cd_commit(&cd));
  EXPECT_EQ(cd, GDS_CD_NULL);
}

// A member of a version group is versioned by its group only: a collective CD preserves each
// process's part of it instead, restored after different changes on each process, and advanced.
TEST_F(Cd, ABoxOfAVersionGroupMemberIsPreservedByPartsAndRestored) {
  GDS_group_t group = GDS_GROUP_NULL;
  ASSERT_ALL_GDS_OK(GDS_group_create("cd-members", 1, &g, &group));
  GDS_cd_t cd = GDS_CD_NULL;
  ASSERT_ALL_GDS_OK(GDS_cd_create(GDS_CD_NULL, GDS_COMM_WORLD, nullptr, nullptr, GDS_CD_LOGGING_DISABLED, &cd));
  const Index blo = 0, bhi = n - 1;
  ASSERT_ALL_GDS_OK(GDS_cd_preserve_box(cd, GDS_CD_VIA_COPY, g, &blo, &bhi, GDS_CD_READ_WRITE, nullptr, nullptr));
  const std::vector<Value> before = all();
  scribble_own(static_cast<Index>(rank) * 5 + 1, -9);
  EXPECT_GDS_OK(GDS_fence(g));
  ASSERT_ALL_GDS_OK(GDS_cd_restore(cd));
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_EQ(all(), before);
  fill(4);
  ASSERT_ALL_GDS_OK(GDS_cd_advance(cd));  // the point moves: the parts copied again
  const std::vector<Value> moved = all();
  scribble_own(3, -1);
  EXPECT_GDS_OK(GDS_fence(g));
  ASSERT_ALL_GDS_OK(GDS_cd_restore(cd));
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_EQ(all(), moved);
  ASSERT_ALL_GDS_OK(GDS_cd_commit(&cd));
  EXPECT_GDS_OK(GDS_group_version_inc(group, 1, nullptr, 0));  // the group still versions it
  EXPECT_GDS_OK(GDS_group_free(&group));
}

TEST_F(Cd, ThePinnedVersionSurvivesRetentionWhileTheCdLives) {
  GDS_cd_t cd = GDS_CD_NULL;
  ASSERT_ALL_GDS_OK(GDS_cd_create(GDS_CD_NULL, GDS_COMM_WORLD, nullptr, nullptr, GDS_CD_LOGGING_DISABLED, &cd));
  const Index blo = 0, bhi = n - 1;
  ASSERT_ALL_GDS_OK(GDS_cd_preserve_box(cd, GDS_CD_VIA_COPY, g, &blo, &bhi, GDS_CD_READ_ONLY, nullptr, nullptr));
  const std::vector<Value> before = all();
  // Many versions later, with the default retention, the CD's version is still there.
  for (int v = 0; v < 12; ++v) {
    scribble_own(static_cast<Index>(v + rank), 100 + v);
    ASSERT_ALL_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
  }
  ASSERT_ALL_GDS_OK(GDS_cd_restore(cd));
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_EQ(all(), before);
  // An array a live CD preserves cannot be freed.
  GDS_gds_t copy = g;
  EXPECT_EQ(GDS_free(&copy), GDS_STATUS_INVALID);
  ASSERT_ALL_GDS_OK(GDS_cd_commit(&cd));
}

TEST_F(Cd, APerProcessCdRestoresOnlyItsOwnPartWithNoOtherProcess) {
  GDS_cd_t cd = GDS_CD_NULL;
  ASSERT_GDS_OK(GDS_cd_create(GDS_CD_NULL, MPI_COMM_SELF, nullptr, nullptr, GDS_CD_LOGGING_DISABLED, &cd));
  const Index blo = 0, bhi = n - 1;
  ASSERT_GDS_OK(GDS_cd_preserve_box(cd, GDS_CD_VIA_COPY, g, &blo, &bhi, GDS_CD_READ_WRITE, nullptr, nullptr));
  const std::vector<Value> before = all();
  EXPECT_GDS_OK(GDS_fence(g));
  scribble_own(static_cast<Index>(rank) + 1, -9);
  // Only odd ranks restore: no collective is involved.
  if (rank % 2 == 1) EXPECT_GDS_OK(GDS_cd_restore(cd));
  EXPECT_GDS_OK(GDS_fence(g));
  const std::vector<Value> after = all();
  for (int r = 0; r < nprocs; ++r) {
    Index rlo = 0, rhi = 0;
    int rowns = 0;
    EXPECT_GDS_OK(GDS_distribution(g, r, &rlo, &rhi, &rowns));
    for (Index k = 0; rowns && k < static_cast<Index>(r) + 1 && rlo + k <= rhi; ++k)
      EXPECT_EQ(after[rlo + k], r % 2 == 1 ? before[rlo + k] : -9) << "rank " << r << " element " << rlo + k;
  }
  EXPECT_GDS_OK(GDS_cd_commit(&cd));
}

TEST_F(Cd, APerProcessCdThatWroteToAnotherProcessIsRefusedAndTheEnclosingCollectiveCdRestores) {
  GDS_cd_t outer = GDS_CD_NULL, inner = GDS_CD_NULL;
  const Index blo = 0, bhi = n - 1;
  ASSERT_ALL_GDS_OK(GDS_cd_create(GDS_CD_NULL, GDS_COMM_WORLD, nullptr, nullptr, GDS_CD_LOGGING_DISABLED, &outer));
  ASSERT_ALL_GDS_OK(GDS_cd_preserve_box(outer, GDS_CD_VIA_COPY, g, &blo, &bhi, GDS_CD_READ_WRITE, nullptr, nullptr));
  const std::vector<Value> before = all();
  ASSERT_GDS_OK(GDS_cd_create(outer, MPI_COMM_SELF, nullptr, nullptr, GDS_CD_LOGGING_INHERIT, &inner));
  ASSERT_GDS_OK(GDS_cd_preserve_box(inner, GDS_CD_VIA_COPY, g, &blo, &bhi, GDS_CD_READ_WRITE, nullptr, nullptr));
  // Each process writes one element of its right neighbour's part (with one process: its own).
  const int right = (rank + 1) % nprocs;
  Index rlo = 0, rhi = 0;
  int rowns = 0;
  EXPECT_GDS_OK(GDS_distribution(g, right, &rlo, &rhi, &rowns));
  const Value v = -1000 - rank;
  EXPECT_GDS_OK(GDS_acc(&v, nullptr, &rlo, &rlo, MPI_SUM, g));
  EXPECT_GDS_OK(GDS_wait(g));
  EXPECT_EQ(GDS_cd_restore(inner), nprocs > 1 ? GDS_STATUS_NOT_CONTAINED : GDS_STATUS_OK);
  EXPECT_GDS_OK(GDS_fence(g));
  ASSERT_ALL_GDS_OK(GDS_cd_restore(outer));  // discards inner
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_EQ(all(), before);
  EXPECT_EQ(GDS_cd_commit(&inner), GDS_STATUS_FREED_HANDLE);
  ASSERT_ALL_GDS_OK(GDS_cd_commit(&outer));
}

TEST_F(Cd, ViaParentReadsTheAncestorsVersionAndRegenRecomputes) {
  GDS_cd_t root = GDS_CD_NULL, child = GDS_CD_NULL;
  const Index blo = 0, bhi = n - 1;
  ASSERT_ALL_GDS_OK(GDS_cd_create(GDS_CD_NULL, GDS_COMM_WORLD, nullptr, nullptr, GDS_CD_LOGGING_DISABLED, &root));
  ASSERT_ALL_GDS_OK(GDS_cd_preserve_box(root, GDS_CD_VIA_COPY, g, &blo, &bhi, GDS_CD_READ_WRITE, nullptr, nullptr));
  const std::vector<Value> before = all();
  ASSERT_GDS_OK(GDS_cd_create(root, MPI_COMM_SELF, nullptr, nullptr, GDS_CD_LOGGING_INHERIT, &child));
  ASSERT_GDS_OK(GDS_cd_preserve_box(child, GDS_CD_VIA_PARENT, g, &blo, &bhi, GDS_CD_READ_WRITE, nullptr, nullptr));
  static int regens;
  regens = 0;
  std::vector<double> table(100 + static_cast<std::size_t>(rank));
  std::iota(table.begin(), table.end(), 0.5);
  const GDS_cd_range_t t{table.data(), table.size() * sizeof(double), GDS_CD_READ_ONLY, GDS_CD_GLOBAL};
  auto regen = [](const GDS_cd_range_t r[], int count, void *) -> int {
    ++regens;
    auto *p = static_cast<double *>(r[0].address);
    for (std::size_t i = 0; i < r[0].length / sizeof(double); ++i) p[i] = static_cast<double>(i) + 0.5;
    return count == 1 ? 0 : 1;
  };
  ASSERT_GDS_OK(GDS_cd_preserve(child, GDS_CD_VIA_REGEN, &t, 1, regen, nullptr));
  scribble_own(static_cast<Index>(rank) * 3 + 2, 77);
  std::fill(table.begin(), table.end(), -1.0);
  EXPECT_GDS_OK(GDS_cd_restore(child));  // local: reads the root's pinned version of its own part
  EXPECT_EQ(regens, 1);
  EXPECT_EQ(table[7], 7.5);
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_EQ(all(), before);
  // A box via parent the parent does not hold is refused; READ_WRITE via regen too.
  GDS_cd_t other = GDS_CD_NULL;
  ASSERT_GDS_OK(GDS_cd_create(GDS_CD_NULL, MPI_COMM_SELF, nullptr, nullptr, GDS_CD_LOGGING_DISABLED, &other));
  EXPECT_EQ(GDS_cd_preserve_box(other, GDS_CD_VIA_PARENT, g, &blo, &bhi, GDS_CD_READ_ONLY, nullptr, nullptr),
            GDS_STATUS_CD_STATE);
  EXPECT_EQ(GDS_cd_preserve_box(other, GDS_CD_VIA_COPY, g, &bhi, &blo, GDS_CD_READ_ONLY, nullptr, nullptr),
            n > 1 ? GDS_STATUS_INVALID_BOX : GDS_STATUS_OK);
  const Index past = n;
  EXPECT_EQ(GDS_cd_preserve_box(other, GDS_CD_VIA_COPY, g, &blo, &past, GDS_CD_READ_ONLY, nullptr, nullptr),
            GDS_STATUS_RANGE);
  EXPECT_GDS_OK(GDS_cd_commit(&other));
  EXPECT_GDS_OK(GDS_cd_commit(&child));
  ASSERT_ALL_GDS_OK(GDS_cd_commit(&root));
}

TEST_F(Cd, AdvanceMovesThePointInTimeAndCostsWhatChanged) {
  GDS_cd_t cd = GDS_CD_NULL;
  const Index blo = 0, bhi = n - 1;
  ASSERT_ALL_GDS_OK(GDS_cd_create(GDS_CD_NULL, GDS_COMM_WORLD, nullptr, nullptr, GDS_CD_LOGGING_DISABLED, &cd));
  ASSERT_ALL_GDS_OK(GDS_cd_preserve_box(cd, GDS_CD_VIA_COPY, g, &blo, &bhi, GDS_CD_READ_WRITE, nullptr, nullptr));
  scribble_own(static_cast<Index>(rank) + 2, 31);
  EXPECT_GDS_OK(GDS_fence(g));
  ASSERT_ALL_GDS_OK(GDS_cd_advance(cd));
  const std::vector<Value> mid = all();
  scribble_own(5, 32);
  EXPECT_GDS_OK(GDS_fence(g));
  ASSERT_ALL_GDS_OK(GDS_cd_restore(cd));
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_EQ(all(), mid);
  ASSERT_ALL_GDS_OK(GDS_cd_commit(&cd));
}

// Handlers: the current CD's first, then its parent's, then the array's.
struct Seen {
  int inner = 0, outer = 0, array = 0;
};
Seen g_seen;
GDS_error_attr_key_t g_key = 0;

GDS_error_pred_t pred_any() {
  GDS_error_pred_t p = GDS_ERROR_PRED_NULL;
  GDS_error_pred_term_t t = GDS_ERROR_PRED_TERM_NULL;
  EXPECT_GDS_OK(GDS_create_error_pred(&p));
  EXPECT_GDS_OK(GDS_create_error_pred_term(g_key, GDS_EMEXP_ANY, 0, nullptr, &t));
  EXPECT_GDS_OK(GDS_add_error_pred_term(p, t));
  EXPECT_GDS_OK(GDS_free_error_pred_term(&t));
  return p;
}

void raise_one(GDS_gds_t where, std::int64_t id) {
  GDS_error_t e = GDS_ERROR_NULL;
  EXPECT_GDS_OK(GDS_create_error_descriptor(&e));
  EXPECT_GDS_OK(GDS_add_error_attr(e, g_key, sizeof id, &id));
  EXPECT_GDS_OK(GDS_raise_local_error(where, e));
}

TEST_F(Cd, ErrorsGoToTheCurrentCdThenItsAncestorsThenTheArray) {
  if (g_key == 0) ASSERT_GDS_OK(GDS_define_error_attr_key("cd_test_id", 10, GDS_EAVTYPE_INT, &g_key));
  g_seen = {};
  GDS_error_pred_t p = pred_any();
  EXPECT_GDS_OK(GDS_register_local_error_handler(
      g, p, [](GDS_gds_t gds, GDS_error_t e) {
        ++g_seen.array;
        return GDS_resume_local(gds, e);
      }));
  GDS_cd_t outer = GDS_CD_NULL, inner = GDS_CD_NULL;
  ASSERT_GDS_OK(GDS_cd_create(GDS_CD_NULL, MPI_COMM_SELF, nullptr, nullptr, GDS_CD_LOGGING_DISABLED, &outer));
  EXPECT_GDS_OK(GDS_cd_register_handler(
      outer, p,
      [](GDS_cd_t cd, GDS_gds_t gds, GDS_error_t e, void *) {
        ++g_seen.outer;
        EXPECT_EQ(GDS_cd_restore(cd), GDS_STATUS_OK);
        return GDS_resume_local(gds, e);
      },
      nullptr, nullptr));
  int x = 1;
  const GDS_cd_range_t rx{&x, sizeof x, GDS_CD_READ_WRITE, GDS_CD_GLOBAL};
  EXPECT_GDS_OK(GDS_cd_preserve(outer, GDS_CD_VIA_COPY, &rx, 1, nullptr, nullptr));
  ASSERT_GDS_OK(GDS_cd_create(outer, MPI_COMM_SELF, nullptr, nullptr, GDS_CD_LOGGING_INHERIT, &inner));
  EXPECT_GDS_OK(GDS_cd_register_handler(
      inner, p,
      [](GDS_cd_t, GDS_gds_t, GDS_error_t e, void *) {
        ++g_seen.inner;
        return GDS_cd_escalate(e);  // cannot contain it: on to the parent
      },
      nullptr, nullptr));
  x = 2;
  raise_one(g, 1);
  EXPECT_GDS_OK(GDS_wait(g));  // delivered here
  EXPECT_EQ(g_seen.inner, 1);
  EXPECT_EQ(g_seen.outer, 1);
  EXPECT_EQ(g_seen.array, 0);
  EXPECT_EQ(x, 1);  // the outer CD restored it
  EXPECT_EQ(GDS_cd_commit(&inner), GDS_STATUS_FREED_HANDLE);  // discarded by the restore
  GDS_cd_t current = GDS_CD_NULL;
  EXPECT_GDS_OK(GDS_cd_current(&current));
  EXPECT_EQ(current, outer);
  EXPECT_GDS_OK(GDS_cd_commit(&outer));
  // With no CD current, the array's handler gets it.
  raise_one(g, 2);
  EXPECT_GDS_OK(GDS_wait(g));
  EXPECT_EQ(g_seen.array, 1);
  // Escalate outside a CD handler is refused.
  GDS_error_t e = GDS_ERROR_NULL;
  EXPECT_GDS_OK(GDS_create_error_descriptor(&e));
  EXPECT_EQ(GDS_cd_escalate(e), GDS_STATUS_NOT_IN_HANDLER);
  EXPECT_GDS_OK(GDS_free_error_descriptor(&e));
  EXPECT_GDS_OK(GDS_free_error_pred(&p));
}

TEST_F(Cd, CxxRunReexecutesAfterAnInjectedFaultWithABitIdenticalResult) {
  // Three sweeps, each in a per-process child CD over this process's own
  // part: read it, add sweep * i, write it back. In the faulty pass the
  // second sweep's write meets an injected RMA fault part way (after a
  // different number of writes on each process); the library raises it, the
  // child's handler restores the child, and run() re-executes the sweep.
  std::vector<Value> reference;
  for (int pass = 0; pass < 2; ++pass) {
    fill(1);
    int handled = 0;
    bool injected = false;
    gds::cd root("sweeps");
    for (int sweep = 1; sweep <= 3; ++sweep) {
      gds::cd step(root);
      if (owns) step.preserve_box(g, gds::box({lo}, {hi}));
      step.on_error(gds::predicate().any(GDS_EATTR_GDS_STATUS), [&](gds::raised_error &e) {
        ++handled;
        step.restore();
        e.resume();
      });
      int runs = 0;
      step.run([&](gds::cd &) {
        ++runs;
        if (!owns) return;
        std::vector<Value> v(hi - lo + 1);
        gds::detail::check(GDS_get(v.data(), nullptr, &lo, &hi, g));
        gds::detail::check(GDS_wait(g));
        for (Index i = lo; i <= hi; ++i) v[i - lo] += sweep * static_cast<Value>(i);
        if (pass == 1 && sweep == 2 && !injected) {
          injected = true;
          gds::detail::check(GDS_inject_fault(GDS_FAULT_RMA, 2 + static_cast<GDS_size_t>(rank % 3)));
        }
        for (Index i = lo; i <= hi; ++i) gds::detail::check(GDS_put(&v[i - lo], nullptr, &i, &i, g));
        gds::detail::check(GDS_wait(g));
      });
      EXPECT_EQ(runs, pass == 1 && sweep == 2 && owns && hi - lo >= 2 ? 2 : 1) << "sweep " << sweep;
      step.commit();
    }
    root.commit();
    EXPECT_GDS_OK(GDS_fence(g));
    if (pass == 0) reference = all();
    else EXPECT_EQ(all(), reference);
    EXPECT_EQ(handled, pass == 1 && owns && hi - lo >= 2 ? 1 : 0);
    if (!owns || hi - lo < 2) EXPECT_GDS_OK(GDS_inject_fault(GDS_FAULT_NONE, 0));
  }
}

// A bit flip in the work, found by the application's check, is contained
// by the child CD; when the child's own copy is corrupted too, re-executing
// the child cannot pass the check, and its handler escalates to the root,
// whose restore (and re-execution of both steps) gives the error-free result.
struct Ladder {
  int child_restores = 0, escalations = 0, root_restores = 0;
  GDS_cd_t child = GDS_CD_NULL;
  GDS_cd_t root = GDS_CD_NULL;
};
Ladder g_ladder;

TEST_F(Cd, ACorruptedChildCopyEscalatesToTheRootAndTheResultIsBitIdentical) {
  if (g_key == 0) ASSERT_GDS_OK(GDS_define_error_attr_key("cd_test_id", 10, GDS_EAVTYPE_INT, &g_key));
  g_ladder = {};
  const int n_x = 16 + 8 * rank;  // each process its own amount
  std::vector<int> x(static_cast<std::size_t>(n_x));
  std::iota(x.begin(), x.end(), 0);
  GDS_error_pred_t p = pred_any();
  ASSERT_GDS_OK(GDS_cd_create(GDS_CD_NULL, MPI_COMM_SELF, nullptr, nullptr, GDS_CD_LOGGING_DISABLED, &g_ladder.root));
  const GDS_cd_range_t rx{x.data(), x.size() * sizeof(int), GDS_CD_READ_WRITE, GDS_CD_GLOBAL};
  EXPECT_GDS_OK(GDS_cd_preserve(g_ladder.root, GDS_CD_VIA_COPY, &rx, 1, nullptr, nullptr));
  EXPECT_GDS_OK(GDS_cd_register_handler(
      g_ladder.root, p,
      [](GDS_cd_t cd, GDS_gds_t gds, GDS_error_t e, void *) {
        ++g_ladder.root_restores;
        EXPECT_EQ(GDS_cd_restore(cd), GDS_STATUS_OK);
        return GDS_resume_local(gds, e);
      },
      nullptr, nullptr));
  bool flipped = false, corrupted_copy = false;
  for (;;) {  // the root's work: two steps
    for (int &v : x) v += 1;  // step 1
    ASSERT_GDS_OK(GDS_cd_create(g_ladder.root, MPI_COMM_SELF, nullptr, nullptr, GDS_CD_LOGGING_INHERIT, &g_ladder.child));
    EXPECT_GDS_OK(GDS_cd_preserve(g_ladder.child, GDS_CD_VIA_COPY, &rx, 1, nullptr, nullptr));
    EXPECT_GDS_OK(GDS_cd_register_handler(
        g_ladder.child, p,
        [](GDS_cd_t cd, GDS_gds_t gds, GDS_error_t e, void *) {
          if (g_ladder.child_restores == 1) {  // restoring did not help: its copy is bad
            ++g_ladder.escalations;
            return GDS_cd_escalate(e);
          }
          ++g_ladder.child_restores;
          EXPECT_EQ(GDS_cd_restore(cd), GDS_STATUS_OK);
          return GDS_resume_local(gds, e);
        },
        nullptr, nullptr));
    if (!corrupted_copy) {
      corrupted_copy = true;
      EXPECT_GDS_OK(GDS_cd_inject_fault(g_ladder.child));
    }
    bool root_restored = false;
    for (;;) {  // the child's work: step 2, checked
      for (int &v : x) v *= 2;
      if (!flipped) {
        flipped = true;
        x[3] ^= 1 << 4;  // a bit flip in the work
      }
      bool ok = true;
      for (int i = 0; i < n_x; ++i) ok = ok && x[static_cast<std::size_t>(i)] == (i + 1) * 2;
      if (!ok) {
        raise_one(GDS_ROOT, 7);
        EXPECT_GDS_OK(GDS_invoke_local_error_handler(GDS_ROOT));
      }
      int again = 0;
      EXPECT_GDS_OK(GDS_cd_restored(g_ladder.root, &again));
      if (again) {
        root_restored = true;
        break;
      }
      EXPECT_GDS_OK(GDS_cd_restored(g_ladder.child, &again));
      if (again) continue;
      break;
    }
    if (root_restored) continue;  // the child was discarded with the restore
    EXPECT_GDS_OK(GDS_cd_commit(&g_ladder.child));
    break;
  }
  for (int i = 0; i < n_x; ++i) EXPECT_EQ(x[static_cast<std::size_t>(i)], (i + 1) * 2) << i;
  EXPECT_EQ(g_ladder.child_restores, 1);
  EXPECT_EQ(g_ladder.escalations, 1);
  EXPECT_EQ(g_ladder.root_restores, 1);
  GDS_cd_t empty = GDS_CD_NULL;
  ASSERT_GDS_OK(GDS_cd_create(GDS_CD_NULL, MPI_COMM_SELF, nullptr, nullptr, GDS_CD_LOGGING_DISABLED, &empty));
  EXPECT_EQ(GDS_cd_inject_fault(empty), GDS_STATUS_NOT_PRESERVED);
  EXPECT_GDS_OK(GDS_cd_commit(&empty));
  EXPECT_GDS_OK(GDS_cd_commit(&g_ladder.root));
  EXPECT_GDS_OK(GDS_free_error_pred(&p));
}

TEST_F(Cd, APerProcessCdReexecutesAloneWithItsLoggedMessages) {
  // A ring: each step every process sends its value right, receives from
  // the left and combines. One process (a different one per run size) loses
  // its step-2 result after the exchange, restores its per-process CD and
  // re-executes the step alone: its send is not repeated (the right
  // neighbour does not receive twice) and its receive is served from the
  // log (the left neighbour does not send again). The results equal the
  // error-free ring's on every process.
  // Blocking sends are safe only towards a process that receives: even
  // ranks send first, odd ones receive first (a process alone would send to
  // itself with no receive posted, which MPI does not promise to complete).
  if (nprocs == 1) GTEST_SKIP() << "a ring needs two processes";
  const int left = (rank + nprocs - 1) % nprocs, right = (rank + 1) % nprocs;
  const auto exchange = [&](Value *out, Value *in, int tag, MPI_Status *st) {
    if (rank % 2 == 0) EXPECT_GDS_OK(GDS_cd_send(out, 1, MPI_LONG_LONG, right, tag, MPI_COMM_WORLD));
    EXPECT_GDS_OK(GDS_cd_recv(in, 1, MPI_LONG_LONG, left, tag, MPI_COMM_WORLD, st));
    if (rank % 2 == 1) EXPECT_GDS_OK(GDS_cd_send(out, 1, MPI_LONG_LONG, right, tag, MPI_COMM_WORLD));
  };
  const int victim = nprocs > 1 ? 1 : 0;
  std::vector<Value> model(static_cast<std::size_t>(nprocs));
  for (int r = 0; r < nprocs; ++r) model[static_cast<std::size_t>(r)] = 10 * r + 1;
  Value acc = 10 * rank + 1;
  GDS_cd_t root = GDS_CD_NULL;
  ASSERT_GDS_OK(GDS_cd_create(GDS_CD_NULL, MPI_COMM_SELF, nullptr, nullptr, GDS_CD_LOGGING_ENABLED, &root));
  int reexecuted = 0;
  for (int step = 0; step < 4; ++step) {
    std::vector<Value> next(model.size());
    for (int r = 0; r < nprocs; ++r)
      next[static_cast<std::size_t>(r)] = model[static_cast<std::size_t>(r)] * 3 +
                                          model[static_cast<std::size_t>((r + nprocs - 1) % nprocs)];
    model = next;
    GDS_cd_t child = GDS_CD_NULL;
    ASSERT_GDS_OK(GDS_cd_create(root, MPI_COMM_SELF, nullptr, nullptr, GDS_CD_LOGGING_INHERIT, &child));
    const GDS_cd_range_t r{&acc, sizeof acc, GDS_CD_READ_WRITE, GDS_CD_GLOBAL};
    EXPECT_GDS_OK(GDS_cd_preserve(child, GDS_CD_VIA_COPY, &r, 1, nullptr, nullptr));
    for (;;) {
      Value in = 0;
      MPI_Status st;
      exchange(&acc, &in, step, &st);
      EXPECT_EQ(st.MPI_SOURCE, left);
      acc = acc * 3 + in;
      if (rank == victim && step == 2 && reexecuted == 0) {
        acc = -12345;  // the step's result is lost
        ++reexecuted;
        EXPECT_GDS_OK(GDS_cd_restore(child));
        continue;
      }
      break;
    }
    EXPECT_EQ(acc, model[static_cast<std::size_t>(rank)]) << "step " << step;
    EXPECT_GDS_OK(GDS_cd_commit(&child));
  }
  EXPECT_EQ(reexecuted, rank == victim ? 1 : 0);
  // A re-execution that diverges from the log is refused.
  GDS_cd_t child = GDS_CD_NULL;
  ASSERT_GDS_OK(GDS_cd_create(root, MPI_COMM_SELF, nullptr, nullptr, GDS_CD_LOGGING_INHERIT, &child));
  Value x = rank, y = 0;
  exchange(&x, &y, 99, MPI_STATUS_IGNORE);
  EXPECT_GDS_OK(GDS_cd_restore(child));
  // The log starts with this process's first call; the other call comes first now.
  if (rank % 2 == 0)
    EXPECT_EQ(GDS_cd_recv(&y, 1, MPI_LONG_LONG, left, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE), GDS_STATUS_CD_STATE);
  else
    EXPECT_EQ(GDS_cd_send(&x, 1, MPI_LONG_LONG, right, 99, MPI_COMM_WORLD), GDS_STATUS_CD_STATE);
  EXPECT_GDS_OK(GDS_cd_commit(&child));
  EXPECT_GDS_OK(GDS_cd_commit(&root));
  gds::test::barrier();
}

// gds::cd preserves bytes via regeneration with a C function and its context; a descriptor built on
// a temporary is raised without std::move and reaches the CD's handler.
TEST_F(Cd, CxxRegenAndARaisedTemporaryReachTheCd) {
  gds::cd c("regen");
  int x = 5, calls = 0;
  c.preserve_regen(&x, sizeof x, [](const GDS_cd_range_t *r, int n, void *ctx) {
    ++*static_cast<int *>(ctx);
    *static_cast<int *>(r[0].address) = 42 + n - 1;
    return 0;
  }, &calls);
  const gds::error_key key = GDS_EATTR_DETECTED_BY;
  bool handled = false;
  c.on_error(gds::predicate().any(key), [&](gds::raised_error &e) {
    c.restore();
    handled = true;
    e.resume();
  });
  x = 0;
  gds::raise_local(GDS_ROOT, gds::error_descriptor().set(key, "checked by the test"));
  gds::invoke_local_error_handler(GDS_ROOT);
  EXPECT_TRUE(handled);
  EXPECT_EQ(x, 42);
  EXPECT_EQ(calls, 1);
  c.commit();
}

// A GDS collective inside a per-process CD that logs its messages is refused on every process (its
// re-execution alone could not replay it); outside it, or in a CD that does not log, it runs.
TEST_F(Cd, ACollectiveInsideALoggedPerProcessCdIsRefused) {
  GDS_cd_t cd = GDS_CD_NULL;
  ASSERT_GDS_OK(GDS_cd_create(GDS_CD_NULL, MPI_COMM_SELF, nullptr, nullptr, GDS_CD_LOGGING_ENABLED, &cd));
  GDS_cd_t child = GDS_CD_NULL;
  ASSERT_GDS_OK(GDS_cd_create(cd, MPI_COMM_SELF, nullptr, nullptr, GDS_CD_LOGGING_INHERIT, &child));
  if (nprocs > 1) {
    EXPECT_EQ(GDS_fence(g), GDS_STATUS_CD_STATE);
    EXPECT_EQ(GDS_version_inc(g, 1, nullptr, 0), GDS_STATUS_CD_STATE);
  } else {  // one process: nothing to replay with
    EXPECT_GDS_OK(GDS_fence(g));
  }
  EXPECT_GDS_OK(GDS_cd_commit(&child));
  EXPECT_GDS_OK(GDS_cd_commit(&cd));
  EXPECT_GDS_OK(GDS_fence(g));
  ASSERT_GDS_OK(GDS_cd_create(GDS_CD_NULL, MPI_COMM_SELF, nullptr, nullptr, GDS_CD_LOGGING_DISABLED, &cd));
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_GDS_OK(GDS_cd_commit(&cd));
}

// Ranges that wrap around the address space are refused; one that cannot be held (2^63 bytes) is
// refused without a crash, and nothing is preserved either way (sizes near 2^63 and 2^64).
TEST_F(Cd, RangesThatWrapOrCannotBeHeldAreRefused) {
  GDS_cd_t cd = GDS_CD_NULL;
  ASSERT_GDS_OK(GDS_cd_create(GDS_CD_NULL, MPI_COMM_SELF, nullptr, nullptr, GDS_CD_LOGGING_DISABLED, &cd));
  char x[16] = {};
  const std::uintptr_t top = ~std::uintptr_t{0};
  const GDS_cd_range_t wraps[] = {
      {reinterpret_cast<void *>(top - 15), 32, GDS_CD_READ_WRITE, GDS_CD_GLOBAL},  // the last 16 bytes, and 16 more
      {x, ~std::size_t{0}, GDS_CD_READ_WRITE, GDS_CD_GLOBAL},                     // 2^64 - 1 bytes from x
  };
  for (const GDS_cd_range_t &r : wraps)
    EXPECT_EQ(GDS_cd_preserve(cd, GDS_CD_VIA_COPY, &r, 1, nullptr, nullptr), GDS_STATUS_INVALID);
  const GDS_cd_range_t huge{x, std::size_t{1} << 63, GDS_CD_READ_WRITE, GDS_CD_GLOBAL};  // x is below 2^63
  ASSERT_LT(reinterpret_cast<std::uintptr_t>(x), std::uintptr_t{1} << 63);
  EXPECT_EQ(GDS_cd_preserve(cd, GDS_CD_VIA_COPY, &huge, 1, nullptr, nullptr), GDS_STATUS_NOMEM);
  GDS_size_t bytes = 1;
  EXPECT_GDS_OK(GDS_cd_get_preserved_bytes(cd, &bytes));
  EXPECT_EQ(bytes, 0u);
  const GDS_cd_range_t fine{x, sizeof x, GDS_CD_READ_WRITE, GDS_CD_GLOBAL};
  EXPECT_GDS_OK(GDS_cd_preserve(cd, GDS_CD_VIA_COPY, &fine, 1, nullptr, nullptr));
  EXPECT_GDS_OK(GDS_cd_commit(&cd));
}

// storage_info of a persisted root CD (level=cache or prefix): bad keys, levels, names and
// communicators refused (test_cd_persist restarts one).
TEST_F(Cd, BadStorageInfoOfAPersistedRootIsRefused) {
  GDS_cd_t cd = GDS_CD_NULL;
  EXPECT_EQ(GDS_cd_create(GDS_CD_NULL, GDS_COMM_WORLD, nullptr, "level=cache", GDS_CD_LOGGING_DISABLED, &cd),
            GDS_STATUS_INVALID_INFO);  // no name to find it by
  EXPECT_EQ(GDS_cd_create(GDS_CD_NULL, GDS_COMM_WORLD, "a/b", "level=cache", GDS_CD_LOGGING_DISABLED, &cd),
            GDS_STATUS_INVALID);
  EXPECT_EQ(GDS_cd_create(GDS_CD_NULL, GDS_COMM_WORLD, "x", "level=disk", GDS_CD_LOGGING_DISABLED, &cd),
            GDS_STATUS_INVALID_INFO);
  EXPECT_EQ(GDS_cd_create(GDS_CD_NULL, GDS_COMM_WORLD, "x", "copy_type=XOR", GDS_CD_LOGGING_DISABLED, &cd),
            GDS_STATUS_INVALID_INFO);  // a copy type without a level
  EXPECT_EQ(GDS_cd_create(GDS_CD_NULL, GDS_COMM_WORLD, "x", "level=cache;colour=red", GDS_CD_LOGGING_DISABLED, &cd),
            GDS_STATUS_INVALID_INFO);
  const char *prefix = std::getenv("GDS_PREFIX");
  if (prefix == nullptr && std::getenv("SCR_PREFIX") == nullptr) {
    EXPECT_EQ(GDS_cd_create(GDS_CD_NULL, GDS_COMM_WORLD, "x", "level=prefix", GDS_CD_LOGGING_DISABLED, &cd),
              GDS_STATUS_INVALID_INFO);
  }
  if (nprocs > 1) {  // a persisted root spans the job
    EXPECT_EQ(GDS_cd_create(GDS_CD_NULL, MPI_COMM_SELF, "x", "level=cache", GDS_CD_LOGGING_DISABLED, &cd),
              GDS_STATUS_INVALID_COMM);
  }
  EXPECT_EQ(cd, GDS_CD_NULL);

  std::vector<double> v(4);
  const GDS_cd_range_t r{v.data(), sizeof(double) * v.size(), GDS_CD_READ_WRITE, GDS_CD_GLOBAL};
  ASSERT_ALL_GDS_OK(GDS_cd_create(GDS_CD_NULL, GDS_COMM_WORLD, "x", "level=memory", GDS_CD_LOGGING_DISABLED, &cd));
  GDS_cd_t child = GDS_CD_NULL;
  EXPECT_EQ(GDS_cd_create(cd, MPI_COMM_SELF, nullptr, "level=cache", GDS_CD_LOGGING_INHERIT, &child),
            GDS_STATUS_INVALID_INFO);  // storage_info is a root's
  EXPECT_GDS_OK(GDS_cd_preserve(cd, GDS_CD_VIA_COPY, &r, 1, nullptr, nullptr));
  EXPECT_GDS_OK(GDS_cd_commit(&cd));
}

}  // namespace
