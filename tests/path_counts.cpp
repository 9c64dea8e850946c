// The MPI calls of every collective path of GDS, counted per process by the
// PMPI counter (support/mpi_count.cpp) at the job's process count, with the
// data each path promises checked right after it: GDS_init, allocation in
// memory and with a PARTNER cache and a prefix, versions (memory, cached,
// flushed), the flush's wait, restore, navigation, version groups (create,
// version, restore, free), GDS_should_exit, GDS_restart_query, restart from
// the cache (nothing lost; the last process's directory lost: a rebuild)
// and from the prefix (every cache lost), RS over 3 processes (allocation, a
// cached version, two lost nodes rebuilt), GDS_free and GDS_finalize. Every
// process writes into its own part and into the next process's (a stencil's
// halo, one-sided), so the paths are the same at every count.
//
//   path_counts <scratch directory>
//
// Rank 0 prints one line per path, the most of any process:
//   count <path> collectives=<n> collective_bytes=<n> growing=<n> objects=<n>
//         messages=<n> message_bytes=<n> rma=<n> rma_bytes=<n>
// then "path_counts: ok" if every check held (else "path_counts: FAILED" and
// exit status 1). tests/path_counts.py runs it at several counts and
// compares (ctest: 1-4 processes; ./scripts/gds count: 8-64).
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "gds/gds.h"
#include "support/mpi_count.hpp"

namespace {

using gds::test::MpiCounts;

constexpr GDS_size_t kPart = 4096;  // longs per process
int g_rank = 0, g_size = 1;
bool g_failed = false;

void check(bool ok, const std::string &what) {
  if (ok) return;
  std::fprintf(stderr, "path_counts: rank %d: %s\n", g_rank, what.c_str());
  g_failed = true;
}

void check_ok(GDS_status_t s, const std::string &what) {
  if (s != GDS_STATUS_OK) {
    check(false, what + " returned " + GDS_status_string(s) + ": " + GDS_last_error_message());
  }
}

// The most of each count over the processes, printed by rank 0.
void report(const char *path, const MpiCounts &c) {
  std::array<std::uint64_t, 8> in{c.collectives, c.collective_bytes, c.growing, c.objects,
                                   c.messages,    c.message_bytes,    c.rma,     c.rma_bytes},
      out{};
  PMPI_Allreduce(in.data(), out.data(), 8, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  if (g_rank == 0)
    std::printf("count %s collectives=%llu collective_bytes=%llu growing=%llu objects=%llu messages=%llu "
                "message_bytes=%llu rma=%llu rma_bytes=%llu\n",
                path, static_cast<unsigned long long>(out[0]), static_cast<unsigned long long>(out[1]),
                static_cast<unsigned long long>(out[2]), static_cast<unsigned long long>(out[3]),
                static_cast<unsigned long long>(out[4]), static_cast<unsigned long long>(out[5]),
                static_cast<unsigned long long>(out[6]), static_cast<unsigned long long>(out[7]));
  std::fflush(stdout);
}

// Runs `call` counted, reports it as `path`.
template <class F>
void counted(const char *path, F call) {
  if (std::getenv("GDS_COUNT_TRACE") != nullptr) std::fprintf(stderr, "GDS_COUNT_TRACE path %s\n", path);
  gds::test::count_mpi_start();
  call();
  report(path, gds::test::count_mpi_stop());
}

long value(int v, GDS_size_t i) { return static_cast<long>(v) * 1000003L + static_cast<long>(i); }

// Version v's content: every process writes its own part and 16 elements
// of the next process's (which the next writes too, with the same values).
void write_version(GDS_gds_t g, int v) {
  const GDS_size_t lo = kPart * static_cast<GDS_size_t>(g_rank), hi = lo + kPart - 1;
  std::vector<long> data(kPart);
  for (GDS_size_t i = 0; i < kPart; ++i) data[i] = value(v, lo + i);
  check_ok(GDS_put(data.data(), nullptr, &lo, &hi, g), "GDS_put");
  const GDS_size_t next = kPart * static_cast<GDS_size_t>((g_rank + 1) % g_size) + 100, next_hi = next + 15;
  std::vector<long> halo(16);
  for (GDS_size_t i = 0; i < 16; ++i) halo[i] = value(v, next + i);
  check_ok(GDS_put(halo.data(), nullptr, &next, &next_hi, g), "GDS_put (the next process's part)");
}

// This process's part holds version v's content.
void expect_content(GDS_gds_t g, int v, const std::string &what) {
  const GDS_size_t lo = kPart * static_cast<GDS_size_t>(g_rank), hi = lo + kPart - 1;
  std::vector<long> got(kPart, -1);
  check_ok(GDS_get(got.data(), nullptr, &lo, &hi, g), what + ": GDS_get");
  check_ok(GDS_wait(g), what + ": GDS_wait");
  GDS_size_t wrong = 0;
  for (GDS_size_t i = 0; i < kPart; ++i) wrong += got[i] != value(v, lo + i);
  check(wrong == 0, what + ": " + std::to_string(wrong) + " element(s) are not version " + std::to_string(v) + "'s");
}

GDS_status_t alloc(MPI_Info info, GDS_gds_t *g) {
  const GDS_size_t n = kPart * static_cast<GDS_size_t>(g_size);
  return GDS_alloc(1, &n, nullptr, MPI_LONG, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info, g);
}

// Memory only, whatever the environment says (the environment names the
// cache and the prefix for GDS_restart_query).
MPI_Info memory_info() {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, GDS_COPY_TYPE_KEY, "NONE");
  MPI_Info_set(info, GDS_FLUSH_KEY, "0");
  MPI_Info_set(info, GDS_RESTART_KEY, "0");
  return info;
}

MPI_Info persistent_info(const std::string &dir, const char *restart) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, GDS_NAME_KEY, "counted");
  MPI_Info_set(info, GDS_COPY_TYPE_KEY, g_size > 1 ? "PARTNER" : "SINGLE");
  MPI_Info_set(info, GDS_CACHE_BASE_KEY, (dir + "/cache").c_str());
  MPI_Info_set(info, GDS_PREFIX_KEY, (dir + "/prefix").c_str());
  MPI_Info_set(info, GDS_FLUSH_KEY, "4");
  MPI_Info_set(info, GDS_RESTART_KEY, restart);
  return info;
}

