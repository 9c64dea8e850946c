// Every phase of every protocol, as the modules list them (core::all_steps():
// GDS_version_inc's, a cached version's, a flush's), failing on one process
// (white-box: core::inject_failure, as GDS_TEST_FAIL does): the call that
// ends the phase fails on every process (GDS_version_inc, or for what
// completes later the wait that completes it: GDS_cache_wait, GDS_flush_wait),
// nothing half-made stays in a level, the content and the versions made are
// what they were, and the next version goes through whole, at every level.
// Synchronous and asynchronous cache writes, GDS_alloc and GDS_create
// (interleaved elements: a flush's checksum phase) arrays, each process's
// part a different size.
#include <gds.h>

#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/array.hpp"
#include "core/phase.hpp"
#include "persist/levels.hpp"
#include "support/gds_test.hpp"

using namespace gds::test;

namespace {

int g_rank = 0, g_nprocs = 1;

// Interleaved elements: element i on process i % P.
GDS_status_t cyclic_g2l(const GDS_size_t global[], int *rank, GDS_size_t *offset) {
  *rank = static_cast<int>(global[0] % static_cast<Index>(g_nprocs));
  *offset = global[0] / static_cast<Index>(g_nprocs);
  return GDS_STATUS_OK;
}
GDS_status_t cyclic_l2g(GDS_size_t offset, GDS_size_t global[]) {
  global[0] = offset * static_cast<Index>(g_nprocs) + static_cast<Index>(g_rank);
  return GDS_STATUS_OK;
}

std::string scratch_dir(const char *name) {
  char path[256] = {};
  if (world_rank() == 0) {
    std::snprintf(path, sizeof path, "/tmp/gds_%s_XXXXXX", name);
    if (mkdtemp(path) == nullptr) path[0] = 0;
  }
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  return path;
}

struct Config {
  bool sync, create;
  [[nodiscard]] std::string name() const {
    return std::string(sync ? "sync" : "async") + (create ? "-create" : "-alloc");
  }
};

class Phases : public MpiTest {
 protected:
  void SetUp() override {
    g_rank = rank;
    g_nprocs = nprocs;
  }
};

// One array of the configuration, its own buffer for GDS_create.
struct Subject {
  GDS_gds_t g = GDS_NULL;
  gds::core::Array *a = nullptr;
  std::vector<long> local;
  Index n = 0;
};

}  // namespace

