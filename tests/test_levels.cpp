// The levels' interface from inside (white-box, MPI): the catalogue's
// locate through incremental chains, and every level's locate of a block of
// a version it holds, checked against the bytes that version had: memory
// (the version store), the cache (the block's bytes in the file it names),
// the prefix (the flushed versions it keeps, none older). Each process
// changes a different number of blocks per version, some none.
#include <gds.h>

#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/array.hpp"
#include "persist/levels.hpp"
#include "persist/names.hpp"
#include "persist/cache.hpp"
#include "persist/state.hpp"
#include "support/gds_test.hpp"
#include "versions/level.hpp"
#include "versions/state.hpp"

using namespace gds::test;
using gds::versions::Catalogue;
using gds::versions::Stored;

namespace {

Catalogue::Entry entry(std::uint64_t n, bool full, std::vector<Stored> own) {
  return Catalogue::Entry{n, n + 1, "", "", full, true, std::move(own)};
}

class Levels : public MpiTest {};

// A fresh directory under /tmp, the same on every process.
std::string scratch_dir(const char *name) {
  char path[256] = {};
  if (world_rank() == 0) {
    std::snprintf(path, sizeof path, "/tmp/gds_%s_XXXXXX", name);
    if (mkdtemp(path) == nullptr) path[0] = 0;
  }
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  return path;
}

}  // namespace

TEST(Catalogue, LocateFindsTheNewestEntryThatStoresTheBlock) {
  Catalogue c;
  c.entries.push_back(entry(4, true, {{0, 10, 100}}));       // blocks 0-9 from byte 100
  c.entries.push_back(entry(5, false, {{2, 3, 64}}));         // 2-4
  c.entries.push_back(entry(6, false, {{0, 1, 64}, {9, 1, 64 + 16}}));
  const unsigned shift = 4;  // 16-byte blocks
  auto at = c.locate(2, 3, shift);
  ASSERT_TRUE(at.has_value());
  EXPECT_EQ(at->holder, 5u);
  EXPECT_EQ(at->at, 64u + 16u);
  at = c.locate(2, 9, shift);
  ASSERT_TRUE(at.has_value());
  EXPECT_EQ(at->holder, 6u);
  EXPECT_EQ(at->at, 80u);
  at = c.locate(2, 7, shift);
  ASSERT_TRUE(at.has_value());
  EXPECT_EQ(at->holder, 4u);
  EXPECT_EQ(at->at, 100u + 7 * 16);
  at = c.locate(1, 0, shift);  // version 5: block 0 is still version 4's
  ASSERT_TRUE(at.has_value());
  EXPECT_EQ(at->holder, 4u);
  EXPECT_FALSE(c.locate(2, 10, shift).has_value());  // past the part
  ASSERT_NE(c.find(5), nullptr);
  EXPECT_EQ(c.find(7), nullptr);
  c.drop_older_than(5);
  EXPECT_EQ(c.entries.size(), 2u);
  EXPECT_FALSE(c.locate(0, 0, shift).has_value());  // its base is gone: a chain cut short
}

