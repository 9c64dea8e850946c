// Every entry point with every kind of bad argument: each returns its own
// status and a message naming the function and the argument; none crashes,
// hangs or writes anything.
#include <cmath>
#include <cstdint>
#include <functional>
#include <set>
#include <type_traits>

#include "support/gds_test.hpp"

using namespace gds::test;

namespace {

struct Case {
  std::string what;
  std::function<GDS_status_t()> call;
  GDS_status_t status;
  const char *func;
  const char *mention;
  bool junk_mpi_handle = false;  // run only where MPI's handles are integers (below)
};

// A junk MPI handle: MPICH's handles are integers it can validate; Open MPI's
// are pointers, and no library can tell a junk pointer from a live object
// without dereferencing it, so those cases run only where handles are integers.
template <class H>
H junk_mpi(std::uintptr_t bits) {
  if constexpr (std::is_integral_v<H>)
    return static_cast<H>(bits);
  else
    return reinterpret_cast<H>(bits);
}
constexpr bool kMpiHandlesAreIntegers = std::is_integral_v<MPI_Comm>;

class BadInput : public MpiTest {
 protected:
  void SetUp() override {
    const Index count[2] = {6, 5};
    ASSERT_GDS_OK(GDS_alloc(2, count, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &g));
    ASSERT_GDS_OK(GDS_alloc(2, count, nullptr, MPI_DOUBLE, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &dbl));
    ASSERT_GDS_OK(GDS_alloc(1, count, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &freed));
    GDS_gds_t doomed = freed;  // GDS_free nulls its argument; `freed` keeps the stale value
    ASSERT_GDS_OK(GDS_free(&doomed));
    const Index lo[2] = {0, 0};
    ASSERT_ALL_GDS_OK(GDS_access(g, lo, lo, GDS_ACCESS_BUFFER_COPY, &buffer, &open));
    ASSERT_ALL_GDS_OK(GDS_access(g, hi_corner, hi_corner, GDS_ACCESS_BUFFER_COPY, &buffer, &closed));
    closed_copy = closed;
    ASSERT_ALL_GDS_OK(GDS_release(&closed));
  }
  void TearDown() override {
    EXPECT_GDS_OK(GDS_release(&open));
    EXPECT_GDS_OK(GDS_free(&g));
    EXPECT_GDS_OK(GDS_free(&dbl));
    MpiTest::TearDown();
  }
  void run(const std::vector<Case> &cases) {
    for (const Case &c : cases) {
      if (c.junk_mpi_handle && !kMpiHandlesAreIntegers) continue;
      SCOPED_TRACE(c.what);
      EXPECT_EQ(c.call(), c.status) << GDS_last_error_message();
      EXPECT_TRUE(message_names(c.func, c.mention));
    }
  }

  GDS_gds_t g = GDS_NULL, dbl = GDS_NULL, freed = GDS_NULL;
  GDS_access_handle_t open = GDS_ACCESS_HANDLE_NULL, closed = GDS_ACCESS_HANDLE_NULL,
                      closed_copy = GDS_ACCESS_HANDLE_NULL;
  void *buffer = nullptr;
  const Index hi_corner[2] = {5, 4};
  int values[64] = {};
  int result[64] = {};
};

GDS_gds_t as_gds(GDS_access_handle_t h) { return reinterpret_cast<GDS_gds_t>(h); }
GDS_access_handle_t as_access(GDS_gds_t h) { return reinterpret_cast<GDS_access_handle_t>(h); }
template <class T>
T garbage() {
  static int somewhere = 0;
  return reinterpret_cast<T>(&somewhere);
}

}  // namespace

TEST_F(BadInput, Runtime) {
  int flag = 0, r = 0;
  GDS_thread_support_t provided;
  const MPI_Comm junk = junk_mpi<MPI_Comm>(0x12345678);
  run({
      {"init twice", [&] { return GDS_init(nullptr, nullptr, GDS_THREAD_SINGLE, &provided); },
       GDS_STATUS_ALREADY_INITIALIZED, "GDS_init", "called already"},
      {"initialized NULL", [&] { return GDS_initialized(nullptr); }, GDS_STATUS_NULL_ARGUMENT, "GDS_initialized",
       "flag"},
      {"comm_rank NULL", [&] { return GDS_comm_rank(GDS_COMM_WORLD, nullptr); }, GDS_STATUS_NULL_ARGUMENT,
       "GDS_comm_rank", "rank"},
      {"comm_rank COMM_NULL", [&] { return GDS_comm_rank(MPI_COMM_NULL, &r); }, GDS_STATUS_INVALID_COMM,
       "GDS_comm_rank", "MPI_COMM_NULL"},
      {"comm_rank junk", [&] { return GDS_comm_rank(junk, &r); }, GDS_STATUS_INVALID_COMM, "GDS_comm_rank",
       "not a valid communicator", true},
      {"comm_size NULL", [&] { return GDS_comm_size(GDS_COMM_WORLD, nullptr); }, GDS_STATUS_NULL_ARGUMENT,
       "GDS_comm_size", "size"},
      {"comm_size junk", [&] { return GDS_comm_size(junk, &r); }, GDS_STATUS_INVALID_COMM, "GDS_comm_size",
       "not a valid communicator", true},
  });
  EXPECT_GDS_OK(GDS_initialized(&flag));
  EXPECT_EQ(flag, 1);
}

TEST_F(BadInput, AllocAndCreate) {
  const Index count[2] = {6, 5}, zero[2] = {6, 0}, huge[2] = {Index{1} << 40, Index{1} << 40};
  GDS_gds_t out = GDS_NULL;
  const MPI_Comm junk = junk_mpi<MPI_Comm>(0x12345678);
  MPI_Datatype derived;
  MPI_Type_contiguous(2, MPI_INT, &derived);
  MPI_Type_commit(&derived);
  MPI_Info bad_order, unknown_key;
  MPI_Info_create(&bad_order);
  MPI_Info_set(bad_order, GDS_ORDER_KEY, "diagonal");
  MPI_Info_create(&unknown_key);
  MPI_Info_set(unknown_key, "gds_colour", "blue");
  const auto alloc = [&](GDS_size_t ndims, const Index *cnt, MPI_Datatype type, GDS_priority_t p, MPI_Comm comm,
                         MPI_Info info, GDS_gds_t *o) {
    return GDS_alloc(ndims, cnt, nullptr, type, p, comm, info, o);
  };
  const auto g2l = [](const GDS_size_t *, int *rank, GDS_size_t *off) {
    *rank = 0;
    *off = 0;
    return GDS_STATUS_OK;
  };
  const auto l2g = [](GDS_size_t, GDS_size_t *g) {
    g[0] = 0;
    return GDS_STATUS_OK;
  };
  int local[30];
  std::vector<Case> cases = {
      {"ndims 0", [&] { return alloc(0, count, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &out); },
       GDS_STATUS_INVALID_NDIMS, "GDS_alloc", "ndims=0"},
      {"ndims 65", [&] { return alloc(65, count, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &out); },
       GDS_STATUS_INVALID_NDIMS, "GDS_alloc", "ndims=65"},
      {"count NULL", [&] { return alloc(2, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &out); },
       GDS_STATUS_NULL_ARGUMENT, "GDS_alloc", "count"},
      {"zero extent", [&] { return alloc(2, zero, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &out); },
       GDS_STATUS_INVALID_COUNT, "GDS_alloc", "count[1]=0"},
      {"size overflow", [&] { return alloc(2, huge, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &out); },
       GDS_STATUS_INVALID_COUNT, "GDS_alloc", "overflow"},
      {"type NULL", [&] { return alloc(2, count, MPI_DATATYPE_NULL, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &out); },
       GDS_STATUS_INVALID_TYPE, "GDS_alloc", "element_type"},
      {"derived type", [&] { return alloc(2, count, derived, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &out); },
       GDS_STATUS_INVALID_TYPE, "GDS_alloc", "element_type"},
      {"junk type", [&] { return alloc(2, count, junk_mpi<MPI_Datatype>(0x7777), GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &out); },
       GDS_STATUS_INVALID_TYPE, "GDS_alloc", "element_type"},  // compared, never dereferenced
      {"priority", [&] { return alloc(2, count, MPI_INT, static_cast<GDS_priority_t>(7), GDS_COMM_WORLD, MPI_INFO_NULL, &out); },
       GDS_STATUS_INVALID, "GDS_alloc", "resilience_priority=7"},
      {"users COMM_NULL", [&] { return alloc(2, count, MPI_INT, GDS_PRIORITY_HIGH, MPI_COMM_NULL, MPI_INFO_NULL, &out); },
       GDS_STATUS_INVALID_COMM, "GDS_alloc", "users is MPI_COMM_NULL"},
      {"users junk", [&] { return alloc(2, count, MPI_INT, GDS_PRIORITY_HIGH, junk, MPI_INFO_NULL, &out); },
       GDS_STATUS_INVALID_COMM, "GDS_alloc", "users is not a valid communicator", true},
      {"info junk", [&] { return alloc(2, count, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, junk_mpi<MPI_Info>(0x5555), &out); },
       GDS_STATUS_INVALID_INFO, "GDS_alloc", "not a valid MPI_Info", true},
      {"info order", [&] { return alloc(2, count, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, bad_order, &out); },
       GDS_STATUS_INVALID_INFO, "GDS_alloc", "diagonal"},
      {"info key", [&] { return alloc(2, count, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, unknown_key, &out); },
       GDS_STATUS_INVALID_INFO, "GDS_alloc", "gds_colour"},
      {"gds NULL", [&] { return alloc(2, count, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, nullptr); },
       GDS_STATUS_NULL_ARGUMENT, "GDS_alloc", "gds is NULL"},
      {"create g2l NULL", [&] { return GDS_create(2, count, MPI_INT, nullptr, l2g, local, 30, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &out); },
       GDS_STATUS_NULL_ARGUMENT, "GDS_create", "global_to_local_func"},
      {"create l2g NULL", [&] { return GDS_create(2, count, MPI_INT, g2l, nullptr, local, 30, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &out); },
       GDS_STATUS_NULL_ARGUMENT, "GDS_create", "local_to_global_func"},
      {"create buffer NULL", [&] { return GDS_create(2, count, MPI_INT, g2l, l2g, nullptr, 30, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &out); },
       GDS_STATUS_NULL_ARGUMENT, "GDS_create", "local_buffer is NULL"},
      {"create type", [&] { return GDS_create(2, count, MPI_DATATYPE_NULL, g2l, l2g, local, 30, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &out); },
       GDS_STATUS_INVALID_TYPE, "GDS_create", "element_type"},
      {"create comm", [&] { return GDS_create(2, count, MPI_INT, g2l, l2g, local, 30, GDS_PRIORITY_HIGH, MPI_COMM_NULL, MPI_INFO_NULL, &out); },
       GDS_STATUS_INVALID_COMM, "GDS_create", "users"},
      {"create gds NULL", [&] { return GDS_create(2, count, MPI_INT, g2l, l2g, local, 30, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, nullptr); },
       GDS_STATUS_NULL_ARGUMENT, "GDS_create", "gds is NULL"},
  };
  MPI_Comm inter = MPI_COMM_NULL, half = MPI_COMM_NULL;
  if (nprocs >= 2) {
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 99, &inter);
    cases.push_back({"intercommunicator",
                     [&] { return alloc(2, count, MPI_INT, GDS_PRIORITY_HIGH, inter, MPI_INFO_NULL, &out); },
                     GDS_STATUS_INVALID_COMM, "GDS_alloc", "inter-communicator"});
  }
  run(cases);
  EXPECT_EQ(out, GDS_NULL);
  if (inter != MPI_COMM_NULL) MPI_Comm_free(&inter);
  if (half != MPI_COMM_NULL) MPI_Comm_free(&half);
  MPI_Type_free(&derived);
  MPI_Info_free(&bad_order);
  MPI_Info_free(&unknown_key);
}

