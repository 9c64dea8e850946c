// The MPI calls a version makes, counted per process inside the version
// calls by a PMPI counter (support/mpi_count.cpp), at every process count
// from 1 to the job's in one run (arrays over the first k processes), for
// one array and for groups of 1 and 3 members, in memory and with PARTNER
// and XOR caches. In steady state (the store grown, the cache's files
// laid out) a version makes at most 2 collectives in memory and 4 with the
// cache, whatever the number of members; none whose data grows with the
// processes; and the same collectives, bytes and messages at every process
// count (each process writes into its own part and into the next
// process's, as a stencil does). XOR sets are of 2 (their messages grow
// with the set's size, which GDS_SET_SIZE bounds). A restore is counted too.
// Where no process writes one-sidedly into another's part, a memory version
// is the one agreement; when processes start writing into others' parts the
// first version takes a round more, and when they stop the first version
// after still exchanges. Members are GDS_alloc arrays, GDS_create arrays
// (their own part written by the program's stores) or groups mixing them;
// the writes into others' parts come from a writer made slow on purpose
// (its targets enter the version first), after each synchronisation in
// turn (none, GDS_wait, GDS_wait_local, GDS_fence), and every version is
// read back by every process and checked (issue 42: a GDS_create array's
// version missed such a put, and found no wrong guess to retry).
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string>
#include <vector>

#include "support/gds_test.hpp"
#include "support/mpi_count.hpp"

using namespace gds::test;

namespace {

constexpr Index kPart = 16384;  // ints per process per member (64 KiB)
constexpr int kWarmVersions = 4;

enum class Sync { none, wait, wait_local, fence };
constexpr Sync kSyncs[] = {Sync::none, Sync::wait, Sync::wait_local, Sync::fence};
const char *name(Sync s) {
  return s == Sync::none ? "no synchronisation" : s == Sync::wait ? "GDS_wait" : s == Sync::wait_local ? "GDS_wait_local" : "GDS_fence";
}
constexpr int kCountedVersions = 4;

struct Setting {
  const char *name;
  const char *copy_type;  // nullptr: memory only
  std::uint64_t max_collectives;
  int min_processes;
};
constexpr Setting kSettings[] = {
    {"memory", nullptr, 2, 1},
    {"PARTNER", "PARTNER", 4, 2},
    {"XOR", "XOR", 4, 2},
};

// Where each process writes before each version: into its own part and the
// next process's (a stencil's halo written one-sidedly), into its own only,
// or the one in the warm versions and the other in the counted ones.
enum class Writes { neighbours, own, stopped, started };

// The members' kind: GDS_alloc arrays, GDS_create arrays, or GDS_create
// and GDS_alloc in turn (a mixed group; one array: GDS_create).
enum class Kind { alloc, create, mixed };
const char *name(Kind k) { return k == Kind::alloc ? "GDS_alloc" : k == Kind::create ? "GDS_create" : "mixed"; }

// GDS_create's mapping: kPart elements per process, in rank order.
GDS_status_t part_g2l(const GDS_size_t g[], int *rank, GDS_size_t *offset, void *) {
  *rank = static_cast<int>(g[0] / kPart);
  *offset = g[0] % kPart;
  return GDS_STATUS_OK;
}
GDS_status_t part_l2g(GDS_size_t offset, GDS_size_t g[], void *context) {
  g[0] = static_cast<GDS_size_t>(*static_cast<const int *>(context)) * kPart + offset;
  return GDS_STATUS_OK;
}

// What one configuration counted: the most of any version and process (the
// last version: the most of any process).
struct Counted {
  MpiCounts version, restore, last;
};

// The most of each count, element by element.
void most(MpiCounts *into, const MpiCounts &c) {
  into->collectives = std::max(into->collectives, c.collectives);
  into->collective_bytes = std::max(into->collective_bytes, c.collective_bytes);
  into->growing = std::max(into->growing, c.growing);
  into->objects = std::max(into->objects, c.objects);
  into->messages = std::max(into->messages, c.messages);
  into->message_bytes = std::max(into->message_bytes, c.message_bytes);
  into->rma = std::max(into->rma, c.rma);
  into->rma_bytes = std::max(into->rma_bytes, c.rma_bytes);
}

constexpr int kFields = 8;
std::array<std::uint64_t, kFields> fields(const MpiCounts &c) {
  return {c.collectives, c.collective_bytes, c.growing, c.objects, c.messages, c.message_bytes, c.rma, c.rma_bytes};
}
MpiCounts from_fields(const std::uint64_t *f) { return MpiCounts{f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]}; }

