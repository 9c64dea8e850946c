// GDS_create over application buffers with application mappings: cyclic and
// block-cyclic layouts, a process without a buffer, every data-access call,
// access in all modes, and mapping functions that misbehave.
#include <numeric>

#include "support/gds_test.hpp"

using namespace gds::test;

namespace {

// The mapping functions of GDS_create take no context: they read these.
int g_nprocs = 1, g_rank = 0;
Index g_cols = 1;

// 1-D cyclic: index i lives on rank i % P at offset i / P.
GDS_status_t cyclic_g2l(const GDS_size_t global[], int *rank, GDS_size_t *offset) {
  *rank = static_cast<int>(global[0] % static_cast<Index>(g_nprocs));
  *offset = global[0] / static_cast<Index>(g_nprocs);
  return GDS_STATUS_OK;
}
GDS_status_t cyclic_l2g(GDS_size_t offset, GDS_size_t global[]) {
  global[0] = offset * static_cast<Index>(g_nprocs) + static_cast<Index>(g_rank);
  return GDS_STATUS_OK;
}
Index cyclic_count(Index n, int rank, int nprocs) {
  return (n + static_cast<Index>(nprocs) - 1 - static_cast<Index>(rank)) / static_cast<Index>(nprocs);
}

// 2-D row-cyclic: row i on rank i % P, rows stored one after another.
GDS_status_t rows_g2l(const GDS_size_t global[], int *rank, GDS_size_t *offset) {
  *rank = static_cast<int>(global[0] % static_cast<Index>(g_nprocs));
  *offset = global[0] / static_cast<Index>(g_nprocs) * g_cols + global[1];
  return GDS_STATUS_OK;
}
GDS_status_t rows_l2g(GDS_size_t offset, GDS_size_t global[]) {
  global[0] = offset / g_cols * static_cast<Index>(g_nprocs) + static_cast<Index>(g_rank);
  global[1] = offset % g_cols;
  return GDS_STATUS_OK;
}

// Misbehaving mappings.
GDS_status_t bad_rank_g2l(const GDS_size_t global[], int *rank, GDS_size_t *offset) {
  *rank = global[0] == 3 ? g_nprocs + 5 : 0;
  *offset = global[0];
  return GDS_STATUS_OK;
}
GDS_status_t failing_g2l(const GDS_size_t global[], int *rank, GDS_size_t *offset) {
  *rank = 0;
  *offset = global[0];
  return global[0] == 2 ? GDS_STATUS_INVALID : GDS_STATUS_OK;
}
GDS_status_t identity_l2g(GDS_size_t offset, GDS_size_t global[]) {
  global[0] = offset;
  return GDS_STATUS_OK;
}

struct Context {
  int nprocs;
  int rank;
};
GDS_status_t ctx_g2l(const GDS_size_t global[], int *rank, GDS_size_t *offset, void *context) {
  const auto *c = static_cast<const Context *>(context);
  *rank = static_cast<int>(global[0] % static_cast<Index>(c->nprocs));
  *offset = global[0] / static_cast<Index>(c->nprocs);
  return GDS_STATUS_OK;
}
GDS_status_t ctx_l2g(GDS_size_t offset, GDS_size_t global[], void *context) {
  const auto *c = static_cast<const Context *>(context);
  global[0] = offset * static_cast<Index>(c->nprocs) + static_cast<Index>(c->rank);
  return GDS_STATUS_OK;
}

class Create : public MpiTest {
 protected:
  void SetUp() override {
    g_nprocs = nprocs;
    g_rank = rank;
  }
};

}  // namespace

