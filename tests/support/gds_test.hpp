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

// Whether GDS refuses MPI_MAX/MPI_MIN on unsigned types here: this MPI
// compares them as signed (MPICH issue 6083; asked directly, as
// tests/mpi_bugs/unsigned_max_min.c does) and GDS_MPI_T_WORKAROUNDS=0
// forbids GDS to correct it. Local.
inline bool unsigned_min_max_refused() {
  const char *workarounds = std::getenv("GDS_MPI_T_WORKAROUNDS");
  if (workarounds == nullptr || std::string(workarounds) != "0") return false;
  std::uint64_t *base = nullptr;
  MPI_Win win;
  MPI_Win_allocate(4 * sizeof(std::uint64_t), sizeof(std::uint64_t), MPI_INFO_NULL, MPI_COMM_SELF, &base, &win);
  base[0] = std::uint64_t{1} << 63;
  const std::uint64_t zero = 0;
  MPI_Win_lock_all(0, win);
  MPI_Accumulate(&zero, 1, MPI_UINT64_T, 0, 0, 1, MPI_UINT64_T, MPI_MAX, win);
  MPI_Win_flush_all(win);
  MPI_Win_unlock_all(win);
  const bool wrong = base[0] != std::uint64_t{1} << 63;
  MPI_Win_free(&win);
  return wrong;
}

// Whether the MPI library is MPICH or one derived from it (by its version string).
inline bool mpi_is_mpich() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  return std::strstr(version, "MPICH") != nullptr;
}

}  // namespace gds::test
