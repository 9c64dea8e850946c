// The versions of GDS_create arrays hold every write the program made,
// through every path a program has, whichever way GDS finds the changes:
// by the kernel's write tracking at every version (GDS_WRITE_TRACKING=kernel),
// paused and resumed by its cost (auto, the default), or by comparing every
// block (compare: the same scenarios, the method the tracking replaces).
//
// Model-based, seeded (printed; GDS_TEST_SEED=<seed> replays it): each
// process's part is page-aligned memory or a buffer that starts and ends
// inside pages, of very different sizes (some empty), with version blocks
// smaller and larger than a page. Each step, decided alike on every
// process, each process changes its part some ways and not others:
//   stores in a loop (a few elements, or all of them: tracking then pauses
//   and resumes), memcpy, MPI_Recv and MPI_Irecv into the buffer, read()
//   from a file (the kernel writes), madvise(MADV_DONTNEED) of whole pages
//   (they read as zeros), process_vm_writev by another process (what an
//   MPI's CMA copy does), and GDS_put from other processes.
// Right after every version every process reads the version just made and
// compares it with the model; at the end every retained version again.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>

#include "support/gds_test.hpp"
#include "support/parts.hpp"

using namespace gds::test;

namespace {

using Value = long long;
constexpr std::size_t kPage = 4096;

class WriteTracking : public MpiTest {
 protected:
  std::mt19937 shared;  // the same sequence on every process
  Parts parts;
  std::vector<std::size_t> skew;  // per process: bytes from a page boundary to its buffer
  Index n = 0;
  std::byte *mapping = nullptr;  // this process's pages
  std::size_t mapped = 0;
  Value *buffer = nullptr;  // its part
  Index mine = 0;
  GDS_gds_t g = GDS_NULL;
  std::vector<Value> model;  // the whole array
  std::map<Index, std::vector<Value>> versions;
  Index number = 0;
  std::vector<long> pids;
  std::vector<unsigned long long> addresses;
  std::string file;
  std::vector<Value> in_flight;

  unsigned pick(unsigned n) { return static_cast<unsigned>(shared() % n); }
  [[nodiscard]] Index first(int r) const { return parts.first[static_cast<std::size_t>(r)]; }
  [[nodiscard]] Index count(int r) const { return first(r + 1) - first(r); }
  Value next_value() { return static_cast<Value>(shared() % 1000000007ULL) + 1; }

  void make(const char *block) {
    parts.rank = rank;
    parts.first.assign(1, 0);
    skew.clear();
    for (int r = 0; r < nprocs; ++r) {
      const unsigned p = pick(6);
      // Empty, under a page, a few pages, many pages.
      const Index size = p == 0 && nprocs > 1 ? 0 : p == 1 ? 1 + pick(300) : p < 4 ? 512 * (1 + pick(8)) + pick(512) : 512 * (40 + pick(60));
      parts.first.push_back(parts.first.back() + size);
      skew.push_back(pick(2) == 0 ? 0 : 8 * (1 + pick(300)));
    }
    if (parts.first.back() == 0)  // never all empty
      for (int r = 0; r < nprocs; ++r) parts.first[static_cast<std::size_t>(r) + 1] += 700 * (r + 1);
    n = parts.first.back();
    mine = count(rank);
    mapped = (skew[static_cast<std::size_t>(rank)] + static_cast<std::size_t>(mine) * sizeof(Value) + kPage - 1) / kPage * kPage + kPage;
    void *m = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(m, MAP_FAILED);
    mapping = static_cast<std::byte *>(m);
    buffer = reinterpret_cast<Value *>(mapping + skew[static_cast<std::size_t>(rank)]);
    for (Index i = 0; i < mine; ++i) buffer[i] = 7 + static_cast<Value>(first(rank) + i);  // before GDS_create
    model.assign(n, 0);
    for (Index i = 0; i < n; ++i) model[i] = 7 + static_cast<Value>(i);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, GDS_VERSION_BLOCK_SIZE_KEY, block);
    ASSERT_GDS_OK(GDS_create_with_context(1, &n, MPI_LONG_LONG, parts_g2l, parts_l2g, &parts, mine > 0 ? buffer : nullptr,
                                          mine, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info, &g));
    MPI_Info_free(&info);
    long pid = getpid();
    unsigned long long at = reinterpret_cast<std::uintptr_t>(buffer);
    pids.assign(static_cast<std::size_t>(nprocs), 0);
    addresses.assign(static_cast<std::size_t>(nprocs), 0);
    MPI_Allgather(&pid, 1, MPI_LONG, pids.data(), 1, MPI_LONG, MPI_COMM_WORLD);
    MPI_Allgather(&at, 1, MPI_UNSIGNED_LONG_LONG, addresses.data(), 1, MPI_UNSIGNED_LONG_LONG, MPI_COMM_WORLD);
    file = "/tmp/gds_write_tracking." + std::to_string(pid);
    number = 0;
    versions.clear();
  }