TEST_F(BadInput, Handles) {
  int flag = 0;
  Index v[2];
  MPI_Comm comm;
  GDS_gds_t null = GDS_NULL;
  GDS_gds_t root = GDS_ROOT;
  GDS_gds_t wrong = as_gds(open);
  GDS_gds_t junk = garbage<GDS_gds_t>();
  run({
      {"free NULL ptr", [&] { return GDS_free(nullptr); }, GDS_STATUS_NULL_ARGUMENT, "GDS_free", "gds is NULL"},
      {"free null", [&] { return GDS_free(&null); }, GDS_STATUS_NULL_HANDLE, "GDS_free", "null handle"},
      {"free freed", [&] { return GDS_free(&freed); }, GDS_STATUS_FREED_HANDLE, "GDS_free", "freed"},
      {"free ROOT", [&] { return GDS_free(&root); }, GDS_STATUS_INVALID_HANDLE, "GDS_free", "GDS_ROOT"},
      {"free access handle", [&] { return GDS_free(&wrong); }, GDS_STATUS_INVALID_HANDLE, "GDS_free", "not a valid handle"},
      {"free junk", [&] { return GDS_free(&junk); }, GDS_STATUS_INVALID_HANDLE, "GDS_free", "not a valid handle"},
      {"attr key", [&] { return GDS_get_attr(g, static_cast<GDS_attr_t>(99), v, &flag); }, GDS_STATUS_INVALID_ATTR,
       "GDS_get_attr", "attribute_key=99"},
      {"attr value NULL", [&] { return GDS_get_attr(g, GDS_COUNT, nullptr, &flag); }, GDS_STATUS_NULL_ARGUMENT,
       "GDS_get_attr", "attribute_value"},
      {"attr flag NULL", [&] { return GDS_get_attr(g, GDS_COUNT, v, nullptr); }, GDS_STATUS_NULL_ARGUMENT,
       "GDS_get_attr", "flag"},
      {"attr freed", [&] { return GDS_get_attr(freed, GDS_COUNT, v, &flag); }, GDS_STATUS_FREED_HANDLE,
       "GDS_get_attr", "freed"},
      {"get_comm NULL", [&] { return GDS_get_comm(g, nullptr); }, GDS_STATUS_NULL_ARGUMENT, "GDS_get_comm", "comm"},
      {"get_comm ROOT", [&] { return GDS_get_comm(GDS_ROOT, &comm); }, GDS_STATUS_INVALID_HANDLE, "GDS_get_comm",
       "GDS_ROOT"},
      {"wait null", [&] { return GDS_wait(GDS_NULL); }, GDS_STATUS_NULL_HANDLE, "GDS_wait", "null"},
      {"flush_wait null", [&] { return GDS_flush_wait(GDS_NULL); }, GDS_STATUS_NULL_HANDLE, "GDS_flush_wait", "null"},
      {"flush_wait freed", [&] { return GDS_flush_wait(freed); }, GDS_STATUS_FREED_HANDLE, "GDS_flush_wait", "freed"},
      {"flush_wait junk", [&] { return GDS_flush_wait(junk); }, GDS_STATUS_INVALID_HANDLE, "GDS_flush_wait",
       "not a valid"},
      {"restart_info NULL", [&] { return GDS_get_restart_info(g, nullptr); }, GDS_STATUS_NULL_ARGUMENT,
       "GDS_get_restart_info", "info"},
      {"wait freed", [&] { return GDS_wait(freed); }, GDS_STATUS_FREED_HANDLE, "GDS_wait", "freed"},
      {"wait_local junk", [&] { return GDS_wait_local(junk); }, GDS_STATUS_INVALID_HANDLE, "GDS_wait_local", "not a valid"},
      {"fence freed", [&] { return GDS_fence(freed); }, GDS_STATUS_FREED_HANDLE, "GDS_fence", "freed"},
      {"fence access handle", [&] { return GDS_fence(wrong); }, GDS_STATUS_INVALID_HANDLE, "GDS_fence", "not a valid"},
      {"distribution rank", [&] { return GDS_distribution(g, nprocs, v, v, &flag); }, GDS_STATUS_RANGE,
       "GDS_distribution", "rank="},
      {"distribution negative", [&] { return GDS_distribution(g, -1, v, v, &flag); }, GDS_STATUS_RANGE,
       "GDS_distribution", "rank=-1"},
      {"distribution NULL", [&] { return GDS_distribution(g, 0, nullptr, v, &flag); }, GDS_STATUS_NULL_ARGUMENT,
       "GDS_distribution", "lo"},
      {"locate range", [&] { const Index at[2] = {6, 0}; int r; Index o; return GDS_locate(g, at, &r, &o); },
       GDS_STATUS_RANGE, "GDS_locate", "index[0]=6"},
      {"locate NULL", [&] { int r; Index o; return GDS_locate(g, nullptr, &r, &o); }, GDS_STATUS_NULL_ARGUMENT,
       "GDS_locate", "index"},
      {"locate rank NULL", [&] { const Index at[2] = {0, 0}; Index o; return GDS_locate(g, at, nullptr, &o); },
       GDS_STATUS_NULL_ARGUMENT, "GDS_locate", "rank"},
  });
}

