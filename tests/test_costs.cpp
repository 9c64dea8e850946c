// What resilience costs, as GDS_get_costs reports it, and the interval
// guidance of GDS_need_version. Each test starts GDS itself (on MPI the
// program started), so that it can set the variables GDS reads at
// GDS_init, differently per process where the test needs to.
//
// Costs: refused before GDS_init; bad arguments; the bytes of versions and
// restores exactly the blocks copied, each process changing a different
// amount; the cache's files, their PARTNER copies, flushes and a restart
// accounted; GDS_reset_costs; GDS_PRINT_COSTS at GDS_finalize.
// Guidance: a version at the first step; the same flag on every process at
// every step though each process measures different step times and sets a
// different target; long steps give a version at every step, short steps
// and an expensive version a long interval, and a mean time between
// failures shorter than a version a version at every step.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "support/capture.hpp"
#include "support/gds_test.hpp"

using namespace gds::test;

namespace {

constexpr Index kBlock = 4096;
constexpr const char *kVariables[] = {"GDS_VERSION_OVERHEAD",   "GDS_MTBF",
                                      "GDS_PRINT_COSTS",        "GDS_JOB_ID",
                                      "GDS_RESTART",            "SCR_CHECKPOINT_INTERVAL",
                                      "SCR_CHECKPOINT_SECONDS", "SCR_CHECKPOINT_OVERHEAD"};

class Costs : public MpiTest {
 protected:
  void SetUp() override {
    for (const char *v : kVariables) unsetenv(v);
    long id = static_cast<long>(getpid());
    MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    dir = "/tmp/gds-costs-" + std::to_string(id);
    if (rank == 0) std::system(("mkdir -p " + dir + "/prefix").c_str());
    barrier();
  }
  void TearDown() override {
    for (const char *v : kVariables) unsetenv(v);
    barrier();
    if (rank == 0) std::system(("rm -rf " + dir).c_str());
    MpiTest::TearDown();
  }
  void init() {
    GDS_thread_support_t provided;
    ASSERT_EQ(GDS_init(nullptr, nullptr, GDS_THREAD_SINGLE, &provided), GDS_STATUS_OK);
  }
  // An int array of `blocks` version blocks per process, with extra info keys.
  GDS_gds_t make(Index blocks, std::initializer_list<std::pair<const char *, std::string>> keys = {}) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, GDS_VERSION_BLOCK_SIZE_KEY, std::to_string(kBlock).c_str());
    for (const auto &[k, v] : keys) MPI_Info_set(info, k, v.c_str());
    const Index n = blocks * kBlock / sizeof(int) * static_cast<Index>(nprocs);
    GDS_gds_t g = GDS_NULL;
    EXPECT_GDS_OK(GDS_alloc(1, &n, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info, &g));
    MPI_Info_free(&info);
    return g;
  }
  // Writes v into the first `blocks` blocks of this process's part (block-aligned), then a fence.
  void write_blocks(GDS_gds_t g, Index blocks, int v) {
    Index lo = 0, hi = 0;
    int owns = 0;
    EXPECT_GDS_OK(GDS_distribution(g, rank, &lo, &hi, &owns));
    if (owns && blocks > 0) {
      std::vector<int> data(blocks * kBlock / sizeof(int), v);
      const Index end = lo + data.size() - 1;
      EXPECT_GDS_OK(GDS_put(data.data(), nullptr, &lo, &end, g));
    }
    EXPECT_GDS_OK(GDS_fence(g));
  }
  GDS_costs_t costs() {
    GDS_costs_t c{};
    EXPECT_GDS_OK(GDS_get_costs(&c));
    return c;
  }
  // GDS_need_version's flag, checked to be the same on every process.
  int need(GDS_gds_t g) {
    int f = -1;
    EXPECT_GDS_OK(GDS_need_version(g, &f));
    int lo = 0, hi = 0;
    allreduce(&f, &lo, 1, MPI_INT, MPI_MIN);
    allreduce(&f, &hi, 1, MPI_INT, MPI_MAX);
    EXPECT_EQ(lo, hi) << "the processes disagree";
    return f;
  }
  // Steps (each calling `step`, then GDS_need_version) until `versions`
  // versions were asked for and made; returns the steps between the last two.
  template <class Step>
  Index steps_between(GDS_gds_t g, Step step, int versions) {
    Index steps = 0, last = 0;
    for (int made = 0; made < versions && steps < 100000;) {
      step(static_cast<int>(++steps));
      if (need(g) == 1) {
        EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
        if (++made < versions) last = steps;
      }
    }
    return steps - last;
  }
  std::string dir;
};

