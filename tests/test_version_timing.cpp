// A version holds every write issued before the call, whatever the timing.
//
// GDS_version_inc completes every operation issued before it, so the version
// it makes holds them all, however late a writer issues them and whatever
// synchronisation (none, GDS_wait, GDS_wait_local, GDS_fence) came before
// the call. A version that leaves its exchange out on the guess that no
// process wrote into another's part must find the guess wrong for every
// kind of array: a GDS_create array's version once missed a put of a writer
// slower than its target, which entered the version first and compared its
// blocks before the put landed (issue 42).
//
// Model-based: GDS_alloc and GDS_create arrays (uneven parts, some empty),
// alone and in groups that mix them; each step every process writes
// disjoint runs of any part (GDS_put, GDS_acc into runs others accumulate
// into too, and direct stores into its own part of a GDS_create array), one
// process sleeps before it writes so that the others enter the version
// first, then the step's synchronisation and the version. Right after every
// version every process reads the version just made and the current content
// through GDS_get, and its own part of a GDS_create array by loads, and
// compares them with the model; now and then a rollback.
//
// The seed is printed (GDS_TEST_SEED=<seed> replays it).
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <cstdlib>
#include <deque>
#include <map>
#include <random>
#include <string>

#include "support/gds_test.hpp"
#include "support/parts.hpp"

using namespace gds::test;

namespace {

using Value = long long;

enum class Sync { none, wait, wait_local, fence };
constexpr Sync kSyncs[] = {Sync::none, Sync::wait, Sync::wait_local, Sync::fence};
const char *name(Sync s) {
  switch (s) {
    case Sync::none: return "no synchronisation";
    case Sync::wait: return "GDS_wait";
    case Sync::wait_local: return "GDS_wait_local";
    case Sync::fence: return "GDS_fence";
  }
  return "?";
}

// The arrays of one configuration: one GDS_alloc or GDS_create array, or a
// group of a GDS_create and a GDS_alloc array, or of two GDS_create arrays.
enum class Shape { alloc, create, mixed_group, create_group };
constexpr Shape kShapes[] = {Shape::alloc, Shape::create, Shape::mixed_group, Shape::create_group};
const char *name(Shape s) {
  switch (s) {
    case Shape::alloc: return "a GDS_alloc array";
    case Shape::create: return "a GDS_create array";
    case Shape::mixed_group: return "a group of a GDS_create and a GDS_alloc array";
    case Shape::create_group: return "a group of two GDS_create arrays";
  }
  return "?";
}

struct Member {
  bool create = false;
  Index n = 0;
  GDS_gds_t g = GDS_NULL;
  Parts parts;                   // create
  std::vector<Value> buffer;     // create: this process's part
  std::vector<Value> model;      // the current content
  std::map<Index, std::vector<Value>> versions;
};

// One run of a member written in a step: by one process (put, or direct
// stores by its owners), or accumulated into by several.
struct Write {
  std::size_t member;
  Index lo, hi;
  enum { put, direct, acc } how;
  int writer;                 // put
  std::vector<int> adders;    // acc
};

// A global handler that repairs one element of another process's part,
// on rank 0, after a delay (the others enter the version's next round first).
struct Repair {
  Index at = 0;
  Value value = 0;
  int calls = 0;
} g_repair;
GDS_status_t slow_remote_repair(GDS_gds_t gds, GDS_error_t e) {
  ++g_repair.calls;
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (me == 0) {
    usleep(20 * 1000);
    EXPECT_GDS_OK(GDS_put(&g_repair.value, nullptr, &g_repair.at, &g_repair.at, gds));
  }
  return GDS_resume_global(gds, e);
}

class VersionTiming : public MpiTest {
 protected:
  std::mt19937 shared;  // the same sequence on every process
  std::vector<Member> members;
  GDS_group_t group = GDS_GROUP_NULL;
  std::deque<std::vector<Value>> in_flight;  // GDS_put/GDS_acc buffers until the version completes them
  Index number = 0;  // the current version's

