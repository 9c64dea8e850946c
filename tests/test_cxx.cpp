// The C++ API: gds::runtime (this program's main lets it start MPI),
// typed move-only arrays, spans, boxes, exceptions carrying the status,
// local_access, GDS_create with capturing lambdas, and the raw handle.
#include <gds.hpp>

#include <complex>
#include <filesystem>
#include <cstddef>
#include <numeric>
#include <string_view>

#include "support/mpi_test.hpp"

using gds::box;
using gds::index_t;
using gds::test::MpiTest;

namespace {

template <class T>
T value_of(index_t i) {
  if constexpr (std::is_same_v<T, bool>) {
    return i % 3 == 0;
  } else if constexpr (std::is_same_v<T, std::byte>) {
    return static_cast<std::byte>(i % 251);
  } else if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
    return T(static_cast<typename T::value_type>(i), -static_cast<typename T::value_type>(i));
  } else if constexpr (std::is_same_v<T, gds::value_index<double>>) {
    return T{static_cast<double>(i) * 0.5, static_cast<int>(i)};
  } else {
    return static_cast<T>(i % 100);
  }
}

template <class T>
class Typed : public MpiTest {};
using ElementTypes = ::testing::Types<signed char, unsigned char, short, int, unsigned, long, unsigned long long,
                                      float, double, long double, bool, std::byte, std::complex<float>,
                                      std::complex<double>, gds::value_index<double>>;
TYPED_TEST_SUITE(Typed, ElementTypes);

}  // namespace

// A 2-D array of any element type: put from a span, get into a span with
// padding, across owners.
TYPED_TEST(Typed, PutGetThroughSpans) {
  using T = TypeParam;
  auto a = gds::array<T>::alloc({7, 6});
  EXPECT_EQ(a.ndims(), 2u);
  EXPECT_EQ(a.count(), (std::vector<index_t>{7, 6}));
  // Arrays, not vectors: std::vector<bool> holds no bools to point at.
  T src[42], dst[25];
  for (index_t i = 0; i < 42; ++i) src[i] = value_of<T>(i);
  for (T &x : dst) x = value_of<T>(99);
  if (this->rank == 0) a.put(std::span<const T>(src), box({0, 0}, {6, 5}));
  a.wait();
  a.fence();
  const std::vector<index_t> ld{5};  // 4 columns into rows of 5
  a.get(std::span<T>(dst), box({1, 1}, {5, 4}), ld);
  a.wait();
  for (index_t i = 0; i < 5; ++i)
    for (index_t j = 0; j < 5; ++j)
      EXPECT_TRUE(dst[i * 5 + j] == (j < 4 ? src[(i + 1) * 6 + (j + 1)] : value_of<T>(99))) << i << "," << j;
  a.fence();
}

class Cxx : public MpiTest {};

TEST_F(Cxx, ArraysAreMoveOnlyAndFreedByTheirOwner) {
  static_assert(!std::is_copy_constructible_v<gds::array<int>>);
  static_assert(std::is_nothrow_move_constructible_v<gds::array<int>>);
  auto a = gds::array<int>::alloc({10});
  const GDS_gds_t raw = a.native_handle();
  gds::array<int> b = std::move(a);
  EXPECT_FALSE(a);
  EXPECT_TRUE(b);
  EXPECT_EQ(b.native_handle(), raw);
  auto c = gds::array<int>::alloc({3});
  const GDS_gds_t freed = c.native_handle();
  c = std::move(b);  // frees c's array (collective on every rank)
  EXPECT_EQ(c.native_handle(), raw);
  int flag = 0;
  GDS_size_t n = 0;
  EXPECT_EQ(GDS_get_attr(freed, GDS_NUMBER_DIMENSIONS, &n, &flag), GDS_STATUS_FREED_HANDLE);
  c.free();
  EXPECT_FALSE(c);
  EXPECT_EQ(GDS_get_attr(raw, GDS_NUMBER_DIMENSIONS, &n, &flag), GDS_STATUS_FREED_HANDLE);
}

