// Versions: a model-based test of random writes and versions against a
// sequential model that keeps every version, then navigation, writes to old
// versions, retention, labels, clones, restore, incremental storage and
// GDS_create arrays written behind the library's back.
#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <string>

#include "support/gds_test.hpp"

using namespace gds::test;

namespace {

using Value = long long;

struct Params {
  std::size_t ndims;
  bool row_major;
  Index block_size;     // 0: the default
  Index max_versions;   // 0: no limit
  unsigned seed;
};

std::string name(const ::testing::TestParamInfo<Params> &i) {
  const Params &p = i.param;
  return std::to_string(p.ndims) + "d_" + (p.row_major ? "row" : "col") + "_block" + std::to_string(p.block_size) +
         "_keep" + std::to_string(p.max_versions);
}

// The array as a sequential program would see it, with every version.
struct Model {
  std::vector<Index> count;
  std::vector<Value> current;
  std::map<Index, std::vector<Value>> versions;  // retained
  std::map<Index, std::string> labels;           // of retained versions
  std::vector<Index> dropped;
  Index number = 0;
  std::string label;
  std::string newest_holds;  // the label given when the newest version was made (what it holds)
};

class VersionModel : public MpiTest, public ::testing::WithParamInterface<Params> {
 protected:
  std::mt19937 rng;          // the same sequence on every process
  std::mt19937 verifier_rng;  // the verifying process's own
  Model m;
  GDS_gds_t g = GDS_NULL;
  std::size_t n = 0;
  bool row = true;

  Index linear_model(const Index *idx) const { return linear(m.count, idx, true); }

  void random_box(std::mt19937 &r, std::vector<Index> &lo, std::vector<Index> &hi) {
    lo.resize(n);
    hi.resize(n);
    for (std::size_t d = 0; d < n; ++d) {
      lo[d] = r() % m.count[d];
      hi[d] = lo[d] + r() % (m.count[d] - lo[d]);
    }
  }
  // A buffer in the array's order for box [lo, hi] with padded leading dimensions.
  struct Buffer {
    std::vector<Index> ext, ld;
    std::vector<Value> data;
    Index offset(const Index *rel, bool row_major) const {
      std::vector<Index> dims(ext);
      for (std::size_t d = 0; d + 1 < ext.size(); ++d) dims[row_major ? d + 1 : d] = ld[d];
      return linear(dims, rel, row_major);
    }
  };
  Buffer make_buffer(std::mt19937 &r, const std::vector<Index> &lo, const std::vector<Index> &hi) {
    Buffer b;
    b.ext.resize(n);
    b.ld.assign(n - 1, 0);
    for (std::size_t d = 0; d < n; ++d) b.ext[d] = hi[d] - lo[d] + 1;
    for (std::size_t d = 0; d + 1 < n; ++d) b.ld[d] = b.ext[row ? d + 1 : d] + r() % 2;
    std::vector<Index> last(n);
    for (std::size_t d = 0; d < n; ++d) last[d] = b.ext[d] - 1;
    b.data.assign(b.offset(last.data(), row) + 1, -999);
    return b;
  }
  // Calls fn(global index, buffer offset) over the box.
  template <class F>
  void over_box(const std::vector<Index> &lo, const std::vector<Index> &hi, const Buffer &b, F &&fn) {
    std::vector<Index> idx(lo), rel(n);
    do {
      for (std::size_t d = 0; d < n; ++d) rel[d] = idx[d] - lo[d];
      fn(idx.data(), b.offset(rel.data(), row));
    } while (next_index(lo, hi, idx, row));
  }

  void freeze(Index increment, const std::string &label, Index max_versions) {
    m.versions[m.number] = m.current;
    m.labels[m.number] = m.label;
    m.number += increment;
    m.label = label;
    m.newest_holds = label;
    while (max_versions > 0 && m.versions.size() > max_versions) {
      m.dropped.push_back(m.versions.begin()->first);
      m.labels.erase(m.versions.begin()->first);
      m.versions.erase(m.versions.begin());
    }
  }

  // Reads [lo, hi] through handle h and compares with `expect` (model order).
  void check_box(GDS_gds_t h, const std::vector<Value> &expect, const std::vector<Index> &lo,
                 const std::vector<Index> &hi, const char *what, Index version) {
    Buffer b = make_buffer(verifier_rng, lo, hi);
    ASSERT_GDS_OK(GDS_get(b.data.data(), b.ld.data(), lo.data(), hi.data(), h));
    EXPECT_GDS_OK(GDS_wait(h));
    int wrong = 0;
    over_box(lo, hi, b, [&](const Index *idx, Index off) {
      if (b.data[off] != expect[linear_model(idx)] && wrong++ < 3)
        ADD_FAILURE() << what << " version " << version << ": element " << linear_model(idx) << " is "
                      << b.data[off] << ", expected " << expect[linear_model(idx)];
    });
  }

  // One process alone walks back through every retained version with a
  // clone and reads it whole and in part.
  void verify_all_versions() {
    GDS_gds_t c = GDS_NULL;
    ASSERT_GDS_OK(GDS_descriptor_clone(g, &c));
    std::vector<Index> all_lo(n, 0), all_hi(n);
    for (std::size_t d = 0; d < n; ++d) all_hi[d] = m.count[d] - 1;
    check_box(c, m.current, all_lo, all_hi, "current", m.number);
    for (auto it = m.versions.rbegin(); it != m.versions.rend(); ++it) {
      EXPECT_GDS_OK(GDS_move_to_prev(c));
      Index at = ~Index{0};
      EXPECT_GDS_OK(GDS_get_version_number(c, &at));
      EXPECT_EQ(at, it->first);
      char *label = nullptr;
      size_t size = 0;
      EXPECT_GDS_OK(GDS_get_version_label(c, &label, &size));
      EXPECT_EQ(std::string(label, size), m.labels[it->first]);
      check_box(c, it->second, all_lo, all_hi, "old", it->first);
      std::vector<Index> lo, hi;
      random_box(verifier_rng, lo, hi);
      check_box(c, it->second, lo, hi, "old part", it->first);
    }
    EXPECT_EQ(GDS_move_to_prev(c), GDS_STATUS_NO_VERSION);
    for (Index d : m.dropped) {
      EXPECT_GDS_OK(GDS_move_to_newest(c));
      EXPECT_EQ(GDS_version_dec(c, m.number - d), GDS_STATUS_VERSION_DROPPED);
    }
    EXPECT_GDS_OK(GDS_free(&c));
  }
};

}  // namespace