TEST_F(BadInput, DataAccess) {
  const Index lo[2] = {1, 1}, hi[2] = {3, 3}, inverted[2] = {1, 4}, inv_hi[2] = {3, 3}, out_hi[2] = {6, 3};
  const Index small_ld[1] = {2};
  MPI_Op user_op;
  MPI_Op_create([](void *, void *, int *, MPI_Datatype *) {}, 1, &user_op);
  double d[16] = {};
  run({
      {"put origin NULL", [&] { return GDS_put(nullptr, nullptr, lo, hi, g); }, GDS_STATUS_NULL_ARGUMENT, "GDS_put",
       "origin_addr"},
      {"put lo NULL", [&] { return GDS_put(values, nullptr, nullptr, hi, g); }, GDS_STATUS_NULL_ARGUMENT, "GDS_put",
       "lo_index"},
      {"put hi NULL", [&] { return GDS_put(values, nullptr, lo, nullptr, g); }, GDS_STATUS_NULL_ARGUMENT, "GDS_put",
       "hi_index"},
      {"put lo > hi", [&] { return GDS_put(values, nullptr, inverted, inv_hi, g); }, GDS_STATUS_INVALID_BOX, "GDS_put",
       "lo_index[1]=4 > hi_index[1]=3"},
      {"put outside", [&] { return GDS_put(values, nullptr, lo, out_hi, g); }, GDS_STATUS_RANGE, "GDS_put",
       "hi_index[0]=6"},
      {"put ld", [&] { return GDS_put(values, small_ld, lo, hi, g); }, GDS_STATUS_INVALID_LD, "GDS_put",
       "origin_ld[0]=2"},
      {"put null handle", [&] { return GDS_put(values, nullptr, lo, hi, GDS_NULL); }, GDS_STATUS_NULL_HANDLE, "GDS_put",
       "null"},
      {"put freed", [&] { return GDS_put(values, nullptr, lo, hi, freed); }, GDS_STATUS_FREED_HANDLE, "GDS_put", "freed"},
      {"put ROOT", [&] { return GDS_put(values, nullptr, lo, hi, GDS_ROOT); }, GDS_STATUS_INVALID_HANDLE, "GDS_put",
       "GDS_ROOT"},
      {"put junk", [&] { return GDS_put(values, nullptr, lo, hi, garbage<GDS_gds_t>()); }, GDS_STATUS_INVALID_HANDLE,
       "GDS_put", "not a valid"},
      {"get origin NULL", [&] { return GDS_get(nullptr, nullptr, lo, hi, g); }, GDS_STATUS_NULL_ARGUMENT, "GDS_get",
       "origin_addr"},
      {"get lo > hi", [&] { return GDS_get(values, nullptr, inverted, inv_hi, g); }, GDS_STATUS_INVALID_BOX, "GDS_get",
       "lo_index[1]=4"},
      {"get outside", [&] { return GDS_get(values, nullptr, lo, out_hi, g); }, GDS_STATUS_RANGE, "GDS_get", "hi_index[0]"},
      {"get freed", [&] { return GDS_get(values, nullptr, lo, hi, freed); }, GDS_STATUS_FREED_HANDLE, "GDS_get", "freed"},
      {"acc op NULL", [&] { return GDS_acc(values, nullptr, lo, hi, MPI_OP_NULL, g); }, GDS_STATUS_INVALID_OP, "GDS_acc",
       "accumulate_op"},
      {"acc user op", [&] { return GDS_acc(values, nullptr, lo, hi, user_op, g); }, GDS_STATUS_INVALID_OP, "GDS_acc",
       "predefined"},
      {"acc BAND double", [&] { return GDS_acc(d, nullptr, lo, hi, MPI_BAND, dbl); }, GDS_STATUS_TYPE_MISMATCH,
       "GDS_acc", "MPI_BAND is not defined for MPI_DOUBLE"},
      {"acc MAXLOC int", [&] { return GDS_acc(values, nullptr, lo, hi, MPI_MAXLOC, g); }, GDS_STATUS_TYPE_MISMATCH,
       "GDS_acc", "MPI_MAXLOC"},
      {"acc LAND double", [&] { return GDS_acc(d, nullptr, lo, hi, MPI_LAND, dbl); }, GDS_STATUS_TYPE_MISMATCH,
       "GDS_acc", "MPI_LAND"},
      {"acc origin NULL", [&] { return GDS_acc(nullptr, nullptr, lo, hi, MPI_SUM, g); }, GDS_STATUS_NULL_ARGUMENT,
       "GDS_acc", "origin_addr"},
      {"acc outside", [&] { return GDS_acc(values, nullptr, lo, out_hi, MPI_SUM, g); }, GDS_STATUS_RANGE, "GDS_acc",
       "hi_index"},
      {"get_acc result NULL", [&] { return GDS_get_acc(values, nullptr, nullptr, nullptr, lo, hi, MPI_SUM, g); },
       GDS_STATUS_NULL_ARGUMENT, "GDS_get_acc", "result_addr"},
      {"get_acc origin NULL", [&] { return GDS_get_acc(nullptr, nullptr, result, nullptr, lo, hi, MPI_SUM, g); },
       GDS_STATUS_NULL_ARGUMENT, "GDS_get_acc", "origin_addr"},
      {"get_acc overlap", [&] { return GDS_get_acc(values, nullptr, values + 3, nullptr, lo, hi, MPI_SUM, g); },
       GDS_STATUS_BUFFER_OVERLAP, "GDS_get_acc", "overlap"},
      {"get_acc result_ld", [&] { return GDS_get_acc(values, nullptr, result, small_ld, lo, hi, MPI_SUM, g); },
       GDS_STATUS_INVALID_LD, "GDS_get_acc", "result_ld[0]=2"},
      {"get_acc op", [&] { return GDS_get_acc(values, nullptr, result, nullptr, lo, hi, MPI_MINLOC, g); },
       GDS_STATUS_TYPE_MISMATCH, "GDS_get_acc", "MPI_MINLOC"},
      {"cas double", [&] { return GDS_compare_and_swap(d, d + 1, d + 2, lo, dbl); }, GDS_STATUS_TYPE_MISMATCH,
       "GDS_compare_and_swap", "MPI_DOUBLE"},
      {"cas outside", [&] { return GDS_compare_and_swap(values, values + 1, result, out_hi, g); }, GDS_STATUS_RANGE,
       "GDS_compare_and_swap", "gds_offset[0]=6"},
      {"cas compare NULL", [&] { return GDS_compare_and_swap(nullptr, values + 1, result, lo, g); },
       GDS_STATUS_NULL_ARGUMENT, "GDS_compare_and_swap", "compare_addr"},
      {"cas source NULL", [&] { return GDS_compare_and_swap(values, nullptr, result, lo, g); },
       GDS_STATUS_NULL_ARGUMENT, "GDS_compare_and_swap", "swap_source_addr"},
      {"cas result NULL", [&] { return GDS_compare_and_swap(values, values + 1, nullptr, lo, g); },
       GDS_STATUS_NULL_ARGUMENT, "GDS_compare_and_swap", "swap_result_addr"},
      {"cas overlap", [&] { return GDS_compare_and_swap(values, values + 1, values, lo, g); },
       GDS_STATUS_BUFFER_OVERLAP, "GDS_compare_and_swap", "overlaps"},
      {"cas compare = swap source", [&] { return GDS_compare_and_swap(values, values, result, lo, g); },
       GDS_STATUS_BUFFER_OVERLAP, "GDS_compare_and_swap", "compare_addr and swap_source_addr overlap"},
      {"cas freed", [&] { return GDS_compare_and_swap(values, values + 1, result, lo, freed); },
       GDS_STATUS_FREED_HANDLE, "GDS_compare_and_swap", "freed"},
  });
  MPI_Op_free(&user_op);
  // Nothing above was written: the array is still zero where it was touched.
  EXPECT_GDS_OK(GDS_fence(g));
  int check[9] = {1};
  EXPECT_GDS_OK(GDS_get(check, nullptr, lo, hi, g));
  EXPECT_GDS_OK(GDS_wait(g));
  for (int x : check) EXPECT_EQ(x, 0);
}

