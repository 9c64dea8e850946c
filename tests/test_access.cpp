// GDS_access / GDS_release / GDS_get_access_buffer_type in DIRECT, COPY and ANY.
#include <numeric>

#include "support/gds_test.hpp"

using namespace gds::test;

namespace {

class Access : public MpiTest {
 protected:
  // A row-major (or column-major) 2-D array of ints, value 1000*i + j at (i, j).
  GDS_gds_t make(bool row_major, Index rows = 9, Index cols = 7) {
    rows_ = rows;
    cols_ = cols;
    OrderInfo info(row_major);
    const Index count[2] = {rows, cols};
    GDS_gds_t g = GDS_NULL;
    EXPECT_GDS_OK(GDS_alloc(2, count, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info.get(), &g));
    std::vector<int> v(rows * cols);
    for (Index i = 0; i < rows; ++i)
      for (Index j = 0; j < cols; ++j) v[row_major ? i * cols + j : j * rows + i] = static_cast<int>(1000 * i + j);
    const Index lo[2] = {0, 0}, hi[2] = {rows - 1, cols - 1};
    if (rank == 0) EXPECT_GDS_OK(GDS_put(v.data(), nullptr, lo, hi, g));
    EXPECT_GDS_OK(GDS_fence(g));
    return g;
  }
  int value(GDS_gds_t g, Index i, Index j) {
    const Index at[2] = {i, j};
    int v = -1;
    EXPECT_GDS_OK(GDS_get(&v, nullptr, at, at, g));
    EXPECT_GDS_OK(GDS_wait(g));
    return v;
  }
  Index rows_ = 0, cols_ = 0;
};

}  // namespace

// DIRECT on the local block: the pointer addresses the array's own memory
// with the block's leading dimension; stores are seen by everyone after
// release and a fence.
TEST_F(Access, DirectOnTheLocalBlock) {
  for (bool row : {true, false}) {
    GDS_gds_t g = make(row);
    Index lo[2], hi[2];
    int owns = 0;
    EXPECT_GDS_OK(GDS_distribution(g, rank, lo, hi, &owns));
    void *buffer = nullptr;
    GDS_access_handle_t h = GDS_ACCESS_HANDLE_NULL;
    ASSERT_ALL_GDS_OK(owns ? GDS_access(g, lo, hi, GDS_ACCESS_BUFFER_DIRECT, &buffer, &h) : GDS_STATUS_OK);
    if (owns) {
      GDS_access_buffer_t kind = GDS_ACCESS_BUFFER_ANY;
      EXPECT_GDS_OK(GDS_get_access_buffer_type(h, &kind));
      EXPECT_EQ(kind, GDS_ACCESS_BUFFER_DIRECT);
      Index ld = 0;
      EXPECT_GDS_OK(GDS_get_access_buffer_ld(h, &ld));
      const Index ext0 = hi[0] - lo[0] + 1, ext1 = hi[1] - lo[1] + 1;
      EXPECT_EQ(ld, row ? ext1 : ext0);
      int *p = static_cast<int *>(buffer);
      for (Index i = lo[0]; i <= hi[0]; ++i)
        for (Index j = lo[1]; j <= hi[1]; ++j) {
          int &x = row ? p[(i - lo[0]) * ld + (j - lo[1])] : p[(j - lo[1]) * ld + (i - lo[0])];
          EXPECT_EQ(x, static_cast<int>(1000 * i + j));
          x = -x;
        }
      EXPECT_GDS_OK(GDS_release(&h));
      EXPECT_EQ(h, GDS_ACCESS_HANDLE_NULL);
    }
    EXPECT_GDS_OK(GDS_fence(g));
    for (Index i = 0; i < rows_; i += 2)
      for (Index j = 0; j < cols_; j += 3) EXPECT_EQ(value(g, i, j), -static_cast<int>(1000 * i + j));
    EXPECT_GDS_OK(GDS_fence(g));
    EXPECT_GDS_OK(GDS_free(&g));
  }
}

// A sub-box of the block: the pointer starts at lo and strides by the block.
TEST_F(Access, DirectOnASubBoxSeesOwnEarlierPuts) {
  GDS_gds_t g = make(true);
  Index lo[2], hi[2];
  int owns = 0;
  EXPECT_GDS_OK(GDS_distribution(g, rank, lo, hi, &owns));
  const bool sub = owns && hi[0] > lo[0] && hi[1] > lo[1];
  const Index slo[2] = {lo[0] + 1, lo[1] + 1};
  const int mark = 77;
  if (sub) EXPECT_GDS_OK(GDS_put(&mark, nullptr, slo, slo, g));  // not waited for
  void *buffer = nullptr;
  GDS_access_handle_t h = GDS_ACCESS_HANDLE_NULL;
  ASSERT_ALL_GDS_OK(sub ? GDS_access(g, slo, hi, GDS_ACCESS_BUFFER_DIRECT, &buffer, &h) : GDS_STATUS_OK);
  if (sub) {
    Index ld = 0;
    EXPECT_GDS_OK(GDS_get_access_buffer_ld(h, &ld));
    EXPECT_EQ(ld, hi[1] - lo[1] + 1);
    const int *p = static_cast<const int *>(buffer);
    EXPECT_EQ(p[0], mark);
    EXPECT_EQ(p[1], static_cast<int>(1000 * slo[0] + slo[1] + 1));
    if (hi[0] > slo[0]) {
      EXPECT_EQ(p[ld], static_cast<int>(1000 * (slo[0] + 1) + slo[1]));
    }
    EXPECT_GDS_OK(GDS_release(&h));
  }
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_GDS_OK(GDS_free(&g));
}