TEST_P(VersionModel, RandomWritesAndVersionsMatchTheModel) {
  const Params p = GetParam();
  n = p.ndims;
  row = p.row_major;
  rng.seed(p.seed);
  verifier_rng.seed(p.seed + 1000u * static_cast<unsigned>(rank));
  const std::vector<std::vector<Index>> shapes = {{53}, {7, 9}, {4, 5, 3}};
  m.count = shapes[n - 1];
  m.current.assign(volume(m.count), 0);
  OrderInfo info(row);
  if (p.block_size) MPI_Info_set(info.get(), GDS_VERSION_BLOCK_SIZE_KEY, std::to_string(p.block_size).c_str());
  if (p.max_versions) MPI_Info_set(info.get(), GDS_MAX_VERSIONS_KEY, std::to_string(p.max_versions).c_str());
  ASSERT_GDS_OK(GDS_alloc(n, m.count.data(), nullptr, MPI_LONG_LONG, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info.get(), &g));

  const int steps = nprocs <= 2 ? 150 : 36;
  const int verify_every = nprocs <= 2 ? 1 : 4;
  for (int step = 0; step < steps; ++step) {
    const unsigned op = rng() % 100;
    const int actor = static_cast<int>(rng() % static_cast<unsigned>(nprocs));
    if (op < 25) {  // put
      std::vector<Index> lo, hi;
      random_box(rng, lo, hi);
      Buffer b = make_buffer(rng, lo, hi);
      over_box(lo, hi, b, [&](const Index *idx, Index off) {
        b.data[off] = step * 1000 + static_cast<Value>(linear_model(idx));
        m.current[linear_model(idx)] = b.data[off];
      });
      if (rank == actor) {
        EXPECT_GDS_OK(GDS_put(b.data.data(), b.ld.data(), lo.data(), hi.data(), g));
        EXPECT_GDS_OK(GDS_wait(g));
      }
    } else if (op < 40) {  // acc
      std::vector<Index> lo, hi;
      random_box(rng, lo, hi);
      Buffer b = make_buffer(rng, lo, hi);
      const Value add = 1 + static_cast<Value>(rng() % 7);
      over_box(lo, hi, b, [&](const Index *idx, Index off) {
        b.data[off] = add;
        m.current[linear_model(idx)] += add;
      });
      if (rank == actor) {
        EXPECT_GDS_OK(GDS_acc(b.data.data(), b.ld.data(), lo.data(), hi.data(), MPI_SUM, g));
        EXPECT_GDS_OK(GDS_wait(g));
      }
    } else if (op < 50) {  // compare-and-swap, succeeding or not
      std::vector<Index> at(n);
      for (std::size_t d = 0; d < n; ++d) at[d] = rng() % m.count[d];
      Value &cell = m.current[linear_model(at.data())];
      const Value compare = rng() % 2 ? cell : cell + 1, swap = -step;
      if (rank == actor) {
        Value seen = 0;
        EXPECT_GDS_OK(GDS_compare_and_swap(&compare, &swap, &seen, at.data(), g));
        EXPECT_GDS_OK(GDS_wait(g));
        EXPECT_EQ(seen, cell);
      }
      if (compare == cell) cell = swap;
    } else if (op < 62) {  // DIRECT stores into a part of the actor's block
      std::vector<Index> blo(n), bhi(n);
      int owns = 0;
      EXPECT_GDS_OK(GDS_distribution(g, actor, blo.data(), bhi.data(), &owns));
      if (!owns) continue;
      std::vector<Index> lo(n), hi(n);
      for (std::size_t d = 0; d < n; ++d) {
        lo[d] = blo[d] + rng() % (bhi[d] - blo[d] + 1);
        hi[d] = lo[d] + rng() % (bhi[d] - lo[d] + 1);
      }
      const Value base = 5000000 + step * 1000;
      void *buffer = nullptr;
      GDS_access_handle_t h = GDS_ACCESS_HANDLE_NULL;
      ASSERT_ALL_GDS_OK(rank != actor ? GDS_STATUS_OK
                                      : GDS_access(g, lo.data(), hi.data(), GDS_ACCESS_BUFFER_DIRECT, &buffer, &h));
      if (rank == actor) {
        Buffer view;
        view.ext.resize(n);
        view.ld.resize(n - 1);
        for (std::size_t d = 0; d < n; ++d) view.ext[d] = hi[d] - lo[d] + 1;
        if (n > 1) EXPECT_GDS_OK(GDS_get_access_buffer_ld(h, view.ld.data()));
        over_box(lo, hi, view, [&](const Index *idx, Index off) {
          static_cast<Value *>(buffer)[off] = base + static_cast<Value>(linear_model(idx));
        });
        EXPECT_GDS_OK(GDS_release(&h));
      }
      std::vector<Index> idx(lo);
      do m.current[linear_model(idx.data())] = base + static_cast<Value>(linear_model(idx.data()));
      while (next_index(lo, hi, idx, row));
    } else if (op < 92) {  // a version
      const Index increment = 1 + rng() % 3;
      const std::string label = "step " + std::to_string(step) + std::string(rng() % 2 ? "" : " (odd)");
      EXPECT_GDS_OK(GDS_version_inc(g, increment, label.data(), label.size()));
      freeze(increment, label, p.max_versions);
    } else if (!m.versions.empty()) {  // roll back
      auto it = m.versions.begin();
      std::advance(it, rng() % m.versions.size());
      EXPECT_GDS_OK(GDS_version_restore(g, it->first));
      m.current = it->second;
      // The current label describes the restored content: the next version's label.
      const auto next = std::next(it);
      m.label = next == m.versions.end() ? m.newest_holds : m.labels[next->first];
    }
    EXPECT_GDS_OK(GDS_fence(g));
    {
      // Nothing leaks: the blocks stored are at most what the retained
      // versions and the current content can share, plus one table each.
      GDS_version_stats_t st{};
      EXPECT_GDS_OK(GDS_get_version_stats(g, &st));
      const Index blocks_per_part = (st.local_bytes + st.block_bytes - 1) / st.block_bytes;
      EXPECT_LE(st.bytes_stored, (st.versions + 1) * blocks_per_part * st.block_bytes + st.versions * st.table_bytes)
          << "step " << step;
    }
    if (step % verify_every == 0 || step == steps - 1) {
      if (rank == step % nprocs) verify_all_versions();
      Index number = 0;
      EXPECT_GDS_OK(GDS_get_version_number(g, &number));
      EXPECT_EQ(number, m.number);
      EXPECT_GDS_OK(GDS_fence(g));
    }
  }
  GDS_version_stats_t s{};
  EXPECT_GDS_OK(GDS_get_version_stats(g, &s));
  EXPECT_EQ(s.versions, m.versions.size());
  EXPECT_EQ(s.current, m.number);
  EXPECT_GDS_OK(GDS_free(&g));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, VersionModel,
    ::testing::Values(Params{1, true, 64, 0, 11}, Params{2, true, 64, 0, 12}, Params{2, false, 128, 0, 13},
                      Params{3, true, 64, 0, 14}, Params{3, false, 64, 0, 15}, Params{2, true, 0, 0, 16},
                      Params{1, true, 64, 4, 17}, Params{3, true, 128, 3, 18}),
    name);

// ---------------------------------------------------------------------------

namespace {

class Versions : public MpiTest {
 protected:
  // A 1-D array of n ints with 64-byte blocks (16 ints), maybe more options.
  GDS_gds_t make(Index n, std::initializer_list<std::pair<const char *, const char *>> hints = {}) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, GDS_VERSION_BLOCK_SIZE_KEY, "64");
    for (auto &[k, v] : hints) MPI_Info_set(info, k, v);
    GDS_gds_t g = GDS_NULL;
    EXPECT_GDS_OK(GDS_alloc(1, &n, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info, &g));
    MPI_Info_free(&info);
    return g;
  }
  // Rank 0 writes value v into [lo, hi], then a fence.
  void fill(GDS_gds_t g, Index lo, Index hi, int v) {
    std::vector<int> data(hi - lo + 1, v);
    if (rank == 0) EXPECT_GDS_OK(GDS_put(data.data(), nullptr, &lo, &hi, g));
    EXPECT_GDS_OK(GDS_fence(g));
  }
  int at(GDS_gds_t g, Index i) {
    int v = -1;
    EXPECT_GDS_OK(GDS_get(&v, nullptr, &i, &i, g));
    EXPECT_GDS_OK(GDS_wait(g));
    return v;
  }
  Index number(GDS_gds_t g) {
    Index v = 0;
    EXPECT_GDS_OK(GDS_get_version_number(g, &v));
    return v;
  }
};

}  // namespace

