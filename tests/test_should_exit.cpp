// GDS_should_exit: bad input, agreement when the processes see different
// conditions (a halt file one process's GDS_HALT_FILE names, an end time one
// process has), and the flag waiting for a version on every configured level
// (cache every 2nd version, prefix every 3rd). Each test sets the variables
// (differently per process where it needs to), starts GDS on MPI the program
// started, checks, and finalizes GDS.
#include <gds.h>
#include <gds.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

#include "support/gds_test.hpp"
#include "support/mpi_test.hpp"

using gds::test::MpiTest;

namespace {

constexpr const char *kVariables[] = {"GDS_HALT_FILE", "GDS_END_TIME", "GDS_HALT_SECONDS", "SCR_END_TIME",
                                      "SCR_HALT_SECONDS", "SCR_FLUSH"};

class ShouldExit : public MpiTest {
 protected:
  void SetUp() override {
    for (const char *v : kVariables) unsetenv(v);
    // A directory of this run's, named by rank 0.
    long id = static_cast<long>(getpid());
    MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    dir = "/tmp/gds-should-exit-" + std::to_string(id);
    if (rank == 0) mkdir(dir.c_str(), 0700);
    gds::test::barrier();
  }
  void TearDown() override {
    for (const char *v : kVariables) unsetenv(v);
    gds::test::barrier();
    if (rank == 0) std::system(("rm -rf " + dir).c_str());
    MpiTest::TearDown();
  }
  void init() {
    GDS_thread_support_t provided;
    EXPECT_EQ(GDS_init(nullptr, nullptr, GDS_THREAD_SINGLE, &provided), GDS_STATUS_OK);
  }
  // The flag, checked to be the same on every process.
  int flag() {
    int f = -1;
    EXPECT_EQ(GDS_should_exit(&f), GDS_STATUS_OK);
    int lo = 0, hi = 0;
    MPI_Allreduce(&f, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&f, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    EXPECT_EQ(lo, hi) << "the processes disagree";
    return f;
  }
  // The status GDS_should_exit returns where the process's own input was bad, and elsewhere.
  void expect_status(bool bad_here, bool bad_somewhere, GDS_status_t bad, int *f) {
    const GDS_status_t s = GDS_should_exit(f);
    if (bad_here) EXPECT_EQ(s, bad);
    else if (bad_somewhere) EXPECT_EQ(s, GDS_STATUS_REMOTE_ERROR);
    else EXPECT_EQ(s, GDS_STATUS_OK);
  }
  std::string dir;
};

TEST_F(ShouldExit, RefusedBeforeInit) {
  int f = 7;
  EXPECT_EQ(GDS_should_exit(&f), GDS_STATUS_NOT_INITIALIZED);
}

TEST_F(ShouldExit, NullFlagOnOneProcessFailsEverywhere) {
  init();
  int f = 7;
  const bool last = rank == nprocs - 1;
  expect_status(last, true, GDS_STATUS_NULL_ARGUMENT, last ? nullptr : &f);
  if (!last) {
    EXPECT_EQ(f, 0);
  }
  expect_status(true, true, GDS_STATUS_NULL_ARGUMENT, nullptr);
  EXPECT_EQ(flag(), 0);  // and it works afterwards
  EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
}

TEST_F(ShouldExit, UnreadableVariablesAreRefusedEverywhere) {
  init();
  int f = 0;
  for (const char *value : {"soon", "12abc", "-5", "99999999999999999999999", " 3"}) {
    setenv("GDS_END_TIME", value, 1);
    if (rank != 0) unsetenv("GDS_END_TIME");
    expect_status(rank == 0, true, GDS_STATUS_INVALID, &f);
    unsetenv("GDS_END_TIME");
    setenv("GDS_HALT_SECONDS", value, 1);
    expect_status(true, true, GDS_STATUS_INVALID, &f);
    unsetenv("GDS_HALT_SECONDS");
  }
  setenv("GDS_END_TIME", "", 1);  // empty: not set
  EXPECT_EQ(flag(), 0);
  EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
}

TEST_F(ShouldExit, HaltFileSeenByOneProcess) {
  init();
  const std::string file = dir + "/halt";
  // Each process its own file name; only the last process's will exist.
  setenv("GDS_HALT_FILE", (file + (rank == nprocs - 1 ? "" : ".r" + std::to_string(rank))).c_str(), 1);
  EXPECT_EQ(flag(), 0);
  if (rank == 0) std::fclose(std::fopen(file.c_str(), "w"));
  gds::test::barrier();
  EXPECT_EQ(flag(), 1);  // no array: nothing to persist first
  EXPECT_EQ(gds::should_exit(), true);
  gds::test::barrier();
  if (rank == 0) std::remove(file.c_str());
  gds::test::barrier();
  EXPECT_EQ(flag(), 0);
  EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
}

TEST_F(ShouldExit, TimeLeftSeenByOneProcess) {
  init();
  const long long now = static_cast<long long>(std::time(nullptr));
  setenv("GDS_END_TIME", std::to_string(now + 1000).c_str(), 1);
  EXPECT_EQ(flag(), 0);  // default: halts 300 s before
  setenv("GDS_HALT_SECONDS", "2000", 1);
  if (rank != nprocs - 1) unsetenv("GDS_END_TIME");  // only the last process knows the end
  EXPECT_EQ(flag(), 1);
  setenv("GDS_END_TIME", std::to_string(now - 1).c_str(), 1);  // past, everywhere
  setenv("GDS_HALT_SECONDS", "0", 1);
  EXPECT_EQ(flag(), 1);
  setenv("GDS_END_TIME", std::to_string(now + 1000).c_str(), 1);
  EXPECT_EQ(flag(), 0);
  EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
}

// A job script written for SCR: SCR_END_TIME and SCR_HALT_SECONDS where the
// GDS ones are not set (which win where they are).
TEST_F(ShouldExit, ScrsHaltVariables) {
  init();
  const long long now = static_cast<long long>(std::time(nullptr));
  setenv("SCR_END_TIME", std::to_string(now + 1000).c_str(), 1);
  EXPECT_EQ(flag(), 0);  // GDS's default: halts 300 s before
  setenv("SCR_HALT_SECONDS", "2000", 1);
  EXPECT_EQ(flag(), 1);
  setenv("GDS_HALT_SECONDS", "10", 1);  // GDS's wins
  EXPECT_EQ(flag(), 0);
  unsetenv("GDS_HALT_SECONDS");
  setenv("GDS_END_TIME", std::to_string(now + 100000).c_str(), 1);  // GDS's wins
  EXPECT_EQ(flag(), 0);
  unsetenv("GDS_END_TIME");
  setenv("SCR_END_TIME", "soon", 1);
  int f = 0;
  EXPECT_EQ(GDS_should_exit(&f), GDS_STATUS_INVALID);
  EXPECT_TRUE(gds::test::message_names("GDS_should_exit", "SCR_END_TIME"));
  EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
}

// SCR_FLUSH=0 (no periodic flush, as SCR): the prefix is never waited for.
TEST_F(ShouldExit, NoPeriodicFlushIsNotWaitedFor) {
  setenv("GDS_JOB_ID", ("should-exit-noflush-" + dir.substr(dir.rfind('-') + 1)).c_str(), 1);
  setenv("GDS_RESTART", "0", 1);
  setenv("SCR_FLUSH", "0", 1);
  init();
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, GDS_NAME_KEY, "noflush");
  MPI_Info_set(info, GDS_COPY_TYPE_KEY, "SINGLE");
  MPI_Info_set(info, GDS_CACHE_BASE_KEY, (dir + "/cache").c_str());
  MPI_Info_set(info, GDS_PREFIX_KEY, (dir + "/prefix").c_str());
  const GDS_size_t count = 100, min_chunks = 1;
  GDS_gds_t g = GDS_NULL;
  ASSERT_ALL_GDS_OK(GDS_alloc(1, &count, &min_chunks, GDS_DATA_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info, &g));
  MPI_Info_free(&info);
  const std::string file = dir + "/halt-noflush";
  setenv("GDS_HALT_FILE", file.c_str(), 1);
  if (rank == 0) std::fclose(std::fopen(file.c_str(), "w"));
  gds::test::barrier();
  for (int v = 0; v < 3; ++v) {
    ASSERT_ALL_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
    EXPECT_EQ(flag(), 1) << "after version " << v << ": the cache holds it, and the prefix is not scheduled";
  }
  struct stat st;
  EXPECT_NE(stat((dir + "/prefix/gds." + std::getenv("GDS_JOB_ID") + "/noflush/v0.h5").c_str(), &st), 0)
      << "SCR_FLUSH=0 flushed a version";
  EXPECT_EQ(GDS_free(&g), GDS_STATUS_OK);
  EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
  unsetenv("GDS_JOB_ID");
  unsetenv("GDS_RESTART");
}

TEST_F(ShouldExit, WaitsForAVersionOnEveryLevel) {
  setenv("GDS_JOB_ID", ("should-exit-" + dir.substr(dir.rfind('-') + 1)).c_str(), 1);
  setenv("GDS_RESTART", "0", 1);
  init();
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, GDS_NAME_KEY, "halting");
  MPI_Info_set(info, GDS_COPY_TYPE_KEY, "SINGLE");
  MPI_Info_set(info, GDS_CACHE_BASE_KEY, (dir + "/cache").c_str());
  MPI_Info_set(info, GDS_CACHE_EVERY_KEY, "2");
  MPI_Info_set(info, GDS_PREFIX_KEY, (dir + "/prefix").c_str());
  MPI_Info_set(info, GDS_FLUSH_KEY, "3");
  const GDS_size_t count = 1000, min_chunks = 1;
  GDS_gds_t g = GDS_NULL;
  ASSERT_ALL_GDS_OK(GDS_alloc(1, &count, &min_chunks, GDS_DATA_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info, &g));
  MPI_Info_free(&info);
  const std::string file = dir + "/halt";
  setenv("GDS_HALT_FILE", file.c_str(), 1);
  if (rank == 0) std::fclose(std::fopen(file.c_str(), "w"));
  gds::test::barrier();
  EXPECT_EQ(flag(), 0);  // no version yet
  // Versions 0-5: cached at the 2nd, 4th and 6th, flushed at the 3rd and 6th.
  for (int v = 0; v < 6; ++v) {
    ASSERT_ALL_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
    EXPECT_EQ(flag(), v == 5 ? 1 : 0) << "after version " << v;
  }
  // On the prefix already (the flush is published, not only started).
  const std::string flushed = dir + "/prefix/gds." + std::getenv("GDS_JOB_ID") + "/halting/v5.h5";
  struct stat st;
  EXPECT_EQ(stat(flushed.c_str(), &st), 0) << flushed;
  EXPECT_EQ(GDS_free(&g), GDS_STATUS_OK);
  EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
  unsetenv("GDS_JOB_ID");
  unsetenv("GDS_RESTART");
}

}  // namespace