TEST_F(BadInput, LocalAccess) {
  const Index lo[2] = {1, 1}, hi[2] = {2, 2}, inverted[2] = {3, 1}, first[2] = {0, 0};
  void *buf = nullptr;
  GDS_access_handle_t h = GDS_ACCESS_HANDLE_NULL;
  GDS_access_buffer_t kind;
  Index ld[1];
  GDS_access_handle_t null = GDS_ACCESS_HANDLE_NULL;
  GDS_access_handle_t stale = closed_copy;
  run({
      {"access type 0", [&] { return GDS_access(g, lo, hi, static_cast<GDS_access_buffer_t>(0), &buf, &h); },
       GDS_STATUS_INVALID, "GDS_access", "buffer_type=0"},
      {"access type 99", [&] { return GDS_access(g, lo, hi, static_cast<GDS_access_buffer_t>(99), &buf, &h); },
       GDS_STATUS_INVALID, "GDS_access", "buffer_type=99"},
      {"access buffer NULL", [&] { return GDS_access(g, lo, hi, GDS_ACCESS_BUFFER_COPY, nullptr, &h); },
       GDS_STATUS_NULL_ARGUMENT, "GDS_access", "access_buffer"},
      {"access handle NULL", [&] { return GDS_access(g, lo, hi, GDS_ACCESS_BUFFER_COPY, &buf, nullptr); },
       GDS_STATUS_NULL_ARGUMENT, "GDS_access", "access_handle"},
      {"access lo > hi", [&] { return GDS_access(g, inverted, hi, GDS_ACCESS_BUFFER_COPY, &buf, &h); },
       GDS_STATUS_INVALID_BOX, "GDS_access", "lo_index[0]=3"},
      {"access overlap", [&] { return GDS_access(g, first, hi, GDS_ACCESS_BUFFER_COPY, &buf, &h); },
       GDS_STATUS_ACCESS_CONFLICT, "GDS_access", "open by GDS_access"},
      {"access freed", [&] { return GDS_access(freed, first, first, GDS_ACCESS_BUFFER_COPY, &buf, &h); },
       GDS_STATUS_FREED_HANDLE, "GDS_access", "freed"},
      {"type null handle", [&] { return GDS_get_access_buffer_type(GDS_ACCESS_HANDLE_NULL, &kind); },
       GDS_STATUS_NULL_HANDLE, "GDS_get_access_buffer_type", "null"},
      {"type released", [&] { return GDS_get_access_buffer_type(closed_copy, &kind); }, GDS_STATUS_FREED_HANDLE,
       "GDS_get_access_buffer_type", "freed"},
      {"type array handle", [&] { return GDS_get_access_buffer_type(as_access(g), &kind); },
       GDS_STATUS_INVALID_HANDLE, "GDS_get_access_buffer_type", "not a valid"},
      {"type out NULL", [&] { return GDS_get_access_buffer_type(open, nullptr); }, GDS_STATUS_NULL_ARGUMENT,
       "GDS_get_access_buffer_type", "buffer_type"},
      {"ld NULL", [&] { return GDS_get_access_buffer_ld(open, nullptr); }, GDS_STATUS_NULL_ARGUMENT,
       "GDS_get_access_buffer_ld", "ld"},
      {"ld junk", [&] { return GDS_get_access_buffer_ld(garbage<GDS_access_handle_t>(), ld); },
       GDS_STATUS_INVALID_HANDLE, "GDS_get_access_buffer_ld", "not a valid"},
      {"release NULL ptr", [&] { return GDS_release(nullptr); }, GDS_STATUS_NULL_ARGUMENT, "GDS_release",
       "access_handle is NULL"},
      {"release null", [&] { return GDS_release(&null); }, GDS_STATUS_NULL_HANDLE, "GDS_release", "null"},
      {"release twice", [&] { return GDS_release(&stale); }, GDS_STATUS_FREED_HANDLE, "GDS_release", "freed"},
  });
  EXPECT_EQ(h, GDS_ACCESS_HANDLE_NULL);
}

TEST_F(BadInput, Versions) {
  GDS_size_t number = 0;
  char *label = nullptr;
  size_t label_size = 0;
  GDS_version_stats_t stats;
  GDS_gds_t clone = GDS_NULL, null = GDS_NULL;
  ASSERT_GDS_OK(GDS_descriptor_clone(dbl, &clone));
  GDS_gds_t clone_copy = clone;
  ASSERT_GDS_OK(GDS_free(&clone));
  const Index count[1] = {8};
  GDS_gds_t out = GDS_NULL;
  const auto alloc_with = [&](const char *key, const char *value) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, key, value);
    const GDS_status_t s = GDS_alloc(1, count, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info, &out);
    MPI_Info_free(&info);
    return s;
  };
  run({
      {"inc null", [&] { return GDS_version_inc(GDS_NULL, 1, nullptr, 0); }, GDS_STATUS_NULL_HANDLE,
       "GDS_version_inc", "null"},
      {"inc freed", [&] { return GDS_version_inc(freed, 1, nullptr, 0); }, GDS_STATUS_FREED_HANDLE,
       "GDS_version_inc", "freed"},
      {"inc ROOT", [&] { return GDS_version_inc(GDS_ROOT, 1, nullptr, 0); }, GDS_STATUS_INVALID_HANDLE,
       "GDS_version_inc", "GDS_ROOT"},
      {"inc junk", [&] { return GDS_version_inc(garbage<GDS_gds_t>(), 1, nullptr, 0); }, GDS_STATUS_INVALID_HANDLE,
       "GDS_version_inc", "not a valid"},
      {"inc while accessed", [&] { return GDS_version_inc(g, 1, nullptr, 0); }, GDS_STATUS_ACCESS_CONFLICT,
       "GDS_version_inc", "GDS_release"},
      {"inc by 0", [&] { return GDS_version_inc(dbl, 0, nullptr, 0); }, GDS_STATUS_INVALID, "GDS_version_inc",
       "increment=0"},
      {"inc label NULL", [&] { return GDS_version_inc(dbl, 1, nullptr, 3); }, GDS_STATUS_NULL_ARGUMENT,
       "GDS_version_inc", "label is NULL"},
      {"number NULL", [&] { return GDS_get_version_number(dbl, nullptr); }, GDS_STATUS_NULL_ARGUMENT,
       "GDS_get_version_number", "version_number"},
      {"number freed clone", [&] { return GDS_get_version_number(clone_copy, &number); }, GDS_STATUS_FREED_HANDLE,
       "GDS_get_version_number", "freed"},
      {"label NULL", [&] { return GDS_get_version_label(dbl, nullptr, &label_size); }, GDS_STATUS_NULL_ARGUMENT,
       "GDS_get_version_label", "label is NULL"},
      {"label size NULL", [&] { return GDS_get_version_label(dbl, &label, nullptr); }, GDS_STATUS_NULL_ARGUMENT,
       "GDS_get_version_label", "label_size"},
      {"label freed", [&] { return GDS_get_version_label(freed, &label, &label_size); }, GDS_STATUS_FREED_HANDLE,
       "GDS_get_version_label", "freed"},
      {"newest null", [&] { return GDS_move_to_newest(GDS_NULL); }, GDS_STATUS_NULL_HANDLE, "GDS_move_to_newest",
       "null"},
      {"next at current", [&] { return GDS_move_to_next(dbl); }, GDS_STATUS_NO_VERSION, "GDS_move_to_next",
       "current version"},
      {"prev without versions", [&] { return GDS_move_to_prev(dbl); }, GDS_STATUS_NO_VERSION, "GDS_move_to_prev",
       "no version older"},
      {"prev freed", [&] { return GDS_move_to_prev(freed); }, GDS_STATUS_FREED_HANDLE, "GDS_move_to_prev", "freed"},
      {"dec below 0", [&] { return GDS_version_dec(dbl, 1); }, GDS_STATUS_NO_VERSION, "GDS_version_dec",
       "below version 0"},
      {"dec huge", [&] { return GDS_version_dec(dbl, ~GDS_size_t{0}); }, GDS_STATUS_NO_VERSION, "GDS_version_dec",
       "below version 0"},
      {"clone NULL", [&] { return GDS_descriptor_clone(dbl, nullptr); }, GDS_STATUS_NULL_ARGUMENT,
       "GDS_descriptor_clone", "clone_gds"},
      {"clone freed", [&] { return GDS_descriptor_clone(freed, &clone); }, GDS_STATUS_FREED_HANDLE,
       "GDS_descriptor_clone", "freed"},
      {"free clone twice", [&] { return GDS_free(&clone_copy); }, GDS_STATUS_FREED_HANDLE, "GDS_free", "freed"},
      {"free clone null", [&] { return GDS_free(&null); }, GDS_STATUS_NULL_HANDLE, "GDS_free", "null"},
      {"restore missing", [&] { return GDS_version_restore(dbl, 5); }, GDS_STATUS_NO_VERSION, "GDS_version_restore",
       "version=5"},
      {"restore while accessed", [&] { return GDS_version_restore(g, 0); }, GDS_STATUS_ACCESS_CONFLICT,
       "GDS_version_restore", "GDS_release"},
      {"restore freed", [&] { return GDS_version_restore(freed, 0); }, GDS_STATUS_FREED_HANDLE,
       "GDS_version_restore", "freed"},
      {"stats NULL", [&] { return GDS_get_version_stats(dbl, nullptr); }, GDS_STATUS_NULL_ARGUMENT,
       "GDS_get_version_stats", "stats"},
      {"stats ROOT", [&] { return GDS_get_version_stats(GDS_ROOT, &stats); }, GDS_STATUS_INVALID_HANDLE,
       "GDS_get_version_stats", "GDS_ROOT"},
      {"block size not a power of two", [&] { return alloc_with(GDS_VERSION_BLOCK_SIZE_KEY, "1000"); },
       GDS_STATUS_INVALID_INFO, "GDS_alloc", "gds_version_block_size=1000"},
      {"block size too small", [&] { return alloc_with(GDS_VERSION_BLOCK_SIZE_KEY, "32"); },
       GDS_STATUS_INVALID_INFO, "GDS_alloc", "gds_version_block_size=32"},
      {"max versions junk", [&] { return alloc_with(GDS_MAX_VERSIONS_KEY, "three"); }, GDS_STATUS_INVALID_INFO,
       "GDS_alloc", "gds_max_versions=\"three\""},
      {"max bytes negative", [&] { return alloc_with(GDS_MAX_VERSION_BYTES_KEY, "-1"); }, GDS_STATUS_INVALID_INFO,
       "GDS_alloc", "gds_max_version_bytes"},
  });
  EXPECT_EQ(out, GDS_NULL);
  EXPECT_EQ(clone, GDS_NULL);
  // Nothing moved and nothing was versioned.
  ASSERT_GDS_OK(GDS_get_version_number(dbl, &number));
  EXPECT_EQ(number, 0u);
  ASSERT_GDS_OK(GDS_get_version_stats(dbl, &stats));
  EXPECT_EQ(stats.versions, 0u);
  ASSERT_GDS_OK(GDS_get_version_number(g, &number));
  EXPECT_EQ(number, 0u);
}