TEST_F(Versions, WritesToOldVersionsFailAndWriteNothing) {
  GDS_gds_t g = make(40);
  fill(g, 0, 39, 7);
  EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
  GDS_gds_t old = GDS_NULL;
  EXPECT_GDS_OK(GDS_descriptor_clone(g, &old));
  EXPECT_GDS_OK(GDS_move_to_prev(old));
  int x = 1, y = 0;
  const Index i = 5;
  EXPECT_EQ(GDS_put(&x, nullptr, &i, &i, old), GDS_STATUS_NOT_CURRENT);
  EXPECT_TRUE(message_names("GDS_put", "gds is at version 0, an old one; only the current version can be written"));
  EXPECT_EQ(GDS_acc(&x, nullptr, &i, &i, MPI_SUM, old), GDS_STATUS_NOT_CURRENT);
  EXPECT_EQ(GDS_acc(&x, nullptr, &i, &i, MPI_NO_OP, old), GDS_STATUS_NOT_CURRENT);
  EXPECT_EQ(GDS_get_acc(&x, nullptr, &y, nullptr, &i, &i, MPI_SUM, old), GDS_STATUS_NOT_CURRENT);
  EXPECT_EQ(GDS_compare_and_swap(&x, &x, &y, &i, old), GDS_STATUS_NOT_CURRENT);
  void *buffer = nullptr;
  GDS_access_handle_t h = GDS_ACCESS_HANDLE_NULL;
  EXPECT_EQ(GDS_access(old, &i, &i, GDS_ACCESS_BUFFER_DIRECT, &buffer, &h), GDS_STATUS_NOT_CURRENT);
  EXPECT_EQ(GDS_access(old, &i, &i, GDS_ACCESS_BUFFER_COPY, &buffer, &h), GDS_STATUS_NOT_CURRENT);
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_EQ(at(g, 5), 7);
  EXPECT_EQ(at(old, 5), 7);
  // Back at the newest version the same handle writes again.
  EXPECT_GDS_OK(GDS_move_to_newest(old));
  EXPECT_GDS_OK(GDS_fence(g));
  if (rank == 0) EXPECT_GDS_OK(GDS_put(&x, nullptr, &i, &i, old));
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_EQ(at(g, 5), 1);
  EXPECT_GDS_OK(GDS_free(&old));
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_GDS_OK(GDS_free(&g));
}

// Version numbers stop at 2^64 - 1: an increment past it is refused on
// every process, and the versions made before stay reachable by number.
TEST_F(Versions, NumbersNeverWrapAround) {
  GDS_gds_t g = make(40);
  fill(g, 0, 39, 1);
  EXPECT_GDS_OK(GDS_version_inc(g, 1, "one", 3));  // version 0 holds 1s
  fill(g, 0, 39, 2);
  EXPECT_GDS_OK(GDS_version_inc(g, UINT64_MAX - 2, nullptr, 0));  // version 1 holds 2s
  EXPECT_EQ(number(g), UINT64_MAX - 1);
  fill(g, 0, 39, 3);
  EXPECT_EQ(GDS_version_inc(g, 2, nullptr, 0), GDS_STATUS_INVALID);
  EXPECT_TRUE(message_names("GDS_version_inc", "past 2^64 - 1"));
  EXPECT_EQ(GDS_version_inc(g, UINT64_MAX, nullptr, 0), GDS_STATUS_INVALID);
  EXPECT_EQ(number(g), UINT64_MAX - 1);
  EXPECT_GDS_OK(GDS_version_inc(g, 1, "last", 4));  // version 2^64 - 2 holds 3s
  EXPECT_EQ(number(g), UINT64_MAX);
  EXPECT_EQ(GDS_version_inc(g, 1, nullptr, 0), GDS_STATUS_INVALID);
  EXPECT_EQ(number(g), UINT64_MAX);
  GDS_version_stats_t st{};
  EXPECT_GDS_OK(GDS_get_version_stats(g, &st));
  EXPECT_EQ(st.versions, 3u);
  EXPECT_EQ(st.oldest, 0u);
  GDS_gds_t old = GDS_NULL;
  EXPECT_GDS_OK(GDS_descriptor_clone(g, &old));
  EXPECT_GDS_OK(GDS_version_dec(old, UINT64_MAX));
  EXPECT_EQ(number(old), 0u);
  EXPECT_EQ(at(old, 7), 1);
  EXPECT_GDS_OK(GDS_move_to_next(old));
  EXPECT_EQ(number(old), 1u);
  EXPECT_EQ(at(old, 7), 2);
  EXPECT_GDS_OK(GDS_move_to_next(old));
  EXPECT_EQ(number(old), UINT64_MAX - 1);
  EXPECT_EQ(at(old, 7), 3);
  EXPECT_GDS_OK(GDS_free(&old));
  EXPECT_GDS_OK(GDS_version_restore(g, 0));
  EXPECT_EQ(at(g, 39), 1);
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_GDS_OK(GDS_free(&g));
}

// Labels up to GDS_VERSION_LABEL_MAX bytes; longer ones, however long, are
// refused on every process before anything is read from them.
TEST_F(Versions, LabelsHaveALimit) {
  GDS_gds_t g = make(8);
  const std::string longest(GDS_VERSION_LABEL_MAX, 'x');
  EXPECT_GDS_OK(GDS_version_inc(g, 1, longest.data(), longest.size()));
  char *label = nullptr;
  size_t size = 0;
  EXPECT_GDS_OK(GDS_get_version_label(g, &label, &size));
  EXPECT_EQ(std::string(label, size), longest);
  const char small[4] = "abc";
  for (const size_t bad : {size_t{GDS_VERSION_LABEL_MAX} + 1, size_t{1} << 31, size_t{1} << 32, size_t{1} << 50,
                           size_t{1} << 63, SIZE_MAX}) {
    EXPECT_EQ(GDS_version_inc(g, 1, small, bad), GDS_STATUS_INVALID) << bad;
    EXPECT_TRUE(message_names("GDS_version_inc", "GDS_VERSION_LABEL_MAX"));
  }
  EXPECT_EQ(number(g), 1u);
  EXPECT_GDS_OK(GDS_free(&g));
}