TEST_F(Create, CyclicArrayServesEveryDataAccessCall) {
  const Index n = 5 * static_cast<Index>(nprocs) + 3;  // uneven: some ranks hold one more
  std::vector<long> local(cyclic_count(n, rank, nprocs));
  for (Index k = 0; k < local.size(); ++k) local[k] = static_cast<long>(10 * (k * nprocs + rank));
  GDS_gds_t g = GDS_NULL;
  ASSERT_GDS_OK(GDS_create(1, &n, MPI_LONG, cyclic_g2l, cyclic_l2g, local.data(), local.size(), GDS_PRIORITY_HIGH,
                           GDS_COMM_WORLD, MPI_INFO_NULL, &g));
  int flag = -1;
  GDS_flavor_t flavor;
  Index sizes[1];
  EXPECT_GDS_OK(GDS_get_attr(g, GDS_CREATE_FLAVOR, &flavor, &flag));
  EXPECT_EQ(flavor, GDS_FLAVOR_CREATE);
  EXPECT_GDS_OK(GDS_get_attr(g, GDS_CHUNK_SIZE, sizes, &flag));
  EXPECT_EQ(flag, 0);
  EXPECT_GDS_OK(GDS_get_attr(g, GDS_GLOBAL_LAYOUT, sizes, &flag));
  EXPECT_EQ(flag, 0);
  int owner = -1;
  Index offset = 0;
  const Index probe = n - 1;
  EXPECT_GDS_OK(GDS_locate(g, &probe, &owner, &offset));
  EXPECT_EQ(owner, static_cast<int>((n - 1) % nprocs));
  EXPECT_EQ(offset, (n - 1) / nprocs);

  // get of the whole array sees the buffers' initial content.
  std::vector<long> all(n);
  const Index lo = 0, hi = n - 1;
  EXPECT_GDS_OK(GDS_get(all.data(), nullptr, &lo, &hi, g));
  EXPECT_GDS_OK(GDS_wait(g));
  for (Index i = 0; i < n; ++i) EXPECT_EQ(all[i], static_cast<long>(10 * i));

  // put of a box crossing every owner lands in the owners' buffers.
  const Index plo = 1, phi = n - 2;
  std::vector<long> v(phi - plo + 1);
  std::iota(v.begin(), v.end(), 500L);
  EXPECT_GDS_OK(GDS_fence(g));
  if (rank == nprocs - 1) EXPECT_GDS_OK(GDS_put(v.data(), nullptr, &plo, &phi, g));
  EXPECT_GDS_OK(GDS_fence(g));
  for (Index k = 0; k < local.size(); ++k) {
    const Index i = k * nprocs + rank;
    EXPECT_EQ(local[k], i >= plo && i <= phi ? static_cast<long>(500 + i - plo) : static_cast<long>(10 * i));
  }
  EXPECT_GDS_OK(GDS_fence(g));  // nobody writes again until every process has looked

  // acc from every rank, get_acc and compare-and-swap through the mapping.
  std::vector<long> ones(n, 1);
  EXPECT_GDS_OK(GDS_acc(ones.data(), nullptr, &lo, &hi, MPI_SUM, g));
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_GDS_OK(GDS_get(all.data(), nullptr, &lo, &hi, g));
  EXPECT_GDS_OK(GDS_wait(g));
  for (Index i = 0; i < n; ++i)
    EXPECT_EQ(all[i], (i >= plo && i <= phi ? static_cast<long>(500 + i - plo) : static_cast<long>(10 * i)) + nprocs);
  EXPECT_GDS_OK(GDS_fence(g));
  const Index at = 2;
  long old = -1;
  const long add = 1;
  EXPECT_GDS_OK(GDS_get_acc(&add, nullptr, &old, nullptr, &at, &at, MPI_SUM, g));
  EXPECT_GDS_OK(GDS_wait(g));
  EXPECT_GDS_OK(GDS_fence(g));
  long now = -1;
  EXPECT_GDS_OK(GDS_get(&now, nullptr, &at, &at, g));
  EXPECT_GDS_OK(GDS_wait(g));
  EXPECT_EQ(now, 501 + nprocs + nprocs);
  EXPECT_GDS_OK(GDS_fence(g));
  if (rank == 0) {
    const long expect = now, swap = -9;
    long seen = 0;
    EXPECT_GDS_OK(GDS_compare_and_swap(&expect, &swap, &seen, &at, g));
    EXPECT_GDS_OK(GDS_wait(g));
    EXPECT_EQ(seen, now);
  }
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_GDS_OK(GDS_get(&now, nullptr, &at, &at, g));
  EXPECT_GDS_OK(GDS_wait(g));
  EXPECT_EQ(now, -9);
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_GDS_OK(GDS_free(&g));
}