TEST_F(Cxx, GroupsVersionRestoreAndNavigateTheirArraysTogether) {
  auto x = gds::array<double>::alloc({static_cast<index_t>(10 * nprocs + 3)});
  auto r = gds::array<int>::alloc({3});
  gds::group g("solver", x, r);  // declared after the arrays: freed before them
  EXPECT_FALSE(gds::restart_query("solver").found);
  std::vector<double> one(1, 1.5);
  std::vector<int> two(1, 7);
  if (rank == 0) {
    x.put(one, box({0}, {0}));
    r.put(two, box({2}, {2}));
  }
  x.wait();
  r.wait();
  g.version_inc("iter=10");
  EXPECT_EQ(g.version_number(), 1u);
  EXPECT_EQ(x.version(), 1u);
  EXPECT_EQ(r.version(), 1u);
  gds::test::barrier();
  std::vector<double> zero(1, 0.0);
  if (rank == nprocs - 1) x.put(zero, box({0}, {0}));
  x.wait();
  gds::test::barrier();
  g.restore(0);
  std::vector<double> got(1);
  x.get(got, box({0}, {0}));
  x.wait();
  EXPECT_EQ(got[0], 1.5);
  EXPECT_EQ(x.version_label(), "iter=10");
  g.move_to_prev();
  std::vector<int> old(1);
  r.get(old, box({2}, {2}));
  r.wait();
  EXPECT_EQ(old[0], 7);
  g.move_to_newest();
  try {
    x.version_inc();
    ADD_FAILURE() << "a member versioned alone";
  } catch (const gds::error &e) {
    EXPECT_EQ(e.status(), GDS_STATUS_INVALID);
  }
  EXPECT_EQ(g.restart_info().restarted, 0);
  // The newest version back, whatever its number, and the group's own label.
  EXPECT_EQ(g.version_label(), "iter=10");
  if (rank == 0) x.put(zero, box({0}, {0}));
  x.wait();
  gds::test::barrier();
  EXPECT_EQ(g.restore_newest(), 0u);
  x.get(got, box({0}, {0}));
  x.wait();
  EXPECT_EQ(got[0], 1.5);
}

TEST_F(Cxx, GroupRestoreNewestBeforeAnyVersionThrows) {
  auto x = gds::array<double>::alloc({4});
  gds::group g("early", x);
  EXPECT_EQ(g.version_label(), "");
  try {
    (void)g.restore_newest();
    ADD_FAILURE() << "restored a version that does not exist";
  } catch (const gds::error &e) {
    EXPECT_EQ(e.status(), GDS_STATUS_NO_VERSION);
    EXPECT_NE(std::string_view(e.what()).find("GDS_group_version_restore_newest"), std::string_view::npos) << e.what();
  }
  g.free();
  try {
    (void)g.version_label();
    ADD_FAILURE() << "a freed group has a label";
  } catch (const gds::error &e) {
    EXPECT_EQ(e.status(), GDS_STATUS_NULL_HANDLE);
  }
}

TEST_F(Cxx, CostsAndIntervalGuidance) {
  auto a = gds::array<int>::alloc({static_cast<index_t>(1024 * nprocs)});
  gds::reset_costs();
  EXPECT_TRUE(a.need_version()) << "nothing measured yet: a version now";
  a.version_inc();
  const GDS_costs_t c = gds::costs();
  EXPECT_EQ(c.versions.calls, 1u);
  EXPECT_GT(c.versions.seconds, 0.0);
  EXPECT_EQ(c.restores.calls, 0u);
  auto b = gds::array<int>::alloc({3});
  gds::group g("guided", b);
  EXPECT_TRUE(g.need_version());
  g.version_inc();
  EXPECT_EQ(gds::costs().versions.calls, 2u);
}

TEST_F(Cxx, ErrorsCarryTheStatusAndTheMessage) {
  auto a = gds::array<double>::alloc({4, 4});
  std::vector<double> v(16);
  try {
    a.put(v, box({0, 0}, {4, 0}));
    ADD_FAILURE() << "no exception";
  } catch (const gds::error &e) {
    EXPECT_EQ(e.status(), GDS_STATUS_RANGE);
    EXPECT_NE(std::string(e.what()).find("GDS_put: hi_index[0]=4"), std::string::npos) << e.what();
  }
  try {
    a.put(v, box({0}, {1}));
    ADD_FAILURE() << "no exception";
  } catch (const gds::error &e) {
    EXPECT_EQ(e.status(), GDS_STATUS_INVALID_NDIMS);
  }
  try {
    std::vector<double> small(3);
    a.get(small, box({0, 0}, {1, 1}));
    ADD_FAILURE() << "no exception";
  } catch (const gds::error &e) {
    EXPECT_EQ(e.status(), GDS_STATUS_INVALID);
    EXPECT_NE(std::string(e.what()).find("needs 4"), std::string::npos) << e.what();
  }
  EXPECT_THROW(a.acc(v, box({0, 0}, {3, 3}), MPI_BAND), gds::error);
  EXPECT_THROW(box({0, 0}, {1}), gds::error);
  EXPECT_THROW(gds::array<int>::alloc({0}), gds::error);
  try {
    gds::runtime again;
    ADD_FAILURE() << "no exception";
  } catch (const gds::error &e) {
    EXPECT_EQ(e.status(), GDS_STATUS_ALREADY_INITIALIZED);
  }
  a.fence();
}