// GDS_version_inc is a sequence of phases that each end agreed: a failure in
// any of them, on any process, fails the call everywhere and leaves the
// array as it was (no version, the same number, every retained version and
// the current content intact); the next version has everything written.
TEST_F(Versions, FailureInAnyPhaseLeavesTheArrayAsItWas) {
  GDS_gds_t g = make(48 * static_cast<Index>(nprocs));
  const Index n = 48 * static_cast<Index>(nprocs);
  fill(g, 0, n - 1, 1);
  EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));  // version 0: ones
  int value = 1, newest = 1;  // what the current content and the newest version hold
  const int failing[] = {0, nprocs - 1};  // every process at 1-2 processes; the first and last beyond
  for (const int who : failing) {
    for (int phase = 1; phase <= 5; ++phase) {
      SCOPED_TRACE("phase " + std::to_string(phase) + " failing on rank " + std::to_string(who));
      // A change of every process's part, then a version that fails.
      fill(g, 0, n - 1, ++value);
      const Index before = number(g);
      if (rank == who) EXPECT_GDS_OK(GDS_inject_fault(GDS_FAULT_VERSION_PHASE, static_cast<GDS_size_t>(phase)));
      const GDS_status_t s = GDS_version_inc(g, 1, "failed", 6);
      EXPECT_EQ(s, rank == who ? GDS_STATUS_MPI_ERROR : GDS_STATUS_REMOTE_ERROR);
      if (rank == who) {
        EXPECT_TRUE(message_names("GDS_version_inc", "injected failure in phase"));
      }
      EXPECT_EQ(number(g), before);
      EXPECT_EQ(at(g, n - 1), value);  // the current content is untouched
      GDS_gds_t old = GDS_NULL;
      EXPECT_GDS_OK(GDS_descriptor_clone(g, &old));
      EXPECT_GDS_OK(GDS_move_to_prev(old));
      EXPECT_EQ(at(old, 0), newest);  // the newest version is what it was
      EXPECT_GDS_OK(GDS_free(&old));
      EXPECT_GDS_OK(GDS_fence(g));
      // The next version holds what was written before the failed one.
      EXPECT_GDS_OK(GDS_version_inc(g, 1, "next", 4));
      EXPECT_EQ(number(g), before + 1);
      EXPECT_GDS_OK(GDS_descriptor_clone(g, &old));
      EXPECT_GDS_OK(GDS_move_to_prev(old));
      for (Index i = 0; i < n; i += 7) EXPECT_EQ(at(old, i), value) << i;
      newest = value;
      EXPECT_GDS_OK(GDS_free(&old));
      EXPECT_GDS_OK(GDS_fence(g));
    }
    if (nprocs == 1) break;
  }
  EXPECT_EQ(GDS_inject_fault(GDS_FAULT_VERSION_PHASE, 6), GDS_STATUS_INVALID);
  EXPECT_GDS_OK(GDS_free(&g));
}

// A memory synchronization that fails on one process, before or after an
// agreement of GDS_version_inc or GDS_version_restore, fails the call on
// every process: none waits in a collective the failed one skipped, and all
// hold the same versions and content afterwards.
TEST_F(Versions, FailedMemorySyncFailsTheCallEverywhere) {
  const Index n = 32 * static_cast<Index>(nprocs);
  GDS_gds_t g = make(n);
  fill(g, 0, n - 1, 1);
  EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
  const auto same_everywhere = [&](long long x) {
    long long mm[2] = {x, -x}, out[2];
    MPI_Allreduce(mm, out, 2, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    return out[0] == -out[1];
  };
  int failures = 0;
  for (GDS_size_t k = 1; k <= 10; ++k) {
    SCOPED_TRACE("sync " + std::to_string(k));
    fill(g, 0, n - 1, static_cast<int>(k) + 1);
    if (rank == 0) EXPECT_GDS_OK(GDS_inject_fault(GDS_FAULT_MEMORY_SYNC, k));
    const GDS_status_t s = GDS_version_inc(g, 1, nullptr, 0);
    if (rank == 0) EXPECT_GDS_OK(GDS_inject_fault(GDS_FAULT_NONE, 0));
    EXPECT_TRUE(same_everywhere(s == GDS_STATUS_OK)) << s;
    EXPECT_TRUE(same_everywhere(static_cast<long long>(number(g))));
    if (s != GDS_STATUS_OK) {
      ++failures;
      EXPECT_EQ(s, rank == 0 ? GDS_STATUS_MPI_ERROR : GDS_STATUS_REMOTE_ERROR);
      EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));  // what was written is versioned next
    }
    EXPECT_EQ(at(g, n - 1), static_cast<int>(k) + 1);
    EXPECT_GDS_OK(GDS_fence(g));
    // A restore of version 0 fails everywhere or nowhere; the content agrees.
    if (rank == 0) EXPECT_GDS_OK(GDS_inject_fault(GDS_FAULT_MEMORY_SYNC, (k + 1) / 2));
    const GDS_status_t r = GDS_version_restore(g, 0);
    if (rank == 0) EXPECT_GDS_OK(GDS_inject_fault(GDS_FAULT_NONE, 0));
    EXPECT_TRUE(same_everywhere(r == GDS_STATUS_OK)) << r;
    if (r != GDS_STATUS_OK) EXPECT_GDS_OK(GDS_version_restore(g, 0));
    EXPECT_EQ(at(g, n - 1), 1);
    EXPECT_GDS_OK(GDS_fence(g));
  }
  EXPECT_GE(failures, 3);  // the injection reached every phase that synchronizes
  EXPECT_GDS_OK(GDS_free(&g));
}

TEST_F(Versions, NavigationStopsAtBothEnds) {
  GDS_gds_t g = make(20);
  // Versions 0, 1 and 4 (an increment of 3), current 5.
  fill(g, 0, 19, 10);
  EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
  fill(g, 0, 19, 11);
  EXPECT_GDS_OK(GDS_version_inc(g, 3, nullptr, 0));
  fill(g, 0, 19, 14);
  EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
  fill(g, 0, 19, 15);
  GDS_gds_t c = GDS_NULL;
  EXPECT_GDS_OK(GDS_descriptor_clone(g, &c));
  EXPECT_EQ(GDS_move_to_next(c), GDS_STATUS_NO_VERSION);  // at the current version
  EXPECT_TRUE(message_names("GDS_move_to_next", "current version (5)"));
  EXPECT_GDS_OK(GDS_move_to_prev(c));
  EXPECT_EQ(number(c), 4u);
  EXPECT_EQ(at(c, 3), 14);
  EXPECT_GDS_OK(GDS_move_to_prev(c));
  EXPECT_EQ(number(c), 1u);
  EXPECT_GDS_OK(GDS_move_to_prev(c));
  EXPECT_EQ(number(c), 0u);
  EXPECT_EQ(at(c, 3), 10);
  EXPECT_EQ(GDS_move_to_prev(c), GDS_STATUS_NO_VERSION);
  EXPECT_EQ(number(c), 0u);  // did not move
  EXPECT_GDS_OK(GDS_move_to_next(c));
  EXPECT_EQ(number(c), 1u);
  EXPECT_GDS_OK(GDS_move_to_next(c));
  EXPECT_EQ(number(c), 4u);
  EXPECT_GDS_OK(GDS_move_to_next(c));
  EXPECT_EQ(number(c), 5u);  // the current version again
  EXPECT_EQ(at(c, 3), 15);
  EXPECT_EQ(GDS_version_dec(c, 6), GDS_STATUS_NO_VERSION);  // below 0
  EXPECT_EQ(GDS_version_dec(c, 3), GDS_STATUS_NO_VERSION);  // 2 was skipped
  EXPECT_TRUE(message_names("GDS_version_dec", "skipped"));
  EXPECT_EQ(number(c), 5u);
  EXPECT_GDS_OK(GDS_version_dec(c, 0));
  EXPECT_GDS_OK(GDS_version_dec(c, 4));
  EXPECT_EQ(number(c), 1u);
  EXPECT_EQ(at(c, 19), 11);
  EXPECT_GDS_OK(GDS_version_dec(c, 1));
  EXPECT_EQ(number(c), 0u);
  EXPECT_GDS_OK(GDS_move_to_newest(c));
  EXPECT_EQ(number(c), 5u);
  EXPECT_GDS_OK(GDS_free(&c));
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_GDS_OK(GDS_free(&g));
}