// A 2-D row-cyclic array read and written through strided origin buffers.
TEST_F(Create, RowCyclicWithStridedBuffers) {
  g_cols = 6;
  const Index count[2] = {7, 6};
  const Index my_rows = cyclic_count(7, rank, nprocs);
  std::vector<int> local(my_rows * g_cols, 0);
  GDS_gds_t g = GDS_NULL;
  ASSERT_GDS_OK(GDS_create(2, count, MPI_INT, rows_g2l, rows_l2g, local.data(), local.size(), GDS_PRIORITY_HIGH,
                           GDS_COMM_WORLD, MPI_INFO_NULL, &g));
  const Index lo[2] = {1, 1}, hi[2] = {5, 4}, ld[1] = {9};
  std::vector<int> src(5 * 9, -1);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 4; ++j) src[i * 9 + j] = 100 * (i + 1) + (j + 1);
  if (rank == 0) EXPECT_GDS_OK(GDS_put(src.data(), ld, lo, hi, g));
  EXPECT_GDS_OK(GDS_fence(g));
  for (Index r = 0; r < my_rows; ++r) {
    const Index i = r * nprocs + rank;
    for (Index j = 0; j < 6; ++j) {
      const bool inside = i >= 1 && i <= 5 && j >= 1 && j <= 4;
      EXPECT_EQ(local[r * 6 + j], inside ? static_cast<int>(100 * i + j) : 0) << i << "," << j;
    }
  }
  std::vector<int> dst(5 * 9, -2);
  EXPECT_GDS_OK(GDS_get(dst.data(), ld, lo, hi, g));
  EXPECT_GDS_OK(GDS_wait(g));
  EXPECT_EQ(dst, [&] {
    std::vector<int> e(5 * 9, -2);
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 4; ++j) e[i * 9 + j] = 100 * (i + 1) + (j + 1);
    return e;
  }());
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_GDS_OK(GDS_free(&g));
}

// Atomic reads of whole rows: each process's rows are contiguous in its
// buffer, while the caller's buffer is padded. Before them, 900 distinct
// strided shapes go through a GDS_alloc array, so that many derived
// datatypes are alive. MPICH 4.0.2 aborts a get_accumulate whose target
// datatype is derived but contiguous once 768 derived types exist
// (tests/mpi_bugs/get_acc_contiguous_target.c); GDS gives MPI contiguous
// memory as a count. The values are checked as soon as GDS_wait returns.
TEST_F(Create, AtomicReadsOfContiguousRowsAfterManyShapes) {
  const Index acount[2] = {4, 1000};
  GDS_gds_t shapes = GDS_NULL;
  ASSERT_GDS_OK(GDS_alloc(2, acount, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &shapes));
  const Index slo[2] = {0, 0}, shi[2] = {1, 2};
  std::vector<int> sink(2 * 1000);
  for (Index ld = 4; ld < 904; ++ld) {
    EXPECT_GDS_OK(GDS_get(sink.data(), &ld, slo, shi, shapes));
    EXPECT_GDS_OK(GDS_wait(shapes));
  }
  // Boxes of 2 to 11 whole rows of 4 elements: MPICH's failure depends on
  // the number and length of the contiguous rows (2 rows of 4 fail, 3 do not).
  g_cols = 4;
  const Index rows = 11, count[2] = {rows, 4};
  std::vector<int> local(cyclic_count(rows, rank, nprocs) * g_cols);
  for (Index r = 0; r < local.size() / g_cols; ++r)
    for (Index j = 0; j < g_cols; ++j) local[r * g_cols + j] = static_cast<int>(100 * (r * nprocs + rank) + j);
  GDS_gds_t g = GDS_NULL;
  ASSERT_GDS_OK(GDS_create(2, count, MPI_INT, rows_g2l, rows_l2g, local.data(), local.size(), GDS_PRIORITY_HIGH,
                           GDS_COMM_WORLD, MPI_INFO_NULL, &g));
  const Index ld[1] = {5};
  for (Index last = 1; last < rows; ++last) {
    const Index lo[2] = {0, 0}, hi[2] = {last, 3};
    std::vector<int> out((last + 1) * 5, -1);
    EXPECT_GDS_OK(GDS_get_acc(nullptr, nullptr, out.data(), ld, lo, hi, MPI_NO_OP, g));
    EXPECT_GDS_OK(GDS_wait(g));
    for (Index i = 0; i <= last; ++i)
      for (Index j = 0; j < 5; ++j)
        EXPECT_EQ(out[i * 5 + j], j < 4 ? static_cast<int>(100 * i + j) : -1) << "rows 0.." << last << ": " << i << "," << j;
  }
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_GDS_OK(GDS_free(&g));
  EXPECT_GDS_OK(GDS_free(&shapes));
}