class VersionMessages : public MpiTest {
 protected:
  void SetUp() override {
    long id = static_cast<long>(getpid());
    MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    dir = "/tmp/gds-messages-" + std::to_string(id);
    if (rank == 0) std::system(("mkdir -p " + dir).c_str());
    barrier();
  }
  void TearDown() override {
    barrier();
    if (rank == 0) std::system(("rm -rf " + dir).c_str());
    MpiTest::TearDown();
  }

  // Versions (and a restore) of `members` arrays over the first k processes
  // (a group when `grouped`), counted; the most over the processes, on every process.
  Counted measure(const Setting &s, int k, int members, bool grouped, Writes writes = Writes::neighbours,
                  Kind kind = Kind::alloc) {
    Counted mine;
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, rank < k ? 0 : MPI_UNDEFINED, rank, &comm);
    if (comm != MPI_COMM_NULL) {
      run(s, comm, k, members, grouped, writes, kind, &mine);
      MPI_Comm_free(&comm);
    }
    std::array<std::uint64_t, 3 * kFields> in{}, out{};
    const auto v = fields(mine.version), r = fields(mine.restore), l = fields(mine.last);
    std::copy(v.begin(), v.end(), in.begin());
    std::copy(r.begin(), r.end(), in.begin() + kFields);
    std::copy(l.begin(), l.end(), in.begin() + 2 * kFields);
    allreduce(in.data(), out.data(), 3 * kFields, MPI_UINT64_T, MPI_MAX);
    return Counted{from_fields(out.data()), from_fields(out.data() + kFields), from_fields(out.data() + 2 * kFields)};
  }

  // (Collective over comm only: EXPECT, not ASSERT_ALL, which is over every process.)
  void run(const Setting &s, MPI_Comm comm, int k, int members, bool grouped, Writes writes, Kind kind,
           Counted *counted) {
    MPI_Info info;
    MPI_Info_create(&info);
    if (s.copy_type != nullptr) {
      MPI_Info_set(info, GDS_COPY_TYPE_KEY, s.copy_type);
      MPI_Info_set(info, GDS_CACHE_BASE_KEY, dir.c_str());
      MPI_Info_set(info, GDS_SET_SIZE_KEY, "2");  // XOR: sets of 2 (of 3 where 3 processes must share one)
    }
    std::vector<GDS_gds_t> arrays(static_cast<std::size_t>(members), GDS_NULL);
    const Index n = kPart * static_cast<Index>(k);
    int me = 0;
    MPI_Comm_rank(comm, &me);
    // GDS_create members' memory, and every member's content as the program expects it.
    std::vector<std::vector<int>> buffers(static_cast<std::size_t>(members));
    std::vector<std::vector<int>> model(static_cast<std::size_t>(members), std::vector<int>(n, 0));
    const auto created = [&](int m) { return kind == Kind::create || (kind == Kind::mixed && m % 2 == 0); };
    for (int m = 0; m < members; ++m) {
      const std::string name = std::string(s.name) + "-k" + std::to_string(k) + "-m" + std::to_string(members) +
                               (grouped ? "g" : "") + "-" + ::name(kind) + "-" + std::to_string(m);
      MPI_Info_set(info, GDS_NAME_KEY, name.c_str());
      if (created(m)) {
        buffers[m].assign(kPart, 0);
        EXPECT_GDS_OK(GDS_create_with_context(1, &n, MPI_INT, part_g2l, part_l2g, &me, buffers[m].data(), kPart,
                                              GDS_PRIORITY_HIGH, comm, info, &arrays[m]));
      } else {
        EXPECT_GDS_OK(GDS_alloc(1, &n, nullptr, MPI_INT, GDS_PRIORITY_HIGH, comm, info, &arrays[m]));
      }
    }
    MPI_Info_free(&info);
    GDS_group_t group = GDS_GROUP_NULL;
    if (grouped) EXPECT_GDS_OK(GDS_group_create("counted", members, arrays.data(), &group));
    const auto version = [&](int v, bool count) {
      // Into its own part (at an offset of its own: GDS_create arrays by
      // the program's stores) and 16 elements into the next process's, by
      // a writer slower than its target now and then; then the
      // synchronisation of the version's turn.
      const Sync sync = kSyncs[v % 4];
      std::vector<int> data(4096, v);
      const bool neighbour = writes == Writes::neighbours || (writes == Writes::stopped && !count) ||
                             (writes == Writes::started && count);
      if (neighbour && v % 3 == 1 && me == v % k) usleep(3000);
      for (int m = 0; m < members; ++m) {
        GDS_gds_t a = arrays[m];
        const Index own = kPart * static_cast<Index>(me) + 97 * static_cast<Index>(me), own_end = own + 4095;
        if (created(m))
          std::copy(data.begin(), data.end(), buffers[m].begin() + static_cast<std::ptrdiff_t>(own - kPart * me));
        else
          EXPECT_GDS_OK(GDS_put(data.data(), nullptr, &own, &own_end, a));
        for (int p = 0; p < k; ++p) std::fill_n(model[m].begin() + kPart * p + 97 * p, 4096, v);
        const Index next = kPart * static_cast<Index>((me + 1) % k) + 8000, next_end = next + 15;
        if (neighbour) {
          EXPECT_GDS_OK(GDS_put(data.data(), nullptr, &next, &next_end, a));
          for (int p = 0; p < k; ++p) std::fill_n(model[m].begin() + kPart * p + 8000, 16, v);
        }
        if (sync == Sync::wait) EXPECT_GDS_OK(GDS_wait(a));
        if (sync == Sync::wait_local) EXPECT_GDS_OK(GDS_wait_local(a));
        if (sync == Sync::fence) EXPECT_GDS_OK(GDS_fence(a));
      }
      if (count) count_mpi_start();
      if (grouped)
        EXPECT_GDS_OK(GDS_group_version_inc(group, 1, nullptr, 0));
      else
        EXPECT_GDS_OK(GDS_version_inc(arrays[0], 1, nullptr, 0));
      if (count) {
        counted->last = count_mpi_stop();
        most(&counted->version, counted->last);
      }
      // The version just made, read back by every process where the
      // others' writes land: its own part (through a clone, not counted;
      // a version never changes, so no one waits for the reads).
      for (int m = 0; m < members; ++m) {
        GDS_gds_t old = GDS_NULL;
        EXPECT_GDS_OK(GDS_descriptor_clone(arrays[m], &old));
        EXPECT_GDS_OK(GDS_move_to_prev(old));
        std::vector<int> got(kPart, -1);
        const Index lo = kPart * static_cast<Index>(me), hi = lo + kPart - 1;
        EXPECT_GDS_OK(GDS_get(got.data(), nullptr, &lo, &hi, old));
        EXPECT_GDS_OK(GDS_wait(old));
        EXPECT_TRUE(std::equal(got.begin(), got.end(), model[m].begin() + static_cast<std::ptrdiff_t>(lo)))
            << s.name << ", " << name(kind) << " member " << m << ": version " << v << " lacks writes made before it ("
            << name(sync) << ")";
        EXPECT_GDS_OK(GDS_free(&old));
      }
    };
    for (int v = 0; v < kWarmVersions; ++v) version(v, false);
    for (int v = 0; v < kCountedVersions; ++v) version(kWarmVersions + v, true);
    // Back to the version before the last.
    GDS_size_t current = 0;
    EXPECT_GDS_OK(GDS_get_version_number(arrays[0], &current));
    count_mpi_start();
    if (grouped)
      EXPECT_GDS_OK(GDS_group_version_restore(group, current - 2));
    else
      EXPECT_GDS_OK(GDS_version_restore(arrays[0], current - 2));
    counted->restore = count_mpi_stop();
    if (grouped) EXPECT_GDS_OK(GDS_group_free(&group));
    for (GDS_gds_t &a : arrays) EXPECT_GDS_OK(GDS_free(&a));
  }

  std::string dir;
};