TEST_F(Versions, DroppedVersionsAreReportedNeverRead) {
  GDS_gds_t g = make(30, {{GDS_MAX_VERSIONS_KEY, "2"}});
  GDS_gds_t at0 = GDS_NULL;
  for (int v = 0; v < 5; ++v) {
    fill(g, 0, 29, 100 + v);
    if (v == 1) {  // a clone parked at version 0, which retention will drop
      EXPECT_GDS_OK(GDS_descriptor_clone(g, &at0));
      EXPECT_GDS_OK(GDS_version_dec(at0, 1));
    }
    EXPECT_GDS_OK(GDS_version_inc(g, 1, "x", 1));
  }
  GDS_version_stats_t s{};
  EXPECT_GDS_OK(GDS_get_version_stats(g, &s));
  EXPECT_EQ(s.versions, 2u);
  EXPECT_EQ(s.oldest, 3u);
  int v = 0;
  const Index i = 0;
  EXPECT_EQ(GDS_get(&v, nullptr, &i, &i, at0), GDS_STATUS_VERSION_DROPPED);
  EXPECT_TRUE(message_names("GDS_get", "dropped"));
  char *label = nullptr;
  size_t size = 0;
  EXPECT_EQ(GDS_get_version_label(at0, &label, &size), GDS_STATUS_VERSION_DROPPED);
  EXPECT_EQ(GDS_move_to_prev(at0), GDS_STATUS_NO_VERSION);
  EXPECT_GDS_OK(GDS_move_to_next(at0));  // the oldest retained is newer
  EXPECT_EQ(number(at0), 3u);
  EXPECT_EQ(at(at0, 29), 103);
  EXPECT_EQ(GDS_version_dec(at0, 1), GDS_STATUS_VERSION_DROPPED);
  EXPECT_EQ(GDS_version_restore(g, 1), GDS_STATUS_VERSION_DROPPED);
  EXPECT_GDS_OK(GDS_free(&at0));
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_GDS_OK(GDS_free(&g));
}

TEST_F(Versions, LabelsGoWithTheNewCurrentVersion) {
  GDS_gds_t g = make(8);
  char *label = nullptr;
  size_t size = 99;
  EXPECT_GDS_OK(GDS_get_version_label(g, &label, &size));
  EXPECT_EQ(size, 0u);
  EXPECT_STREQ(label, "");
  const char binary[] = {'a', '\0', 'b'};
  EXPECT_GDS_OK(GDS_version_inc(g, 1, binary, 3));
  EXPECT_GDS_OK(GDS_get_version_label(g, &label, &size));
  EXPECT_EQ(std::string(label, size), std::string(binary, 3));
  EXPECT_GDS_OK(GDS_version_inc(g, 2, "third", 5));
  GDS_gds_t c = GDS_NULL;
  EXPECT_GDS_OK(GDS_descriptor_clone(g, &c));
  EXPECT_GDS_OK(GDS_get_version_label(c, &label, &size));
  EXPECT_EQ(std::string(label, size), "third");
  // The current version holds what is being written: no holds label yet.
  EXPECT_EQ(GDS_get_version_holds(c, &label, &size), GDS_STATUS_NO_VERSION);
  EXPECT_GDS_OK(GDS_move_to_prev(c));  // version 1
  EXPECT_GDS_OK(GDS_get_version_label(c, &label, &size));
  EXPECT_EQ(std::string(label, size), std::string(binary, 3));
  EXPECT_GDS_OK(GDS_get_version_holds(c, &label, &size));  // frozen by the inc labelled "third"
  EXPECT_EQ(std::string(label, size), "third");
  EXPECT_GDS_OK(GDS_move_to_prev(c));  // version 0
  EXPECT_GDS_OK(GDS_get_version_label(c, &label, &size));
  EXPECT_EQ(size, 0u);
  EXPECT_GDS_OK(GDS_get_version_holds(c, &label, &size));
  EXPECT_EQ(std::string(label, size), std::string(binary, 3));
  // A restore changes the current label, not what the retained versions hold.
  EXPECT_GDS_OK(GDS_version_restore(g, 0));
  EXPECT_GDS_OK(GDS_get_version_label(g, &label, &size));
  EXPECT_EQ(std::string(label, size), std::string(binary, 3));
  EXPECT_GDS_OK(GDS_move_to_next(c));  // version 1
  EXPECT_GDS_OK(GDS_get_version_holds(c, &label, &size));
  EXPECT_EQ(std::string(label, size), "third");
  EXPECT_EQ(GDS_get_version_label(c, nullptr, &size), GDS_STATUS_NULL_ARGUMENT);
  EXPECT_EQ(GDS_get_version_holds(c, &label, nullptr), GDS_STATUS_NULL_ARGUMENT);
  EXPECT_EQ(GDS_get_version_holds(GDS_NULL, &label, &size), GDS_STATUS_NULL_HANDLE);
  EXPECT_EQ(GDS_get_version_number(c, nullptr), GDS_STATUS_NULL_ARGUMENT);
  EXPECT_GDS_OK(GDS_free(&c));
  EXPECT_GDS_OK(GDS_free(&g));
}

TEST_F(Versions, ClonesAreHandlesOfTheirOwn) {
  GDS_gds_t g = make(16);
  EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
  GDS_gds_t a = GDS_NULL, b = GDS_NULL;
  EXPECT_GDS_OK(GDS_descriptor_clone(g, &a));
  EXPECT_GDS_OK(GDS_move_to_prev(a));
  EXPECT_GDS_OK(GDS_descriptor_clone(a, &b));  // a clone of a clone, at version 0
  EXPECT_EQ(number(b), 0u);
  EXPECT_EQ(number(g), 1u);
  EXPECT_GDS_OK(GDS_free(&a));  // local: frees only a
  EXPECT_EQ(a, GDS_NULL);
  EXPECT_EQ(number(b), 0u);
  EXPECT_EQ(GDS_descriptor_clone(g, nullptr), GDS_STATUS_NULL_ARGUMENT);
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_GDS_OK(GDS_free(&g));  // frees the array and its clones
  Index v = 0;
  EXPECT_EQ(GDS_get_version_number(b, &v), GDS_STATUS_FREED_HANDLE);
}

// A version stores only the blocks written since the previous one; the
// rest, and untouched (zero) blocks, are shared.
TEST_F(Versions, StorageIsProportionalToWhatChanged) {
  const Index per_rank = 64;  // 4 blocks of 16 ints per process
  GDS_gds_t g = make(per_rank * static_cast<Index>(nprocs));
  GDS_version_stats_t s0{}, s1{}, s2{}, s3{};
  EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));  // nothing written: all zero blocks
  EXPECT_GDS_OK(GDS_get_version_stats(g, &s0));
  EXPECT_EQ(s0.table_bytes, 16u);  // 4 bytes per block
  EXPECT_EQ(s0.bytes_stored, s0.table_bytes);  // the block table only
  EXPECT_EQ(s0.bytes_shared, per_rank * sizeof(int));
  // Every process writes one element of its own second block.
  Index lo = 0, hi = 0;
  int owns = 0;
  EXPECT_GDS_OK(GDS_distribution(g, rank, &lo, &hi, &owns));
  const Index mine = lo + 20;
  const int one = 1;
  EXPECT_GDS_OK(GDS_put(&one, nullptr, &mine, &mine, g));
  EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
  EXPECT_GDS_OK(GDS_get_version_stats(g, &s1));
  EXPECT_EQ(s1.bytes_stored - s0.bytes_stored, 64 + s0.table_bytes);  // one block, one table
  // A neighbour writes into this process's last block: tracked at the writer.
  const Index theirs = (lo + per_rank * static_cast<Index>(nprocs) - 1) % (per_rank * static_cast<Index>(nprocs));
  EXPECT_GDS_OK(GDS_put(&one, nullptr, &theirs, &theirs, g));
  EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
  EXPECT_GDS_OK(GDS_get_version_stats(g, &s2));
  EXPECT_EQ(s2.bytes_stored - s1.bytes_stored, 64 + s0.table_bytes);
  // No writes: a version costs its table.
  EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
  EXPECT_GDS_OK(GDS_get_version_stats(g, &s3));
  EXPECT_EQ(s3.bytes_stored - s2.bytes_stored, s0.table_bytes);
  EXPECT_EQ(s3.versions, 4u);
  EXPECT_EQ(s3.bytes_shared, 4 * per_rank * sizeof(int) - 2 * 64);
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_GDS_OK(GDS_free(&g));
}

