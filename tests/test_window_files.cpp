// Arrays made at the same time over disjoint communicators on one node: on
// Open MPI 4 their windows' shared-memory files are named alike
// (tests/mpi_bugs/win_shared_file_collision.c). Two ways a program starts:
//   --mpi=gds   GDS_init starts MPI and gives every process a backing
//               directory of its own: every array works, with its own data,
//               and the directory is gone after GDS_finalize;
//   --mpi=user  the program starts MPI with no backing directory chosen: on
//               Open MPI 4 GDS refuses, on every process of the communicator,
//               GDS_create arrays (osc/rdma windows) over communicators holding
//               only some of a node's processes, and makes every other array
//               (GDS_alloc's get osc/sm's shared windows); elsewhere it makes all.
// And 1- and 2-byte integer sums that wrap (Open MPI's op/avx saturates them).
// Each round the halves {even ranks} and {odd ranks} allocate arrays of
// different sizes, every process puts its own value and reads back its half's.
#include <gds.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "support/gds_test.hpp"

namespace gds::test {
namespace {

bool g_gds_started = false;

bool open_mpi_4() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(text, &len);
  return std::strstr(text, "Open MPI v4.") != nullptr;
}

// Whether OMPI_MCA_osc leaves osc/sm in (as GDS reads it: "sm,rdma", "^pt2pt"; unset: yes).
bool osc_sm_allowed() {
  const char *v = std::getenv("OMPI_MCA_osc");
  if (v == nullptr || *v == '\0') return true;
  const bool excluding = *v == '^';
  std::string list = std::string(",") + (excluding ? v + 1 : v) + ",";
  const bool listed = list.find(",sm,") != std::string::npos;
  return excluding ? !listed : listed;
}

int shared_size(MPI_Comm comm) {
  MPI_Comm local;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
  int n = 0;
  MPI_Comm_size(local, &n);
  MPI_Comm_free(&local);
  return n;
}

class WindowFiles : public MpiTest {};

// Every process puts its own value into its half's array and reads the
// whole array back: each half sees only its own values.
void expect_own_data(GDS_gds_t g, int color, int round, int hrank, int hsize, GDS_size_t count) {
  const int value = 1000 * color + 10 * round + hrank + 1;
  const GDS_size_t at = static_cast<GDS_size_t>(hrank);
  EXPECT_GDS_OK(GDS_put(&value, nullptr, &at, &at, g));
  EXPECT_GDS_OK(GDS_fence(g));
  std::vector<int> out(count, -1);
  const GDS_size_t lo = 0, hi = count - 1;
  EXPECT_GDS_OK(GDS_get(out.data(), nullptr, &lo, &hi, g));
  EXPECT_GDS_OK(GDS_wait(g));
  for (GDS_size_t i = 0; i < count; ++i) {
    const int expected = i < static_cast<GDS_size_t>(hsize) ? 1000 * color + 10 * round + static_cast<int>(i) + 1 : 0;
    EXPECT_EQ(out[i], expected) << "round " << round << ", element " << i;
  }
  EXPECT_GDS_OK(GDS_fence(g));
}

TEST_F(WindowFiles, HalvesAllocateAtTheSameTime) {
  MPI_Comm half;
  const int color = rank % 2;
  MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
  int hrank = 0, hsize = 0;
  MPI_Comm_rank(half, &hrank);
  MPI_Comm_size(half, &hsize);
  const int half_here = shared_size(half), world_here = shared_size(MPI_COMM_WORLD);  // collective: both always
  // GDS_create arrays get osc/rdma windows, whose file names collide; refused
  // where the program started MPI (GDS agrees: one answer over the half).
  int refuse = !g_gds_started && open_mpi_4() && hsize > 1 && half_here < world_here ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &refuse, 1, MPI_INT, MPI_MAX, half);
  // GDS_alloc arrays too where osc/sm is left out (they keep osc/rdma's windows).
  const bool refuse_alloc = refuse != 0 && !osc_sm_allowed();
  constexpr int kRounds = 12;
  for (int round = 0; round < kRounds && !HasFailure(); ++round) {
    // Uneven: the halves differ in size and every round in length. GDS_alloc
    // arrays are made everywhere (on Open MPI over one node: osc/sm's shared windows).
    const GDS_size_t count = static_cast<GDS_size_t>(hsize + color * 3 + round % 4);
    GDS_gds_t g = GDS_NULL;
    const GDS_status_t a = GDS_alloc(1, &count, nullptr, MPI_INT, GDS_PRIORITY_HIGH, half, MPI_INFO_NULL, &g);
    if (refuse_alloc) {
      EXPECT_EQ(a, GDS_STATUS_MPI_BUG) << GDS_last_error_message();
      EXPECT_EQ(g, GDS_NULL);
    } else {
      ASSERT_EQ(a, GDS_STATUS_OK) << GDS_last_error_message();
      expect_own_data(g, color, round, hrank, hsize, count);
      EXPECT_GDS_OK(GDS_free(&g));
    }

    // A GDS_create array over the half: 2 + round % 3 elements per process.
    const GDS_size_t per = 2 + static_cast<GDS_size_t>(round % 3), total = per * static_cast<GDS_size_t>(hsize);
    std::vector<int> buffer(per, 0);
    const GDS_status_t s = GDS_create(1, &total, MPI_INT, nullptr, nullptr, buffer.data(), per, GDS_PRIORITY_HIGH,
                                      half, MPI_INFO_NULL, &g);
    if (refuse) {
      EXPECT_EQ(s, GDS_STATUS_MPI_BUG) << GDS_last_error_message();
      if (s != GDS_STATUS_REMOTE_ERROR) {
        EXPECT_NE(std::strstr(GDS_last_error_message(), "win_shared_file_collision"), nullptr)
            << GDS_last_error_message();
      }
      EXPECT_EQ(g, GDS_NULL);
      continue;
    }
    ASSERT_EQ(s, GDS_STATUS_OK) << GDS_last_error_message();
    expect_own_data(g, color, round, hrank, hsize, total);
    EXPECT_GDS_OK(GDS_free(&g));
  }
  MPI_Comm_free(&half);
}