TEST_F(VersionMessages, SameAtEveryProcessCountAndMemberCount) {
  for (const Setting &s : kSettings) {
    // [k][shape]: one array, a group of 1, a group of 3; one GDS_create
    // array, a group of 3 mixing GDS_create and GDS_alloc arrays.
    constexpr int kShapes = 5;
    const int members_of[kShapes] = {1, 1, 3, 1, 3};
    const bool grouped_of[kShapes] = {false, true, true, false, true};
    const Kind kind_of[kShapes] = {Kind::alloc, Kind::alloc, Kind::alloc, Kind::create, Kind::mixed};
    std::vector<std::array<Counted, kShapes>> at(static_cast<std::size_t>(nprocs) + 1);
    for (int k = s.min_processes; k <= nprocs; ++k)
      for (int shape = 0; shape < kShapes; ++shape) {
        at[k][shape] = measure(s, k, members_of[shape], grouped_of[shape], Writes::neighbours, kind_of[shape]);
        const Counted &c = at[k][shape];
        const std::string where = std::string(s.name) + ", " + std::to_string(k) + " process(es), " +
                                  (grouped_of[shape] ? "a group of " + std::to_string(members_of[shape]) : "one array") +
                                  " (" + name(kind_of[shape]) + ")";
        if (rank == 0)
          std::printf("%s:\n  version: %s\n  restore: %s\n", where.c_str(), c.version.describe().c_str(),
                      c.restore.describe().c_str());
        EXPECT_LE(c.version.collectives, s.max_collectives) << where;
        EXPECT_EQ(c.version.growing, 0u) << where;
        EXPECT_EQ(c.version.objects, 0u) << where << ": no communicator or window in steady state";
        EXPECT_EQ(c.restore.growing, 0u) << where;
        EXPECT_EQ(c.restore.objects, 0u) << where;
        // No more collectives than one array, and in memory no more messages
        // (the cache sends each member's file: its messages are per member).
        if (shape > 0) {
          EXPECT_EQ(c.version.collectives, at[k][0].version.collectives) << where;
          EXPECT_EQ(c.restore.collectives, at[k][0].restore.collectives) << where;
          if (s.copy_type == nullptr && kind_of[shape] == Kind::alloc) {
            EXPECT_EQ(c.version.messages, at[k][0].version.messages) << where;
          }
        }
        // The same at every process count with neighbours (2 on): collectives,
        // their bytes, messages and bytes. (An XOR set's messages grow with
        // its size, at most GDS_SET_SIZE: at 3 processes the one set has 3.)
        if (k > 2 && !(s.copy_type != nullptr && std::string(s.copy_type) == "XOR" && k % 2 == 1)) {
          const Counted &two = at[2][shape];
          EXPECT_EQ(c.version.collectives, two.version.collectives) << where;
          EXPECT_EQ(c.version.collective_bytes, two.version.collective_bytes) << where;
          EXPECT_EQ(c.version.messages, two.version.messages) << where;
          EXPECT_EQ(c.version.message_bytes, two.version.message_bytes) << where;
          EXPECT_EQ(c.version.rma, two.version.rma) << where;
          EXPECT_EQ(c.restore.collectives, two.restore.collectives) << where;
          EXPECT_EQ(c.restore.collective_bytes, two.restore.collective_bytes) << where;
          EXPECT_EQ(c.restore.messages, two.restore.messages) << where;
        }
        // Alone, a process tells no one anything.
        if (k == 1) {
          EXPECT_EQ(c.version.messages, 0u) << where;
          EXPECT_EQ(c.version.rma, 0u) << where;
        }
      }
  }
}