  void make(Shape shape) {
    const bool two = shape == Shape::mixed_group || shape == Shape::create_group;
    members.assign(two ? 2 : 1, Member{});
    members[0].create = shape != Shape::alloc;
    if (two) members[1].create = shape == Shape::create_group;
    for (Member &mem : members) {
      MPI_Info info;
      MPI_Info_create(&info);
      MPI_Info_set(info, GDS_VERSION_BLOCK_SIZE_KEY, shared() % 2 ? "64" : "256");
      if (mem.create) {
        // Parts of very different sizes, some empty (never all).
        mem.parts.rank = rank;
        mem.parts.first.assign(1, 0);
        for (int r = 0; r < nprocs; ++r) {
          const unsigned pick = shared() % 5;
          const Index size = pick == 0 ? 0 : pick == 1 ? 1 + shared() % 7 : 20 + shared() % 200;
          mem.parts.first.push_back(mem.parts.first.back() + size);
        }
        if (mem.parts.first.back() == 0)
          for (int r = 0; r < nprocs; ++r) mem.parts.first[static_cast<std::size_t>(r) + 1] += 5 * (r + 1);
        mem.n = mem.parts.first.back();
        const Index mine = mem.parts.first[static_cast<std::size_t>(rank) + 1] - mem.parts.first[static_cast<std::size_t>(rank)];
        mem.buffer.assign(mine, 0);
        EXPECT_GDS_OK(GDS_create_with_context(1, &mem.n, MPI_LONG_LONG, parts_g2l, parts_l2g, &mem.parts,
                                              mine > 0 ? mem.buffer.data() : nullptr, mine, GDS_PRIORITY_HIGH,
                                              GDS_COMM_WORLD, info, &mem.g));
      } else {
        mem.n = 1 + shared() % 600;
        EXPECT_GDS_OK(GDS_alloc(1, &mem.n, nullptr, MPI_LONG_LONG, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info, &mem.g));
      }
      MPI_Info_free(&info);
      mem.model.assign(mem.n, 0);
    }
    if (two) {
      std::vector<GDS_gds_t> gs{members[0].g, members[1].g};
      EXPECT_GDS_OK(GDS_group_create("timing", 2, gs.data(), &group));
    }
    number = 0;
  }

  void free_all() {
    if (group != GDS_GROUP_NULL) EXPECT_GDS_OK(GDS_group_free(&group));
    for (Member &m : members) EXPECT_GDS_OK(GDS_free(&m.g));
    members.clear();
  }

  // The step's runs: each member cut into runs, each written one way or not at all.
  std::vector<Write> plan() {
    std::vector<Write> runs;
    for (std::size_t m = 0; m < members.size(); ++m) {
      const Member &mem = members[m];
      for (Index lo = 0; lo < mem.n;) {
        const Index hi = std::min(mem.n - 1, lo + shared() % std::max<Index>(1, mem.n / 3 + 1));
        Write r{m, lo, hi, Write::put, static_cast<int>(shared() % static_cast<unsigned>(nprocs)), {}};
        const unsigned how = shared() % 8;
        if (how < 2) {
          lo = hi + 1;
          continue;  // not written
        }
        if (how < 4 && mem.create) {
          r.how = Write::direct;  // each owner stores its own elements
        } else if (how < 6) {
          r.how = Write::acc;
          for (int p = 0; p < nprocs; ++p)
            if (shared() % 2) r.adders.push_back(p);
        }
        runs.push_back(r);
        lo = hi + 1;
      }
    }
    return runs;
  }

  [[nodiscard]] static Value put_value(int step, std::size_t m, Index i) {
    return 1000000LL * (step + 1) + 100000LL * static_cast<Value>(m) + static_cast<Value>(i);
  }