TEST_F(WindowFiles, ArraysOverTheWholeNodeAreMade) {
  const GDS_size_t count = static_cast<GDS_size_t>(nprocs) + 1;
  GDS_gds_t g = GDS_NULL;
  ASSERT_ALL_GDS_OK(GDS_alloc(1, &count, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &g));
  const int value = rank + 7;
  const GDS_size_t at = static_cast<GDS_size_t>(rank);
  EXPECT_GDS_OK(GDS_put(&value, nullptr, &at, &at, g));
  EXPECT_GDS_OK(GDS_fence(g));
  int left = -1;
  const GDS_size_t from = static_cast<GDS_size_t>((rank + nprocs - 1) % nprocs);
  EXPECT_GDS_OK(GDS_get(&left, nullptr, &from, &from, g));
  EXPECT_GDS_OK(GDS_wait(g));
  EXPECT_EQ(left, static_cast<int>(from) + 7);
  EXPECT_GDS_OK(GDS_free(&g));
}

// Open MPI 4.1's op/avx saturates 1- and 2-byte integer sums of 16 bytes or
// more (tests/mpi_bugs/small_int_sum.c): GDS leaves it out when it starts MPI
// and sends such sums in pieces otherwise; either way they wrap.
TEST_F(WindowFiles, SmallIntegerSumsWrap) {
  const GDS_size_t count = 64;
  GDS_gds_t bytes = GDS_NULL, shorts = GDS_NULL;
  ASSERT_ALL_GDS_OK(GDS_alloc(1, &count, nullptr, MPI_UINT8_T, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &bytes));
  ASSERT_ALL_GDS_OK(GDS_alloc(1, &count, nullptr, MPI_INT16_T, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &shorts));
  const GDS_size_t lo = 0, hi = count - 1;
  if (rank == 0) {
    const std::vector<std::uint8_t> b0(count, 0xf0);
    const std::vector<std::int16_t> s0(count, 0x7ff0);
    EXPECT_GDS_OK(GDS_put(b0.data(), nullptr, &lo, &hi, bytes));
    EXPECT_GDS_OK(GDS_put(s0.data(), nullptr, &lo, &hi, shorts));
  }
  EXPECT_GDS_OK(GDS_fence(bytes));
  EXPECT_GDS_OK(GDS_fence(shorts));
  if (rank == nprocs - 1) {  // one process adds, the whole array in one call
    const std::vector<std::uint8_t> b1(count, 0x20);
    const std::vector<std::int16_t> s1(count, 0x20);
    EXPECT_GDS_OK(GDS_acc(b1.data(), nullptr, &lo, &hi, MPI_SUM, bytes));
    std::vector<std::int16_t> old_s(count, 0);
    EXPECT_GDS_OK(GDS_get_acc(s1.data(), nullptr, old_s.data(), nullptr, &lo, &hi, MPI_SUM, shorts));
    EXPECT_GDS_OK(GDS_wait(shorts));
    for (GDS_size_t i = 0; i < count; ++i) EXPECT_EQ(old_s[i], 0x7ff0) << "fetched element " << i;
  }
  EXPECT_GDS_OK(GDS_fence(bytes));
  EXPECT_GDS_OK(GDS_fence(shorts));
  std::vector<std::uint8_t> b(count, 0);
  std::vector<std::int16_t> sh(count, 0);
  EXPECT_GDS_OK(GDS_get(b.data(), nullptr, &lo, &hi, bytes));
  EXPECT_GDS_OK(GDS_get(sh.data(), nullptr, &lo, &hi, shorts));
  EXPECT_GDS_OK(GDS_wait(bytes));
  EXPECT_GDS_OK(GDS_wait(shorts));
  for (GDS_size_t i = 0; i < count; ++i) {
    EXPECT_EQ(b[i], 0x10) << "uint8 element " << i;
    EXPECT_EQ(sh[i], static_cast<std::int16_t>(0x8010)) << "int16 element " << i;
  }
  EXPECT_GDS_OK(GDS_free(&bytes));
  EXPECT_GDS_OK(GDS_free(&shorts));
}

}  // namespace
}  // namespace gds::test