TEST_F(Costs, RefusedBeforeInit) {
  GDS_costs_t c;
  int f = 0;
  EXPECT_EQ(GDS_get_costs(&c), GDS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(GDS_reset_costs(), GDS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(GDS_need_version(GDS_NULL, &f), GDS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(GDS_group_need_version(GDS_GROUP_NULL, &f), GDS_STATUS_NOT_INITIALIZED);
}

TEST_F(Costs, BadArguments) {
  init();
  EXPECT_EQ(GDS_get_costs(nullptr), GDS_STATUS_NULL_ARGUMENT);
  EXPECT_TRUE(message_names("GDS_get_costs", "costs is NULL"));
  GDS_gds_t g = make(1);
  int f = 0;
  EXPECT_EQ(GDS_need_version(g, nullptr), GDS_STATUS_NULL_ARGUMENT);
  EXPECT_EQ(GDS_need_version(GDS_NULL, &f), GDS_STATUS_NULL_HANDLE);
  EXPECT_EQ(GDS_group_need_version(GDS_GROUP_NULL, &f), GDS_STATUS_NULL_HANDLE);
  GDS_group_t group = GDS_GROUP_NULL;
  ASSERT_ALL_GDS_OK(GDS_group_create("costs", 1, &g, &group));
  EXPECT_EQ(GDS_group_need_version(group, nullptr), GDS_STATUS_NULL_ARGUMENT);
  EXPECT_GDS_OK(GDS_group_free(&group));
  EXPECT_GDS_OK(GDS_free(&g));
  EXPECT_EQ(GDS_need_version(g, &f), GDS_STATUS_NULL_HANDLE);
  EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
}

TEST_F(Costs, VersionsAndRestoresCountTheBlocksCopied) {
  init();
  GDS_gds_t g = make(8);
  // Every process changes a different number of blocks (rank 0 none at the second version).
  const Index mine = static_cast<Index>(rank % 4) + 1;
  write_blocks(g, mine, 1);
  ASSERT_ALL_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
  const GDS_costs_t first = costs();
  EXPECT_EQ(first.versions.calls, 1u);
  EXPECT_GT(first.versions.seconds, 0.0);
  EXPECT_LE(first.versions.seconds, first.elapsed);
  EXPECT_EQ(first.restores.calls, 0u);
  for (int v = 2; v <= 3; ++v) {
    const GDS_costs_t before = costs();
    const Index changed = v == 2 && rank == 0 ? 0 : mine;
    write_blocks(g, changed, v);
    ASSERT_ALL_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
    const GDS_costs_t after = costs();
    EXPECT_EQ(after.versions.calls, before.versions.calls + 1);
    EXPECT_EQ(after.versions.bytes - before.versions.bytes, changed * kBlock) << "version " << v;
    EXPECT_GT(after.versions.seconds, before.versions.seconds);
  }
  // Back to version 1: the blocks changed since (mine) are copied back.
  write_blocks(g, 0, 0);
  const GDS_costs_t before = costs();
  ASSERT_ALL_GDS_OK(GDS_version_restore(g, 1));
  const GDS_costs_t after = costs();
  EXPECT_EQ(after.restores.calls, 1u);
  EXPECT_EQ(after.restores.bytes - before.restores.bytes, mine * kBlock);
  EXPECT_GT(after.restores.seconds, 0.0);
  EXPECT_EQ(after.versions.calls, before.versions.calls);
  EXPECT_EQ(after.cache.calls + after.redundancy.calls + after.flushes.calls + after.restarts.calls, 0u)
      << "memory only";
  EXPECT_GDS_OK(GDS_reset_costs());
  const GDS_costs_t reset = costs();
  EXPECT_EQ(reset.versions.calls + reset.versions.bytes + reset.restores.calls + reset.restores.bytes, 0u);
  EXPECT_EQ(reset.versions.seconds, 0.0);
  EXPECT_LT(reset.elapsed, first.elapsed + 60);
  EXPECT_GDS_OK(GDS_free(&g));
  EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
}

TEST_F(Costs, CacheRedundancyFlushesAndRestartsAreAccounted) {
  setenv("GDS_JOB_ID", ("costs-" + dir.substr(dir.rfind('-') + 1)).c_str(), 1);
  setenv("GDS_RESTART", "0", 1);
  init();
  const char *copy = nprocs > 1 ? "PARTNER" : "SINGLE";
  const auto keys = {std::pair<const char *, std::string>{GDS_NAME_KEY, "costs"},
                     {GDS_COPY_TYPE_KEY, copy},
                     {GDS_CACHE_BASE_KEY, dir + "/cache"},
                     {GDS_PREFIX_KEY, dir + "/prefix"},
                     {GDS_FLUSH_KEY, "2"}};
  GDS_gds_t g = make(4, keys);
  for (int v = 1; v <= 4; ++v) {
    write_blocks(g, 2, v);
    ASSERT_ALL_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
  }
  ASSERT_ALL_GDS_OK(GDS_flush_wait(g));
  const GDS_costs_t c = costs();
  EXPECT_EQ(c.versions.calls, 4u);
  EXPECT_EQ(c.cache.calls, 4u) << "every version cached";
  EXPECT_GE(c.cache.bytes, 4 * 2 * kBlock) << "the files hold at least the blocks changed";
  EXPECT_GT(c.cache.seconds, 0.0);
  EXPECT_LE(c.cache.seconds, c.versions.seconds) << "synchronous: the cache's part of the version calls";
  if (nprocs > 1) {
    EXPECT_EQ(c.redundancy.calls, 4u) << "each version's file copied to the partner";
    EXPECT_GE(c.redundancy.bytes, 4 * 2 * kBlock);
  } else {
    EXPECT_EQ(c.redundancy.calls, 0u);
  }
  EXPECT_EQ(c.flushes.calls, 2u) << "every 2nd version flushed";
  EXPECT_GE(c.flushes.bytes, 2 * 4 * kBlock) << "each flush writes the whole part";
  EXPECT_EQ(c.restarts.calls, 0u);
  EXPECT_GDS_OK(GDS_free(&g));
  EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);

  // The same job again: the array restarts from version 4, its part read back.
  setenv("GDS_RESTART", "1", 1);
  init();
  g = make(4, keys);
  const GDS_costs_t r = costs();
  EXPECT_EQ(r.restarts.calls, 1u);
  EXPECT_GE(r.restarts.bytes, 4 * kBlock);
  EXPECT_GT(r.restarts.seconds, 0.0);
  EXPECT_EQ(r.versions.calls, 0u);
  GDS_size_t current = 0;
  EXPECT_GDS_OK(GDS_get_version_number(g, &current));
  EXPECT_EQ(current, 4u);
  EXPECT_GDS_OK(GDS_free(&g));
  EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
}

TEST_F(Costs, PrintedAtFinalizeWhenAsked) {
  setenv("GDS_PRINT_COSTS", "1", 1);
  init();
  GDS_gds_t g = make(2);
  write_blocks(g, 1, 1);
  ASSERT_ALL_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
  EXPECT_GDS_OK(GDS_free(&g));
  CaptureStderr capture;
  EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
  const std::string text = capture.text();
  const std::string head = "GDS costs, process " + std::to_string(rank) + ":";
  EXPECT_NE(text.find(head + " "), std::string::npos) << text;
  EXPECT_NE(text.find(head + " versions "), std::string::npos) << text;
  EXPECT_EQ(text.find(head + " restores "), std::string::npos) << "kinds without work are left out: " << text;
  unsetenv("GDS_PRINT_COSTS");
  init();
  CaptureStderr quiet;
  EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
  EXPECT_EQ(quiet.text().find("GDS costs"), std::string::npos);
}

TEST_F(Costs, NeedVersionFirstStepAndEveryStepWhenStepsAreLong) {
  init();
  GDS_gds_t g = make(1);
  EXPECT_EQ(need(g), 1) << "nothing measured yet";
  // Steps of 60-90 ms against a version of 4 KiB: 5% of a step (3-4.5 ms) is far more than a
  // version, also under the sanitizers on a loaded machine (at 20 ms, 1 ms once was not: CI, ASan).
  const double seconds = 0.06 + 0.01 * (rank % 4);
  const auto sleep = [&](int) { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); };
  EXPECT_EQ(steps_between(g, sleep, 4), 1u);
  EXPECT_GDS_OK(GDS_free(&g));
  EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
}

TEST_F(Costs, NeedVersionSpacesExpensiveVersionsAndAgreesAcrossTargets) {
  // Each process asks for a different fraction; they agree on the largest (1%: rank 0's).
  setenv("GDS_VERSION_OVERHEAD", rank == 0 ? "0.01" : "0.001", 1);
  init();
  GDS_gds_t g = make(2048);  // 8 MiB per process, rewritten whole at every step
  // A version copies what a step wrote: at 1% its interval is about 99 steps.
  EXPECT_GE(steps_between(g, [&](int step) { write_blocks(g, 2048, step); }, 4), 10u);
  EXPECT_GDS_OK(GDS_free(&g));
  EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
}

TEST_F(Costs, NeedVersionWithMtbfBelowTheVersionCostVersionsEveryStep) {
  // Daly's interval is the mean time between failures itself when a version
  // costs more than twice it: the same steps as above, a version at each.
  setenv("GDS_MTBF", "0.000001", 1);
  init();
  GDS_gds_t g = make(2048);
  EXPECT_EQ(steps_between(g, [&](int step) { write_blocks(g, 2048, step); }, 4), 1u);
  EXPECT_GDS_OK(GDS_free(&g));
  EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
}

TEST_F(Costs, BadTargetsAreWarnedAboutAndTheDefaultsUsed) {
  const auto warned = [&](const char *name, const char *value) {
    setenv(name, value, 1);
    CaptureStderr capture;
    init();
    const std::string text = capture.text();
    EXPECT_NE(text.find(std::string(name) + "=\"" + value + "\" is not a number"), std::string::npos) << text;
    EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
    unsetenv(name);
  };
  for (const char *value : {"0", "1", "-0.1", "abc", "0.05x", "nan", "inf", "1e-7"}) warned("GDS_VERSION_OVERHEAD", value);
  for (const char *value : {"0", "-5", "abc", "60s", "nan", "inf", "1e13"}) warned("GDS_MTBF", value);
}

}  // namespace