// Memory only: allocation, versions, restore, navigation, groups.
void memory_paths() {
  MPI_Info info = memory_info();
  GDS_gds_t g = GDS_NULL;
  counted("alloc.memory", [&] { check_ok(alloc(info, &g), "GDS_alloc"); });
  for (int v = 0; v < 6; ++v) {
    write_version(g, v);
    if (v < 3) check_ok(GDS_version_inc(g, 1, nullptr, 0), "GDS_version_inc");
    else counted("version.memory", [&] { check_ok(GDS_version_inc(g, 1, nullptr, 0), "GDS_version_inc"); });
  }
  GDS_gds_t old = GDS_NULL;
  check_ok(GDS_descriptor_clone(g, &old), "GDS_descriptor_clone");
  counted("navigation", [&] {
    check_ok(GDS_move_to_prev(old), "GDS_move_to_prev");
    check_ok(GDS_move_to_prev(old), "GDS_move_to_prev");
    check_ok(GDS_move_to_next(old), "GDS_move_to_next");
  });
  expect_content(old, 5, "after GDS_move_to_prev twice and GDS_move_to_next");
  counted("navigation.newest", [&] { check_ok(GDS_move_to_newest(old), "GDS_move_to_newest"); });
  check_ok(GDS_free(&old), "GDS_free (the clone)");
  counted("restore", [&] { check_ok(GDS_version_restore(g, 3), "GDS_version_restore"); });
  expect_content(g, 3, "after GDS_version_restore");
  check_ok(GDS_free(&g), "GDS_free");

  std::array<GDS_gds_t, 3> members{GDS_NULL, GDS_NULL, GDS_NULL};
  for (GDS_gds_t &m : members) check_ok(alloc(info, &m), "GDS_alloc");
  MPI_Info_free(&info);
  GDS_group_t group = GDS_GROUP_NULL;
  counted("group.create", [&] { check_ok(GDS_group_create("counted", 3, members.data(), &group), "GDS_group_create"); });
  for (int v = 0; v < 5; ++v) {
    for (GDS_gds_t m : members) write_version(m, 10 + v);
    if (v < 3) check_ok(GDS_group_version_inc(group, 1, nullptr, 0), "GDS_group_version_inc");
    else counted("group.version", [&] { check_ok(GDS_group_version_inc(group, 1, nullptr, 0), "GDS_group_version_inc"); });
  }
  GDS_size_t current = 0;
  check_ok(GDS_get_version_number(members[0], &current), "GDS_get_version_number");
  counted("group.restore", [&] { check_ok(GDS_group_version_restore(group, current - 2), "GDS_group_version_restore"); });
  for (GDS_gds_t m : members) expect_content(m, 13, "a member after GDS_group_version_restore");
  counted("group.free", [&] { check_ok(GDS_group_free(&group), "GDS_group_free"); });
  counted("free.memory", [&] { check_ok(GDS_free(&members[2]), "GDS_free"); });
  check_ok(GDS_free(&members[1]), "GDS_free");
  check_ok(GDS_free(&members[0]), "GDS_free");
}

