// The program the persistence tests (tests/persist_test.py) run, end and
// restart: an array whose content at version k is a known function of k
// (a model), versioned every step.
//
//   persist_app write <ndims> <order> <flavor> <versions>
//       versions 0 .. versions-1, each changing a pseudo-random tenth of the
//       elements (version 0: all of them); then ends normally (unless
//       GDS_TEST_KILL kills it on the way)
//   persist_app check <ndims> <order> <flavor> <versions> <expect> [<more>]
//       restarts (GDS_RESTART=1 is set by the driver) and checks, right after
//       GDS_alloc/GDS_create: <expect> is the newest version it must start
//       from, "any" (after a kill: the newest complete one, whichever it
//       is, must be exact), "fresh" (nothing to restart from) or a status
//       name the call must return (e.g. GDS_STATUS_UNRECOVERABLE). Every
//       version it can navigate to is compared with the model, element by
//       element. With <more>, it then makes that many more versions (the
//       numbering continues) for the driver to check after another restart.
//
// ndims 1-3; order row|col; flavor alloc|create (GDS_create: a cyclic
// mapping of the row-major global index). The shape grows with the number
// of processes, or with PERSIST_APP_SHAPE_NP's if it is set. Prints "persist_app: ok ..." on
// rank 0 when every check held; exits 1 otherwise.
#include <mpi.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gds.h"
#include "support/persist_apps.hpp"

namespace {

using persist_apps::g_failures;
using persist_apps::g_rank;
using persist_apps::mix;
using persist_apps::status_name;

int g_nprocs = 1;
std::vector<GDS_size_t> g_count;

GDS_size_t total() {
  GDS_size_t n = 1;
  for (const GDS_size_t c : g_count) n *= c;
  return n;
}

// Whether element i (row-major global index) changes at version k, and to what.
bool changes(std::uint64_t k, std::uint64_t i) { return k == 0 || mix(k * 1000003 + i) % 10 == 0; }
long value(std::uint64_t k, std::uint64_t i) { return static_cast<long>(mix(k * 7919 + i * 104729) & 0x7fffffffffffLL); }

// model[k][i]: the content of version k.
std::vector<std::vector<long>> model(std::uint64_t versions) {
  std::vector<std::vector<long>> m(versions, std::vector<long>(total()));
  for (std::uint64_t k = 0; k < versions; ++k)
    for (std::uint64_t i = 0; i < total(); ++i) m[k][i] = changes(k, i) ? value(k, i) : m[k - 1][i];
  return m;
}

void index_of(std::uint64_t i, GDS_size_t *idx) {
  for (std::size_t d = g_count.size(); d-- > 0;) {
    idx[d] = i % g_count[d];
    i /= g_count[d];
  }
}

GDS_status_t cyclic_g2l(const GDS_size_t g[], int *rank, GDS_size_t *offset) {
  std::uint64_t i = 0;
  for (std::size_t d = 0; d < g_count.size(); ++d) i = i * g_count[d] + g[d];
  *rank = static_cast<int>(i % static_cast<std::uint64_t>(g_nprocs));
  *offset = i / static_cast<std::uint64_t>(g_nprocs);
  return GDS_STATUS_OK;
}
GDS_status_t cyclic_l2g(GDS_size_t offset, GDS_size_t g[]) {
  index_of(offset * static_cast<std::uint64_t>(g_nprocs) + static_cast<std::uint64_t>(g_rank), g);
  return GDS_STATUS_OK;
}

std::vector<long> g_buffer;  // GDS_create's

GDS_status_t make(const std::string &order, const std::string &flavor, GDS_gds_t *g) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, GDS_ORDER_KEY, order == "col" ? GDS_ORDER_COL_MAJOR : GDS_ORDER_ROW_MAJOR);
  MPI_Info_set(info, GDS_VERSION_BLOCK_SIZE_KEY, "64");
  MPI_Info_set(info, GDS_NAME_KEY, "model");
  GDS_status_t s;
  if (flavor == "create") {
    const std::uint64_t mine = (total() + static_cast<std::uint64_t>(g_nprocs - g_rank - 1)) / static_cast<std::uint64_t>(g_nprocs);
    g_buffer.assign(mine, 0);
    s = GDS_create(g_count.size(), g_count.data(), GDS_DATA_LONG, cyclic_g2l, cyclic_l2g, g_buffer.data(), mine,
                   GDS_PRIORITY_HIGH, MPI_COMM_WORLD, info, g);
  } else {
    s = GDS_alloc(g_count.size(), g_count.data(), nullptr, GDS_DATA_LONG, GDS_PRIORITY_HIGH, MPI_COMM_WORLD, info, g);
  }
  MPI_Info_free(&info);
  return s;
}

