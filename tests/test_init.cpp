// GDS_init with and without a prior MPI_Init_thread, thread levels, calls
// outside init/finalize, and the environment variables.
//
// Own main(): `--mpi=none` leaves MPI alone (GDS_init must start it and
// GDS_finalize end it; one scenario per process), `--mpi=<level>` calls
// MPI_Init_thread at that level first, after which GDS may be initialized
// and finalized repeatedly.
#include <gds.h>
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/capture.hpp"
#include "support/gds_test.hpp"

namespace {

using gds::test::CaptureStderr;

int g_mpi_level = -1;  // the level main() initialized MPI with; -1: not at all

int mpi_level(GDS_thread_support_t l) {
  switch (l) {
    case GDS_THREAD_SINGLE: return MPI_THREAD_SINGLE;
    case GDS_THREAD_FUNNELED: return MPI_THREAD_FUNNELED;
    case GDS_THREAD_SERIALIZED: return MPI_THREAD_SERIALIZED;
    case GDS_THREAD_MULTIPLE: return MPI_THREAD_MULTIPLE;
  }
  return MPI_THREAD_SINGLE;
}


int count_of(const std::string &text, const std::string &what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Sets environment variables for one test and removes them after.
class ScopedEnv {
 public:
  ScopedEnv(std::initializer_list<std::pair<const char *, const char *>> vars) {
    for (auto &[k, v] : vars) {
      setenv(k, v, 1);
      names_.emplace_back(k);
    }
  }
  ~ScopedEnv() {
    for (auto &k : names_) unsetenv(k.c_str());
  }

 private:
  std::vector<std::string> names_;
};

}  // namespace

// --- GDS starts and ends MPI (run with --mpi=none, one test per process) ---

class WithoutMpi : public ::testing::TestWithParam<GDS_thread_support_t> {};

TEST_P(WithoutMpi, GdsInitializesAndFinalizesMpi) {
  ASSERT_EQ(g_mpi_level, -1) << "run with --mpi=none";
  int flag = 1;
  MPI_Initialized(&flag);
  ASSERT_EQ(flag, 0);
  // Nothing works before GDS_init.
  int r = 0;
  const GDS_size_t n = 4, i = 0;
  GDS_gds_t g = GDS_NULL;
  EXPECT_EQ(GDS_comm_rank(GDS_COMM_WORLD, &r), GDS_STATUS_NOT_INITIALIZED);
  EXPECT_TRUE(gds::test::message_names("GDS_comm_rank", "GDS_init"));
  EXPECT_EQ(GDS_alloc(1, &n, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &g),
            GDS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(GDS_put(&r, nullptr, &i, &i, g), GDS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(GDS_finalize(), GDS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(GDS_COMM_WORLD, MPI_COMM_NULL);
  int initialized = 1;
  EXPECT_EQ(GDS_initialized(&initialized), GDS_STATUS_OK);
  EXPECT_EQ(initialized, 0);

  const GDS_thread_support_t requested = GetParam();
  GDS_thread_support_t provided = GDS_THREAD_MULTIPLE;
  ASSERT_EQ(GDS_init(nullptr, nullptr, requested, &provided), GDS_STATUS_OK) << GDS_last_error_message();
  MPI_Initialized(&flag);
  EXPECT_EQ(flag, 1);
  int mpi_provided = -1;
  MPI_Query_thread(&mpi_provided);
  EXPECT_EQ(provided, std::min(requested, GDS_THREAD_SERIALIZED));
  EXPECT_LE(mpi_level(provided), mpi_provided);  // never more than MPI gives
  int size = 0, mpi_size = 0;
  EXPECT_EQ(GDS_comm_size(GDS_COMM_WORLD, &size), GDS_STATUS_OK);
  MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
  EXPECT_EQ(size, mpi_size);
  ASSERT_EQ(GDS_alloc(1, &n, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &g), GDS_STATUS_OK);
  EXPECT_EQ(GDS_free(&g), GDS_STATUS_OK);
  EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
  MPI_Finalized(&flag);
  EXPECT_EQ(flag, 1) << "GDS_finalize must end the MPI it started";
  EXPECT_EQ(GDS_comm_rank(GDS_COMM_WORLD, &r), GDS_STATUS_NOT_INITIALIZED);
  // MPI cannot start twice: a second GDS_init says so instead of crashing.
  EXPECT_EQ(GDS_init(nullptr, nullptr, requested, &provided), GDS_STATUS_MPI_ERROR);
}

INSTANTIATE_TEST_SUITE_P(Levels, WithoutMpi,
                         ::testing::Values(GDS_THREAD_SINGLE, GDS_THREAD_FUNNELED, GDS_THREAD_SERIALIZED,
                                           GDS_THREAD_MULTIPLE));

// --- The application owns MPI (run with --mpi=<level>) ---

class AfterMpi : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_GE(g_mpi_level, 0) << "run with --mpi=<level>"; }
  // Every test leaves GDS finalized for the next.
  void TearDown() override {
    int initialized = 0;
    GDS_initialized(&initialized);
    if (initialized) EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
    int failed = HasFailure() ? 1 : 0, any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any && !failed) ADD_FAILURE() << "failed on another rank";
  }
  int rank() const {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
  }
};

TEST_F(AfterMpi, ProvidedNeverExceedsWhatMpiProvides) {
  for (GDS_thread_support_t requested :
       {GDS_THREAD_SINGLE, GDS_THREAD_FUNNELED, GDS_THREAD_SERIALIZED, GDS_THREAD_MULTIPLE}) {
    GDS_thread_support_t provided = GDS_THREAD_MULTIPLE;
    ASSERT_EQ(GDS_init(nullptr, nullptr, requested, &provided), GDS_STATUS_OK);
    int mpi_provided = -1;
    MPI_Query_thread(&mpi_provided);
    GDS_thread_support_t expected = std::min(requested, GDS_THREAD_SERIALIZED);
    while (mpi_level(expected) > mpi_provided) expected = static_cast<GDS_thread_support_t>(expected - 1);
    EXPECT_EQ(provided, expected) << "requested " << requested << ", MPI provides " << mpi_provided;
    EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
    int still = 0;
    MPI_Initialized(&still);
    int finalized = 1;
    MPI_Finalized(&finalized);
    EXPECT_EQ(finalized, 0) << "GDS_finalize must not end the application's MPI";
  }
}

TEST_F(AfterMpi, InitTwiceAndBadArguments) {
  GDS_thread_support_t provided;
  EXPECT_EQ(GDS_init(nullptr, nullptr, GDS_THREAD_SINGLE, nullptr), GDS_STATUS_NULL_ARGUMENT);
  EXPECT_TRUE(gds::test::message_names("GDS_init", "provided_thread_support"));
  EXPECT_EQ(GDS_init(nullptr, nullptr, static_cast<GDS_thread_support_t>(9), &provided), GDS_STATUS_INVALID);
  EXPECT_TRUE(gds::test::message_names("GDS_init", "requested_thread_support=9"));
  ASSERT_EQ(GDS_init(nullptr, nullptr, GDS_THREAD_SINGLE, &provided), GDS_STATUS_OK);
  EXPECT_EQ(GDS_init(nullptr, nullptr, GDS_THREAD_SINGLE, &provided), GDS_STATUS_ALREADY_INITIALIZED);
}

TEST_F(AfterMpi, FinalizeFreesArraysLeftAllocated) {
  ScopedEnv env{{"GDS_DEBUG_LEVEL", "1"}};
  GDS_thread_support_t provided;
  ASSERT_EQ(GDS_init(nullptr, nullptr, GDS_THREAD_SINGLE, &provided), GDS_STATUS_OK);
  const GDS_size_t n = 8;
  GDS_gds_t a = GDS_NULL, b = GDS_NULL;
  ASSERT_EQ(GDS_alloc(1, &n, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &a), GDS_STATUS_OK);
  ASSERT_EQ(GDS_alloc(1, &n, nullptr, MPI_DOUBLE, GDS_PRIORITY_HIGH, MPI_COMM_SELF, MPI_INFO_NULL, &b), GDS_STATUS_OK);
  CaptureStderr capture;
  EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
  const std::string out = capture.text();
  EXPECT_EQ(count_of(out, "was not freed; freeing it"), 2) << out;
  // The handles are dead, and a new GDS session starts clean.
  ASSERT_EQ(GDS_init(nullptr, nullptr, GDS_THREAD_SINGLE, &provided), GDS_STATUS_OK);
  int flag;
  GDS_size_t v;
  EXPECT_EQ(GDS_get_attr(a, GDS_COUNT, &v, &flag), GDS_STATUS_FREED_HANDLE);
}

// Argument errors print one line in the documented format at level >= 1 only.
TEST_F(AfterMpi, DebugLevelControlsMessages) {
  const GDS_size_t n = 8, lo = 5, hi = 4;
  int x = 0;
  for (const char *level : {"0", "1", "2"}) {
    ScopedEnv env{{"GDS_DEBUG_LEVEL", level}};
    GDS_thread_support_t provided;
    CaptureStderr capture;
    ASSERT_EQ(GDS_init(nullptr, nullptr, GDS_THREAD_SINGLE, &provided), GDS_STATUS_OK);
    GDS_gds_t g = GDS_NULL;
    ASSERT_EQ(GDS_alloc(1, &n, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &g), GDS_STATUS_OK);
    EXPECT_EQ(GDS_put(&x, nullptr, &lo, &hi, g), GDS_STATUS_INVALID_BOX);
    EXPECT_EQ(GDS_free(&g), GDS_STATUS_OK);
    EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
    const std::string out = capture.text();
    const std::regex line("GDS " GDS_VERSION_STRING " ERROR: rank " + std::to_string(rank()) +
                          ": GDS_put: lo_index\\[0\\]=5 > hi_index\\[0\\]=4\n");
    EXPECT_EQ(std::regex_search(out, line), level[0] != '0') << "level " << level << ":\n" << out;
    EXPECT_EQ(out.find("DEBUG: rank") != std::string::npos, level[0] == '2') << "level " << level << ":\n" << out;
  }
}

TEST_F(AfterMpi, ShowInfoPrintsTheBannerOnRankZero) {
  ScopedEnv env{{"GDS_SHOW_INFO", "1"}};
  GDS_thread_support_t provided;
  CaptureStderr capture;
  ASSERT_EQ(GDS_init(nullptr, nullptr, GDS_THREAD_SINGLE, &provided), GDS_STATUS_OK);
  EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
  const std::string out = capture.text();
  if (rank() == 0) {
    EXPECT_NE(out.find("INFO: rank 0: GDS_init: GDS " GDS_VERSION_STRING), std::string::npos) << out;
    EXPECT_NE(out.find("MPICH"), std::string::npos) << out;
    EXPECT_NE(out.find("GDS_SANITY_CHECK=0"), std::string::npos) << out;
  } else {
    EXPECT_EQ(out, "");
  }
}

TEST_F(AfterMpi, BadEnvironmentValuesAreReportedAndIgnored) {
  ScopedEnv env{{"GDS_DEBUG_LEVEL", "loud"}, {"GDS_OUTSTANDING_RMA_OPS_MAX", "-3"}};
  GDS_thread_support_t provided;
  CaptureStderr capture;
  ASSERT_EQ(GDS_init(nullptr, nullptr, GDS_THREAD_SINGLE, &provided), GDS_STATUS_OK);
  EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
  const std::string out = capture.text();
  EXPECT_NE(out.find("WARNING: rank ?: GDS_init: GDS_DEBUG_LEVEL=\"loud\" is not an integer"), std::string::npos) << out;
  EXPECT_NE(out.find("GDS_OUTSTANDING_RMA_OPS_MAX=\"-3\""), std::string::npos) << out;
}

// Mappings of this process asked for transparent huge pages (VmFlags "hg"
// in /proc/self/smaps).
int huge_advised_mappings() {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  int n = 0;
  while (std::getline(smaps, line))
    if (line.rfind("VmFlags:", 0) == 0 && (line + " ").find(" hg ") != std::string::npos) ++n;
  return n;
}

// GDS's memory (a GDS_alloc part, version slabs) asks for huge pages only
// with GDS_HUGE_PAGES=1: huge pages in a process slowed the program's own
// kernels (docs/versions.md, "Memory at copy speed").
TEST_F(AfterMpi, HugePagesOnlyWhenAsked) {
  const bool thp = access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0;
  for (const char *asked : {"0", "1"}) {
    ScopedEnv env{{"GDS_HUGE_PAGES", asked}};
    const int before = huge_advised_mappings();
    GDS_thread_support_t provided;
    ASSERT_EQ(GDS_init(nullptr, nullptr, GDS_THREAD_SINGLE, &provided), GDS_STATUS_OK);
    int size = 0;
    GDS_comm_size(GDS_COMM_WORLD, &size);
    const GDS_size_t n = GDS_size_t{1} << 20, total = n * static_cast<GDS_size_t>(size);  // 8 MiB of doubles a process
    GDS_gds_t g = GDS_NULL;
    ASSERT_EQ(GDS_alloc(1, &total, nullptr, MPI_DOUBLE, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &g),
              GDS_STATUS_OK);
    std::vector<double> part(n, 1.0);
    const GDS_size_t lo = n * static_cast<GDS_size_t>(rank()), hi = lo + n - 1;
    for (int v = 0; v < 3; ++v) {
      part[0] = v;
      ASSERT_EQ(GDS_put(part.data(), nullptr, &lo, &hi, g), GDS_STATUS_OK);
      ASSERT_EQ(GDS_fence(g), GDS_STATUS_OK);
      ASSERT_EQ(GDS_version_inc(g, 1, nullptr, 0), GDS_STATUS_OK);
    }
    const int during = huge_advised_mappings();
    EXPECT_EQ(GDS_free(&g), GDS_STATUS_OK);
    EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
    if (asked[0] == '0')
      EXPECT_EQ(during, before) << "GDS asked for huge pages without GDS_HUGE_PAGES=1";
    else if (thp)
      EXPECT_GE(during, before + 2) << "GDS_HUGE_PAGES=1: the part and a version slab ask for huge pages";
  }
}

// With a limit, operations are completed in batches of that many.
TEST_F(AfterMpi, OutstandingOperationsLimit) {
  ScopedEnv env{{"GDS_OUTSTANDING_RMA_OPS_MAX", "5"}, {"GDS_DEBUG_LEVEL", "2"}};
  GDS_thread_support_t provided;
  ASSERT_EQ(GDS_init(nullptr, nullptr, GDS_THREAD_SINGLE, &provided), GDS_STATUS_OK);
  const GDS_size_t n = 16, lo = 0, hi = 15;
  GDS_gds_t g = GDS_NULL;
  ASSERT_EQ(GDS_alloc(1, &n, nullptr, MPI_INT, GDS_PRIORITY_HIGH, MPI_COMM_SELF, MPI_INFO_NULL, &g), GDS_STATUS_OK);
  std::vector<int> ones(16, 1), out(16);
  std::string text;
  {
    CaptureStderr capture;
    for (int i = 0; i < 12; ++i) EXPECT_EQ(GDS_acc(ones.data(), nullptr, &lo, &hi, MPI_SUM, g), GDS_STATUS_OK);
    text = capture.text();
  }
  EXPECT_EQ(count_of(text, "(GDS_OUTSTANDING_RMA_OPS_MAX); completing them"), 2) << text;
  EXPECT_EQ(GDS_fence(g), GDS_STATUS_OK);
  EXPECT_EQ(GDS_get(out.data(), nullptr, &lo, &hi, g), GDS_STATUS_OK);
  EXPECT_EQ(GDS_wait(g), GDS_STATUS_OK);
  for (int x : out) EXPECT_EQ(x, 12);
  EXPECT_EQ(GDS_free(&g), GDS_STATUS_OK);
}

// GDS_SANITY_CHECK refuses calls from threads the level does not allow.
TEST_F(AfterMpi, SanityCheckEnforcesTheThreadLevel) {
  if (g_mpi_level < MPI_THREAD_SERIALIZED) GTEST_SKIP() << "needs MPI at SERIALIZED";
  for (const char *sanity : {"0", "1"}) {
    ScopedEnv env{{"GDS_SANITY_CHECK", sanity}};
    for (GDS_thread_support_t level : {GDS_THREAD_FUNNELED, GDS_THREAD_SERIALIZED}) {
      GDS_thread_support_t provided;
      ASSERT_EQ(GDS_init(nullptr, nullptr, level, &provided), GDS_STATUS_OK);
      ASSERT_EQ(provided, level);
      int r = -1;
      GDS_status_t from_other = GDS_STATUS_INTERNAL;
      std::thread t([&] { from_other = GDS_comm_rank(GDS_COMM_WORLD, &r); });
      t.join();
      const bool refused = sanity[0] == '1' && level == GDS_THREAD_FUNNELED;
      EXPECT_EQ(from_other, refused ? GDS_STATUS_WRONG_THREAD : GDS_STATUS_OK) << "sanity " << sanity;
      if (refused) {
        EXPECT_TRUE(gds::test::message_names("GDS_comm_rank", "FUNNELED"));
      }
      EXPECT_EQ(GDS_comm_rank(GDS_COMM_WORLD, &r), GDS_STATUS_OK);
      EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
    }
  }
}

// MPI_Finalize before GDS_finalize is reported, not crashed on. Declared
// last so it runs last: it ends MPI.
TEST(MpiFinalizedFirst, FinalizeIsReported) {
  ASSERT_GE(g_mpi_level, 0) << "run with --mpi=<level>";
  GDS_thread_support_t provided;
  ASSERT_EQ(GDS_init(nullptr, nullptr, GDS_THREAD_SINGLE, &provided), GDS_STATUS_OK);
  gds::test::barrier();
  MPI_Finalize();
  EXPECT_EQ(GDS_finalize(), GDS_STATUS_MPI_ERROR);
  EXPECT_TRUE(gds::test::message_names("GDS_finalize", "MPI was finalized before GDS_finalize"));
  int initialized = 1;
  EXPECT_EQ(GDS_initialized(&initialized), GDS_STATUS_OK);
  EXPECT_EQ(initialized, 0);
}

int main(int argc, char **argv) {
  std::string mode = "none";
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--mpi=", 6) == 0) mode = argv[i] + 6;
  ::testing::InitGoogleTest(&argc, argv);
  // Only the first process prints GoogleTest's report (the launcher's rank
  // variable works before MPI starts: Hydra's PMI_RANK, Open MPI's OMPI_COMM_WORLD_RANK).
  const char *pmi_rank = std::getenv("PMI_RANK");
  if (pmi_rank == nullptr) pmi_rank = std::getenv("OMPI_COMM_WORLD_RANK");
  if (pmi_rank != nullptr && std::strcmp(pmi_rank, "0") != 0) {
    auto &listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  if (mode != "none") {
    const int level = mode == "single"       ? MPI_THREAD_SINGLE
                      : mode == "funneled"   ? MPI_THREAD_FUNNELED
                      : mode == "serialized" ? MPI_THREAD_SERIALIZED
                                             : MPI_THREAD_MULTIPLE;
    int provided = 0;
    MPI_Init_thread(&argc, &argv, level, &provided);
    g_mpi_level = provided;
  }
  const int result = RUN_ALL_TESTS();
  int finalized = 1, initialized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Finalize();
  return result;
}
