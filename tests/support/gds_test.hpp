// Helpers shared by the GDS test programs.
#pragma once

#include <gds.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mpi_test.hpp"

// Expects a GDS call to succeed, showing GDS's message if it does not.
#define EXPECT_GDS_OK(call)                                       \
  do {                                                            \
    GDS_status_t gds_test_s_ = (call);                            \
    EXPECT_EQ(gds_test_s_, GDS_STATUS_OK) << GDS_last_error_message(); \
  } while (0)
// ASSERT_ALL for a GDS call (collective: see ASSERT_ALL).
#define ASSERT_ALL_GDS_OK(call)                                                                       \
  do {                                                                                                \
    const GDS_status_t gds_test_s_ = (call);                                                          \
    if (!::gds::test::all_true(gds_test_s_ == GDS_STATUS_OK)) {                                       \
      if (gds_test_s_ != GDS_STATUS_OK)                                                               \
        GTEST_FAIL() << #call " returned " << gds_test_s_ << ": " << GDS_last_error_message();       \
      GTEST_FAIL() << #call " failed on another process";                                             \
    }                                                                                                 \
  } while (0)
#define ASSERT_GDS_OK(call)                                       \
  do {                                                            \
    GDS_status_t gds_test_s_ = (call);                            \
    ASSERT_EQ(gds_test_s_, GDS_STATUS_OK) << GDS_last_error_message(); \
  } while (0)

namespace gds::test {

using Index = GDS_size_t;

// An info carrying GDS_ORDER_KEY, freed with the object.
class OrderInfo {
 public:
  explicit OrderInfo(bool row_major) {
    MPI_Info_create(&info_);
    MPI_Info_set(info_, GDS_ORDER_KEY, row_major ? GDS_ORDER_ROW_MAJOR : GDS_ORDER_COL_MAJOR);
  }
  ~OrderInfo() { MPI_Info_free(&info_); }
  OrderInfo(const OrderInfo &) = delete;
  OrderInfo &operator=(const OrderInfo &) = delete;
  MPI_Info get() const { return info_; }

 private:
  MPI_Info info_;
};

inline Index volume(const std::vector<Index> &count) {
  Index v = 1;
  for (Index c : count) v *= c;
  return v;
}

// Linear position of a global index in a dense array of extents `count`.
inline Index linear(const std::vector<Index> &count, const Index *idx, bool row_major) {
  Index off = 0;
  const std::size_t n = count.size();
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t d = row_major ? k : n - 1 - k;
    off = off * count[d] + idx[d];
  }
  return off;
}

// Advances idx through box [lo, hi] in storage order; false after the last index.
inline bool next_index(const std::vector<Index> &lo, const std::vector<Index> &hi, std::vector<Index> &idx,
                       bool row_major) {
  const std::size_t n = lo.size();
  for (std::size_t k = n; k-- > 0;) {
    const std::size_t d = row_major ? k : n - 1 - k;
    if (idx[d] < hi[d]) {
      ++idx[d];
      return true;
    }
    idx[d] = lo[d];
  }
  return false;
}

// Whether GDS's last message names the function and mentions `text`.
inline ::testing::AssertionResult message_names(const char *func, const char *text) {
  const std::string m = GDS_last_error_message();
  if (m.rfind(std::string(func) + ":", 0) != 0)
    return ::testing::AssertionFailure() << "message \"" << m << "\" does not start with " << func;
  if (m.find(text) == std::string::npos)
    return ::testing::AssertionFailure() << "message \"" << m << "\" does not mention \"" << text << "\"";
  return ::testing::AssertionSuccess();
}

// Whether the MPI library is MPICH or one derived from it (by its version string).
inline bool mpi_is_mpich();

// Whether GDS refuses MPI_MAX/MPI_MIN on unsigned types here: this MPI
// compares them as signed in RMA accumulates (asked directly, as
// tests/mpi_bugs/unsigned_max_min.c does, with the top bit set in 4- and
// 8-byte types, to the next process as GDS_init asks) and GDS cannot correct
// it: it can only for MPICH (issue 6083, through a control variable), and
// not there with GDS_MPI_T_WORKAROUNDS=0. Collective over MPI_COMM_WORLD.
inline bool unsigned_min_max_refused() {
  const char *workarounds = std::getenv("GDS_MPI_T_WORKAROUNDS");
  const bool may_correct = mpi_is_mpich() && (workarounds == nullptr || std::string(workarounds) != "0");
  int rank = 0, nprocs = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  std::uint64_t slots[2] = {std::uint64_t{1} << 63, 0};
  const unsigned top32 = 1u << 31;
  std::memcpy(&slots[1], &top32, sizeof top32);
  MPI_Win win;
  MPI_Win_create(slots, sizeof slots, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Barrier(MPI_COMM_WORLD);
  const std::uint64_t zero = 0;
  const int next = (rank + 1) % nprocs;
  MPI_Win_lock_all(0, win);
  MPI_Accumulate(&zero, 1, MPI_UINT64_T, next, 0, 1, MPI_UINT64_T, MPI_MAX, win);
  MPI_Accumulate(&zero, 1, MPI_UNSIGNED, next, 8, 1, MPI_UNSIGNED, MPI_MAX, win);
  MPI_Win_flush_all(win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  unsigned low = 0;
  std::memcpy(&low, &slots[1], sizeof low);
  int wrong = slots[0] != std::uint64_t{1} << 63 || low != top32;
  MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  MPI_Win_free(&win);
  return wrong != 0 && !may_correct;
}

inline bool mpi_is_mpich() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  return std::strstr(version, "MPICH") != nullptr;
}

}  // namespace gds::test