TEST_F(Levels, EveryLevelLocatesTheBlocksOfTheVersionsItHolds) {
  const std::string base = scratch_dir("levels_cache"), prefix = scratch_dir("levels_prefix");
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, GDS_COPY_TYPE_KEY, "SINGLE");
  MPI_Info_set(info, GDS_CACHE_BASE_KEY, base.c_str());
  MPI_Info_set(info, GDS_PREFIX_KEY, prefix.c_str());
  MPI_Info_set(info, GDS_VERSION_BLOCK_SIZE_KEY, "64");
  MPI_Info_set(info, GDS_NAME_KEY, "located");
  const GDS_size_t count = 96 * static_cast<GDS_size_t>(nprocs) + 5;  // a short last block somewhere
  GDS_gds_t g = GDS_NULL;
  ASSERT_ALL_GDS_OK(GDS_alloc(1, &count, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info, &g));
  MPI_Info_free(&info);
  gds::core::Cursor *cursor = nullptr;
  ASSERT_EQ(gds::core::resolve("test", g, &cursor), GDS_STATUS_OK);
  gds::core::Array &a = *cursor->array;
  const gds::versions::Store &store = *gds::versions::state(a).store;
  const std::uint64_t block = store.block_bytes(), part = store.local_bytes();
  std::mt19937 rng(77 + static_cast<unsigned>(rank));  // each process changes something different
  std::vector<std::vector<std::byte>> content;         // per version, this process's part
  const GDS_size_t first = a.local_lo[0];
  std::vector<int> mine(static_cast<std::size_t>(part / sizeof(int)), 0);
  for (int v = 0; v < 5; ++v) {
    const std::size_t changes = mine.empty() ? 0 : rng() % (rank + 2) * (v % 2 == 0 ? 1 : 7);  // some none
    for (std::size_t k = 0; k < changes; ++k) {
      const std::size_t at = rng() % mine.size();
      mine[at] = static_cast<int>(rng());
      const GDS_size_t index = first + at;
      ASSERT_GDS_OK(GDS_put(&mine[at], nullptr, &index, &index, g));
    }
    ASSERT_ALL_GDS_OK(GDS_fence(g));
    content.emplace_back(reinterpret_cast<const std::byte *>(mine.data()),
                         reinterpret_cast<const std::byte *>(mine.data()) + part);
    ASSERT_ALL_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
  }
  ASSERT_ALL_GDS_OK(GDS_flush_wait(g));
  const auto block_bytes = [&](std::uint32_t b) { return std::min(part, (b + 1) * block) - b * block; };
  for (std::uint64_t n = 0; n < content.size(); ++n) {
    SCOPED_TRACE("version " + std::to_string(n));
    const auto &want = content[n];
    for (std::uint32_t b = 0; b < store.nblocks(); ++b) {
      // Memory keeps every version (no retention set).
      const auto m = gds::versions::memory().locate(a, n, b);
      ASSERT_TRUE(m.has_value());
      if (m->memory == nullptr) {
        for (std::uint64_t i = 0; i < block_bytes(b); ++i) ASSERT_EQ(want[b * block + i], std::byte{0});
      } else {
        ASSERT_EQ(std::memcmp(m->memory, want.data() + b * block, block_bytes(b)), 0);
      }
      // The cache keeps the last 2 versions (GDS_CACHE_SIZE) and the
      // chains they need; what it locates is where the files hold it.
      const auto c = gds::persist::cache_level().locate(a, n, b);
      if (n + 2 >= content.size()) {
        ASSERT_TRUE(c.has_value());
      }
      if (c) {
        ASSERT_LE(c->holder, n);
        std::ifstream file(gds::persist::version_path(gds::persist::cacher(a).dir, c->holder), std::ios::binary);
        std::vector<char> bytes(block_bytes(b));
        file.seekg(static_cast<std::streamoff>(c->at));
        ASSERT_TRUE(file.read(bytes.data(), static_cast<std::streamsize>(bytes.size())));
        ASSERT_EQ(std::memcmp(bytes.data(), want.data() + b * block, bytes.size()), 0);
      }
      // The prefix keeps the last 2 flushed versions (GDS_PREFIX_SIZE), each whole.
      const auto p = gds::persist::prefix_level().locate(a, n, b);
      ASSERT_EQ(p.has_value(), n + 2 >= content.size());
      if (p) {
        EXPECT_EQ(p->holder, n);
        EXPECT_EQ(p->at, b * block);
      }
    }
  }
  ASSERT_ALL_GDS_OK(GDS_free(&g));
  gds::test::barrier();
  if (rank == 0) {
    std::filesystem::remove_all(base);
    std::filesystem::remove_all(prefix);
  }
}

namespace {

struct Raised {
  int calls = 0;
  GDS_status_t status = GDS_STATUS_OK;
  std::int64_t version = -1;
} g_raised;

GDS_status_t note_raised(GDS_gds_t gds, GDS_error_t e) {
  ++g_raised.calls;
  int flag = 0;
  std::int64_t v = 0;
  if (GDS_get_error_attr(e, GDS_EATTR_GDS_STATUS, &v, &flag) == GDS_STATUS_OK && flag)
    g_raised.status = static_cast<GDS_status_t>(v);
  if (GDS_get_error_attr(e, GDS_EATTR_GDS_VERSION, &v, &flag) == GDS_STATUS_OK && flag) g_raised.version = v;
  return GDS_resume_local(gds, e);
}

}  // namespace

// A cached version whose write fails on one process (its cache directory
// lost), in both modes. Synchronous (the default): GDS_version_inc fails
// on every process (GDS_STATUS_IO_ERROR where it failed), raised to that
// process's handler with the version, and no version is made. Asynchronous:
// GDS_version_inc still returns (the memory version is frozen); the
// failure is raised to that process's handler when the write completes,
// and GDS_cache_wait returns GDS_STATUS_IO_ERROR on every process (once).
// Either way the memory versions are intact, the failed version is not in
// the cache, and with the directory back the next version is cached whole.
class CacheFailure : public MpiTest, public ::testing::WithParamInterface<bool> {};