TEST_F(Cxx, AtomicsAndAccumulate) {
  auto counter = gds::array<long>::alloc({2});
  const std::vector<index_t> at{1};
  const int n = nprocs <= 2 ? 50 : 10;
  for (int i = 0; i < n; ++i) static_cast<void>(counter.fetch_and_op(at, 2));
  counter.fence();
  EXPECT_EQ(counter.fetch_and_op(at, 0, MPI_NO_OP), 2L * n * nprocs);
  counter.fence();
  long previous = -1;
  if (rank == 0) {
    counter.compare_and_swap(2L * n * nprocs, 7, previous, at);
    counter.wait();
    EXPECT_EQ(previous, 2L * n * nprocs);
  }
  counter.fence();
  EXPECT_EQ(counter.fetch_and_op(at, 0, MPI_NO_OP), 7);
  counter.fence();

  // MAXLOC over value_index: the largest value wins, and its rank (value_index<int>
  // where GDS refuses pairs with a gap, Open MPI 4: test_data.cpp's MaxLocMinLoc).
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  if (std::string_view(version).find("Open MPI v4.") != std::string_view::npos) return;
  auto best = gds::array<gds::value_index<double>>::alloc({3});
  const std::vector<gds::value_index<double>> mine(3, {static_cast<double>(rank % 2), rank});
  best.acc(mine, box({0}, {2}), MPI_MAXLOC);
  best.fence();
  std::vector<gds::value_index<double>> out(3);
  best.get(out, box({0}, {2}));
  best.wait();
  for (auto &x : out) EXPECT_EQ(x, (gds::value_index<double>{nprocs > 1 ? 1.0 : 0.0, nprocs > 1 ? 1 : 0}));
  best.fence();
}

TEST_F(Cxx, LocalAccessReleasesOnScopeExit) {
  auto a = gds::array<int>::alloc({4 * static_cast<index_t>(nprocs), 3}, {.storage = gds::order::col_major});
  EXPECT_EQ(a.process_grid()[0], static_cast<index_t>(nprocs));
  const auto mine = a.distribution(rank);
  ASSERT_ALL(mine.has_value());
  EXPECT_EQ(mine->extent(0), 4u);
  {
    auto region = a.access(*mine, gds::access_mode::direct);
    EXPECT_TRUE(region.direct());
    ASSERT_ALL(region.ld().size() == 1u);
    EXPECT_EQ(region.ld()[0], 4u);  // column-major: the block's first extent
    for (index_t j = 0; j < 3; ++j)
      for (index_t i = 0; i < 4; ++i) region.data()[j * 4 + i] = static_cast<int>(100 * (mine->lo[0] + i) + j);
  }
  a.fence();
  {
    // A copy of the whole array, local or not.
    auto all = a.access(box({0, 0}, {4 * static_cast<index_t>(nprocs) - 1, 2}), gds::access_mode::copy);
    EXPECT_FALSE(all.direct());
    const index_t rows = 4 * static_cast<index_t>(nprocs);
    for (index_t i = 0; i < rows; ++i)
      for (index_t j = 0; j < 3; ++j) EXPECT_EQ(all.data()[j * rows + i], static_cast<int>(100 * i + j));
  }
  const auto where = a.locate(std::vector<index_t>{4 * static_cast<index_t>(nprocs) - 1, 2});
  EXPECT_EQ(where.rank, nprocs - 1);
  EXPECT_EQ(where.offset, 11u);  // last element of a 4x3 column-major block
  a.fence();
}