// The last process holds nothing and passes a NULL buffer.
TEST_F(Create, ProcessWithoutBuffer) {
  const int holders = nprocs > 1 ? nprocs - 1 : 1;
  const Index n = 4 * static_cast<Index>(holders);
  std::vector<double> local(rank < holders ? 4 : 0, 1.5);
  struct Block {
    static GDS_status_t g2l(const GDS_size_t global[], int *r, GDS_size_t *off) {
      *r = static_cast<int>(global[0] / 4);
      *off = global[0] % 4;
      return GDS_STATUS_OK;
    }
    static GDS_status_t l2g(GDS_size_t off, GDS_size_t global[]) {
      global[0] = static_cast<Index>(g_rank) * 4 + off;
      return GDS_STATUS_OK;
    }
  };
  GDS_gds_t g = GDS_NULL;
  ASSERT_GDS_OK(GDS_create(1, &n, MPI_DOUBLE, Block::g2l, Block::l2g, local.empty() ? nullptr : local.data(),
                           local.size(), GDS_PRIORITY_LOW, GDS_COMM_WORLD, MPI_INFO_NULL, &g));
  std::vector<double> all(n, 0.0);
  const Index lo = 0, hi = n - 1;
  EXPECT_GDS_OK(GDS_get(all.data(), nullptr, &lo, &hi, g));
  EXPECT_GDS_OK(GDS_wait(g));
  for (double x : all) EXPECT_EQ(x, 1.5);
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_GDS_OK(GDS_free(&g));
}

