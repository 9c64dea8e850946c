// A root CD persisted through the cache (storage_info level=cache), restarted in one process's
// lifetime: its point (a different size on every process: 3 doubles on rank 1, 200 + 31 * rank
// elsewhere) is found again by a root of the same name, as a restarted job finds it, and comes
// back through the add calls; a restarted program adding other lengths is refused and changes
// nothing; a point that outgrows the store's capacity goes to a new generation, found again; a
// box of a GDS array (uneven blocks) comes back into the array when the restarted root adds it. ctest gives the job's cache (GDS_JOB_ID, GDS_CACHE_BASE, GDS_COPY_TYPE) before
// GDS_init; every run names its root afresh, so a cache left by an earlier run is not found.
// (The kill -9 of a whole job and its rerun: app_cd_persist, tests/cd_persist_app.cpp.)
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "support/gds_test.hpp"

using namespace gds::test;

namespace {

class CdPersist : public MpiTest {};

TEST_F(CdPersist, APersistedRootIsFoundAgainByNameWithItsPoint) {
  unsigned long tag = std::random_device{}();
  MPI_Bcast(&tag, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
  const std::string name = "solver-" + std::to_string(tag);
  GDS_cd_t cd = GDS_CD_NULL;
  const auto named = [&](const char *what) {  // arrays named afresh too: the cache outlives a run
    MPI_Info info = MPI_INFO_NULL;
    MPI_Info_create(&info);
    MPI_Info_set(info, GDS_NAME_KEY, (std::string(what) + "-" + std::to_string(tag)).c_str());
    return info;
  };
  std::vector<double> v(rank == 1 ? 3 : 200 + 31 * static_cast<std::size_t>(rank));  // a different size each
  int step = 0;
  const auto ranges = [&] {
    return std::vector<GDS_cd_range_t>{{&step, sizeof step, GDS_CD_READ_WRITE, GDS_CD_GLOBAL},
                                       {v.data(), v.size() * sizeof(double), GDS_CD_READ_WRITE, GDS_CD_GLOBAL}};
  };
  auto r = ranges();
  ASSERT_ALL_GDS_OK(GDS_cd_create(GDS_CD_NULL, GDS_COMM_WORLD, name.c_str(), "level=cache", GDS_CD_LOGGING_DISABLED, &cd));
  int again = -1;
  EXPECT_GDS_OK(GDS_cd_restored(cd, &again));
  EXPECT_EQ(again, 0) << "a fresh job has no persisted point";
  EXPECT_GDS_OK(GDS_cd_preserve(cd, GDS_CD_VIA_COPY, r.data(), 2, nullptr, nullptr));
  // A GDS_create array's buffer is the program's memory: it is preserved as a range, not as a box.
  GDS_gds_t g = GDS_NULL;
  std::vector<int> buffer(8);
  MPI_Info buffer_info = named("buffer");
  const GDS_size_t n = 8 * static_cast<GDS_size_t>(nprocs), lo0 = 0, hi0 = 0;
  ASSERT_ALL_GDS_OK(GDS_create(1, &n, MPI_INT, nullptr, nullptr, buffer.data(), buffer.size(), GDS_PRIORITY_HIGH,
                               GDS_COMM_WORLD, buffer_info, &g));
  MPI_Info_free(&buffer_info);
  EXPECT_EQ(GDS_cd_preserve_box(cd, GDS_CD_VIA_COPY, g, &lo0, &hi0, GDS_CD_READ_WRITE, nullptr, nullptr),
            GDS_STATUS_INVALID);
  EXPECT_GDS_OK(GDS_free(&g));
  for (step = 1; step <= 3; ++step) {
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = step * 1000.0 + static_cast<double>(i) + rank * 0.5;
    EXPECT_GDS_OK(GDS_cd_preserve(cd, GDS_CD_VIA_COPY, r.data(), 2, nullptr, nullptr));  // promoted: READ_WRITE
    EXPECT_GDS_OK(GDS_cd_advance(cd));                                                   // the point persisted
  }
  const std::vector<double> expected = v;
  step = -1;
  std::fill(v.begin(), v.end(), 0.0);
  EXPECT_GDS_OK(GDS_cd_commit(&cd));  // its store freed: its versions durable, as after a kill at this point

  // The same name again: the point comes back through the add call.
  ASSERT_ALL_GDS_OK(GDS_cd_create(GDS_CD_NULL, GDS_COMM_WORLD, name.c_str(), "level=cache", GDS_CD_LOGGING_DISABLED, &cd));
  EXPECT_GDS_OK(GDS_cd_restored(cd, &again));
  EXPECT_EQ(again, 1);
  EXPECT_GDS_OK(GDS_cd_preserve(cd, GDS_CD_VIA_COPY, r.data(), 2, nullptr, nullptr));
  EXPECT_EQ(step, 3);
  EXPECT_EQ(v, expected);
  EXPECT_GDS_OK(GDS_cd_commit(&cd));

  // A restarted program adding a range of another length is refused, and changes nothing.
  ASSERT_ALL_GDS_OK(GDS_cd_create(GDS_CD_NULL, GDS_COMM_WORLD, name.c_str(), "level=cache", GDS_CD_LOGGING_DISABLED, &cd));
  if (rank == nprocs - 1) {
    step = 7;
    auto wrong = r;
    wrong[0].length = 2;
    EXPECT_EQ(GDS_cd_preserve(cd, GDS_CD_VIA_COPY, wrong.data(), 2, nullptr, nullptr), GDS_STATUS_INVALID);
    EXPECT_EQ(step, 7);
  }
  EXPECT_GDS_OK(GDS_cd_commit(&cd));


  // A point that outgrows the store (64 KiB a process) goes to a new generation, found again;
  // only the last process holds the large range.
  std::vector<double> big(rank == nprocs - 1 ? 20000 : 0);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<double>(i) * 0.25;
  ASSERT_ALL_GDS_OK(GDS_cd_create(GDS_CD_NULL, GDS_COMM_WORLD, name.c_str(), "level=cache", GDS_CD_LOGGING_DISABLED, &cd));
  EXPECT_GDS_OK(GDS_cd_preserve(cd, GDS_CD_VIA_COPY, r.data(), 2, nullptr, nullptr));
  const GDS_cd_range_t b{big.data(), big.size() * sizeof(double), GDS_CD_READ_WRITE, GDS_CD_GLOBAL};
  if (!big.empty()) EXPECT_GDS_OK(GDS_cd_preserve(cd, GDS_CD_VIA_COPY, &b, 1, nullptr, nullptr));
  EXPECT_GDS_OK(GDS_cd_advance(cd));
  EXPECT_GDS_OK(GDS_cd_advance(cd));
  EXPECT_GDS_OK(GDS_cd_commit(&cd));
  const std::vector<double> big_expected = big;
  std::fill(big.begin(), big.end(), -1.0);
  ASSERT_ALL_GDS_OK(GDS_cd_create(GDS_CD_NULL, GDS_COMM_WORLD, name.c_str(), "level=cache", GDS_CD_LOGGING_DISABLED, &cd));
  EXPECT_GDS_OK(GDS_cd_restored(cd, &again));
  EXPECT_EQ(again, 1);
  EXPECT_GDS_OK(GDS_cd_preserve(cd, GDS_CD_VIA_COPY, r.data(), 2, nullptr, nullptr));
  if (!big.empty()) EXPECT_GDS_OK(GDS_cd_preserve(cd, GDS_CD_VIA_COPY, &b, 1, nullptr, nullptr));
  EXPECT_EQ(step, 3);
  EXPECT_EQ(big, big_expected);
  EXPECT_GDS_OK(GDS_cd_commit(&cd));

  // A box of a GDS array (uneven blocks) in the persisted point: this process's part of the
  // version the advance pinned comes back into the array when the restarted root adds the box.
  GDS_gds_t a = GDS_NULL;
  const GDS_size_t count = 50 * static_cast<GDS_size_t>(nprocs) + 7, first = 0, last = count - 1;
  MPI_Info field_info = named("field");
  ASSERT_ALL_GDS_OK(GDS_alloc(1, &count, nullptr, MPI_LONG_LONG, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, field_info, &a));
  MPI_Info_free(&field_info);
  const auto fill = [&](long long k) {
    GDS_size_t lo = 0, hi = 0;
    int owns = 0;
    EXPECT_GDS_OK(GDS_distribution(a, rank, &lo, &hi, &owns));
    if (owns != 0) {
      std::vector<long long> x(hi - lo + 1);
      for (GDS_size_t i = lo; i <= hi; ++i) x[i - lo] = static_cast<long long>(i) * k;
      EXPECT_GDS_OK(GDS_put(x.data(), nullptr, &lo, &hi, a));
    }
    EXPECT_GDS_OK(GDS_fence(a));
  };
  const auto whole = [&] {
    std::vector<long long> x(count);
    EXPECT_GDS_OK(GDS_get(x.data(), nullptr, &first, &last, a));
    EXPECT_GDS_OK(GDS_wait(a));
    EXPECT_GDS_OK(GDS_fence(a));
    return x;
  };
  fill(3);
  ASSERT_ALL_GDS_OK(GDS_cd_create(GDS_CD_NULL, GDS_COMM_WORLD, name.c_str(), "level=cache", GDS_CD_LOGGING_DISABLED, &cd));
  EXPECT_GDS_OK(GDS_cd_preserve(cd, GDS_CD_VIA_COPY, r.data(), 2, nullptr, nullptr));
  if (!big.empty()) EXPECT_GDS_OK(GDS_cd_preserve(cd, GDS_CD_VIA_COPY, &b, 1, nullptr, nullptr));
  EXPECT_GDS_OK(GDS_cd_preserve_box(cd, GDS_CD_VIA_COPY, a, &first, &last, GDS_CD_READ_WRITE, nullptr, nullptr));
  fill(5);
  EXPECT_GDS_OK(GDS_cd_advance(cd));  // the point: the array at 5i
  const std::vector<long long> at_point = whole();
  EXPECT_GDS_OK(GDS_cd_advance(cd));
  EXPECT_GDS_OK(GDS_cd_commit(&cd));
  fill(-1);
  ASSERT_ALL_GDS_OK(GDS_cd_create(GDS_CD_NULL, GDS_COMM_WORLD, name.c_str(), "level=cache", GDS_CD_LOGGING_DISABLED, &cd));
  EXPECT_GDS_OK(GDS_cd_restored(cd, &again));
  EXPECT_EQ(again, 1);
  EXPECT_GDS_OK(GDS_cd_preserve(cd, GDS_CD_VIA_COPY, r.data(), 2, nullptr, nullptr));
  if (!big.empty()) EXPECT_GDS_OK(GDS_cd_preserve(cd, GDS_CD_VIA_COPY, &b, 1, nullptr, nullptr));
  const GDS_size_t other = last - 1;  // another box than the persisted one: refused on every process
  EXPECT_EQ(GDS_cd_preserve_box(cd, GDS_CD_VIA_COPY, a, &first, &other, GDS_CD_READ_WRITE, nullptr, nullptr),
            GDS_STATUS_INVALID);
  std::vector<long long> unchanged(count);
  for (GDS_size_t i = 0; i < count; ++i) unchanged[i] = -static_cast<long long>(i);
  EXPECT_EQ(whole(), unchanged);
  EXPECT_GDS_OK(GDS_cd_preserve_box(cd, GDS_CD_VIA_COPY, a, &first, &last, GDS_CD_READ_WRITE, nullptr, nullptr));
  EXPECT_EQ(whole(), at_point);
  EXPECT_GDS_OK(GDS_cd_commit(&cd));
  EXPECT_GDS_OK(GDS_free(&a));
}

}  // namespace