// GDS_create with capturing lambdas (a cyclic layout) and the C API on the raw handle.
TEST_F(Cxx, CreateWithLambdas) {
  const index_t p = static_cast<index_t>(nprocs), me = static_cast<index_t>(rank), n = 5 * p;
  std::vector<double> local(5);
  for (index_t k = 0; k < 5; ++k) local[k] = static_cast<double>(k * p + me);
  auto a = gds::array<double>::create(
      {n}, local, [p](std::span<const index_t> g) { return gds::location{static_cast<int>(g[0] % p), g[0] / p}; },
      [p, me](index_t off, std::span<index_t> g) { g[0] = off * p + me; });
  std::vector<double> all(n);
  a.get(all, box({0}, {n - 1}));
  a.wait();
  for (index_t i = 0; i < n; ++i) EXPECT_EQ(all[i], static_cast<double>(i));
  EXPECT_TRUE(a.process_grid().empty());
  GDS_flavor_t flavor;
  int flag = 0;
  EXPECT_EQ(GDS_get_attr(a.native_handle(), GDS_CREATE_FLAVOR, &flavor, &flag), GDS_STATUS_OK);
  EXPECT_EQ(flavor, GDS_FLAVOR_CREATE);
  a.fence();
}

// GDS_create without mapping functions: the program's buffers in alloc()'s
// block layout, in either order, with the same checks as the C call.
TEST_F(Cxx, CreateWithTheDefaultLayout) {
  const index_t p = static_cast<index_t>(nprocs), me = static_cast<index_t>(rank), n = 4 * p;
  std::vector<int> local(4);
  for (index_t k = 0; k < 4; ++k) local[k] = static_cast<int>(me * 4 + k);  // global index me * 4 + k
  auto a = gds::array<int>::create({n}, local);
  std::vector<int> all(n);
  a.get(all, box({0}, {n - 1}));
  a.wait();
  for (index_t i = 0; i < n; ++i) EXPECT_EQ(all[i], static_cast<int>(i));
  EXPECT_EQ(a.locate(std::vector<index_t>{n - 1}).rank, nprocs - 1);
  a.fence();
  // Column-major 2-D, whatever grid the block layout picks: a buffer as long
  // as the whole array is enough for any block (its tail is not the array's).
  gds::options col;
  col.storage = gds::order::col_major;
  std::vector<double> buffer(6 * p, -1.0);
  auto b = gds::array<double>::create({2 * p, 3}, buffer, col);
  std::vector<double> values(6 * p);
  std::iota(values.begin(), values.end(), 0.0);  // column-major: element (i, j) is i + j * 2p
  if (rank == 0) b.put(values, box({0, 0}, {2 * p - 1, 2}));
  b.wait();
  b.fence();
  for (index_t j = 0; j < 3; ++j)
    for (index_t i = 0; i < 2 * p; ++i) {
      const gds::location where = b.locate(std::vector<index_t>{i, j});
      if (where.rank == rank) {
        EXPECT_EQ(buffer[where.offset], static_cast<double>(i + j * 2 * p)) << i << "," << j;
      }
    }
  b.fence();
  // Too short a buffer on the last process: refused on every process.
  std::vector<int> shorter(rank == nprocs - 1 ? 3 : 4);
  try {
    auto c = gds::array<int>::create({n}, shorter);
    ADD_FAILURE() << "a buffer shorter than the block";
  } catch (const gds::error &e) {
    EXPECT_EQ(e.status(), rank == nprocs - 1 ? GDS_STATUS_INVALID_COUNT : GDS_STATUS_REMOTE_ERROR);
  }
  gds::options chunks;
  chunks.min_chunks = {2};
  try {
    auto c = gds::array<int>::create({n}, local, chunks);
    ADD_FAILURE() << "min_chunks taken by create";
  } catch (const gds::error &e) {
    EXPECT_EQ(e.status(), GDS_STATUS_INVALID);
  }
}