// Direct access hands the application a pointer, so GDS cannot know what it
// stored: the opened blocks are compared with their last version at the next
// version_inc. Reading, or storing equal values, costs no copy; real changes
// are versioned, and a restore rolls them back.
TEST_F(Versions, DirectAccessCostsOnlyWhatChanged) {
  const Index per_rank = 64;  // 4 blocks of 16 ints per process
  GDS_gds_t g = make(per_rank * static_cast<Index>(nprocs));
  Index lo = 0, hi = 0;
  int owns = 0;
  EXPECT_GDS_OK(GDS_distribution(g, rank, &lo, &hi, &owns));
  const auto direct = [&](auto body) {
    void *buffer = nullptr;
    GDS_access_handle_t h = GDS_ACCESS_HANDLE_NULL;
    EXPECT_GDS_OK(GDS_access(g, &lo, &hi, GDS_ACCESS_BUFFER_DIRECT, &buffer, &h));
    body(static_cast<int *>(buffer));
    EXPECT_GDS_OK(GDS_release(&h));
  };
  GDS_version_stats_t st{};
  const auto stored = [&] {
    EXPECT_GDS_OK(GDS_get_version_stats(g, &st));
    return st.bytes_stored;
  };
  (void)stored();
  const std::uint64_t table = st.table_bytes, block = 64;
  EXPECT_EQ(table, 16u);
  direct([&](int *p) { for (Index i = 0; i < per_rank; ++i) p[i] = static_cast<int>(i % 16 == 0 ? 0 : lo + i); });
  EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));  // version 0: 4 blocks changed from zero
  std::uint64_t before = stored();
  EXPECT_EQ(before, 4 * block + table);
  // Read only.
  long sum = 0;
  direct([&](int *p) { for (Index i = 0; i < per_rank; ++i) sum += p[i]; });
  EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));  // version 1
  EXPECT_EQ(stored() - before, table);
  before = stored();
  // Equal values stored again, and one real change in the third block.
  direct([&](int *p) {
    for (Index i = 0; i < per_rank; ++i) p[i] = p[i];
    p[40] = -1;
  });
  EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));  // version 2
  EXPECT_EQ(stored() - before, block + table);
  // Changed again, then rolled back to version 1: the direct write is undone.
  direct([&](int *p) { p[3] = -5; });
  EXPECT_GDS_OK(GDS_version_restore(g, 1));
  EXPECT_EQ(at(g, lo + 3), static_cast<int>(lo + 3));
  EXPECT_EQ(at(g, lo + 40), static_cast<int>(lo + 40));
  EXPECT_EQ(at(g, lo + 16), 0);
  // Every version reads back what it held.
  GDS_gds_t old = GDS_NULL;
  EXPECT_GDS_OK(GDS_descriptor_clone(g, &old));
  EXPECT_GDS_OK(GDS_move_to_prev(old));  // version 2
  EXPECT_EQ(at(old, lo + 40), -1);
  EXPECT_EQ(at(old, lo + 3), static_cast<int>(lo + 3));
  EXPECT_GDS_OK(GDS_move_to_prev(old));  // version 1
  EXPECT_EQ(at(old, lo + 40), static_cast<int>(lo + 40));
  EXPECT_GDS_OK(GDS_free(&old));
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_GDS_OK(GDS_free(&g));
}

// Restore copies back only what differs, and the next version shares the
// restored blocks instead of storing them again.
TEST_F(Versions, RestoreRollsBackAndShares) {
  const Index n = 64 * static_cast<Index>(nprocs);
  GDS_gds_t g = make(n);
  fill(g, 0, n - 1, 1);
  EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));  // version 0: all ones
  fill(g, 0, n / 2, 2);
  EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));  // version 1
  fill(g, n / 4, n - 1, 3);                           // current, not versioned
  GDS_version_stats_t before{}, after{};
  EXPECT_GDS_OK(GDS_version_restore(g, 0));
  for (Index i = 0; i < n; i += 7) EXPECT_EQ(at(g, i), 1);
  EXPECT_EQ(number(g), 2u);  // the number does not change
  EXPECT_GDS_OK(GDS_get_version_stats(g, &before));
  EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
  EXPECT_GDS_OK(GDS_get_version_stats(g, &after));
  EXPECT_EQ(after.bytes_stored - before.bytes_stored, after.table_bytes);  // shared with version 0
  EXPECT_GDS_OK(GDS_version_restore(g, 1));
  EXPECT_EQ(at(g, 0), 2);
  EXPECT_EQ(at(g, n - 1), 1);
  EXPECT_EQ(GDS_version_restore(g, 7), GDS_STATUS_NO_VERSION);
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_GDS_OK(GDS_free(&g));
}

// GDS_version_verify on a GDS_create array: the application's mapping says
// which of a process's blocks hold a box's elements (here a cyclic one, so
// a box of one element selects one block of one process).
TEST_F(Versions, VerifyFollowsTheApplicationsMapping) {
  struct Cyclic {
    static GDS_status_t g2l(const GDS_size_t global[], int *rank, GDS_size_t *offset) {
      int p;
      MPI_Comm_size(MPI_COMM_WORLD, &p);
      *rank = static_cast<int>(global[0] % static_cast<Index>(p));
      *offset = global[0] / static_cast<Index>(p);
      return GDS_STATUS_OK;
    }
    static GDS_status_t l2g(GDS_size_t offset, GDS_size_t global[]) {
      int r, p;
      MPI_Comm_rank(MPI_COMM_WORLD, &r);
      MPI_Comm_size(MPI_COMM_WORLD, &p);
      global[0] = offset * static_cast<Index>(p) + static_cast<Index>(r);
      return GDS_STATUS_OK;
    }
  };
  const Index p = static_cast<Index>(nprocs), n = 32 * p;
  std::vector<int> local(32, rank + 1);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, GDS_VERSION_BLOCK_SIZE_KEY, "64");  // two blocks of 16 ints per process
  GDS_gds_t g = GDS_NULL;
  ASSERT_GDS_OK(GDS_create(1, &n, MPI_INT, Cyclic::g2l, Cyclic::l2g, local.data(), 32, GDS_PRIORITY_HIGH,
                           GDS_COMM_WORLD, info, &g));
  MPI_Info_free(&info);
  const int who = nprocs - 1;
  if (rank == who) EXPECT_GDS_OK(GDS_inject_fault(GDS_FAULT_VERSION_CORRUPT, 2));  // its second block
  EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
  EXPECT_EQ(GDS_version_verify(g, 0, nullptr, nullptr), GDS_STATUS_CORRUPT);
  const Index first_block = 3 * p + static_cast<Index>(who), second_block = 20 * p + static_cast<Index>(who);
  EXPECT_GDS_OK(GDS_version_verify(g, 0, &first_block, &first_block));
  EXPECT_EQ(GDS_version_verify(g, 0, &second_block, &second_block), GDS_STATUS_CORRUPT);
  if (rank == who) {
    EXPECT_TRUE(message_names("GDS_version_verify", "block(s) 1-1 of process"));
  }
  const Index lo = 0, hi = 15 * p + p - 1;  // local offsets 0-15 of every process: first blocks only
  EXPECT_GDS_OK(GDS_version_verify(g, 0, &lo, &hi));
  EXPECT_GDS_OK(GDS_free(&g));
}