// Each process writes only into its own part: a memory version is the one
// agreement, at every process count and for any number of members (and a
// cached one a collective fewer than with neighbours). When processes start
// writing into others' parts, the first version finds it in its agreement
// and makes one round more (3 collectives), the next exchange first (2);
// when they stop, the first version after still exchanges, the next are the
// agreement alone.
// (One array and a group of 3; the changes of pattern at the job's process
// count only: the suite runs this at 1, 2 and 4 processes, on 2 cores.)
TEST_F(VersionMessages, OneAgreementWhereNoProcessWritesIntoAnother) {
  for (const Setting &s : kSettings) {
    constexpr int kShapes = 2;
    const int members_of[kShapes] = {1, 3};
    const bool grouped_of[kShapes] = {false, true};
    for (const Kind kind : {Kind::alloc, Kind::create, Kind::mixed})
      for (int k = s.min_processes; k <= nprocs; ++k)
        for (int shape = 0; shape < kShapes; ++shape) {
          if (kind == Kind::mixed && !grouped_of[shape]) continue;  // one array: GDS_create's case
          // GDS_create members: in memory at the job's process count (the
          // cache's counts with them are the first test's).
          if (kind != Kind::alloc && (s.copy_type != nullptr || k != nprocs)) continue;
          const std::string where = std::string(s.name) + ", " + std::to_string(k) + " process(es), " +
                                    (grouped_of[shape] ? "a group of " + std::to_string(members_of[shape]) : "one array") +
                                    " (" + name(kind) + ")";
          const Counted own = measure(s, k, members_of[shape], grouped_of[shape], Writes::own, kind);
          if (rank == 0) std::printf("%s, own parts only:\n  version: %s\n", where.c_str(), own.version.describe().c_str());
          EXPECT_LE(own.version.collectives, s.max_collectives - 1) << where;
          if (s.copy_type == nullptr) {
            EXPECT_EQ(own.version.collectives, 1u) << where;
            EXPECT_EQ(own.version.messages, 0u) << where;
          }
          if (k == 1 || k != nprocs) continue;  // alone, a process writes into no other
          const Counted started = measure(s, k, members_of[shape], grouped_of[shape], Writes::started, kind);
          const Counted stopped = measure(s, k, members_of[shape], grouped_of[shape], Writes::stopped, kind);
          if (s.copy_type == nullptr) {
            EXPECT_EQ(started.version.collectives, 3u) << where << ": the first version with neighbours' writes";
            EXPECT_EQ(started.last.collectives, 2u) << where << ": the versions after it exchange first";
            EXPECT_EQ(stopped.version.collectives, 2u) << where << ": the first version without them still exchanges";
            EXPECT_EQ(stopped.last.collectives, 1u) << where << ": the versions after it are the agreement alone";
          }
        }
  }
}

}  // namespace

