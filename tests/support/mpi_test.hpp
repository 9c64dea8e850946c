// GoogleTest for MPI programs: every test fixture derives from gds::test::MpiTest.
//
// At the end of each test, all processes exchange their verdicts; a failure
// on any process fails the test on every process and names the failing
// ranks. Collective tests use non-fatal EXPECT_* so that a failing process
// still reaches every collective the others are in, and ASSERT_ALL where a
// test cannot go on; a test that hangs anyway is ended by the ctest /
// MPIEXEC_TIMEOUT limit.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>
#include <sched.h>

#include <string>
#include <vector>

namespace gds::test {

// Waits for a request, yielding the processor between polls (as GDS does:
// MPICH's blocking calls hold the core on an oversubscribed node, 4-5 ms a
// collective at 3-4 processes on 2 cores).
inline void wait_yielding(MPI_Request *r) {
  int done = 0;
  for (int spins = 0;; ++spins) {
    MPI_Test(r, &done, MPI_STATUS_IGNORE);
    if (done) return;
    if (spins > 64) sched_yield();
  }
}
inline void barrier(MPI_Comm comm = MPI_COMM_WORLD) {
  MPI_Request r;
  MPI_Ibarrier(comm, &r);
  wait_yielding(&r);
}
inline void allreduce(const void *in, void *out, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm = MPI_COMM_WORLD) {
  MPI_Request r;
  MPI_Iallreduce(in, out, n, t, op, comm, &r);
  wait_yielding(&r);
}

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
inline int world_size() {
  int s = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

class MpiTest : public ::testing::Test {
 protected:
  void TearDown() override {
    const int failed = HasFailure() ? 1 : 0;
    std::vector<int> all(static_cast<std::size_t>(world_size()));
    MPI_Request r;
    MPI_Iallgather(&failed, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD, &r);
    wait_yielding(&r);
    std::string ranks;
    for (std::size_t r = 0; r < all.size(); ++r)
      if (all[r]) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
    if (!failed && !ranks.empty()) ADD_FAILURE() << "failed on rank(s) " << ranks;
  }
  const int rank = world_rank();
  const int nprocs = world_size();
};

// Whether `ok` holds on every process of MPI_COMM_WORLD (collective).
inline bool all_true(bool ok) {
  int mine = ok ? 1 : 0, all = 0;
  allreduce(&mine, &all, 1, MPI_INT, MPI_MIN);
  return all != 0;
}

// Runs the tests in a process that initialized MPI (and, if `init_gds`, GDS)
// and returns the same exit code on every process.
int run_all_tests(int argc, char **argv, bool init_gds);

}  // namespace gds::test

// A fatal assertion for the code every process runs: collective, it ends the
// test on every process if `cond` is false on any (a plain ASSERT_* before a
// collective would end it on one process only and leave the others waiting).
// Each failing process reports its own failure; the others name it remote.
// The failure is fatal (in SetUp it skips the test body, as ASSERT_* does).
#define ASSERT_ALL(cond)                                                   \
  do {                                                                     \
    const bool gds_assert_all_ok_ = static_cast<bool>(cond);               \
    if (!::gds::test::all_true(gds_assert_all_ok_)) {                      \
      if (!gds_assert_all_ok_) GTEST_FAIL() << "ASSERT_ALL(" #cond ")";    \
      GTEST_FAIL() << "ASSERT_ALL(" #cond ") failed on another process";   \
    }                                                                      \
  } while (0)