TEST_F(BadInput, OpenResilience) {
  GDS_error_attr_key_t key = 0;
  GDS_error_attr_value_type_t type;
  GDS_error_t desc = GDS_ERROR_NULL, raised = GDS_ERROR_NULL, null_desc = GDS_ERROR_NULL;
  ASSERT_GDS_OK(GDS_create_error_descriptor(&desc));
  ASSERT_GDS_OK(GDS_create_error_descriptor(&raised));
  GDS_error_t raised_copy = raised;
  ASSERT_GDS_OK(GDS_raise_local_error(dbl, raised));  // GDS owns it now
  GDS_error_t freed_desc = GDS_ERROR_NULL;
  ASSERT_GDS_OK(GDS_create_error_descriptor(&freed_desc));
  GDS_error_t freed_copy = freed_desc;
  ASSERT_GDS_OK(GDS_free_error_descriptor(&freed_desc));
  GDS_error_pred_t pred = GDS_ERROR_PRED_NULL, freed_pred = GDS_ERROR_PRED_NULL;
  ASSERT_GDS_OK(GDS_create_error_pred(&pred));
  ASSERT_GDS_OK(GDS_create_error_pred(&freed_pred));
  GDS_error_pred_t freed_pred_copy = freed_pred;
  ASSERT_GDS_OK(GDS_free_error_pred(&freed_pred));
  GDS_error_pred_term_t term = GDS_ERROR_PRED_TERM_NULL, freed_term = GDS_ERROR_PRED_TERM_NULL;
  ASSERT_GDS_OK(GDS_create_error_pred_term(GDS_EATTR_APP, GDS_EMEXP_ANY, 0, nullptr, &term));
  ASSERT_GDS_OK(GDS_create_error_pred_term(GDS_EATTR_APP, GDS_EMEXP_ANY, 0, nullptr, &freed_term));
  GDS_error_pred_term_t freed_term_copy = freed_term;
  ASSERT_GDS_OK(GDS_free_error_pred_term(&freed_term));
  const std::int64_t i64 = 1, range_bad[2] = {5, 1}, range_ok[2] = {1, 5};
  const int i32 = 1;
  const double nan = std::nan(""), d2[2] = {0.0, 1.0};
  const std::int64_t three[3] = {1, 2, 3};
  const MPI_Comm comm = MPI_COMM_WORLD;
  std::int64_t out = 0;
  GDS_size_t len = 0;
  int flag = 0;
  const auto handler = [](GDS_gds_t, GDS_error_t) { return GDS_STATUS_OK; };
  const auto check = [](GDS_gds_t, GDS_priority_t) { return GDS_STATUS_OK; };
  GDS_gds_t as_array = reinterpret_cast<GDS_gds_t>(desc);
  ASSERT_GDS_OK(GDS_add_error_attr(desc, GDS_EATTR_GDS_VERSION, 8, &i64));
  run({
      {"define name NULL", [&] { return GDS_define_error_attr_key(nullptr, 3, GDS_EAVTYPE_INT, &key); },
       GDS_STATUS_NULL_ARGUMENT, "GDS_define_error_attr_key", "attr_name"},
      {"define key NULL", [&] { return GDS_define_error_attr_key("abc", 3, GDS_EAVTYPE_INT, nullptr); },
       GDS_STATUS_NULL_ARGUMENT, "GDS_define_error_attr_key", "new_key"},
      {"define empty name", [&] { return GDS_define_error_attr_key("abc", 0, GDS_EAVTYPE_INT, &key); },
       GDS_STATUS_INVALID, "GDS_define_error_attr_key", "attr_name_size=0"},
      {"define long name", [&] { return GDS_define_error_attr_key(std::string(300, 'x').c_str(), 300, GDS_EAVTYPE_INT, &key); },
       GDS_STATUS_INVALID, "GDS_define_error_attr_key", "attr_name_size=300"},
      {"define type 0", [&] { return GDS_define_error_attr_key("abc", 3, static_cast<GDS_error_attr_value_type_t>(0), &key); },
       GDS_STATUS_INVALID, "GDS_define_error_attr_key", "value_type=0"},
      {"define type 9", [&] { return GDS_define_error_attr_key("abc", 3, static_cast<GDS_error_attr_value_type_t>(9), &key); },
       GDS_STATUS_INVALID, "GDS_define_error_attr_key", "value_type=9"},
      {"define predefined with another type",
       [&] { return GDS_define_error_attr_key("GDS_EATTR_GDS_INDEX", 19, GDS_EAVTYPE_INT, &key); },
       GDS_STATUS_ERROR_KEY_CONFLICT, "GDS_define_error_attr_key", "INT_ARRAY, not INT"},
      {"key info bad key", [&] { return GDS_get_error_attr_key_info(9999, &type, nullptr); },
       GDS_STATUS_INVALID_ERROR_KEY, "GDS_get_error_attr_key_info", "key=9999"},
      {"key info NULL", [&] { return GDS_get_error_attr_key_info(GDS_EATTR_APP, nullptr, nullptr); },
       GDS_STATUS_NULL_ARGUMENT, "GDS_get_error_attr_key_info", "value_type"},
      {"create desc NULL", [&] { return GDS_create_error_descriptor(nullptr); }, GDS_STATUS_NULL_ARGUMENT,
       "GDS_create_error_descriptor", "error_desc"},
      {"free desc NULL ptr", [&] { return GDS_free_error_descriptor(nullptr); }, GDS_STATUS_NULL_ARGUMENT,
       "GDS_free_error_descriptor", "error_desc is NULL"},
      {"free desc null", [&] { return GDS_free_error_descriptor(&null_desc); }, GDS_STATUS_NULL_HANDLE,
       "GDS_free_error_descriptor", "null handle"},
      {"free desc twice", [&] { return GDS_free_error_descriptor(&freed_copy); }, GDS_STATUS_FREED_HANDLE,
       "GDS_free_error_descriptor", "freed"},
      {"free raised desc", [&] { return GDS_free_error_descriptor(&raised_copy); }, GDS_STATUS_FREED_HANDLE,
       "GDS_free_error_descriptor", "raised descriptors belong to GDS"},
      {"add to freed", [&] { return GDS_add_error_attr(freed_copy, GDS_EATTR_APP, 1, "x"); }, GDS_STATUS_FREED_HANDLE,
       "GDS_add_error_attr", "freed"},
      {"add key 0", [&] { return GDS_add_error_attr(desc, 0, 8, &i64); }, GDS_STATUS_INVALID_ERROR_KEY,
       "GDS_add_error_attr", "attr_key=0"},
      {"add key 9999", [&] { return GDS_add_error_attr(desc, 9999, 8, &i64); }, GDS_STATUS_INVALID_ERROR_KEY,
       "GDS_add_error_attr", "attr_key=9999"},
      {"add INT of 4 bytes", [&] { return GDS_add_error_attr(desc, GDS_EATTR_GDS_VERSION, 4, &i32); },
       GDS_STATUS_INVALID_ATTR_VALUE, "GDS_add_error_attr", "attr_len=4 bytes does not fit key 13"},
      {"add FLOAT of 4 bytes", [&] { return GDS_add_error_attr(desc, GDS_EATTR_LOST_COMPUTATION, 4, &i32); },
       GDS_STATUS_INVALID_ATTR_VALUE, "GDS_add_error_attr", "FLOAT (8 bytes)"},
      {"add INT_ARRAY of 12 bytes", [&] { return GDS_add_error_attr(desc, GDS_EATTR_GDS_INDEX, 12, three); },
       GDS_STATUS_INVALID_ATTR_VALUE, "GDS_add_error_attr", "a multiple of 8"},
      {"add MPIOBJ of a handle and a byte", [&] { return GDS_add_error_attr(desc, GDS_EATTR_LOST_COMMUNICATOR, sizeof(MPI_Comm) + 1, three); },
       GDS_STATUS_INVALID_ATTR_VALUE, "GDS_add_error_attr", "MPIOBJ"},
      {"add value NULL", [&] { return GDS_add_error_attr(desc, GDS_EATTR_GDS_VERSION, 8, nullptr); },
       GDS_STATUS_NULL_ARGUMENT, "GDS_add_error_attr", "attr_val"},
      {"add to an array handle", [&] { return GDS_add_error_attr(reinterpret_cast<GDS_error_t>(g), GDS_EATTR_APP, 0, nullptr); },
       GDS_STATUS_INVALID_HANDLE, "GDS_add_error_attr", "not a valid handle"},
      {"get flag NULL", [&] { return GDS_get_error_attr(desc, GDS_EATTR_GDS_VERSION, &out, nullptr); },
       GDS_STATUS_NULL_ARGUMENT, "GDS_get_error_attr", "flag"},
      {"get value NULL", [&] { return GDS_get_error_attr(desc, GDS_EATTR_GDS_VERSION, nullptr, &flag); },
       GDS_STATUS_NULL_ARGUMENT, "GDS_get_error_attr", "attr_val is NULL (the value has 8 bytes)"},
      {"get bad key", [&] { return GDS_get_error_attr(desc, -3, &out, &flag); }, GDS_STATUS_INVALID_ERROR_KEY,
       "GDS_get_error_attr", "attr_key=-3"},
      {"get freed", [&] { return GDS_get_error_attr(freed_copy, GDS_EATTR_APP, &out, &flag); },
       GDS_STATUS_FREED_HANDLE, "GDS_get_error_attr", "freed"},
      {"len NULL", [&] { return GDS_get_error_attr_len(desc, GDS_EATTR_APP, nullptr, &flag); },
       GDS_STATUS_NULL_ARGUMENT, "GDS_get_error_attr_len", "attr_len"},
      {"len flag NULL", [&] { return GDS_get_error_attr_len(desc, GDS_EATTR_APP, &len, nullptr); },
       GDS_STATUS_NULL_ARGUMENT, "GDS_get_error_attr_len", "flag"},
      {"pred NULL", [&] { return GDS_create_error_pred(nullptr); }, GDS_STATUS_NULL_ARGUMENT, "GDS_create_error_pred",
       "pred"},
      {"free pred twice", [&] { return GDS_free_error_pred(&freed_pred_copy); }, GDS_STATUS_FREED_HANDLE,
       "GDS_free_error_pred", "freed"},
      {"free pred NULL ptr", [&] { return GDS_free_error_pred(nullptr); }, GDS_STATUS_NULL_ARGUMENT,
       "GDS_free_error_pred", "pred is NULL"},
      {"term NULL", [&] { return GDS_create_error_pred_term(GDS_EATTR_APP, GDS_EMEXP_ANY, 0, nullptr, nullptr); },
       GDS_STATUS_NULL_ARGUMENT, "GDS_create_error_pred_term", "term"},
      {"term bad key", [&] { return GDS_create_error_pred_term(77777, GDS_EMEXP_ANY, 0, nullptr, &freed_term); },
       GDS_STATUS_INVALID_ERROR_KEY, "GDS_create_error_pred_term", "attr_key=77777"},
      {"term expr 0", [&] { return GDS_create_error_pred_term(GDS_EATTR_APP, static_cast<GDS_error_match_expr_t>(0), 0, nullptr, &freed_term); },
       GDS_STATUS_INVALID, "GDS_create_error_pred_term", "match_expr=0"},
      {"term VALUE size", [&] { return GDS_create_error_pred_term(GDS_EATTR_GDS_VERSION, GDS_EMEXP_VALUE, 4, &i32, &freed_term); },
       GDS_STATUS_INVALID_ATTR_VALUE, "GDS_create_error_pred_term", "value_len=4"},
      {"term VALUE NaN", [&] { return GDS_create_error_pred_term(GDS_EATTR_LOST_COMPUTATION, GDS_EMEXP_VALUE, 8, &nan, &freed_term); },
       GDS_STATUS_INVALID_ATTR_VALUE, "GDS_create_error_pred_term", "NaN"},
      {"term VALUE NULL", [&] { return GDS_create_error_pred_term(GDS_EATTR_GDS_VERSION, GDS_EMEXP_VALUE, 8, nullptr, &freed_term); },
       GDS_STATUS_NULL_ARGUMENT, "GDS_create_error_pred_term", "values is NULL"},
      {"term RANGE min > max", [&] { return GDS_create_error_pred_term(GDS_EATTR_GDS_VERSION, GDS_EMEXP_RANGE, 16, range_bad, &freed_term); },
       GDS_STATUS_INVALID_ATTR_VALUE, "GDS_create_error_pred_term", "minimum > maximum"},
      {"term RANGE odd", [&] { return GDS_create_error_pred_term(GDS_EATTR_GDS_VERSION, GDS_EMEXP_RANGE, 8, range_ok, &freed_term); },
       GDS_STATUS_INVALID_ATTR_VALUE, "GDS_create_error_pred_term", "value_len/2=4"},
      {"term RANGE on MPIOBJ", [&] { return GDS_create_error_pred_term(GDS_EATTR_LOST_COMMUNICATOR, GDS_EMEXP_RANGE, 2 * sizeof comm, &comm, &freed_term); },
       GDS_STATUS_INVALID, "GDS_create_error_pred_term", "RANGE needs a numeric key"},
      {"term RANGE empty", [&] { return GDS_create_error_pred_term(GDS_EATTR_GDS_INDEX, GDS_EMEXP_RANGE, 0, d2, &freed_term); },
       GDS_STATUS_INVALID_ATTR_VALUE, "GDS_create_error_pred_term", "value_len=0"},
      {"free term twice", [&] { return GDS_free_error_pred_term(&freed_term_copy); }, GDS_STATUS_FREED_HANDLE,
       "GDS_free_error_pred_term", "freed"},
      {"add term to freed pred", [&] { return GDS_add_error_pred_term(freed_pred_copy, term); }, GDS_STATUS_FREED_HANDLE,
       "GDS_add_error_pred_term", "pred has been freed"},
      {"add freed term", [&] { return GDS_add_error_pred_term(pred, freed_term_copy); }, GDS_STATUS_FREED_HANDLE,
       "GDS_add_error_pred_term", "term has been freed"},
      {"add pred as term", [&] { return GDS_add_error_pred_term(pred, reinterpret_cast<GDS_error_pred_term_t>(pred)); },
       GDS_STATUS_INVALID_HANDLE, "GDS_add_error_pred_term", "term is not a valid handle"},
      {"register on freed", [&] { return GDS_register_local_error_handler(freed, pred, handler); },
       GDS_STATUS_FREED_HANDLE, "GDS_register_local_error_handler", "freed"},
      {"register on a descriptor", [&] { return GDS_register_local_error_handler(as_array, pred, handler); },
       GDS_STATUS_INVALID_HANDLE, "GDS_register_local_error_handler", "not a valid handle"},
      {"register freed pred", [&] { return GDS_register_local_error_handler(g, freed_pred_copy, handler); },
       GDS_STATUS_FREED_HANDLE, "GDS_register_local_error_handler", "pred has been freed"},
      {"register NULL func", [&] { return GDS_register_local_error_handler(g, pred, nullptr); },
       GDS_STATUS_NULL_ARGUMENT, "GDS_register_local_error_handler", "recovery_func"},
      {"register global NULL func", [&] { return GDS_register_global_error_handler(dbl, pred, nullptr); },
       GDS_STATUS_NULL_ARGUMENT, "GDS_register_global_error_handler", "recovery_func"},
      {"register check NULL", [&] { return GDS_register_local_error_check(g, nullptr, GDS_PRIORITY_HIGH); },
       GDS_STATUS_NULL_ARGUMENT, "GDS_register_local_error_check", "check_func"},
      {"register check priority", [&] { return GDS_register_global_error_check(dbl, check, static_cast<GDS_priority_t>(3)); },
       GDS_STATUS_INVALID, "GDS_register_global_error_check", "check_priority=3"},
      {"raise on null", [&] { return GDS_raise_local_error(GDS_NULL, desc); }, GDS_STATUS_NULL_HANDLE,
       "GDS_raise_local_error", "null"},
      {"raise freed desc", [&] { return GDS_raise_global_error(g, freed_copy); }, GDS_STATUS_FREED_HANDLE,
       "GDS_raise_global_error", "freed"},
      {"raise twice", [&] { return GDS_raise_local_error(g, raised_copy); }, GDS_STATUS_FREED_HANDLE,
       "GDS_raise_local_error", "raised descriptors belong to GDS"},
      {"resume without an error", [&] { return GDS_resume_local(g, desc); }, GDS_STATUS_NOT_IN_HANDLER,
       "GDS_resume_local", "not an error a local handler is handling"},
      {"resume global without an error", [&] { return GDS_resume_global(GDS_ROOT, desc); },
       GDS_STATUS_NOT_IN_HANDLER, "GDS_resume_global", "not an error a global handler is handling"},
      {"resume freed", [&] { return GDS_resume_local(g, freed_copy); }, GDS_STATUS_FREED_HANDLE, "GDS_resume_local",
       "freed"},
      {"invoke local freed", [&] { return GDS_invoke_local_error_handler(freed); }, GDS_STATUS_FREED_HANDLE,
       "GDS_invoke_local_error_handler", "freed"},
      {"invoke global null", [&] { return GDS_invoke_global_error_handler(GDS_NULL); }, GDS_STATUS_NULL_HANDLE,
       "GDS_invoke_global_error_handler", "null"},
      {"check all freed", [&] { return GDS_check_all_errors(freed); }, GDS_STATUS_FREED_HANDLE,
       "GDS_check_all_errors", "freed"},
      {"check local junk", [&] { return GDS_check_local_error(garbage<GDS_gds_t>()); }, GDS_STATUS_INVALID_HANDLE,
       "GDS_check_local_error", "not a valid"},
      {"inject kind", [&] { return GDS_inject_fault(static_cast<GDS_fault_t>(7), 1); }, GDS_STATUS_INVALID,
       "GDS_inject_fault", "fault=7"},
      {"inject after 0", [&] { return GDS_inject_fault(GDS_FAULT_RMA, 0); }, GDS_STATUS_INVALID, "GDS_inject_fault",
       "after=0"},
  });
  // Processes that disagree on a key get an error, and no key.
  if (nprocs > 1) {
    EXPECT_EQ(GDS_define_error_attr_key("split", 5, rank == 0 ? GDS_EAVTYPE_INT : GDS_EAVTYPE_FLOAT, &key),
              GDS_STATUS_COLLECTIVE_MISMATCH);
    EXPECT_EQ(GDS_define_error_attr_key(rank == 0 ? "left" : "right", rank == 0 ? 4 : 5, GDS_EAVTYPE_INT, &key),
              GDS_STATUS_COLLECTIVE_MISMATCH);
    EXPECT_GDS_OK(GDS_define_error_attr_key("split", 5, GDS_EAVTYPE_INT, &key));
    EXPECT_EQ(GDS_register_global_error_check(dbl, check, rank == 0 ? GDS_PRIORITY_HIGH : GDS_PRIORITY_LOW),
              GDS_STATUS_COLLECTIVE_MISMATCH);
  }
  // The raised descriptor is delivered: no handler fits it.
  EXPECT_EQ(GDS_invoke_local_error_handler(dbl), GDS_STATUS_UNHANDLED_ERROR);
  // Nothing above registered anything or changed the descriptor.
  EXPECT_GDS_OK(GDS_get_error_attr(desc, GDS_EATTR_GDS_VERSION, &out, &flag));
  EXPECT_EQ(out, 1);
  EXPECT_GDS_OK(GDS_free_error_descriptor(&desc));
  EXPECT_EQ(desc, GDS_ERROR_NULL);
  EXPECT_GDS_OK(GDS_free_error_pred(&pred));
  EXPECT_GDS_OK(GDS_free_error_pred_term(&term));
  EXPECT_EQ(freed_term, GDS_ERROR_PRED_TERM_NULL);
}