TEST_F(Phases, AFailureInAnyPhaseIsAgreedAndLeavesNothingHalfMade) {
  const std::string base = scratch_dir("phases_cache"), prefix = scratch_dir("phases_prefix");
  std::map<std::string, int> reached;  // per phase: configurations that reached it
  const std::vector<const gds::core::Step *> steps = gds::core::all_steps();
  int case_no = 0, phase_no = 0;
  const Config configs[] = {{true, false}, {false, false}, {true, true}};
  for (const gds::core::Step *step : steps) {
    if (!step->agreed() || std::string(step->name()).rfind("restart.", 0) == 0) continue;  // the restart's: below
    reached[step->name()];
    ++phase_no;
    for (int k = 0; k < 3; ++k) {
      // Oversubscribed (3 processes on small machines), each phase in one
      // configuration, in turn (every configuration still meets several),
      // a flush's checksum phase in the one that reaches it.
      const bool summed = std::string(step->name()) == "flush.summed";
      if (nprocs >= 3 && k != (summed ? 2 : phase_no % 3)) continue;
      const Config config = configs[k];
      SCOPED_TRACE(std::string(step->name()) + " failing on the last process, " + config.name());
      MPI_Info info;
      MPI_Info_create(&info);
      MPI_Info_set(info, GDS_COPY_TYPE_KEY, nprocs > 1 ? "PARTNER" : "SINGLE");
      MPI_Info_set(info, GDS_CACHE_BASE_KEY, base.c_str());
      MPI_Info_set(info, GDS_PREFIX_KEY, prefix.c_str());
      MPI_Info_set(info, GDS_CACHE_SYNC_KEY, config.sync ? "1" : "0");
      const std::string name = "case" + std::to_string(case_no++);
      MPI_Info_set(info, GDS_NAME_KEY, name.c_str());
      Subject s;
      s.n = 700 * static_cast<Index>(nprocs) + 11;  // parts of different sizes
      if (config.create) {
        s.local.assign((s.n + static_cast<Index>(nprocs) - 1 - static_cast<Index>(rank)) / static_cast<Index>(nprocs),
                       0);
        ASSERT_ALL_GDS_OK(GDS_create(1, &s.n, MPI_LONG, cyclic_g2l, cyclic_l2g, s.local.data(), s.local.size(),
                                     GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info, &s.g));
      } else {
        ASSERT_ALL_GDS_OK(GDS_alloc(1, &s.n, nullptr, MPI_LONG, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info, &s.g));
      }
      MPI_Info_free(&info);
      gds::core::Cursor *cursor = nullptr;
      ASSERT_EQ(gds::core::resolve("test", s.g, &cursor), GDS_STATUS_OK);
      s.a = cursor->array;
      const auto value = [](int v, Index i) { return static_cast<long>(v) * 1000003L + static_cast<long>(i); };
      const auto write = [&](int v) {  // rank 0 writes everything: every process's part changes
        if (rank == 0) {
          std::vector<long> all(s.n);
          for (Index i = 0; i < s.n; ++i) all[i] = value(v, i);
          const Index lo = 0, hi = s.n - 1;
          EXPECT_GDS_OK(GDS_put(all.data(), nullptr, &lo, &hi, s.g));
        }
        ASSERT_ALL_GDS_OK(GDS_fence(s.g));
      };
      const auto holds = [&](GDS_gds_t h, int v) {  // the handle's version holds version v's values
        std::vector<long> got(s.n);
        const Index lo = 0, hi = s.n - 1;
        EXPECT_GDS_OK(GDS_get(got.data(), nullptr, &lo, &hi, h));
        EXPECT_GDS_OK(GDS_wait(h));
        int wrong = 0;
        for (Index i = 0; i < s.n; ++i) wrong += got[i] != value(v, i);
        EXPECT_EQ(wrong, 0) << "holding version " << v;
      };
      for (int v = 0; v < 2; ++v) {
        write(v);
        ASSERT_ALL_GDS_OK(GDS_version_inc(s.g, 1, nullptr, 0));
      }
      ASSERT_ALL_GDS_OK(GDS_flush_wait(s.g));
      // Version 2 with the phase failing on the last process.
      write(2);
      if (rank == nprocs - 1) gds::core::inject_failure(step->name());
      const GDS_status_t made = GDS_version_inc(s.g, 1, nullptr, 0);
      const GDS_status_t cached = GDS_cache_wait(s.g), flushed = GDS_flush_wait(s.g);
      const bool fired = all_true(rank != nprocs - 1 || !gds::core::failure_armed());
      gds::core::inject_failure(nullptr);
      if (fired) {
        ++reached[step->name()];
        // The first call that failed failed everywhere, as agreed.
        const GDS_status_t first = made != GDS_STATUS_OK ? made : cached != GDS_STATUS_OK ? cached : flushed;
        EXPECT_NE(first, GDS_STATUS_OK) << "the failure was not reported";
        EXPECT_TRUE(all_true(made != GDS_STATUS_OK) || all_true(made == GDS_STATUS_OK)) << "GDS_version_inc";
        EXPECT_TRUE(all_true(cached != GDS_STATUS_OK) || all_true(cached == GDS_STATUS_OK)) << "GDS_cache_wait";
        EXPECT_TRUE(all_true(flushed != GDS_STATUS_OK) || all_true(flushed == GDS_STATUS_OK)) << "GDS_flush_wait";
        if (made != GDS_STATUS_OK) {
          GDS_size_t number = 0;
          EXPECT_GDS_OK(GDS_get_version_number(s.g, &number));
          EXPECT_EQ(number, 2u) << "a failed GDS_version_inc made a version";
          EXPECT_FALSE(gds::persist::cache_level().locate(*s.a, 2, 0).has_value());
          EXPECT_FALSE(gds::persist::prefix_level().locate(*s.a, 2, 0).has_value());
        } else if (cached != GDS_STATUS_OK) {
          EXPECT_FALSE(gds::persist::cache_level().locate(*s.a, 2, 0).has_value()) << "a failed cached version stayed";
        } else {
          EXPECT_FALSE(gds::persist::prefix_level().locate(*s.a, 2, 0).has_value()) << "a failed flush stayed";
        }
        holds(s.g, 2);  // the current content is untouched
      }
      gds::test::barrier();  // every process read it before rank 0 writes again
      // The next version goes through whole, at every level.
      write(3);
      ASSERT_ALL_GDS_OK(GDS_version_inc(s.g, 1, nullptr, 0));
      ASSERT_ALL_GDS_OK(GDS_cache_wait(s.g));
      ASSERT_ALL_GDS_OK(GDS_flush_wait(s.g));
      GDS_size_t newest = 0;
      EXPECT_GDS_OK(GDS_get_version_number(s.g, &newest));
      --newest;
      EXPECT_TRUE(gds::persist::cache_level().locate(*s.a, newest, 0).has_value());
      EXPECT_TRUE(gds::persist::prefix_level().locate(*s.a, newest, 0).has_value());
      GDS_gds_t old = GDS_NULL;
      EXPECT_GDS_OK(GDS_descriptor_clone(s.g, &old));
      EXPECT_GDS_OK(GDS_move_to_prev(old));
      holds(old, 3);
      EXPECT_GDS_OK(GDS_move_to_prev(old));
      holds(old, newest == 3 ? 2 : 1);
      EXPECT_GDS_OK(GDS_free(&old));
      ASSERT_ALL_GDS_OK(GDS_free(&s.g));
    }
  }
  // Every phase is reached by some configuration (a flush's checksum phase
  // needs elements interleaved between processes: 2 or more).
  for (const auto &[phase, count] : reached) {
    if (nprocs > 1 || phase != "flush.summed") {
      EXPECT_GT(count, 0) << phase << " was never reached";
    }
  }
  gds::test::barrier();
  if (rank == 0) {
    std::filesystem::remove_all(base);
    std::filesystem::remove_all(prefix);
  }
}