// A PARTNER cache and a prefix: allocation, cached and flushed versions,
// the halt check, the restart query, and the restarts.
void persistent_paths(const std::string &dir) {
  MPI_Info info = persistent_info(dir, "0");
  GDS_gds_t g = GDS_NULL;
  counted("alloc.cache", [&] { check_ok(alloc(info, &g), "GDS_alloc (a cache, a prefix)"); });
  MPI_Info_free(&info);
  // Versions 0-7: 3 and 7 flushed (every 4th); counted: 5 (cached) and 7 (cached and flushed).
  for (int v = 0; v < 8; ++v) {
    write_version(g, v);
    if (v == 5) counted("version.cache", [&] { check_ok(GDS_version_inc(g, 1, nullptr, 0), "GDS_version_inc"); });
    else if (v == 7) counted("version.flush", [&] { check_ok(GDS_version_inc(g, 1, nullptr, 0), "GDS_version_inc"); });
    else check_ok(GDS_version_inc(g, 1, nullptr, 0), "GDS_version_inc");
    if (v == 4) check_ok(GDS_flush_wait(g), "GDS_flush_wait");  // version 3's flush done: the next counts alone
  }
  counted("flush_wait", [&] { check_ok(GDS_flush_wait(g), "GDS_flush_wait"); });
  int flag = -1;
  counted("should_exit", [&] { check_ok(GDS_should_exit(&flag), "GDS_should_exit"); });
  check(flag == 0, "GDS_should_exit says to exit");
  counted("free.cache", [&] { check_ok(GDS_free(&g), "GDS_free"); });

  GDS_persisted_t found{};
  counted("restart_query", [&] { check_ok(GDS_restart_query("counted", &found), "GDS_restart_query"); });
  check(found.found == 1 && found.version == 7, "GDS_restart_query: not version 7 found (found " +
                                                    std::to_string(found.found) + ", version " +
                                                    std::to_string(found.version) + ")");
  const auto restart = [&](const char *path, int expect_rebuilt) {
    MPI_Info again = persistent_info(dir, "1");
    counted(path, [&] { check_ok(alloc(again, &g), std::string("GDS_alloc (") + path + ")"); });
    MPI_Info_free(&again);
    GDS_restart_info_t ri{};
    check_ok(GDS_get_restart_info(g, &ri), "GDS_get_restart_info");
    check(ri.restarted == 1 && ri.version == 7, std::string(path) + ": not restarted from version 7 (restarted " +
                                                  std::to_string(ri.restarted) + ", version " +
                                                  std::to_string(ri.version) + ")");
    if (expect_rebuilt >= 0)
      check(ri.rebuilt_processes == expect_rebuilt, std::string(path) + ": " + std::to_string(ri.rebuilt_processes) +
                                                        " process(es) rebuilt, not " + std::to_string(expect_rebuilt));
    expect_content(g, 7, path);
    check_ok(GDS_free(&g), "GDS_free");
  };
  restart("restart.cache", 0);
  // The last process's directory lost (its node): rebuilt from its partner.
  const std::string job = dir + "/cache/gds.default";
  if (g_size > 1) {
    if (g_rank == g_size - 1) std::filesystem::remove_all(job + "/node" + std::to_string(g_size - 1));
    MPI_Barrier(MPI_COMM_WORLD);
    restart("restart.rebuild", 1);
  }
  // Every cache lost: the prefix.
  MPI_Barrier(MPI_COMM_WORLD);
  if (g_rank == 0) std::filesystem::remove_all(dir + "/cache");
  MPI_Barrier(MPI_COMM_WORLD);
  restart("restart.prefix", -1);
}