// A NULL output on one process fails a collective call on every process,
// none left waiting in it: GDS_alloc's gds and GDS_get_comm's comm.
TEST_F(BadInput, NullOutputOnOneProcessFailsTheCallEverywhere) {
  const bool last = rank == nprocs - 1;
  const GDS_status_t refused = last ? GDS_STATUS_NULL_ARGUMENT : GDS_STATUS_REMOTE_ERROR;
  const Index count = 8;
  GDS_gds_t made = GDS_NULL;
  EXPECT_EQ(GDS_alloc(1, &count, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL,
                      last ? nullptr : &made),
            refused)
      << GDS_last_error_message();
  EXPECT_EQ(made, GDS_NULL);
  MPI_Comm comm = MPI_COMM_NULL;
  EXPECT_EQ(GDS_get_comm(dbl, last ? nullptr : &comm), refused) << GDS_last_error_message();
  EXPECT_TRUE(message_names("GDS_get_comm", last ? "comm is NULL" : "another process"));
  EXPECT_EQ(comm, MPI_COMM_NULL);
  // Nothing was left half done: the next calls work everywhere.
  EXPECT_GDS_OK(GDS_get_comm(dbl, &comm));
  int size = 0;
  if (comm != MPI_COMM_NULL) MPI_Comm_size(comm, &size);
  EXPECT_EQ(size, nprocs);
  if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
}