// The order a program writes naturally: its buffer deleted before the array's
// destructor runs. The destructor (GDS_free) never touches the buffer, which
// the ASan tier checks: a read or write of it would be a heap-use-after-free.
TEST_F(Cxx, BufferFreedBeforeTheArray) {
  const index_t p = static_cast<index_t>(nprocs), n = 1000 * p;
  {
    double *buf = new double[1000]();
    auto a = gds::array<double>::create({n}, std::span<double>(buf, 1000));
    std::vector<double> v(n, 2.5);
    if (rank == 0) a.put(v, box({0}, {n - 1}));
    a.wait();
    a.fence();
    a.version_inc("one");
    std::vector<double> w(n, 3.5);
    if (rank == nprocs - 1) a.put(w, box({0}, {n - 1}));
    a.wait();
    a.fence();
    a.version_inc("two");
    EXPECT_EQ(buf[999], 3.5);
    a.fence();   // the last access of any process to the buffers
    delete[] buf;
  }  // ~array: GDS_free with the buffer gone
  gds::test::barrier();
  {
    gds::array<int> b;
    {
      std::vector<int> scoped(8, 1);  // gone before the array it backs
      b = gds::array<int>::create({8 * p}, scoped);
      b.fence();
    }
  }
}

// A mapping that throws is reported as a status, not propagated through C.
TEST_F(Cxx, ThrowingMappingBecomesAStatus) {
  std::vector<int> local(rank == 0 ? 4 : 0);
  auto a = gds::array<int>::create(
      {4}, local,
      [](std::span<const index_t> g) {
        if (g[0] == 3) throw std::runtime_error("no");
        return gds::location{0, g[0]};
      },
      [](index_t off, std::span<index_t> g) { g[0] = off; });
  std::vector<int> v(4);
  try {
    a.get(v, box({0}, {3}));
    ADD_FAILURE() << "no exception";
  } catch (const gds::error &e) {
    EXPECT_EQ(e.status(), GDS_STATUS_INVALID_MAPPING);
  }
  a.fence();
}

// Versions through the C++ API: clones move on their own, old versions read,
// navigation errors throw with the status, restore rolls back.
TEST_F(Cxx, VersionsAndNavigation) {
  auto a = gds::array<double>::alloc({8 * static_cast<index_t>(nprocs)});
  const index_t n = 8 * static_cast<index_t>(nprocs);
  std::vector<double> v(n);
  for (int version = 0; version < 3; ++version) {
    std::fill(v.begin(), v.end(), 1.5 * version);
    if (rank == 0) a.put(v, box({0}, {n - 1}));
    a.wait();
    a.version_inc("after " + std::to_string(version));
  }
  EXPECT_EQ(a.version(), 3u);
  EXPECT_EQ(a.version_label(), "after 2");
  auto old = a.clone();
  old.move_to_prev();
  old.move_to_prev();
  EXPECT_EQ(old.version(), 1u);
  EXPECT_EQ(old.version_label(), "after 0");
  std::vector<double> out(n);
  old.get(out, box({0}, {n - 1}));
  old.wait();
  EXPECT_EQ(out[n - 1], 1.5);
  try {
    old.put(v, box({0}, {n - 1}));
    ADD_FAILURE() << "no exception";
  } catch (const gds::error &e) {
    EXPECT_EQ(e.status(), GDS_STATUS_NOT_CURRENT);
  }
  old.version_dec(1);
  EXPECT_EQ(old.version(), 0u);
  try {
    old.move_to_prev();
    ADD_FAILURE() << "no exception";
  } catch (const gds::error &e) {
    EXPECT_EQ(e.status(), GDS_STATUS_NO_VERSION);
  }
  old.move_to_newest();
  EXPECT_EQ(old.version(), 3u);
  a.fence();
  a.restore(1);
  a.get(out, box({0}, {n - 1}));
  a.wait();
  EXPECT_EQ(out[0], 1.5);
  EXPECT_EQ(a.version_stats().versions, 3u);
  a.fence();
}