TEST_P(CacheFailure, AFailedCacheWriteReachesTheHandlerAndTheCall) {
  const bool sync = GetParam();
  const std::string base = scratch_dir(sync ? "levels_sync" : "levels_async");
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, GDS_COPY_TYPE_KEY, "SINGLE");
  MPI_Info_set(info, GDS_CACHE_BASE_KEY, base.c_str());
  MPI_Info_set(info, GDS_NAME_KEY, "background");
  MPI_Info_set(info, GDS_CACHE_SYNC_KEY, sync ? "1" : "0");
  const GDS_size_t count = 1000 * static_cast<GDS_size_t>(nprocs) + 3;
  GDS_gds_t g = GDS_NULL;
  ASSERT_ALL_GDS_OK(GDS_alloc(1, &count, nullptr, MPI_LONG, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info, &g));
  MPI_Info_free(&info);
  GDS_error_pred_t p = GDS_ERROR_PRED_NULL;
  GDS_error_pred_term_t t = GDS_ERROR_PRED_TERM_NULL;
  ASSERT_GDS_OK(GDS_create_error_pred(&p));
  ASSERT_GDS_OK(GDS_create_error_pred_term(GDS_EATTR_DETECTED_BY, GDS_EMEXP_VALUE, 3, "GDS", &t));
  ASSERT_GDS_OK(GDS_add_error_pred_term(p, t));
  ASSERT_GDS_OK(GDS_free_error_pred_term(&t));
  ASSERT_GDS_OK(GDS_register_local_error_handler(g, p, note_raised));
  ASSERT_GDS_OK(GDS_free_error_pred(&p));
  g_raised = Raised{};
  gds::core::Cursor *cursor = nullptr;
  ASSERT_EQ(gds::core::resolve("test", g, &cursor), GDS_STATUS_OK);
  gds::core::Array &a = *cursor->array;
  const std::string dir = gds::persist::cacher(a).dir;
  const int victim = nprocs - 1;
  GDS_size_t lo = 0, hi = 0;
  int owns = 0;
  ASSERT_ALL_GDS_OK(GDS_distribution(g, rank, &lo, &hi, &owns));
  ASSERT_TRUE(owns);
  const GDS_size_t n = hi - lo + 1;
  const auto value = [](int v, GDS_size_t i) { return static_cast<long>(v) * 1000003L + static_cast<long>(i); };
  const auto write = [&](int v) {  // every process writes its own part with version v's values
    std::vector<long> mine(n);
    for (GDS_size_t i = 0; i < n; ++i) mine[i] = value(v, lo + i);
    EXPECT_GDS_OK(GDS_put(mine.data(), nullptr, &lo, &hi, g));
    ASSERT_ALL_GDS_OK(GDS_fence(g));
  };
  const auto make = [&](int v) {
    write(v);
    ASSERT_ALL_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
  };
  make(0);
  make(1);
  ASSERT_ALL_GDS_OK(GDS_cache_wait(g));
  if (rank == victim) std::filesystem::remove_all(dir);
  gds::test::barrier();
  if (sync) {
    write(2);
    EXPECT_EQ(GDS_version_inc(g, 1, nullptr, 0), rank == victim ? GDS_STATUS_IO_ERROR : GDS_STATUS_REMOTE_ERROR);
    ASSERT_ALL_GDS_OK(GDS_cache_wait(g));  // nothing left to report
  } else {
    make(2);  // returns: the write fails in the background
    EXPECT_EQ(GDS_cache_wait(g), GDS_STATUS_IO_ERROR);
    ASSERT_ALL_GDS_OK(GDS_cache_wait(g));  // reported once
  }
  if (rank == victim) {
    EXPECT_GE(g_raised.calls, 1);
    EXPECT_EQ(g_raised.status, GDS_STATUS_IO_ERROR);
    EXPECT_EQ(g_raised.version, 2);
  }
  // Every memory version holds what it held (synchronous: version 2 was not made).
  const int newest = sync ? 1 : 2;
  GDS_gds_t old = GDS_NULL;
  ASSERT_GDS_OK(GDS_descriptor_clone(g, &old));
  for (int v = newest; v >= 0; --v) {
    ASSERT_GDS_OK(GDS_version_dec(old, 1));
    std::vector<long> got(n);
    ASSERT_GDS_OK(GDS_get(got.data(), nullptr, &lo, &hi, old));
    ASSERT_GDS_OK(GDS_wait(old));
    for (GDS_size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], value(v, lo + i)) << "version " << v << " element " << lo + i;
  }
  ASSERT_GDS_OK(GDS_free(&old));
  EXPECT_FALSE(gds::persist::cache_level().locate(a, 2, 0).has_value());
  EXPECT_TRUE(gds::persist::cache_level().locate(a, 1, 0).has_value());
  if (rank == victim) std::filesystem::create_directories(dir);
  gds::test::barrier();
  const int next = newest + 1;
  make(next);
  ASSERT_ALL_GDS_OK(GDS_cache_wait(g));
  EXPECT_TRUE(gds::persist::cache_level().locate(a, next, 0).has_value());
  EXPECT_TRUE(std::filesystem::exists(gds::persist::record_path(dir, next)));
  ASSERT_ALL_GDS_OK(GDS_free(&g));
  gds::test::barrier();
  if (rank == 0) std::filesystem::remove_all(base);
}

INSTANTIATE_TEST_SUITE_P(Modes, CacheFailure, ::testing::Values(true, false),
                         [](const auto &info) { return info.param ? "Synchronous" : "Asynchronous"; });