  // This process's writes of the step (the model is updated by every process).
  void write(const std::vector<Write> &runs, int step) {
    for (const Write &r : runs) {
      Member &mem = members[r.member];
      const Index count = r.hi - r.lo + 1;
      if (r.how == Write::put) {
        std::vector<Value> &v = in_flight.emplace_back(count);
        for (Index i = r.lo; i <= r.hi; ++i) mem.model[i] = v[i - r.lo] = put_value(step, r.member, i);
        if (rank == r.writer) EXPECT_GDS_OK(GDS_put(v.data(), nullptr, &r.lo, &r.hi, mem.g));
      } else if (r.how == Write::direct) {
        const Index first = mem.parts.first[static_cast<std::size_t>(rank)];
        for (Index i = r.lo; i <= r.hi; ++i) {
          mem.model[i] = put_value(step, r.member, i) + 7;
          if (mem.parts.owner(i) == rank) mem.buffer[i - first] = mem.model[i];
        }
      } else {
        for (const int p : r.adders)
          for (Index i = r.lo; i <= r.hi; ++i) mem.model[i] += p + 1;
        if (std::find(r.adders.begin(), r.adders.end(), rank) != r.adders.end()) {
          std::vector<Value> &v = in_flight.emplace_back(count, rank + 1);
          EXPECT_GDS_OK(GDS_acc(v.data(), nullptr, &r.lo, &r.hi, MPI_SUM, mem.g));
        }
      }
    }
  }

  void synchronise(Sync sync) {
    for (Member &mem : members) {
      if (sync == Sync::wait) EXPECT_GDS_OK(GDS_wait(mem.g));
      if (sync == Sync::wait_local) EXPECT_GDS_OK(GDS_wait_local(mem.g));
      if (sync == Sync::fence) EXPECT_GDS_OK(GDS_fence(mem.g));
    }
  }

  void version() {
    if (group != GDS_GROUP_NULL) EXPECT_GDS_OK(GDS_group_version_inc(group, 1, nullptr, 0));
    else EXPECT_GDS_OK(GDS_version_inc(members[0].g, 1, nullptr, 0));
    in_flight.clear();  // complete: the buffers are free
    for (Member &mem : members) mem.versions[number] = mem.model;
    ++number;
  }

  // Reads the whole of h and compares it with `want`.
  void compare(GDS_gds_t h, const std::vector<Value> &want, const std::string &what) {
    std::vector<Value> got(want.size(), -1);
    const Index lo = 0, hi = want.size() - 1;
    EXPECT_GDS_OK(GDS_get(got.data(), nullptr, &lo, &hi, h));
    EXPECT_GDS_OK(GDS_wait(h));
    int wrong = 0;
    for (std::size_t i = 0; i < want.size(); ++i)
      if (got[i] != want[i] && wrong++ < 3)
        ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", the model says " << want[i];
  }

  // Every process, right after the version: the version just made, the current content, its own part.
  void check(const std::string &where) {
    for (std::size_t m = 0; m < members.size(); ++m) {
      Member &mem = members[m];
      const std::string what = where + ", member " + std::to_string(m);
      GDS_gds_t old = GDS_NULL;
      EXPECT_GDS_OK(GDS_descriptor_clone(mem.g, &old));
      EXPECT_GDS_OK(GDS_move_to_prev(old));
      Index at = ~Index{0};
      EXPECT_GDS_OK(GDS_get_version_number(old, &at));
      EXPECT_EQ(at, number - 1) << what;
      compare(old, mem.versions[number - 1], what + ", version " + std::to_string(number - 1) + " just made");
      EXPECT_GDS_OK(GDS_free(&old));
      compare(mem.g, mem.model, what + ", current content");
      if (mem.create) {
        const Index first = mem.parts.first[static_cast<std::size_t>(rank)];
        int wrong = 0;
        for (std::size_t i = 0; i < mem.buffer.size(); ++i)
          if (mem.buffer[i] != mem.model[first + i] && wrong++ < 3)
            ADD_FAILURE() << what << ": own buffer element " << first + i << " is " << mem.buffer[i]
                          << ", the model says " << mem.model[first + i];
      }
    }
    barrier();  // every process read before any writes again
  }