// Checksums and restart information through the C++ API.
TEST_F(Cxx, VerifyAndRestartInfo) {
  const index_t n = 8 * static_cast<index_t>(nprocs);
  auto a = gds::array<double>::alloc({n});
  std::vector<double> v(n, 2.5);
  if (rank == 0) a.put(v, box({0}, {n - 1}));
  a.wait();
  a.version_inc();
  a.verify(0);
  a.verify(0, box({0}, {0}));
  // Version 1 made with a latent error in the first block rank 0 copies.
  std::fill(v.begin(), v.end(), 3.5);
  if (rank == 0) a.put(v, box({0}, {n - 1}));
  a.fence();
  ASSERT_ALL(rank != 0 || GDS_inject_fault(GDS_FAULT_VERSION_CORRUPT, 1) == GDS_STATUS_OK);
  a.version_inc();
  for (const bool whole : {true, false}) {
    try {
      if (whole)
        a.verify(1);
      else
        a.verify(1, box({0}, {0}));  // rank 0's first element is in the damaged block
      ADD_FAILURE() << "no exception, whole=" << whole;
    } catch (const gds::error &e) {
      EXPECT_EQ(e.status(), GDS_STATUS_CORRUPT);
    }
  }
  a.verify(0);  // the older version is whole
  try {
    a.verify(1, box({0, 0}, {0, 0}));
    ADD_FAILURE() << "no exception";
  } catch (const gds::error &e) {
    EXPECT_EQ(e.status(), GDS_STATUS_INVALID_NDIMS);
  }
  const GDS_restart_info_t info = a.restart_info();
  EXPECT_EQ(info.restarted, 0);
  EXPECT_EQ(info.level, GDS_LEVEL_NONE);
  a.fence();
}

// Versions flushed to a prefix (info keys through the options), waited for,
// and an array of the same name restarted from them.
TEST_F(Cxx, FlushToPrefixAndRestart) {
  char dir[] = "/tmp/gds-cxx-prefix-XXXXXX";
  ASSERT_ALL(rank != 0 || mkdtemp(dir) != nullptr);
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  const index_t n = 5 * static_cast<index_t>(nprocs) + 3;
  gds::options opt;
  opt.storage = gds::order::col_major;
  opt.info = {{GDS_NAME_KEY, "cxxflush"}, {GDS_PREFIX_KEY, dir}, {GDS_COPY_TYPE_KEY, "NONE"}, {GDS_RESTART_KEY, "0"}};
  {
    auto a = gds::array<double>::alloc({n, 3}, opt);
    std::vector<double> v(n * 3);
    for (int k = 0; k < 3; ++k) {
      std::iota(v.begin(), v.end(), 100.0 * k);
      if (rank == 0) a.put(v, box({0, 0}, {n - 1, 2}));
      a.fence();
      a.version_inc();
    }
    a.flush_wait();  // durable and indexed
    const std::string job = std::string(dir) + "/gds.default/cxxflush/";
    EXPECT_TRUE(std::filesystem::exists(job + "v2.h5"));
    EXPECT_TRUE(std::filesystem::exists(job + "v1.h5"));
    a.fence();
  }
  // Freeing waits for the removal of what the prefix no longer keeps.
  gds::test::barrier();
  EXPECT_FALSE(std::filesystem::exists(std::string(dir) + "/gds.default/cxxflush/v0.h5"));  // the prefix keeps 2
  opt.info.back().second = "1";
  auto b = gds::array<double>::alloc({n, 3}, opt);
  const GDS_restart_info_t info = b.restart_info();
  EXPECT_EQ(info.restarted, 1);
  EXPECT_EQ(info.level, GDS_LEVEL_PREFIX);
  EXPECT_EQ(info.version, 2u);
  EXPECT_EQ(info.versions, 2u);
  std::vector<double> got(n * 3, -1);
  b.get(got, box({0, 0}, {n - 1, 2}));
  b.wait();
  for (index_t i = 0; i < n * 3; ++i) EXPECT_EQ(got[i], 200.0 + static_cast<double>(i)) << i;
  b.fence();
  if (rank == 0) std::filesystem::remove_all(dir);
}