TEST_F(Access, DirectOutsideTheLocalBlockIsRefused) {
  GDS_gds_t g = make(true);
  const Index lo[2] = {0, 0}, hi[2] = {rows_ - 1, cols_ - 1};
  void *buffer = nullptr;
  GDS_access_handle_t h = GDS_ACCESS_HANDLE_NULL;
  const GDS_status_t s = GDS_access(g, lo, hi, GDS_ACCESS_BUFFER_DIRECT, &buffer, &h);
  if (nprocs == 1) {
    EXPECT_EQ(s, GDS_STATUS_OK);
    EXPECT_GDS_OK(GDS_release(&h));
  } else {
    EXPECT_EQ(s, GDS_STATUS_NOT_LOCAL);
    EXPECT_TRUE(message_names("GDS_access", "stored on this process"));
    EXPECT_EQ(h, GDS_ACCESS_HANDLE_NULL);
  }
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_GDS_OK(GDS_free(&g));
}

// COPY works on any box, local or not: a dense copy, written back on release.
TEST_F(Access, CopyOfARemoteBoxIsWrittenBack) {
  for (bool row : {true, false}) {
    GDS_gds_t g = make(row);
    // Each rank takes one row band crossing owners; bands do not overlap.
    const Index band = rows_ / static_cast<Index>(nprocs);
    const Index lo[2] = {band * static_cast<Index>(rank), 1};
    const Index hi[2] = {lo[0] + band - 1, cols_ - 2};
    void *buffer = nullptr;
    GDS_access_handle_t h = GDS_ACCESS_HANDLE_NULL;
    ASSERT_ALL_GDS_OK(GDS_access(g, lo, hi, GDS_ACCESS_BUFFER_COPY, &buffer, &h));
    GDS_access_buffer_t kind = GDS_ACCESS_BUFFER_ANY;
    EXPECT_GDS_OK(GDS_get_access_buffer_type(h, &kind));
    EXPECT_EQ(kind, GDS_ACCESS_BUFFER_COPY);
    const Index e0 = hi[0] - lo[0] + 1, e1 = hi[1] - lo[1] + 1;
    Index ld = 0;
    EXPECT_GDS_OK(GDS_get_access_buffer_ld(h, &ld));
    EXPECT_EQ(ld, row ? e1 : e0);
    int *p = static_cast<int *>(buffer);
    for (Index i = 0; i < e0; ++i)
      for (Index j = 0; j < e1; ++j) {
        int &x = row ? p[i * e1 + j] : p[j * e0 + i];
        EXPECT_EQ(x, static_cast<int>(1000 * (lo[0] + i) + lo[1] + j));
        x += 5;
      }
    EXPECT_GDS_OK(GDS_release(&h));
    EXPECT_GDS_OK(GDS_fence(g));
    for (Index i = 0; i < rows_; ++i)
      for (Index j = 0; j < cols_; ++j) {
        const bool changed = i < band * static_cast<Index>(nprocs) && j >= 1 && j <= cols_ - 2;
        EXPECT_EQ(value(g, i, j), static_cast<int>(1000 * i + j) + (changed ? 5 : 0));
      }
    EXPECT_GDS_OK(GDS_fence(g));
    EXPECT_GDS_OK(GDS_free(&g));
  }
}