// Every length, count, index and size argument at and past 2^31, 2^32,
// 2^63 and 2^64: each call returns its status, never crashes, hangs or
// throws. (Values a buffer argument would have to back, such as a 4 GiB
// attribute from a 256-byte buffer, are not tried: no library can tell a
// buffer's true size. Those past the end of the address space are.)
TEST_F(BadInput, SizesNearTheLimits) {
  constexpr Index p31 = Index{1} << 31, p32 = Index{1} << 32, p63 = Index{1} << 63, max = ~Index{0};
  const Index near[] = {p31 - 1, p31, p31 + 1, p32 - 1, p32, p32 + 1, p63 - 1, p63, p63 + 1, max};
  const Index wrapping[] = {p63, p63 + 1, max};  // more bytes than any buffer can hold
  GDS_gds_t out = GDS_NULL;
  GDS_error_attr_key_t int_key = GDS_EATTR_GDS_VERSION, bytes_key = GDS_EATTR_APP;
  GDS_error_t desc = GDS_ERROR_NULL;
  ASSERT_GDS_OK(GDS_create_error_descriptor(&desc));
  GDS_error_pred_term_t term = GDS_ERROR_PRED_TERM_NULL;
  const auto g2l = [](const GDS_size_t *, int *rank, GDS_size_t *off) {
    *rank = 0;
    *off = 0;
    return GDS_STATUS_OK;
  };
  const auto l2g = [](GDS_size_t, GDS_size_t *g) {
    g[0] = 0;
    return GDS_STATUS_OK;
  };
  std::vector<Case> cases;
  const auto add = [&](std::string what, std::function<GDS_status_t()> call, GDS_status_t status, const char *func,
                       const char *mention) { cases.push_back({std::move(what), std::move(call), status, func, mention}); };
  for (const Index v : near) {
    std::string at = "=";  // (not "=" + to_string(v): GCC 12 warns wrongly there, -Wrestrict)
    at += std::to_string(v);
    const Index square[2] = {v, v}, line[1] = {v}, row_lo[2] = {3, 0}, row_hi[2] = {3, 2};
    const Index out_hi[2] = {3, v}, out_idx[2] = {v, 0}, ld[1] = {v};
    add("alloc count[0] and count[1]" + at,
        [=, &out] { return GDS_alloc(2, square, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &out); },
        GDS_STATUS_INVALID_COUNT, "GDS_alloc", "overflow");
    if (v >= p63 / 4)
      add("alloc count[0] of ints" + at,
          [=, &out] { return GDS_alloc(1, line, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &out); },
          GDS_STATUS_INVALID_COUNT, "GDS_alloc", "overflow");
    add("create count[0] and count[1]" + at,
        [=, &out, this] { return GDS_create(2, square, MPI_INT, g2l, l2g, values, 8, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &out); },
        GDS_STATUS_INVALID_COUNT, "GDS_create", "overflow");
    if (v >= p63 / 4)
      add("create local_buffer_count" + at,
          [=, &out, this] {
            const Index eight[1] = {8};
            return GDS_create(1, eight, MPI_INT, g2l, l2g, values, v, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &out);
          },
          GDS_STATUS_INVALID_COUNT, "GDS_create", "local_buffer_count");
    add("put hi_index[1]" + at, [=, this] { return GDS_put(values, nullptr, row_lo, out_hi, g); }, GDS_STATUS_RANGE,
        "GDS_put", "hi_index[1]");
    add("get lo_index[0] > hi_index[0]" + at, [=, this] { return GDS_get(values, nullptr, out_idx, row_hi, g); },
        GDS_STATUS_INVALID_BOX, "GDS_get", "lo_index[0]");
    add("acc hi_index[1]" + at, [=, this] { return GDS_acc(values, nullptr, row_lo, out_hi, MPI_SUM, g); },
        GDS_STATUS_RANGE, "GDS_acc", "hi_index[1]");
    add("get_acc hi_index[1]" + at,
        [=, this] { return GDS_get_acc(values, nullptr, result, nullptr, row_lo, out_hi, MPI_SUM, g); },
        GDS_STATUS_RANGE, "GDS_get_acc", "hi_index[1]");
    add("cas gds_offset[0]" + at, [=, this] { return GDS_compare_and_swap(values, values + 1, result, out_idx, g); },
        GDS_STATUS_RANGE, "GDS_compare_and_swap", "gds_offset[0]");
    add("locate index[0]" + at, [=, this] {
          int r = 0;
          Index off = 0;
          return GDS_locate(g, out_idx, &r, &off);
        }, GDS_STATUS_RANGE, "GDS_locate", "index[0]");
    add("access hi_index[1]" + at, [=, this] {
          void *b = nullptr;
          GDS_access_handle_t h = GDS_ACCESS_HANDLE_NULL;
          return GDS_access(dbl, row_lo, out_hi, GDS_ACCESS_BUFFER_COPY, &b, &h);
        }, GDS_STATUS_RANGE, "GDS_access", "hi_index[1]");
    // A box of one row never uses the stride, whatever origin_ld says; two
    // rows 2^61 or more apart cannot be addressed at all.
    add("put one row, origin_ld" + at, [=, this] { return GDS_put(values, ld, row_lo, row_hi, g); }, GDS_STATUS_OK, "",
        "");
    add("get one row, origin_ld" + at, [=, this] { return GDS_get(result, ld, row_lo, row_hi, g); }, GDS_STATUS_OK, "",
        "");
    if (v >= p63 / 4) {
      const Index two_lo[2] = {3, 0}, two_hi[2] = {4, 2};
      add("get two rows, origin_ld" + at, [=, this] { return GDS_get(result, ld, two_lo, two_hi, g); },
          GDS_STATUS_INVALID_LD, "GDS_get", "origin_ld");
      add("put two rows, origin_ld" + at, [=, this] { return GDS_put(values, ld, two_lo, two_hi, g); },
          GDS_STATUS_INVALID_LD, "GDS_put", "origin_ld");
      add("acc two rows, origin_ld" + at, [=, this] { return GDS_acc(values, ld, two_lo, two_hi, MPI_SUM, g); },
          GDS_STATUS_INVALID_LD, "GDS_acc", "origin_ld");
      add("get_acc two rows, result_ld" + at,
          [=, this] { return GDS_get_acc(values, nullptr, result, ld, two_lo, two_hi, MPI_SUM, g); },
          GDS_STATUS_INVALID_LD, "GDS_get_acc", "result_ld");
      add("get_acc two rows, origin_ld" + at,
          [=, this] { return GDS_get_acc(values, ld, result, nullptr, two_lo, two_hi, MPI_SUM, g); },
          GDS_STATUS_INVALID_LD, "GDS_get_acc", "origin_ld");
    }
    add("version_inc label_size" + at, [=, this] { return GDS_version_inc(dbl, 1, "label", v); }, GDS_STATUS_INVALID,
        "GDS_version_inc", "label_size");
    add("version_dec dec" + at, [=, this] { return GDS_version_dec(dbl, v); }, GDS_STATUS_NO_VERSION,
        "GDS_version_dec", "below version 0");
    add("version_restore version" + at, [=, this] { return GDS_version_restore(dbl, v); }, GDS_STATUS_NO_VERSION,
        "GDS_version_restore", "does not exist");
    add("define_error_attr_key attr_name_size" + at, [=] {
          GDS_error_attr_key_t k;
          return GDS_define_error_attr_key("name", v, GDS_EAVTYPE_INT, &k);
        }, GDS_STATUS_INVALID, "GDS_define_error_attr_key", "attr_name_size");
    add("add_error_attr INT attr_len" + at, [=, this] { return GDS_add_error_attr(desc, int_key, v, values); },
        GDS_STATUS_INVALID_ATTR_VALUE, "GDS_add_error_attr", "attr_len");
    add("create_error_pred_term INT value_len" + at,
        [=, &term, this] { return GDS_create_error_pred_term(int_key, GDS_EMEXP_VALUE, v, values, &term); },
        GDS_STATUS_INVALID_ATTR_VALUE, "GDS_create_error_pred_term", "value_len");
    add("inject_fault after" + at, [=] { return GDS_inject_fault(GDS_FAULT_RMA, v); }, GDS_STATUS_OK, "", "");
    add("inject_fault cancelled", [] { return GDS_inject_fault(GDS_FAULT_NONE, 0); }, GDS_STATUS_OK, "", "");
  }
  for (const Index v : wrapping) {
    std::string at = "=";  // (not "=" + to_string(v): GCC 12 warns wrongly there, -Wrestrict)
    at += std::to_string(v);
    add("add_error_attr BYTE_ARRAY attr_len" + at, [=, this] { return GDS_add_error_attr(desc, bytes_key, v, values); },
        GDS_STATUS_INVALID_ATTR_VALUE, "GDS_add_error_attr", "address space");
    add("create_error_pred_term BYTE_ARRAY value_len" + at,
        [=, &term, this] { return GDS_create_error_pred_term(bytes_key, GDS_EMEXP_VALUE, v, values, &term); },
        GDS_STATUS_INVALID_ATTR_VALUE, "GDS_create_error_pred_term", "address space");
  }
  // Lengths that stay inside the address space but no memory can hold.
  for (const Index v : {Index{1} << 50, Index{1} << 62, p63 - 1}) {
    std::string at = "=";  // (not "=" + to_string(v): GCC 12 warns wrongly there, -Wrestrict)
    at += std::to_string(v);
    add("add_error_attr BYTE_ARRAY attr_len" + at, [=, this] { return GDS_add_error_attr(desc, bytes_key, v, values); },
        GDS_STATUS_NOMEM, "GDS_add_error_attr", "");
  }
  for (const char *bad : {"2147483648", "4294967296", "9223372036854775808", "18446744073709551615",
                          "18446744073709551616", "-1"}) {
    add(std::string("info gds_version_block_size=") + bad, [=, &out] {
          MPI_Info info;
          MPI_Info_create(&info);
          MPI_Info_set(info, GDS_VERSION_BLOCK_SIZE_KEY, bad);
          const Index count[1] = {8};
          const GDS_status_t st = GDS_alloc(1, count, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info, &out);
          MPI_Info_free(&info);
          return st;
        }, GDS_STATUS_INVALID_INFO, "GDS_alloc", GDS_VERSION_BLOCK_SIZE_KEY);
  }
  add("distribution rank=INT_MAX", [this] {
        Index lo[2], hi[2];
        int owns = 0;
        return GDS_distribution(g, INT32_MAX, lo, hi, &owns);
      }, GDS_STATUS_RANGE, "GDS_distribution", "rank");
  add("distribution rank=INT_MIN", [this] {
        Index lo[2], hi[2];
        int owns = 0;
        return GDS_distribution(g, INT32_MIN, lo, hi, &owns);
      }, GDS_STATUS_RANGE, "GDS_distribution", "rank");
  // An array larger than memory: refused with NOMEM by every process, before MPI sees it.
  add("alloc 2^50 bytes", [&out] {
        const Index n = Index{1} << 50;
        return GDS_alloc(1, &n, nullptr, MPI_BYTE, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &out);
      }, GDS_STATUS_NOMEM, "GDS_alloc", "memory");
  for (const Case &c : cases) {
    SCOPED_TRACE(c.what);
    const GDS_status_t st = c.call();
    EXPECT_EQ(st, c.status) << GDS_last_error_message();
    if (c.status != GDS_STATUS_OK) {
      EXPECT_TRUE(message_names(c.func, c.mention));
    }
  }
  EXPECT_EQ(out, GDS_NULL);
  EXPECT_EQ(term, GDS_ERROR_PRED_TERM_NULL);
  EXPECT_GDS_OK(GDS_free_error_descriptor(&desc));
  EXPECT_GDS_OK(GDS_fence(g));
}

TEST(StatusStrings, EveryStatusHasItsOwnText) {
  std::set<std::string> texts;
  for (int s = GDS_STATUS_OK; s <= GDS_STATUS_LAST; ++s) {
    const std::string t = GDS_status_string(static_cast<GDS_status_t>(s));
    EXPECT_FALSE(t.empty());
    EXPECT_NE(t, "unknown GDS status") << s;
    EXPECT_TRUE(texts.insert(t).second) << "duplicate text for status " << s;
  }
  EXPECT_STREQ(GDS_status_string(static_cast<GDS_status_t>(-1)), "unknown GDS status");
  EXPECT_STREQ(GDS_status_string(static_cast<GDS_status_t>(1000)), "unknown GDS status");
}