  void rollback(const std::string &where) {
    auto it = members[0].versions.begin();
    std::advance(it, static_cast<long>(shared() % members[0].versions.size()));
    const Index to = it->first;
    if (group != GDS_GROUP_NULL) EXPECT_GDS_OK(GDS_group_version_restore(group, to));
    else EXPECT_GDS_OK(GDS_version_restore(members[0].g, to));
    for (Member &mem : members) mem.model = mem.versions[to];
    for (Member &mem : members) compare(mem.g, mem.model, where + ", after the rollback to " + std::to_string(to));
    barrier();
  }

  // The last element that a process other than rank 0 stores (the last if none does).
  Index owned_by_another(const Member &mem) {
    for (Index i = mem.n; i-- > 0;) {
      int owner = 0;
      Index offset = 0;
      EXPECT_GDS_OK(GDS_locate(mem.g, &i, &owner, &offset));
      if (owner != 0) return i;
    }
    return mem.n - 1;
  }

  void run(Shape shape, Sync sync, int steps) {
    make(shape);
    for (int step = 0; step < steps; ++step) {
      const std::string where = std::string(name(shape)) + ", " + name(sync) + ", step " + std::to_string(step);
      const std::vector<Write> runs = plan();
      // One process (or none) is slow: the others enter the version first.
      const int slow = static_cast<int>(shared() % static_cast<unsigned>(nprocs + 1));
      const unsigned delay_ms = 1 + shared() % 12;
      if (rank == slow && nprocs > 1) usleep(delay_ms * 1000);
      write(runs, step);
      synchronise(sync);
      version();
      check(where);
      if (shared() % 8 == 0) rollback(where);
      int failed = HasFailure() ? 1 : 0, any = 0;
      allreduce(&failed, &any, 1, MPI_INT, MPI_MAX);
      if (any) break;
    }
    free_all();
  }
};

}  // namespace

// The configurations a test runs: every shape with every synchronisation
// at 1-2 processes; at 3-4 (oversubscribed on 2 cores) every shape with two
// of them, each synchronisation with two shapes.
bool runs(int nprocs, Shape shape, Sync sync) {
  const int s = static_cast<int>(shape), y = static_cast<int>(sync);
  return nprocs <= 2 || y == s % 4 || y == (s + 2) % 4;
}

// The smallest case of issue 42: rank 0 sleeps, puts into rank 1's part and
// makes the version; rank 1 enters the version at once. Alone, and in
// groups whose other member is written remotely too, or not.
TEST_F(VersionTiming, ASlowWritersPutIsInTheVersion) {
  if (nprocs < 2) GTEST_SKIP() << "needs another process to write into";
  for (const Shape shape : kShapes)
    for (const Sync sync : kSyncs) {
      if (!runs(nprocs, shape, sync)) continue;
      shared.seed(42);
      make(shape);
      const std::string where = std::string(name(shape)) + ", " + name(sync);
      // Version 0 (all zeros), then a put by a slow rank 0 into the last
      // process's part of each member (the second only now and then).
      version();
      for (int round = 0; round < 3; ++round) {
        if (rank == 0) usleep(40 * 1000);
        for (std::size_t m = 0; m < members.size(); ++m) {
          Member &mem = members[m];
          if (m == 1 && round != 1) continue;  // the other member written remotely in one round only
          const Index at = owned_by_another(mem);
          const Value v = 100 + round;
          mem.model[at] = v;
          std::vector<Value> &buf = in_flight.emplace_back(1, v);
          if (rank == 0) EXPECT_GDS_OK(GDS_put(buf.data(), nullptr, &at, &at, mem.g));
        }
        synchronise(sync);
        version();
        check(where + ", round " + std::to_string(round));
      }
      free_all();
    }
}