namespace {

// A job script written for SCR: SCR_Need_checkpoint's criteria, any of
// which makes a version due, in place of GDS's default overhead.
TEST_F(Costs, ScrsCheckpointCriteria) {
  // Every 4th call, whatever the steps cost.
  setenv("SCR_CHECKPOINT_INTERVAL", "4", 1);
  init();
  GDS_gds_t g = make(1);
  EXPECT_EQ(steps_between(g, [](int) {}, 4), 4u);
  EXPECT_GDS_OK(GDS_free(&g));
  EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
  // Once 0.05 s passed: steps of 10 ms, every 5th or 6th (the version's own time counts as a step's).
  unsetenv("SCR_CHECKPOINT_INTERVAL");
  setenv("SCR_CHECKPOINT_SECONDS", "0.05", 1);
  init();
  g = make(1);
  const Index seconds = steps_between(g, [](int) { std::this_thread::sleep_for(std::chrono::milliseconds(10)); }, 4);
  EXPECT_GE(seconds, 4u);
  EXPECT_LE(seconds, 6u);
  // Both: the first met (the interval of 2).
  EXPECT_GDS_OK(GDS_free(&g));
  EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
  setenv("SCR_CHECKPOINT_INTERVAL", "2", 1);
  init();
  g = make(1);
  EXPECT_EQ(steps_between(g, [](int) { std::this_thread::sleep_for(std::chrono::milliseconds(10)); }, 4), 2u);
  EXPECT_GDS_OK(GDS_free(&g));
  EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
  // SCR_CHECKPOINT_OVERHEAD is a percentage: 50 behaves as GDS_VERSION_OVERHEAD=0.5.
  unsetenv("SCR_CHECKPOINT_INTERVAL");
  unsetenv("SCR_CHECKPOINT_SECONDS");
  setenv("SCR_CHECKPOINT_OVERHEAD", "50", 1);
  init();
  g = make(64);
  const Index half = steps_between(g, [](int) {}, 6);
  EXPECT_GDS_OK(GDS_free(&g));
  EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
  unsetenv("SCR_CHECKPOINT_OVERHEAD");
  setenv("GDS_VERSION_OVERHEAD", "0.001", 1);
  init();
  g = make(64);
  const Index tiny = steps_between(g, [](int) {}, 6);
  EXPECT_LT(half, tiny) << "50% overhead must ask for versions more often than 0.1%";
  EXPECT_GDS_OK(GDS_free(&g));
  EXPECT_EQ(GDS_finalize(), GDS_STATUS_OK);
}

}  // namespace