int main(int argc, char **argv) {
  std::string mode = "gds";
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--mpi=", 6) == 0) mode = argv[i] + 6;
  gds::test::g_gds_started = mode == "gds";
  // A directory a killed process left (its pid gone, 20 minutes old): GDS_init removes it on Open MPI 4.
  std::string stale;
  if (gds::test::g_gds_started && gds::test::open_mpi_4()) {
    const pid_t child = fork();
    if (child == 0) _exit(0);
    waitpid(child, nullptr, 0);
    stale = "/dev/shm/gds-osc-" + std::to_string(child) + "-test" + std::to_string(getpid());
    if (mkdir(stale.c_str(), 0700) == 0) {
      const struct timeval old[2] = {{std::time(nullptr) - 1200, 0}, {std::time(nullptr) - 1200, 0}};
      utimes(stale.c_str(), old);
    } else {
      stale.clear();
    }
  }
  if (!gds::test::g_gds_started) {
    unsetenv("OMPI_MCA_osc_sm_backing_directory");
    unsetenv("OMPI_MCA_osc_rdma_backing_directory");
    MPI_Init(&argc, &argv);
  }
  ::testing::InitGoogleTest(&argc, argv);
  GDS_thread_support_t provided;
  if (GDS_init(&argc, &argv, GDS_THREAD_SINGLE, &provided) != GDS_STATUS_OK) {
    std::fprintf(stderr, "GDS_init failed: %s\n", GDS_last_error_message());
    return 1;
  }
  const int rank = gds::test::world_rank();
  if (rank != 0) ::testing::GTEST_FLAG(brief) = true;
  struct stat left {};
  if (!stale.empty() && stat(stale.c_str(), &left) == 0) {
    std::fprintf(stderr, "[rank %d] GDS_init left the stale directory %s\n", rank, stale.c_str());
    rmdir(stale.c_str());
    return 1;
  }
  // The directory GDS made (Open MPI only): it must be gone after GDS_finalize.
  const char *dir = std::getenv("OMPI_MCA_osc_rdma_backing_directory");
  const std::string made =
      gds::test::g_gds_started && dir != nullptr && std::strstr(dir, "/gds-osc-") != nullptr ? dir : "";
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (GDS_finalize() != GDS_STATUS_OK) {
    std::fprintf(stderr, "[rank %d] GDS_finalize failed: %s\n", rank, GDS_last_error_message());
    any = 1;
  }
  if (!gds::test::g_gds_started) MPI_Finalize();
  struct stat st {};
  if (!made.empty() && stat(made.c_str(), &st) == 0) {
    std::fprintf(stderr, "[rank %d] GDS_finalize left the backing directory %s\n", rank, made.c_str());
    any = 1;
  }
  if (gds::test::g_gds_started && gds::test::open_mpi_4() && made.empty()) {
    std::fprintf(stderr, "[rank %d] GDS_init gave this Open MPI process no backing directory\n", rank);
    any = 1;
  }
  return any;
}