  void free_all() {
    EXPECT_GDS_OK(GDS_free(&g));
    munmap(mapping, mapped);
    std::remove(file.c_str());
  }

  // A run [lo, lo + len) of process r's part, chosen alike everywhere.
  std::pair<Index, Index> run(int r, Index most) {
    const Index c = count(r);
    const Index len = 1 + pick(static_cast<unsigned>(std::min(c, most)));
    const Index lo = pick(static_cast<unsigned>(c - len + 1));
    return {lo, len};
  }

  // One step: every way chosen for every process; each process does its part.
  void step(int s, std::string *done) {
    for (int r = 0; r < nprocs; ++r) {
      if (count(r) == 0) continue;
      const bool me = r == rank;
      const Index base = first(r);
      const unsigned ways = pick(64);
      if (ways & 1) {  // stores in a loop: a few elements, or (rarely) all of them
        const bool all = pick(6) == 0;
        const Index k = all ? count(r) : 1 + pick(12);
        for (Index j = 0; j < k; ++j) {
          const Index i = all ? j : pick(static_cast<unsigned>(count(r)));
          const Value v = next_value();
          model[base + i] = v;
          if (me) buffer[i] = v;
        }
        *done += all ? " all-stores" : " stores";
      }
      if (ways & 2) {  // memcpy of a run
        const auto [lo, len] = run(r, 700);
        std::vector<Value> v(len);
        for (Value &x : v) x = next_value();
        std::copy(v.begin(), v.end(), model.begin() + base + lo);
        if (me) std::memcpy(buffer + lo, v.data(), static_cast<std::size_t>(len) * sizeof(Value));
        *done += " memcpy";
      }
      if (ways & 4) {  // MPI_Recv (or MPI_Irecv) from the previous process into the buffer
        const auto [lo, len] = run(r, 900);
        const int from = (r + nprocs - 1) % nprocs;
        const bool irecv = pick(2) == 0;
        std::vector<Value> v(len);
        for (Value &x : v) x = next_value();
        std::copy(v.begin(), v.end(), model.begin() + base + lo);
        MPI_Request req = MPI_REQUEST_NULL;
        if (me) MPI_Irecv(buffer + lo, static_cast<int>(len), MPI_LONG_LONG, from, 11, MPI_COMM_WORLD, &req);
        if (rank == from) MPI_Send(v.data(), static_cast<int>(len), MPI_LONG_LONG, r, 11, MPI_COMM_WORLD);
        if (me) MPI_Wait(&req, MPI_STATUS_IGNORE);
        *done += irecv ? " irecv" : " recv";
      }
      if (ways & 8) {  // read() from a file: the kernel stores into the buffer
        const auto [lo, len] = run(r, 600);
        std::vector<Value> v(len);
        for (Value &x : v) x = next_value();
        std::copy(v.begin(), v.end(), model.begin() + base + lo);
        if (me) {
          const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
          ASSERT_GE(fd, 0);
          const auto bytes = static_cast<std::size_t>(len) * sizeof(Value);
          ASSERT_EQ(::write(fd, v.data(), bytes), static_cast<ssize_t>(bytes));
          ASSERT_EQ(::lseek(fd, 0, SEEK_SET), 0);
          ASSERT_EQ(::read(fd, buffer + lo, bytes), static_cast<ssize_t>(bytes));
          ::close(fd);
        }
        *done += " read";
      }
      if (ways & 16) {  // a whole page of the part dropped: it reads as zeros
        const std::uintptr_t at = static_cast<std::uintptr_t>(addresses[static_cast<std::size_t>(r)]);
        const std::uintptr_t lo = (at + kPage - 1) / kPage * kPage;
        const std::uintptr_t hi = (at + static_cast<std::uintptr_t>(count(r)) * sizeof(Value)) / kPage * kPage;
        if (hi > lo) {
          const std::uintptr_t page = lo + pick(static_cast<unsigned>((hi - lo) / kPage)) * kPage;
          const Index e0 = static_cast<Index>((page - at) / sizeof(Value));
          for (Index i = e0; i < e0 + static_cast<Index>(kPage / sizeof(Value)); ++i) model[base + i] = 0;
          if (me) {
            EXPECT_EQ(madvise(reinterpret_cast<void *>(page), kPage, MADV_DONTNEED), 0);
          }
          *done += " dontneed";
        }
      }
      if ((ways & 32) && nprocs > 1) {  // process_vm_writev by the next process (an MPI's CMA copy)
        const auto [lo, len] = run(r, 800);
        const int writer = (r + 1) % nprocs;
        std::vector<Value> v(len);
        for (Value &x : v) x = next_value();
        int wrote = 0;
        barrier();  // the owner's own writes of the step come first
        if (rank == writer) {
          iovec local{v.data(), static_cast<std::size_t>(len) * sizeof(Value)};
          iovec remote{reinterpret_cast<void *>(addresses[static_cast<std::size_t>(r)] + static_cast<unsigned long long>(lo) * sizeof(Value)),
                       local.iov_len};
          wrote = process_vm_writev(static_cast<pid_t>(pids[static_cast<std::size_t>(r)]), &local, 1, &remote, 1, 0) ==
                  static_cast<ssize_t>(local.iov_len);
        }
        MPI_Bcast(&wrote, 1, MPI_INT, writer, MPI_COMM_WORLD);  // where ptrace is forbidden, it could not
        if (wrote) std::copy(v.begin(), v.end(), model.begin() + base + lo);
        *done += wrote ? " vm_writev" : " (vm_writev refused)";
      }
    }
    barrier();  // the owners' writes of the step before another's put (else they race)
    if (pick(2) == 0) {  // GDS_put by some process into any run of the array
      const Index len = 1 + pick(static_cast<unsigned>(std::min<Index>(n, 1500)));
      const Index lo = pick(static_cast<unsigned>(n - len + 1)), hi = lo + len - 1;
      const int writer = static_cast<int>(pick(static_cast<unsigned>(nprocs)));
      std::vector<Value> &v = in_flight;  // GDS_put returns before it reads: kept until the version
      v.assign(len, 0);
      for (Value &x : v) x = next_value();
      std::copy(v.begin(), v.end(), model.begin() + lo);
      const bool slow = pick(2) == 0;  // a slow writer: the others enter the version first
      if (rank == writer) {
        if (slow) usleep(3000);
        EXPECT_GDS_OK(GDS_put(v.data(), nullptr, &lo, &hi, g));
      }
      *done += " put";
    }
    EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
    versions[number++] = model;
    {
      int wrong = 0;  // the memory itself, as the version promises it complete
      for (Index i = 0; i < mine; ++i)
        if (buffer[i] != model[first(rank) + i] && wrong++ < 3)
          ADD_FAILURE() << "step " << s << " (" << *done << "): own element " << first(rank) + i << " is " << buffer[i]
                        << ", the model says " << model[first(rank) + i];
    }
    check(number - 1, "step " + std::to_string(s) + " (" + *done + ")");
    barrier();
  }