// A global error pending at a version is delivered in its first round; the
// handler, slow on rank 0, writes into another process's part with no
// synchronisation; the version made in the next rounds holds the write.
TEST_F(VersionTiming, AWriteByAHandlerDuringTheVersionIsInIt) {
  if (nprocs < 2) GTEST_SKIP() << "needs another process to write into";
  GDS_error_attr_key_t key;
  ASSERT_GDS_OK(GDS_define_error_attr_key("timing_id", 9, GDS_EAVTYPE_INT, &key));
  for (const Shape shape : kShapes) {
    shared.seed(7);
    make(shape);
    version();
    for (Member &mem : members) {
      GDS_error_pred_t p = GDS_ERROR_PRED_NULL;
      GDS_error_pred_term_t t = GDS_ERROR_PRED_TERM_NULL;
      EXPECT_GDS_OK(GDS_create_error_pred(&p));
      EXPECT_GDS_OK(GDS_create_error_pred_term(key, GDS_EMEXP_ANY, 0, nullptr, &t));
      EXPECT_GDS_OK(GDS_add_error_pred_term(p, t));
      EXPECT_GDS_OK(GDS_free_error_pred_term(&t));
      EXPECT_GDS_OK(GDS_register_global_error_handler(mem.g, p, slow_remote_repair));
      EXPECT_GDS_OK(GDS_free_error_pred(&p));
    }
    Member &mem = members[0];
    g_repair = Repair{owned_by_another(mem), 4242, 0};
    mem.model[g_repair.at] = g_repair.value;
    if (rank == nprocs - 1) {
      GDS_error_t e = GDS_ERROR_NULL;
      const std::int64_t id = 1;
      EXPECT_GDS_OK(GDS_create_error_descriptor(&e));
      EXPECT_GDS_OK(GDS_add_error_attr(e, key, sizeof id, &id));
      EXPECT_GDS_OK(GDS_raise_global_error(mem.g, e));
    }
    version();
    EXPECT_EQ(g_repair.calls, 1) << name(shape) << ": the handler ran once";
    check(std::string(name(shape)) + ", a handler's write during the version");
    free_all();
  }
}

TEST_F(VersionTiming, RandomWritesBySlowWritersMatchTheModel) {
  const unsigned seed = seed_of_run();
  if (rank == 0) std::printf("[ seed     ] %u (GDS_TEST_SEED=%u replays it)\n", seed, seed);
  std::fflush(stdout);
  const int steps = nprocs <= 2 ? 24 : 6;
  for (const Shape shape : kShapes)
    for (const Sync sync : kSyncs) {
      if (!runs(nprocs, shape, sync)) continue;
      shared.seed(seed ^ (static_cast<unsigned>(shape) * 131u + static_cast<unsigned>(sync) * 7u));
      run(shape, sync, steps);
      int failed = HasFailure() ? 1 : 0, any = 0;
      allreduce(&failed, &any, 1, MPI_INT, MPI_MAX);
      if (any) return;
    }
}