// No mapping functions (GDS extension): GDS_alloc's block layout over the
// program's buffers. A 2-D array whose blocks differ in size (uneven
// extents), a buffer longer than the block on one process, and a GDS_alloc
// twin of the same shape telling where each block is.
TEST_F(Create, NoMappingFunctionsMeansTheBlockLayout) {
  const Index count[2] = {5, 3 * static_cast<Index>(nprocs) + 1};
  GDS_gds_t twin = GDS_NULL;
  ASSERT_GDS_OK(GDS_alloc(2, count, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &twin));
  std::vector<Index> lo(2 * static_cast<std::size_t>(nprocs)), hi(lo.size());
  std::vector<int> owns(static_cast<std::size_t>(nprocs));
  for (int r = 0; r < nprocs; ++r)
    EXPECT_GDS_OK(GDS_distribution(twin, r, &lo[2 * r], &hi[2 * r], &owns[r]));
  const auto volume = [&](int r) { return owns[r] ? (hi[2 * r] - lo[2 * r] + 1) * (hi[2 * r + 1] - lo[2 * r + 1] + 1) : 0; };
  // Every process's buffer: its block in row-major order, value = 1000 * rank + offset; the last one 3 longer.
  std::vector<int> local(volume(rank) + (rank == nprocs - 1 ? 3 : 0));
  for (std::size_t k = 0; k < local.size(); ++k) local[k] = 1000 * rank + static_cast<int>(k);
  GDS_gds_t g = GDS_NULL;
  ASSERT_GDS_OK(GDS_create(2, count, MPI_INT, nullptr, nullptr, local.empty() ? nullptr : local.data(), local.size(),
                           GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &g));
  std::vector<int> all(count[0] * count[1]);
  const Index all_lo[2] = {0, 0}, all_hi[2] = {count[0] - 1, count[1] - 1};
  EXPECT_GDS_OK(GDS_get(all.data(), nullptr, all_lo, all_hi, g));
  EXPECT_GDS_OK(GDS_wait(g));
  for (Index i = 0; i < count[0]; ++i)
    for (Index j = 0; j < count[1]; ++j) {
      int owner = -1;
      for (int r = 0; r < nprocs; ++r)
        if (owns[r] && i >= lo[2 * r] && i <= hi[2 * r] && j >= lo[2 * r + 1] && j <= hi[2 * r + 1]) owner = r;
      ASSERT_GE(owner, 0);
      const Index offset = (i - lo[2 * owner]) * (hi[2 * owner + 1] - lo[2 * owner + 1] + 1) + (j - lo[2 * owner + 1]);
      EXPECT_EQ(all[i * count[1] + j], 1000 * owner + static_cast<int>(offset)) << "at [" << i << ", " << j << "]";
    }
  // A put lands in the owner's buffer, where the block layout says.
  EXPECT_GDS_OK(GDS_fence(g));
  const int v = -7;
  const Index at[2] = {count[0] - 1, count[1] - 1};  // the last element: the last block's last offset
  if (rank == 0) EXPECT_GDS_OK(GDS_put(&v, nullptr, at, at, g));
  EXPECT_GDS_OK(GDS_fence(g));
  if (rank == nprocs - 1) {
    EXPECT_EQ(local[volume(rank) - 1], -7);
    EXPECT_EQ(local[volume(rank)], 1000 * rank + static_cast<int>(volume(rank)));  // the tail is not the array's
  }
  EXPECT_GDS_OK(GDS_free(&g));
  // A buffer shorter than the block on process 0: refused there, and on the others as a remote error.
  std::vector<int> small(volume(rank) - (rank == 0 ? 1 : 0));
  EXPECT_EQ(GDS_create(2, count, MPI_INT, nullptr, nullptr, small.empty() ? nullptr : small.data(), small.size(),
                       GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &g),
            rank == 0 ? GDS_STATUS_INVALID_COUNT : GDS_STATUS_REMOTE_ERROR);
  if (g != GDS_NULL) EXPECT_GDS_OK(GDS_free(&g));
  EXPECT_GDS_OK(GDS_free(&twin));
}

// GDS_create_with_context: the mapping reads its state from the context.
TEST_F(Create, ContextMapping) {
  Context ctx{nprocs, rank};
  const Index n = 3 * static_cast<Index>(nprocs);
  std::vector<int> local(3);
  for (int k = 0; k < 3; ++k) local[k] = k * nprocs + rank;
  GDS_gds_t g = GDS_NULL;
  ASSERT_GDS_OK(GDS_create_with_context(1, &n, MPI_INT, ctx_g2l, ctx_l2g, &ctx, local.data(), 3, GDS_PRIORITY_HIGH,
                                        GDS_COMM_WORLD, MPI_INFO_NULL, &g));
  std::vector<int> all(n);
  const Index lo = 0, hi = n - 1;
  EXPECT_GDS_OK(GDS_get(all.data(), nullptr, &lo, &hi, g));
  EXPECT_GDS_OK(GDS_wait(g));
  for (Index i = 0; i < n; ++i) EXPECT_EQ(all[i], static_cast<int>(i));
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_GDS_OK(GDS_free(&g));
}

