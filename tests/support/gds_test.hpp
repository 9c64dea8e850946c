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
// tests/mpi_bugs/unsigned_max_min.c does, with the top bit set in every
// unsigned type, to the next process as GDS_init asks) and GDS cannot correct
// it: it can only for MPICH (issue 6083, through a control variable), and
// not there with GDS_MPI_T_WORKAROUNDS=0. Collective over MPI_COMM_WORLD.
inline bool unsigned_min_max_refused() {
  const char *workarounds = std::getenv("GDS_MPI_T_WORKAROUNDS");
  const bool may_correct = mpi_is_mpich() && (workarounds == nullptr || std::string(workarounds) != "0");
  int rank = 0, nprocs = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  // Every unsigned type GDS supports, in an 8-byte slot each, its top bit set.
  const MPI_Datatype types[] = {MPI_UNSIGNED_CHAR, MPI_UNSIGNED_SHORT, MPI_UNSIGNED, MPI_UNSIGNED_LONG,
                                MPI_UNSIGNED_LONG_LONG, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T, MPI_UINT64_T};
  constexpr int kTypes = sizeof types / sizeof types[0];
  unsigned char slots[kTypes * 8] = {};
  int sizes[kTypes];
  for (int k = 0; k < kTypes; ++k) {
    MPI_Type_size(types[k], &sizes[k]);
    slots[k * 8 + sizes[k] - 1] = 0x80;  // little-endian: the top byte
  }
  MPI_Win win;
  MPI_Win_create(slots, sizeof slots, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  barrier();
  const unsigned char zero[8] = {};
  const int next = (rank + 1) % nprocs;
  MPI_Win_lock_all(0, win);
  for (int k = 0; k < kTypes; ++k) MPI_Accumulate(zero, 1, types[k], next, k * 8, 1, types[k], MPI_MAX, win);
  MPI_Win_flush_all(win);
  MPI_Win_unlock_all(win);
  barrier();
  int wrong = 0;
  for (int k = 0; k < kTypes; ++k) wrong |= slots[k * 8 + sizes[k] - 1] != 0x80;
  {
    const int mine = wrong;
    allreduce(&mine, &wrong, 1, MPI_INT, MPI_LOR);
  }
  MPI_Win_free(&win);
  return wrong != 0 && !may_correct;
}

inline bool mpi_is_mpich() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  return std::strstr(version, "MPICH") != nullptr;
}

// Whether GDS refuses MPI_LAND, MPI_LOR and MPI_LXOR here: this MPI's
// accumulates ignore them (Open MPI 4.1's osc/rdma; asked as GDS_init asks,
// tests/mpi_bugs/logical_and_pairs.c). Collective over MPI_COMM_WORLD.
inline bool logical_ops_refused() {
  int rank = 0, nprocs = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  int memory[4] = {2, 0, 2, 0};
  MPI_Win win;
  MPI_Win_create(memory, sizeof memory, sizeof memory[0], MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  barrier();
  const int next = (rank + 1) % nprocs, three = 3, zero = 0;
  MPI_Win_lock_all(0, win);
  MPI_Accumulate(&three, 1, MPI_INT, next, 0, 1, MPI_INT, MPI_LAND, win);
  MPI_Accumulate(&three, 1, MPI_INT, next, 1, 1, MPI_INT, MPI_LOR, win);
  MPI_Accumulate(&zero, 1, MPI_INT, next, 2, 1, MPI_INT, MPI_LXOR, win);
  MPI_Win_flush_all(win);
  MPI_Win_unlock_all(win);
  barrier();
  int wrong = memory[0] != 1 || memory[1] != 1 || memory[2] != 1;
  {
    const int mine = wrong;
    allreduce(&mine, &wrong, 1, MPI_INT, MPI_LOR);
  }
  MPI_Win_free(&win);
  return wrong != 0;
}

inline bool mpi_is_open_mpi_4() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  return std::strstr(version, "Open MPI v4.") != nullptr;
}

// Whether GDS refuses accumulates of pair types with a gap (MPI_DOUBLE_INT:
// 12 bytes of 16), every op: on Open MPI 4, by its version.
inline bool gap_pairs_refused() { return mpi_is_open_mpi_4(); }

}  // namespace gds::test