// Writes version k's changes (each process a share of them) and versions it.
void step(GDS_gds_t g, std::uint64_t k) {
  const std::vector<GDS_size_t> ld(g_count.size(), 1);
  std::vector<GDS_size_t> idx(g_count.size());
  std::vector<long> vals;
  vals.reserve(total());
  for (std::uint64_t i = static_cast<std::uint64_t>(g_rank); i < total(); i += static_cast<std::uint64_t>(g_nprocs))
    if (changes(k, i)) {
      index_of(i, idx.data());
      vals.push_back(value(k, i));
      if (GDS_put(&vals.back(), ld.data(), idx.data(), idx.data(), g) != GDS_STATUS_OK) FAIL("GDS_put at version %" PRIu64, k);
    }
  if (GDS_fence(g) != GDS_STATUS_OK) FAIL("GDS_fence");
  const std::string label = "L" + std::to_string(k + 1);
  const GDS_status_t s = GDS_version_inc(g, 1, label.data(), label.size());
  if (s != GDS_STATUS_OK) FAIL("GDS_version_inc at %" PRIu64 ": %s", k, GDS_status_string(s));
}

// Compares what handle h reads with model version k.
void compare(GDS_gds_t h, const std::vector<long> &want, std::uint64_t k) {
  const std::vector<GDS_size_t> ld(g_count.size(), 1);
  std::vector<GDS_size_t> idx(g_count.size());
  std::vector<long> got(total(), -1);
  // Together the processes read every element, each process a cyclic share
  // (so elements of every part are read by other processes too).
  const auto P = static_cast<std::uint64_t>(g_nprocs);
  const std::uint64_t first = (static_cast<std::uint64_t>(g_rank) + 1) % P;
  for (std::uint64_t i = first; i < total(); i += P) {
    index_of(i, idx.data());
    if (GDS_get(&got[i], ld.data(), idx.data(), idx.data(), h) != GDS_STATUS_OK) FAIL("GDS_get");
  }
  if (GDS_wait(h) != GDS_STATUS_OK) FAIL("GDS_wait");
  int wrong = 0;
  for (std::uint64_t i = first; i < total(); i += P)
    if (got[i] != want[i] && wrong++ < 3)
      FAIL("version %" PRIu64 ": element %" PRIu64 " is %ld, the model says %ld", k, i, got[i], want[i]);
}

}  // namespace