// Every phase of the restart failing on one process: the GDS_alloc that
// restarts fails on every process with one status, nothing is half-made,
// and the next restart comes back at the newest version, whole; from the
// cache (PARTNER, a process's directory moved to another node's so that
// distribute runs, a file damaged so that rebuild runs) and from the prefix
// (the cache gone).
TEST_F(Phases, ARestartFailingInAnyPhaseFailsEverywhereAndTheNextRestarts) {
  const std::string base = scratch_dir("phases_restart"), prefix = scratch_dir("phases_restart_prefix");
  const Index n = 500 * static_cast<Index>(nprocs) + 7;
  int case_no = 0;
  std::map<std::string, int> reached;
  const auto value = [](int v, Index i) { return static_cast<long>(v) * 7919L + static_cast<long>(i); };
  for (const gds::core::Step *step : gds::core::all_steps()) {
    if (!step->agreed() || std::string(step->name()).rfind("restart.", 0) != 0) continue;
    reached[step->name()];
    for (const bool from_prefix : {false, true}) {
      SCOPED_TRACE(std::string(step->name()) + (from_prefix ? ", from the prefix" : ", from the cache"));
      const std::string name = "restart" + std::to_string(case_no++);
      const auto make = [&](const char *restart, GDS_gds_t *g) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, GDS_COPY_TYPE_KEY, nprocs > 1 ? "PARTNER" : "SINGLE");
        MPI_Info_set(info, GDS_CACHE_BASE_KEY, base.c_str());
        MPI_Info_set(info, GDS_PREFIX_KEY, prefix.c_str());
        MPI_Info_set(info, GDS_NAME_KEY, name.c_str());
        MPI_Info_set(info, GDS_RESTART_KEY, restart);
        const GDS_status_t s = GDS_alloc(1, &n, nullptr, MPI_LONG, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info, g);
        MPI_Info_free(&info);
        return s;
      };
      GDS_gds_t g = GDS_NULL;
      ASSERT_ALL_GDS_OK(make("0", &g));
      for (int v = 0; v < 3; ++v) {
        if (rank == 0) {
          std::vector<long> all(n);
          for (Index i = 0; i < n; ++i) all[i] = value(v, i);
          const Index lo = 0, hi = n - 1;
          EXPECT_GDS_OK(GDS_put(all.data(), nullptr, &lo, &hi, g));
        }
        ASSERT_ALL_GDS_OK(GDS_fence(g));
        ASSERT_ALL_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
      }
      ASSERT_ALL_GDS_OK(GDS_flush_wait(g));
      ASSERT_ALL_GDS_OK(GDS_free(&g));
      gds::test::barrier();
      const std::string job = base + "/gds.default";
      if (rank == 0) {
        if (from_prefix) {
          std::filesystem::remove_all(job);
        } else if (nprocs > 1) {
          // The last process's directory moved under another failure group's
          // (as a relaunch on shifted nodes leaves it: distribute), and the
          // first process's newest file damaged (rebuild).
          const std::string last = "/" + name + "/r" + std::to_string(nprocs - 1);
          std::filesystem::rename(job + "/node" + std::to_string(nprocs - 1) + last, job + "/node0" + last);
          std::FILE *f = std::fopen((job + "/node0/" + name + "/r0/v2.gdsv").c_str(), "r+b");
          if (f != nullptr) {
            std::fseek(f, -3, SEEK_END);
            std::fputc(0x5a, f);
            std::fclose(f);
          }
        }
      }
      gds::test::barrier();
      if (rank == nprocs - 1) gds::core::inject_failure(step->name());
      const GDS_status_t failed = make("1", &g);
      const bool fired = all_true(rank != nprocs - 1 || !gds::core::failure_armed());
      gds::core::inject_failure(nullptr);
      if (fired) {
        ++reached[step->name()];
        EXPECT_NE(failed, GDS_STATUS_OK) << "the failure was not reported";
        EXPECT_TRUE(all_true(failed != GDS_STATUS_OK)) << "the restart failed on some processes only";
      }
      if (failed == GDS_STATUS_OK) ASSERT_ALL_GDS_OK(GDS_free(&g));
      // The next restart: the newest version, whole.
      ASSERT_ALL_GDS_OK(make("1", &g));
      GDS_restart_info_t info{};
      EXPECT_GDS_OK(GDS_get_restart_info(g, &info));
      EXPECT_EQ(info.restarted, 1);
      EXPECT_EQ(info.version, 2u);
      std::vector<long> got(n);
      const Index lo = 0, hi = n - 1;
      EXPECT_GDS_OK(GDS_get(got.data(), nullptr, &lo, &hi, g));
      EXPECT_GDS_OK(GDS_wait(g));
      int wrong = 0;
      for (Index i = 0; i < n; ++i) wrong += got[i] != value(2, i);
      EXPECT_EQ(wrong, 0);
      ASSERT_ALL_GDS_OK(GDS_free(&g));
    }
  }
  for (const auto &[phase, count] : reached) {
    // One process distributes and rebuilds nothing; the prefix restart replays every entry.
    if (nprocs > 1 || (phase != "restart.rebuild")) {
      EXPECT_GT(count, 0) << phase << " was never reached";
    }
  }
  gds::test::barrier();
  if (rank == 0) {
    std::filesystem::remove_all(base);
    std::filesystem::remove_all(prefix);
  }
}