// Open Resilience with capturing lambdas: descriptors and predicates typed by
// their keys, a local handler that repairs from a version, a global handler
// and a check, exceptions turned into statuses.
TEST_F(Cxx, ResilienceWithLambdas) {
  const gds::error_key where = gds::define_error_key("cxx_where", GDS_EAVTYPE_INT_ARRAY);
  const gds::error_key why = gds::define_error_key("cxx_why", GDS_EAVTYPE_BYTE_ARRAY);
  const gds::error_key weight = gds::define_error_key("cxx_weight", GDS_EAVTYPE_FLOAT);
  const index_t n = 4 * static_cast<index_t>(nprocs);
  auto a = gds::array<int>::alloc({n});
  const gds::box mine = *a.distribution(rank);
  std::vector<int> ones(4, 1);
  a.put(ones, mine);
  a.wait();
  a.version_inc("good");

  // A local handler capturing the array: puts the element back from the previous version.
  int repaired = 0;
  a.on_local_error(gds::predicate().any(where).value(why, "bit flip"), [&](gds::raised_error &e) {
    const auto at = e.get<std::vector<std::int64_t>>(where).value();
    auto before = a.clone();
    before.move_to_prev();
    std::vector<int> v(1);
    const box b({static_cast<index_t>(at[0])}, {static_cast<index_t>(at[0])});
    before.get(v, b);
    a.put(v, b);
    a.wait();
    ++repaired;
    e.resume();
  });
  // A more specific one for heavy errors, which throws: the throw becomes the status.
  a.on_local_error(gds::predicate().any(where).value(why, "bit flip").range(weight, 10.0, 1e9),
                   [&](gds::raised_error &) { throw gds::error(GDS_STATUS_NOMEM, "no spare memory"); });

  std::vector<int> bad{-9};
  const box first({mine.lo[0]}, {mine.lo[0]});
  a.put(bad, first);
  a.wait();
  a.raise_local(std::move(gds::error_descriptor().set(where, std::vector<std::int64_t>{static_cast<std::int64_t>(mine.lo[0])}).set(why, "bit flip").set(weight, 1)));
  a.invoke_local_error_handler();
  EXPECT_EQ(repaired, 1);
  std::vector<int> got(1);
  a.get(got, first);
  a.wait();
  EXPECT_EQ(got[0], 1);
  try {
    a.raise_local(std::move(gds::error_descriptor().set(where, std::vector<int>{0}).set(why, "bit flip").set(weight, 100)));
    a.invoke_local_error_handler();
    ADD_FAILURE() << "no exception";
  } catch (const gds::error &e) {
    EXPECT_EQ(e.status(), GDS_STATUS_RECOVERY_FAILED);
    EXPECT_NE(std::string(e.what()).find("out of memory"), std::string::npos) << e.what();
  }
  // Values that do not fit their key are refused before they reach GDS.
  gds::error_descriptor d;
  try {
    d.set(where, 3);
    ADD_FAILURE() << "no exception";
  } catch (const gds::error &e) {
    EXPECT_EQ(e.status(), GDS_STATUS_INVALID_ATTR_VALUE);
  }
  d.set(weight, 2.5f).set(why, std::string("text"));
  EXPECT_EQ(d.view().get<double>(weight), 2.5);
  EXPECT_EQ(d.view().get<std::string>(why), "text");
  EXPECT_FALSE(d.view().has(where));

  // A global check and a global handler, both capturing state.
  int checks = 0, rollbacks = 0;
  a.add_global_check(
      [&](GDS_gds_t h, GDS_priority_t) {
        ++checks;
        int v = 0;
        const index_t zero = 0;
        if (GDS_get(&v, nullptr, &zero, &zero, h) != GDS_STATUS_OK || GDS_wait(h) != GDS_STATUS_OK)
          throw gds::error(GDS_STATUS_CHECK_FAILED, "cannot read");
        if (v != 1 && rank == 0) gds::raise_global(h, gds::error_descriptor().set(why, "sum"));  // a temporary
      },
      GDS_PRIORITY_LOW);
  a.on_global_error(gds::predicate().value(why, "sum"), [&](gds::raised_error &e) {
    a.restore(0);
    ++rollbacks;
    e.resume();
  });
  a.check_all_errors();
  EXPECT_EQ(rollbacks, 0);
  if (rank == 0) {
    std::vector<int> seven{7};
    a.put(seven, box({0}, {0}));
    a.wait();
  }
  EXPECT_TRUE(a.global_error_found());
  a.check_all_errors();
  EXPECT_EQ(rollbacks, 1);
  EXPECT_FALSE(a.global_error_found());
  EXPECT_EQ(checks, 4);  // two check_all_errors, two questions
  a.fence();
}

int main(int argc, char **argv) {
  gds::runtime runtime(&argc, &argv, gds::thread_level::serialized);  // starts MPI
  ::testing::InitGoogleTest(&argc, argv);
  if (gds::runtime::rank() != 0) {
    auto &listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int result = RUN_ALL_TESTS();
  int any = 0;
  MPI_Allreduce(&result, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any;  // ~runtime finalizes GDS and MPI
}