int main(int argc, char **argv) {
  GDS_thread_support_t provided;
  if (GDS_init(&argc, &argv, GDS_THREAD_SINGLE, &provided) != GDS_STATUS_OK) return 2;
  persist_apps::g_program = "persist_app";
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_nprocs);
  if (argc < 6) {
    if (g_rank == 0) std::fprintf(stderr, "usage: persist_app write|check ndims row|col alloc|create versions ...\n");
    GDS_finalize();
    return 2;
  }
  const std::string mode = argv[1], order = argv[3], flavor = argv[4];
  const int ndims = std::atoi(argv[2]);
  const std::uint64_t versions = std::strtoull(argv[5], nullptr, 10);
  // The shape grows with the process count, or with PERSIST_APP_SHAPE_NP's
  // (restart on another process count: the prefix tests).
  const char *shape_np = std::getenv("PERSIST_APP_SHAPE_NP");
  const auto P = static_cast<GDS_size_t>(shape_np != nullptr ? std::atoi(shape_np) : g_nprocs);
  if (ndims == 1) g_count = {50 * P + 13};
  else if (ndims == 2) g_count = {7 * P + 3, 29};
  else g_count = {3, 5 * P + 1, 11};

  GDS_gds_t g = GDS_NULL;
  if (mode == "write") {
    if (make(order, flavor, &g) != GDS_STATUS_OK) FAIL("making the array");
    for (std::uint64_t k = 0; k < versions; ++k) step(g, k);  // every process makes every version (collective)
  } else {
    std::string expect = argc > 6 ? argv[6] : "any";
    const std::uint64_t more = argc > 7 ? std::strtoull(argv[7], nullptr, 10) : 0;
    const GDS_status_t s = make(order, flavor, &g);
    // "<version or any>|<status>": a restart, or that refusal.
    std::string refusal;
    if (const auto bar = expect.find('|'); bar != std::string::npos) {
      refusal = expect.substr(bar + 1);
      expect = expect.substr(0, bar);
      if (s != GDS_STATUS_OK) expect = refusal;
    }
    if (expect.rfind("GDS_STATUS_", 0) == 0) {
      const std::string got = status_name(s);
      if (got != expect) FAIL("GDS_alloc/GDS_create returned %s, expected %s", got.c_str(), expect.c_str());
      if (s == GDS_STATUS_OK) GDS_free(&g);
      if (g_rank == 0 && g_failures == 0) std::printf("persist_app: ok: refused with %s\n", got.c_str());
      GDS_finalize();
      return g_failures == 0 ? 0 : 1;
    }
    if (s != GDS_STATUS_OK) {
      FAIL("restart failed: %s", GDS_status_string(s));
    } else {
      GDS_restart_info_t info;
      if (GDS_get_restart_info(g, &info) != GDS_STATUS_OK) FAIL("GDS_get_restart_info");
      const auto m = model(versions + more);
      if (expect == "fresh") {
        if (info.restarted) FAIL("restarted from version %" PRIu64 " where nothing should be there", info.version);
      } else if (!info.restarted) {
        if (expect != "any") FAIL("did not restart; expected version %s", expect.c_str());
      } else {
        if (expect != "any" && std::to_string(info.version) != expect)
          FAIL("restarted from version %" PRIu64 ", expected %s", info.version, expect.c_str());
        if (info.version >= versions) FAIL("restarted from version %" PRIu64 ", never made", info.version);
        GDS_size_t current = 0;
        GDS_get_version_number(g, &current);
        if (current != info.version + 1) FAIL("current version %" PRIu64 " after restarting from %" PRIu64, current, info.version);
        compare(g, m[info.version], info.version);  // the current content is the newest version
        // Every navigable version, newest first.
        GDS_gds_t old = GDS_NULL;
        GDS_descriptor_clone(g, &old);
        GDS_size_t seen = 0;
        while (GDS_move_to_prev(old) == GDS_STATUS_OK) {
          GDS_size_t k = 0;
          GDS_get_version_number(old, &k);
          compare(old, m[k], k);
          char *label = nullptr;
          size_t label_size = 0;
          GDS_get_version_label(old, &label, &label_size);
          const std::string want = k == 0 ? "" : "L" + std::to_string(k);
          if (std::string(label, label_size) != want) FAIL("version %" PRIu64 " has label \"%.*s\"", k, (int)label_size, label);
          ++seen;
        }
        GDS_free(&old);
        if (seen != info.versions) FAIL("%" PRIu64 " versions navigable, restart info says %" PRIu64, seen, info.versions);
        if (g_rank == 0)
          std::printf("persist_app: restarted from version %" PRIu64 " (%" PRIu64 " navigable, %d process(es) rebuilt, %" PRIu64 " file(s), level %s)\n",
                      info.version, info.versions, info.rebuilt_processes, info.rebuilt_files,
                      info.level == GDS_LEVEL_PREFIX ? "prefix" : info.level == GDS_LEVEL_CACHE ? "cache" : "none");
        // Nobody writes the next version before every process has read this one.
        MPI_Barrier(MPI_COMM_WORLD);
        for (std::uint64_t k = info.version + 1; k < info.version + 1 + more; ++k) step(g, k);
      }
      if (expect == "fresh" || (!info.restarted && expect == "any"))
        for (std::uint64_t k = 0; k < more; ++k) step(g, k);
    }
  }
  if (g != GDS_NULL && GDS_free(&g) != GDS_STATUS_OK) FAIL("GDS_free");
  int failures = 0;
  MPI_Allreduce(&g_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0 && failures == 0) std::printf("persist_app: ok\n");
  GDS_finalize();
  return failures == 0 ? 0 : 1;
}