// A write landing in the array's memory after the version is frozen and
// agreed, while the cache stores it (GDS_FAULT_LATE_WRITE: every byte of
// each process's part overwritten then) is in no level's copy of the
// version: the version read back and the one a restart finds in the cache
// (SINGLE alone; PARTNER and XOR, synchronous and not) hold what was frozen
// and checksummed, and the current content holds the late bytes, which the
// next version takes.
TEST_F(VersionTiming, AWriteLandingWhileTheVersionIsCachedIsNotInIt) {
  char dir[] = "/tmp/gds_late_write_XXXXXX";
  if (rank == 0 && mkdtemp(dir) == nullptr) dir[0] = 0;
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  ASSERT_ALL(dir[0] != 0);
  const std::vector<const char *> copies =
      nprocs == 1 ? std::vector<const char *>{"SINGLE"} : std::vector<const char *>{"PARTNER", "XOR"};
  constexpr Value kLate = static_cast<Value>(0xA5A5A5A5A5A5A5A5ULL);
  int config = 0;
  for (const char *copy : copies)
    for (const char *sync : {"1", "0"})
      for (const bool create : {false, true}) {
        const std::string where = std::string(copy) + (sync[0] == '1' ? ", synchronous" : ", asynchronous") +
                                  (create ? ", GDS_create" : ", GDS_alloc");
        const std::string name = "late" + std::to_string(config++);
        const Index per = 3000 + 17 * static_cast<Index>(rank);  // uneven parts (GDS_create)
        Parts parts;
        parts.rank = rank;
        parts.first.assign(1, 0);
        for (int r = 0; r < nprocs; ++r) parts.first.push_back(parts.first.back() + 3000 + 17 * static_cast<Index>(r));
        const Index n = parts.first.back();
        std::vector<Value> buffer(per, 0);
        const auto make = [&](const char *restart, GDS_gds_t *g) {
          MPI_Info info;
          MPI_Info_create(&info);
          MPI_Info_set(info, GDS_COPY_TYPE_KEY, copy);
          MPI_Info_set(info, GDS_CACHE_BASE_KEY, dir);
          MPI_Info_set(info, GDS_CACHE_SYNC_KEY, sync);
          MPI_Info_set(info, GDS_NAME_KEY, name.c_str());
          MPI_Info_set(info, GDS_RESTART_KEY, restart);
          MPI_Info_set(info, GDS_VERSION_BLOCK_SIZE_KEY, "4096");
          if (create)
            EXPECT_GDS_OK(GDS_create_with_context(1, &n, MPI_LONG_LONG, parts_g2l, parts_l2g, &parts, buffer.data(),
                                                  per, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info, g));
          else
            EXPECT_GDS_OK(GDS_alloc(1, &n, nullptr, MPI_LONG_LONG, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, info, g));
          MPI_Info_free(&info);
        };
        GDS_gds_t g = GDS_NULL;
        make("0", &g);
        const auto value = [](int v, Index i) { return static_cast<Value>(v) * 1000003 + static_cast<Value>(i); };
        std::vector<Value> want(n);
        for (int v = 0; v < 3; ++v) {
          // Rank 0 writes the whole array, one-sidedly into every other's part.
          for (Index i = 0; i < n; ++i) want[i] = value(v, i);
          std::vector<Value> all(want);
          const Index first = 0, last = n - 1;
          if (rank == 0) EXPECT_GDS_OK(GDS_put(all.data(), nullptr, &first, &last, g));
          EXPECT_GDS_OK(GDS_fence(g));
          if (v == 2) EXPECT_GDS_OK(GDS_inject_fault(GDS_FAULT_LATE_WRITE, 1));
          EXPECT_GDS_OK(GDS_version_inc(g, 1, nullptr, 0));
        }
        // The version just made holds what was frozen; the memory holds the late bytes.
        GDS_gds_t old = GDS_NULL;
        EXPECT_GDS_OK(GDS_descriptor_clone(g, &old));
        EXPECT_GDS_OK(GDS_move_to_prev(old));
        compare(old, want, where + ", version 2 as made");
        EXPECT_GDS_OK(GDS_free(&old));
        compare(g, std::vector<Value>(n, kLate), where + ", the current content after the late write");
        EXPECT_GDS_OK(GDS_cache_wait(g));
        barrier();
        EXPECT_GDS_OK(GDS_free(&g));
        // The rerun restarts from the cache at version 2, with what was frozen.
        std::fill(buffer.begin(), buffer.end(), -1);
        make("1", &g);
        GDS_restart_info_t info{};
        EXPECT_GDS_OK(GDS_get_restart_info(g, &info));
        EXPECT_EQ(info.restarted, 1) << where;
        EXPECT_EQ(info.version, 2u) << where << ": the newest version made";
        compare(g, want, where + ", restarted");
        barrier();
        EXPECT_GDS_OK(GDS_free(&g));
        int failed = HasFailure() ? 1 : 0, any = 0;
        allreduce(&failed, &any, 1, MPI_INT, MPI_MAX);
        if (any) break;
      }
  barrier();
  if (rank == 0) std::filesystem::remove_all(dir);
}