// A GDS_create mapping of `kPer` elements per process, in rank order.
template <Index kPer>
struct Blocked {
  static GDS_status_t g2l(const GDS_size_t global[], int *rank, GDS_size_t *offset) {
    *rank = static_cast<int>(global[0] / kPer);
    *offset = global[0] % kPer;
    return GDS_STATUS_OK;
  }
  static GDS_status_t l2g(GDS_size_t offset, GDS_size_t global[]) {
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    global[0] = static_cast<Index>(r) * kPer + offset;
    return GDS_STATUS_OK;
  }
};

// GDS_create arrays: the application writes its buffer directly; versions
// find the changed blocks by comparing, and old versions read back.
TEST_F(Versions, CreateArraysChangedBehindTheLibrarysBack) {
  using Map = Blocked<32>;
  const Index n = 32 * static_cast<Index>(nprocs);
  std::vector<int> local(32, rank);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, GDS_VERSION_BLOCK_SIZE_KEY, "64");
  GDS_gds_t g = GDS_NULL;
  ASSERT_GDS_OK(GDS_create(1, &n, MPI_INT, Map::g2l, Map::l2g, local.data(), 32, GDS_PRIORITY_HIGH, GDS_COMM_WORLD,
                           info, &g));
  MPI_Info_free(&info);
  EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
  GDS_version_stats_t s0{}, s1{};
  EXPECT_GDS_OK(GDS_get_version_stats(g, &s0));
  local[20] = 1000 + rank;  // behind GDS's back: block 1 of this process
  EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
  EXPECT_GDS_OK(GDS_get_version_stats(g, &s1));
  EXPECT_EQ(s1.bytes_stored - s0.bytes_stored, 64 + s1.table_bytes);
  local[20] = -1;
  EXPECT_GDS_OK(GDS_fence(g));
  // Version 0 and 1 of the neighbour's part, read through clones.
  GDS_gds_t c = GDS_NULL;
  EXPECT_GDS_OK(GDS_descriptor_clone(g, &c));
  const int other = (rank + 1) % nprocs;
  const Index i = static_cast<Index>(other) * 32 + 20;
  int v = 0;
  EXPECT_GDS_OK(GDS_version_dec(c, 1));
  EXPECT_GDS_OK(GDS_get(&v, nullptr, &i, &i, c));
  EXPECT_EQ(v, 1000 + other);
  EXPECT_GDS_OK(GDS_version_dec(c, 1));
  EXPECT_GDS_OK(GDS_get(&v, nullptr, &i, &i, c));
  EXPECT_EQ(v, other);
  EXPECT_GDS_OK(GDS_free(&c));
  EXPECT_GDS_OK(GDS_fence(g));
  // Restoring rewrites the application's buffer.
  EXPECT_GDS_OK(GDS_version_restore(g, 1));
  EXPECT_EQ(local[20], 1000 + rank);
  EXPECT_GDS_OK(GDS_free(&g));
}

// A GDS_create array whose last version found fewer than a quarter of its
// blocks the same copies every block at the next version without comparing
// (a compare that ends at once still costs its base's miss), gives back the
// copies of blocks that turn out equal to their base (their checksums
// match), and compares again once a quarter or more were the same. What a
// version stores is what changed either way; what it copied (GDS_get_costs)
// shows the mode. Odd processes change other blocks than even ones; every
// version reads back.
TEST_F(Versions, DenselyChangedCreateArraysCopyEveryBlockUntilMostStayTheSame) {
  constexpr Index kPer = 8 * 16;  // 8 blocks of 64 bytes
  using Map = Blocked<kPer>;
  const Index n = kPer * static_cast<Index>(nprocs);
  std::vector<int> local(kPer, 0);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, GDS_VERSION_BLOCK_SIZE_KEY, "64");
  GDS_gds_t g = GDS_NULL;
  ASSERT_GDS_OK(GDS_create(1, &n, MPI_INT, Map::g2l, Map::l2g, local.data(), kPer, GDS_PRIORITY_HIGH, GDS_COMM_WORLD,
                           info, &g));
  MPI_Info_free(&info);
  const auto change = [&](int blocks, int value) {
    for (int k = 0; k < blocks; ++k) {
      const int b = rank % 2 ? 7 - k : k;
      local[static_cast<std::size_t>(b) * 16 + static_cast<std::size_t>(rank)] = value;
    }
  };
  const auto bytes_stored = [&] {
    GDS_version_stats_t st{};
    EXPECT_GDS_OK(GDS_get_version_stats(g, &st));
    return st.bytes_stored;
  };
  const auto bytes_copied = [] {
    GDS_costs_t c{};
    EXPECT_GDS_OK(GDS_get_costs(&c));
    return c.versions.bytes;
  };
  // (blocks changed, whether the version copies all 8): the first version is
  // set against nothing and decides nothing; 8 changed, compared: the next
  // copies all; 7 changed: all again; 1: all once more, then compared.
  const std::vector<std::pair<int, bool>> plan = {{8, false}, {8, false}, {7, true}, {1, true},  {0, false}, {8, false},
                                                  {6, true},  {2, false}, {8, false}, {0, true}, {3, false}};
  std::vector<std::vector<int>> held;
  GDS_version_stats_t st{};
  for (std::size_t k = 0; k < plan.size(); ++k) {
    change(plan[k].first, 100 * static_cast<int>(k) + rank + 1);
    const std::uint64_t before = bytes_stored(), copied = bytes_copied();
    ASSERT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
    ASSERT_GDS_OK(GDS_get_version_stats(g, &st));
    const auto changed = static_cast<std::uint64_t>(plan[k].first);
    EXPECT_EQ(st.bytes_stored - before, 64 * changed + st.table_bytes) << "version " << k;
    EXPECT_EQ(bytes_copied() - copied, 64 * (plan[k].second ? 8 : changed)) << "version " << k;
    held.push_back(local);
  }
  // Every version reads back, newest first.
  EXPECT_GDS_OK(GDS_fence(g));
  GDS_gds_t c = GDS_NULL;
  EXPECT_GDS_OK(GDS_descriptor_clone(g, &c));
  EXPECT_GDS_OK(GDS_version_dec(c, 1));
  const Index lo = static_cast<Index>(rank) * kPer, hi = lo + kPer - 1;
  for (std::size_t k = plan.size(); k-- > 0;) {
    std::vector<int> got(kPer, -1);
    EXPECT_GDS_OK(GDS_get(got.data(), nullptr, &lo, &hi, c));
    EXPECT_EQ(got, held[k]) << "version " << k;
    if (k > 0) EXPECT_GDS_OK(GDS_version_dec(c, 1));
  }
  EXPECT_GDS_OK(GDS_free(&c));
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_GDS_OK(GDS_free(&g));
}