// DIRECT gives the application's own buffer; COPY a dense copy of any box;
// ANY chooses COPY (a box has no direct shape under a user mapping).
TEST_F(Create, AccessModes) {
  const Index n = 4 * static_cast<Index>(nprocs);
  std::vector<int> local(4);
  for (int k = 0; k < 4; ++k) local[k] = k * nprocs + rank;
  GDS_gds_t g = GDS_NULL;
  ASSERT_GDS_OK(GDS_create(1, &n, MPI_INT, cyclic_g2l, cyclic_l2g, local.data(), 4, GDS_PRIORITY_HIGH, GDS_COMM_WORLD,
                           MPI_INFO_NULL, &g));
  const Index mine = static_cast<Index>(rank);
  void *buffer = nullptr;
  GDS_access_handle_t h = GDS_ACCESS_HANDLE_NULL;
  ASSERT_ALL_GDS_OK(GDS_access(g, &mine, &mine, GDS_ACCESS_BUFFER_DIRECT, &buffer, &h));
  EXPECT_EQ(buffer, local.data());
  static_cast<int *>(buffer)[0] = -rank - 1;
  EXPECT_GDS_OK(GDS_release(&h));
  EXPECT_GDS_OK(GDS_fence(g));

  const Index lo = 0, hi = n - 1;
  ASSERT_ALL_GDS_OK(GDS_access(g, &lo, &hi, GDS_ACCESS_BUFFER_ANY, &buffer, &h));
  GDS_access_buffer_t kind = GDS_ACCESS_BUFFER_DIRECT;
  EXPECT_GDS_OK(GDS_get_access_buffer_type(h, &kind));
  EXPECT_EQ(kind, GDS_ACCESS_BUFFER_COPY);
  const int *copy = static_cast<const int *>(buffer);
  for (Index i = 0; i < n; ++i) EXPECT_EQ(copy[i], i < static_cast<Index>(nprocs) ? -static_cast<int>(i) - 1 : static_cast<int>(i));
  EXPECT_GDS_OK(GDS_release(&h));
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_GDS_OK(GDS_free(&g));
}

TEST_F(Create, MisbehavingMappingsAreReported) {
  const Index n = 6;
  std::vector<int> local(rank == 0 ? 6 : 0);
  GDS_gds_t g = GDS_NULL;
  ASSERT_GDS_OK(GDS_create(1, &n, MPI_INT, bad_rank_g2l, identity_l2g, local.empty() ? nullptr : local.data(),
                           local.size(), GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &g));
  int v[6];
  const Index lo = 0, hi = 5, ok_hi = 2;
  EXPECT_GDS_OK(GDS_get(v, nullptr, &lo, &ok_hi, g));
  EXPECT_GDS_OK(GDS_wait(g));
  EXPECT_EQ(GDS_get(v, nullptr, &lo, &hi, g), GDS_STATUS_INVALID_MAPPING);
  EXPECT_TRUE(message_names("GDS_get", "global_to_local gave rank"));
  int owner = 0;
  Index off = 0;
  const Index three = 3;
  EXPECT_EQ(GDS_locate(g, &three, &owner, &off), GDS_STATUS_INVALID_MAPPING);
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_GDS_OK(GDS_free(&g));

  ASSERT_GDS_OK(GDS_create(1, &n, MPI_INT, failing_g2l, identity_l2g, local.empty() ? nullptr : local.data(),
                           local.size(), GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &g));
  EXPECT_EQ(GDS_put(v, nullptr, &lo, &hi, g), GDS_STATUS_INVALID_MAPPING);
  EXPECT_TRUE(message_names("GDS_put", "returned status"));
  EXPECT_GDS_OK(GDS_fence(g));
  EXPECT_GDS_OK(GDS_free(&g));
}

// The local buffers must be able to hold the array: every process refuses alike.
TEST_F(Create, TooFewElementsInAll) {
  const Index n = 10 * static_cast<Index>(nprocs);
  std::vector<int> local(9);
  GDS_gds_t g = GDS_NULL;
  EXPECT_EQ(GDS_create(1, &n, MPI_INT, cyclic_g2l, cyclic_l2g, local.data(), local.size(), GDS_PRIORITY_HIGH,
                       GDS_COMM_WORLD, MPI_INFO_NULL, &g),
            GDS_STATUS_INVALID_MAPPING);
  EXPECT_TRUE(message_names("GDS_create", "fewer than the array"));
  EXPECT_EQ(g, GDS_NULL);
}