  void check(Index version, const std::string &what) {
    GDS_gds_t old = GDS_NULL;
    EXPECT_GDS_OK(GDS_descriptor_clone(g, &old));
    while (true) {
      Index at = 0;
      EXPECT_GDS_OK(GDS_get_version_number(old, &at));
      if (at <= version) break;
      if (GDS_move_to_prev(old) != GDS_STATUS_OK) break;
    }
    Index at = ~Index{0};
    EXPECT_GDS_OK(GDS_get_version_number(old, &at));
    if (at == version) {
      std::vector<Value> got(n, -1);
      const Index lo = 0, hi = n - 1;
      EXPECT_GDS_OK(GDS_get(got.data(), nullptr, &lo, &hi, old));
      EXPECT_GDS_OK(GDS_wait(old));
      const std::vector<Value> &want = versions[version];
      int wrong = 0;
      for (Index i = 0; i < n; ++i)
        if (got[i] != want[i] && wrong++ < 3)
          ADD_FAILURE() << "version " << version << ", " << what << ": element " << i << " (process "
                        << parts.owner(i) << ") is " << got[i] << ", the model says " << want[i];
    }
    EXPECT_GDS_OK(GDS_free(&old));
  }
};

TEST_F(WriteTracking, EveryPathAgainstTheModel) {
  const unsigned seed = seed_of_run();
  if (rank == 0) std::printf("[ seed     ] %u (GDS_TEST_SEED=%u replays it)\n", seed, seed);
  const char *tracking = std::getenv("GDS_WRITE_TRACKING");
  const bool compare_only = tracking != nullptr && std::strcmp(tracking, "compare") == 0;
  // auto with its costs modelled (pages, not seconds): it must both track
  // and pause somewhere in the run, the same on every run of a seed.
  const char *costs = std::getenv("GDS_TEST_TRACKING_MODEL");
  const bool modelled = tracking == nullptr && costs != nullptr && std::strcmp(costs, "1") == 0;
  GDS_size_t tracked_anywhere = 0, compared_anywhere = 0;
  for (const char *block : {"64", "4096", "16384"}) {
    shared.seed(seed ^ static_cast<unsigned>(std::strlen(block) * 977));
    make(block);
    GDS_costs_t before{};
    EXPECT_GDS_OK(GDS_get_costs(&before));
    EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));  // version 0: what GDS_create saw
    versions[number++] = model;
    check(0, "the first version");
    for (int s = 0; s < 30 && all_true(!HasFailure()); ++s) {
      std::string done;
      step(s, &done);
    }
    GDS_costs_t after{};
    EXPECT_GDS_OK(GDS_get_costs(&after));
    // Where the kernel tracks writes, the versions used it (this host's
    // kernel does: 6.7 or later, userfaultfd allowed); told to compare, never.
    const GDS_size_t tracked = after.tracking.calls - before.tracking.calls;
    if (compare_only) {
      EXPECT_EQ(tracked, 0u);
    }
    // Told to track, every version (the first may compare all).
    if (tracking != nullptr && std::strcmp(tracking, "kernel") == 0 && mine > 0) {
      EXPECT_GE(tracked, static_cast<GDS_size_t>(number - 1)) << "versions not tracked";
      EXPECT_LE(tracked, static_cast<GDS_size_t>(number));
    }
    if (rank == 0)
      std::printf("[ blocks   ] %s bytes: %llu of %llu versions tracked on process 0\n", block,
                  static_cast<unsigned long long>(tracked), static_cast<unsigned long long>(number));
    if (modelled) {
      tracked_anywhere += tracked;
      compared_anywhere += static_cast<GDS_size_t>(number) - tracked;
    }
    for (const auto &[v, content] : versions) check(v, "read back at the end");
    free_all();
  }
  if (modelled) {
    GDS_size_t counts[2] = {tracked_anywhere, compared_anywhere}, sums[2] = {};
    MPI_Allreduce(counts, sums, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
      std::printf("[ auto     ] versions tracked %llu, compared %llu (all processes, every block size)\n",
                  static_cast<unsigned long long>(sums[0]), static_cast<unsigned long long>(sums[1]));
    EXPECT_GT(sums[0], 0u) << "auto never tracked";
    EXPECT_GT(sums[1], 0u) << "auto never paused";
  }
}