// Retention reuses the slots of dropped versions; a version whose freeze
// failed on another process hands its slots back, leaving this process's
// next-fit cursor past them. The retry must find them (they lie before the
// cursor, in a slab of fewer than 64 slots) and store every block.
TEST_F(Versions, RetriedVersionFindsSlotsBeforeTheCursor) {
  const Index per_rank = 8 * 16384;  // 8 blocks of 64 KiB: a slab of 32 slots
  const Index n = per_rank * static_cast<Index>(nprocs);
  GDS_gds_t g = make(n, {{GDS_VERSION_BLOCK_SIZE_KEY, "65536"}, {GDS_MAX_VERSIONS_KEY, "3"}});
  std::map<Index, int> held;  // version -> value
  for (int v = 0; v < 10; ++v) {
    fill(g, 0, n - 1, 100 + v);
    if (v % 2 == 0) {  // the freeze fails on rank 0 (the others took slots and give them back)
      if (rank == 0) EXPECT_GDS_OK(GDS_inject_fault(GDS_FAULT_VERSION_PHASE, 4));
      EXPECT_EQ(GDS_version_inc(g, 1, nullptr, 0), rank == 0 ? GDS_STATUS_MPI_ERROR : GDS_STATUS_REMOTE_ERROR);
      EXPECT_GDS_OK(GDS_fence(g));
    }
    const Index made = number(g);
    ASSERT_ALL_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
    held[made] = 100 + v;
    while (held.size() > 3) held.erase(held.begin());
    for (const auto &[version, value] : held) {
      GDS_gds_t old = GDS_NULL;
      EXPECT_GDS_OK(GDS_descriptor_clone(g, &old));
      EXPECT_GDS_OK(GDS_version_dec(old, number(g) - version));
      for (Index i = 0; i < n; i += per_rank / 3 + 1) EXPECT_EQ(at(old, i), value) << "version " << version << " at " << i;
      EXPECT_EQ(at(old, n - 1), value);
      EXPECT_GDS_OK(GDS_free(&old));
    }
    EXPECT_GDS_OK(GDS_fence(g));
  }
  EXPECT_GDS_OK(GDS_free(&g));
}

// A restore makes an old version's blocks the base again; restoring another
// before any version is made must not file those blocks twice: retention by
// bytes would count them freed twice, drop too few versions and pass its
// budget. Versions 0 and 1 change one block, version 2 every block: the
// budgets below need both dropped at once.
TEST_F(Versions, RestoresBackAndForthKeepRetentionExact) {
  const Index per_rank = 16 * 4;  // 4 blocks
  const Index n = per_rank * static_cast<Index>(nprocs);
  for (int budget = 250; budget <= 550; budget += 50) {
    SCOPED_TRACE("budget " + std::to_string(budget));
    GDS_version_stats_t stats[2]{};
    for (int dance = 0; dance < 2; ++dance) {
      SCOPED_TRACE(dance ? "with restores" : "without");
      GDS_gds_t g = make(n, {{GDS_MAX_VERSION_BYTES_KEY, std::to_string(budget).c_str()}});
      fill(g, 0, 15, 1);
      EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));  // 0
      fill(g, 0, 15, 2);
      EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));  // 1
      if (dance) {
        for (int k = 0; k < 3; ++k) {
          EXPECT_GDS_OK(GDS_version_restore(g, 0));
          EXPECT_EQ(at(g, 15), 1);
          EXPECT_GDS_OK(GDS_version_restore(g, 1));
          EXPECT_EQ(at(g, 0), 2);
        }
        EXPECT_GDS_OK(GDS_fence(g));  // every read done before the writes that follow
      }
      for (int v = 3; v < 6; ++v) {
        fill(g, 0, n - 1, v);
        EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
        EXPECT_GDS_OK(GDS_get_version_stats(g, &stats[dance]));
        if (stats[dance].versions > 1) {
          EXPECT_LE(stats[dance].bytes_stored, static_cast<Index>(budget)) << "after version " << v;
        }
      }
      EXPECT_GDS_OK(GDS_free(&g));
    }
    // Back where it started, the array keeps what it keeps without the restores.
    EXPECT_EQ(stats[1].versions, stats[0].versions);
    EXPECT_EQ(stats[1].oldest, stats[0].oldest);
    EXPECT_EQ(stats[1].bytes_stored, stats[0].bytes_stored);
  }
}

// A byte budget: every process drops the same versions, and stays within it.
TEST_F(Versions, ByteBudgetDropsTheSameVersionsEverywhere) {
  // Process r writes r+1 blocks per version, so budgets bind differently.
  const Index per_rank = 16 * 8;  // 8 blocks
  GDS_gds_t g = make(per_rank * static_cast<Index>(nprocs), {{GDS_MAX_VERSION_BYTES_KEY, "1000"}});
  Index lo = 0, hi = 0;
  int owns = 0;
  EXPECT_GDS_OK(GDS_distribution(g, rank, &lo, &hi, &owns));
  for (int v = 0; v < 8; ++v) {
    std::vector<int> data(16 * static_cast<std::size_t>(rank % 4 + 1), v);
    const Index end = lo + data.size() - 1;
    EXPECT_GDS_OK(GDS_put(data.data(), nullptr, &lo, &end, g));
    EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
    GDS_version_stats_t s{};
    EXPECT_GDS_OK(GDS_get_version_stats(g, &s));
    if (s.versions > 1) {
      EXPECT_LE(s.bytes_stored, 1000u);
    }
    Index oldest[2] = {s.oldest, ~s.oldest}, agreed[2];
    MPI_Allreduce(oldest, agreed, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    EXPECT_EQ(agreed[0], ~agreed[1]) << "processes hold different versions";
  }
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_GDS_OK(GDS_free(&g));
}

TEST_F(Versions, VersionIncArgumentsAreAgreed) {
  GDS_gds_t g = make(16);
  EXPECT_EQ(GDS_version_inc(g, 0, nullptr, 0), GDS_STATUS_INVALID);
  EXPECT_TRUE(message_names("GDS_version_inc", "increment=0"));
  EXPECT_EQ(GDS_version_inc(g, 1, nullptr, 3), GDS_STATUS_NULL_ARGUMENT);
  const GDS_status_t s = GDS_version_inc(g, 1 + static_cast<Index>(rank), nullptr, 0);
  EXPECT_EQ(s, nprocs == 1 ? GDS_STATUS_OK : GDS_STATUS_COLLECTIVE_MISMATCH);
  // An open access on one process fails it there and everywhere else.
  void *buffer = nullptr;
  GDS_access_handle_t h = GDS_ACCESS_HANDLE_NULL;
  const Index i = 0;
  if (rank == 0) EXPECT_GDS_OK(GDS_access(g, &i, &i, GDS_ACCESS_BUFFER_COPY, &buffer, &h));
  EXPECT_EQ(GDS_version_inc(g, 1, nullptr, 0), rank == 0 ? GDS_STATUS_ACCESS_CONFLICT : GDS_STATUS_REMOTE_ERROR);
  if (rank == 0) EXPECT_GDS_OK(GDS_release(&h));
  EXPECT_EQ(number(g), nprocs == 1 ? 1u : 0u);  // nothing happened
  EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
  EXPECT_EQ(GDS_version_inc(GDS_ROOT, 1, nullptr, 0), GDS_STATUS_INVALID_HANDLE);
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_GDS_OK(GDS_free(&g));
}