// ANY: DIRECT where the box is local, COPY where it is not.
TEST_F(Access, AnyChoosesDirectWhenLocal) {
  GDS_gds_t g = make(true);
  Index lo[2], hi[2];
  int owns = 0;
  EXPECT_GDS_OK(GDS_distribution(g, rank, lo, hi, &owns));
  void *buffer = nullptr;
  GDS_access_handle_t h = GDS_ACCESS_HANDLE_NULL;
  GDS_access_buffer_t kind = GDS_ACCESS_BUFFER_ANY;
  if (owns) {
    EXPECT_GDS_OK(GDS_access(g, lo, hi, GDS_ACCESS_BUFFER_ANY, &buffer, &h));
    EXPECT_GDS_OK(GDS_get_access_buffer_type(h, &kind));
    EXPECT_EQ(kind, GDS_ACCESS_BUFFER_DIRECT);
    EXPECT_GDS_OK(GDS_release(&h));
  }
  const Index all_lo[2] = {0, 0}, all_hi[2] = {rows_ - 1, cols_ - 1};
  EXPECT_GDS_OK(GDS_access(g, all_lo, all_hi, GDS_ACCESS_BUFFER_ANY, &buffer, &h));
  EXPECT_GDS_OK(GDS_get_access_buffer_type(h, &kind));
  EXPECT_EQ(kind, nprocs == 1 ? GDS_ACCESS_BUFFER_DIRECT : GDS_ACCESS_BUFFER_COPY);
  EXPECT_EQ(static_cast<int *>(buffer)[cols_ + 2], 1002);
  EXPECT_GDS_OK(GDS_release(&h));
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_GDS_OK(GDS_free(&g));
}

// While a region is open, this process's overlapping operations are refused,
// others go ahead, and a second overlapping access is refused too.
TEST_F(Access, OpenRegionsBlockOverlappingCalls) {
  GDS_gds_t g = make(true);
  const Index lo[2] = {2, 2}, hi[2] = {4, 4};
  void *buffer = nullptr;
  GDS_access_handle_t h = GDS_ACCESS_HANDLE_NULL;
  ASSERT_ALL_GDS_OK(GDS_access(g, lo, hi, GDS_ACCESS_BUFFER_COPY, &buffer, &h));
  int x = 1, y = 0, z = 2;
  const Index in[2] = {3, 3}, out[2] = {6, 6};
  EXPECT_EQ(GDS_put(&x, nullptr, in, in, g), GDS_STATUS_ACCESS_CONFLICT);
  EXPECT_TRUE(message_names("GDS_put", "GDS_release"));
  EXPECT_EQ(GDS_get(&y, nullptr, in, in, g), GDS_STATUS_ACCESS_CONFLICT);
  EXPECT_EQ(GDS_acc(&x, nullptr, in, in, MPI_SUM, g), GDS_STATUS_ACCESS_CONFLICT);
  EXPECT_EQ(GDS_compare_and_swap(&x, &z, &y, in, g), GDS_STATUS_ACCESS_CONFLICT);
  EXPECT_EQ(GDS_get_acc(&x, nullptr, &y, nullptr, in, in, MPI_SUM, g), GDS_STATUS_ACCESS_CONFLICT);
  void *other = nullptr;
  GDS_access_handle_t h2 = GDS_ACCESS_HANDLE_NULL;
  EXPECT_EQ(GDS_access(g, in, out, GDS_ACCESS_BUFFER_COPY, &other, &h2), GDS_STATUS_ACCESS_CONFLICT);
  EXPECT_GDS_OK(GDS_get(&y, nullptr, out, out, g));  // disjoint: fine
  EXPECT_GDS_OK(GDS_wait(g));
  EXPECT_EQ(y, 6006);
  EXPECT_GDS_OK(GDS_release(&h));
  EXPECT_EQ(GDS_release(&h), GDS_STATUS_NULL_HANDLE);
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_GDS_OK(GDS_free(&g));
}

// A 1-D array: no leading dimensions, and ld may be NULL.
TEST_F(Access, OneDimensionalHasNoLeadingDimensions) {
  const Index count = 5 * static_cast<Index>(nprocs);
  GDS_gds_t g = GDS_NULL;
  ASSERT_GDS_OK(GDS_alloc(1, &count, nullptr, MPI_DOUBLE, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &g));
  Index lo = 0, hi = 0;
  int owns = 0;
  EXPECT_GDS_OK(GDS_distribution(g, rank, &lo, &hi, &owns));
  ASSERT_ALL(owns);
  void *buffer = nullptr;
  GDS_access_handle_t h = GDS_ACCESS_HANDLE_NULL;
  ASSERT_ALL_GDS_OK(GDS_access(g, &lo, &hi, GDS_ACCESS_BUFFER_DIRECT, &buffer, &h));
  EXPECT_GDS_OK(GDS_get_access_buffer_ld(h, nullptr));
  double *p = static_cast<double *>(buffer);
  for (Index i = 0; i <= hi - lo; ++i) p[i] = static_cast<double>(lo + i) * 0.5;
  EXPECT_GDS_OK(GDS_release(&h));
  EXPECT_GDS_OK(GDS_fence(g));
  std::vector<double> all(count);
  const Index zero = 0, last = count - 1;
  EXPECT_GDS_OK(GDS_get(all.data(), nullptr, &zero, &last, g));
  EXPECT_GDS_OK(GDS_wait(g));
  for (Index i = 0; i < count; ++i) EXPECT_EQ(all[i], static_cast<double>(i) * 0.5);
  EXPECT_GDS_OK(GDS_free(&g));
}