// MD's count: one element per process, rewritten at every version, in the
// page of the program's other variables (written all the time). Under auto
// with its costs timed, comparing 8 bytes costs about a microsecond and a
// scan 50 us or more: the versions must never track it (they did at every
// version before 2026-12-02, when the first version's compare, which first
// touches new memory, stood for what comparing costs).
TEST(WriteTrackingAuto, ASmallArrayIsNeverTracked) {
  const char *tracking = std::getenv("GDS_WRITE_TRACKING");
  const char *costs = std::getenv("GDS_TEST_TRACKING_MODEL");
  if ((tracking != nullptr && std::strcmp(tracking, "auto") != 0) || costs != nullptr)
    GTEST_SKIP() << "for auto with its costs timed";
  int rank = 0, nprocs = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  struct Neighbourhood {
    long before[16];
    long count;
    long after[16];
  };
  auto *page = static_cast<Neighbourhood *>(std::aligned_alloc(kPage, kPage));
  std::memset(page, 0, kPage);
  Parts parts;
  parts.rank = rank;
  parts.first.assign(1, 0);
  for (int r = 0; r < nprocs; ++r) parts.first.push_back(parts.first.back() + 1);
  GDS_size_t n = static_cast<GDS_size_t>(nprocs);
  GDS_gds_t g = GDS_NULL;
  ASSERT_GDS_OK(GDS_create_with_context(1, &n, MPI_LONG, parts_g2l, parts_l2g, &parts, &page->count, 1, GDS_PRIORITY_HIGH,
                                        GDS_COMM_WORLD, MPI_INFO_NULL, &g));
  GDS_costs_t before{}, after{};
  EXPECT_GDS_OK(GDS_get_costs(&before));
  for (int v = 0; v < 40; ++v) {
    page->before[v % 16] += v;  // the program's other variables
    page->count = 1000 * rank + v;
    page->after[v % 16] -= v;
    EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
  }
  EXPECT_GDS_OK(GDS_get_costs(&after));
  EXPECT_EQ(after.tracking.calls - before.tracking.calls, 0u) << "a one-element array was tracked";
  EXPECT_GDS_OK(GDS_free(&g));
  std::free(page);
}

}  // namespace