// RS over the first 3 processes (an array on their communicator, a set of 3
// nodes, k = 2), so that its paths are the same at every count from 3 on:
// allocation, a cached version, and the restart that rebuilds two lost
// nodes. The other processes count nothing (and every process reports).
void rs_paths(const std::string &dir) {
  if (g_size < 3) return;
  const bool in = g_rank < 3;
  MPI_Comm three = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, in ? 0 : MPI_UNDEFINED, g_rank, &three);
  const GDS_size_t n = kPart * 3, lo = kPart * static_cast<GDS_size_t>(g_rank), hi = lo + kPart - 1;
  const auto make = [&](const char *restart, GDS_gds_t *g) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, GDS_NAME_KEY, "counted_rs");
    MPI_Info_set(info, GDS_COPY_TYPE_KEY, "RS");
    MPI_Info_set(info, GDS_SET_FAILURES_KEY, "2");
    MPI_Info_set(info, GDS_CACHE_BASE_KEY, (dir + "/rscache").c_str());
    MPI_Info_set(info, GDS_FLUSH_KEY, "0");
    MPI_Info_set(info, GDS_RESTART_KEY, restart);
    check_ok(GDS_alloc(1, &n, nullptr, MPI_LONG, GDS_PRIORITY_HIGH, three, info, g), "GDS_alloc (RS)");
    MPI_Info_free(&info);
  };
  GDS_gds_t g = GDS_NULL;
  counted("alloc.rs", [&] {
    if (in) make("0", &g);
  });
  for (int v = 0; in && v < 6; ++v) {
    std::vector<long> data(kPart);
    for (GDS_size_t i = 0; i < kPart; ++i) data[i] = value(v, lo + i);
    check_ok(GDS_put(data.data(), nullptr, &lo, &hi, g), "GDS_put (RS)");
    if (v < 5) check_ok(GDS_version_inc(g, 1, nullptr, 0), "GDS_version_inc (RS)");
  }
  counted("version.rs", [&] {
    if (in) check_ok(GDS_version_inc(g, 1, nullptr, 0), "GDS_version_inc (RS)");
  });
  if (in) check_ok(GDS_free(&g), "GDS_free (RS)");
  // Nodes 1 and 2 lost: both rebuilt from node 0.
  if (g_rank == 1 || g_rank == 2)
    std::filesystem::remove_all(dir + "/rscache/gds.default/node" + std::to_string(g_rank));
  MPI_Barrier(MPI_COMM_WORLD);
  counted("restart.rs", [&] {
    if (in) make("1", &g);
  });
  if (in) {
    GDS_restart_info_t ri{};
    check_ok(GDS_get_restart_info(g, &ri), "GDS_get_restart_info (RS)");
    check(ri.restarted == 1 && ri.version == 5 && ri.rebuilt_processes == 2,
          "RS restart: not version 5 with 2 processes rebuilt (restarted " + std::to_string(ri.restarted) +
              ", version " + std::to_string(ri.version) + ", rebuilt " + std::to_string(ri.rebuilt_processes) + ")");
    std::vector<long> got(kPart, -1);
    check_ok(GDS_get(got.data(), nullptr, &lo, &hi, g), "GDS_get (RS)");
    check_ok(GDS_wait(g), "GDS_wait (RS)");
    GDS_size_t wrong = 0;
    for (GDS_size_t i = 0; i < kPart; ++i) wrong += got[i] != value(5, lo + i);
    check(wrong == 0, "RS restart: " + std::to_string(wrong) + " element(s) are not version 5's");
    check_ok(GDS_free(&g), "GDS_free (RS)");
    MPI_Comm_free(&three);
  }
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  if (argc != 2) {
    if (g_rank == 0) std::fprintf(stderr, "usage: path_counts <scratch directory>\n");
    MPI_Finalize();
    return 2;
  }
  const std::string dir = std::string(argv[1]) + "/n" + std::to_string(g_size);
  // The settings GDS_restart_query reads (the arrays' info keys say the same).
  setenv("GDS_CACHE_BASE", (dir + "/cache").c_str(), 1);
  setenv("GDS_PREFIX", (dir + "/prefix").c_str(), 1);
  setenv("GDS_RESTART", "1", 1);
  GDS_thread_support_t provided;
  counted("init", [&] { check_ok(GDS_init(&argc, &argv, GDS_THREAD_SINGLE, &provided), "GDS_init"); });
  memory_paths();
  persistent_paths(dir);
  rs_paths(dir);
  counted("finalize", [&] { check_ok(GDS_finalize(), "GDS_finalize"); });
  int failed = g_failed, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (g_rank == 0) std::printf("path_counts: %s at %d process(es)\n", any != 0 ? "FAILED" : "ok", g_size);
  MPI_Finalize();
  return any != 0 ? 1 : 0;
}