namespace {

// The first versions of an array with the default byte budget make their
// windows once: the first data slab holds what the budget keeps and one
// version more, so that the versions filling it (each changing the whole
// part, 1 MiB per process) make no window; the first makes its slabs'.
// Growing 1, 2, 4 x the part, versions 2 and 3 made one each.
TEST_F(VersionMessages, FirstVersionsMakeTheirWindowsOnce) {
  constexpr Index kInts = 262144;  // 1 MiB per process: 64 blocks of 16 KiB
  const Index n = kInts * static_cast<Index>(nprocs);
  GDS_gds_t a = GDS_NULL;
  ASSERT_GDS_OK(GDS_alloc(1, &n, nullptr, MPI_INT, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &a));
  const Index lo = kInts * static_cast<Index>(rank), hi = lo + kInts - 1;
  std::vector<int> data(kInts);
  GDS_version_stats_t st{};
  for (int v = 0; v < 8; ++v) {
    std::fill(data.begin(), data.end(), 10 * v + rank);
    EXPECT_GDS_OK(GDS_put(data.data(), nullptr, &lo, &hi, a));
    EXPECT_GDS_OK(GDS_fence(a));
    count_mpi_start();
    EXPECT_GDS_OK(GDS_version_inc(a, 1, nullptr, 0));
    const MpiCounts c = count_mpi_stop();
    if (v == 0)
      EXPECT_GT(c.objects, 0u) << "the first version makes the slabs' windows";
    else
      EXPECT_EQ(c.objects, 0u) << "version " << v << ": " << c.describe();
    EXPECT_GDS_OK(GDS_get_version_stats(a, &st));
  }
  EXPECT_GE(st.versions, 3u) << "the default budget keeps 4 x the part: 3 versions and their tables";
  EXPECT_LT(st.versions, 8u) << "retention dropped versions: the room was reused";
  EXPECT_GDS_OK(GDS_free(&a));
}

}  // namespace
