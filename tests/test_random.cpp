// Random operations on GDS_alloc and GDS_create arrays side by side, checked
// against a model right after the call that promises each result: a get,
// get_acc or compare-and-swap is checked as soon as GDS_wait returns, not
// after a later fence. Each step has a write phase (one process writes, then
// a fence) and a read phase in which every process mixes gets, atomic reads
// (get_acc with MPI_NO_OP, failing compare-and-swaps) and puts that rewrite
// the values the model already holds, so reads and writes to the same
// process interleave before one GDS_wait. Versions are made now and then.
//
// The seeds come from GDS_TEST_SEEDS (comma-separated) or a fixed list; each
// is printed, so a failure can be replayed with GDS_TEST_SEEDS=<seed>.
#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>

#include "support/gds_test.hpp"

using namespace gds::test;

namespace {

using Value = long long;

// One array and its model. Values are kept as long long; uint8 arrays hold them mod 256.
struct Subject {
  const char *what = "";
  GDS_gds_t g = GDS_NULL;
  std::vector<Index> count;
  bool row = true;
  MPI_Datatype type = MPI_LONG_LONG;
  std::size_t esize = sizeof(Value);
  std::vector<Value> model;       // row-major linear order of the global index
  std::vector<Value> local;       // GDS_create: this process's buffer
  std::vector<Index> mapping_ld;  // unused for alloc arrays

  [[nodiscard]] std::size_t ndims() const { return count.size(); }
  [[nodiscard]] Value wrap(Value v) const { return type == MPI_UINT8_T ? (v & 0xff) : v; }
  void store(unsigned char *p, Value v) const {
    if (type == MPI_UINT8_T) *p = static_cast<unsigned char>(v & 0xff);
    else std::memcpy(p, &v, sizeof v);
  }
  [[nodiscard]] Value load(const unsigned char *p) const {
    if (type == MPI_UINT8_T) return *p;
    Value v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
};

// 2-D block-row-cyclic GDS_create mapping: rows in groups of `rows_per_group`,
// groups dealt to processes in turn; a process stores its rows one after another.
struct RowCyclic {
  Index rows, cols, group;
  int nprocs, rank;
  [[nodiscard]] Index rows_of(int r) const {
    Index n = 0;
    for (Index i = 0; i < rows; ++i) n += static_cast<int>((i / group) % static_cast<Index>(nprocs)) == r ? 1 : 0;
    return n;
  }
};

GDS_status_t rc_g2l(const GDS_size_t global[], int *rank, GDS_size_t *offset, void *context) {
  const auto *m = static_cast<const RowCyclic *>(context);
  const Index g = global[0] / m->group, P = static_cast<Index>(m->nprocs);
  *rank = static_cast<int>(g % P);
  const Index local_row = (g / P) * m->group + global[0] % m->group;
  *offset = local_row * m->cols + global[1];
  return GDS_STATUS_OK;
}

GDS_status_t rc_l2g(GDS_size_t offset, GDS_size_t global[], void *context) {
  const auto *m = static_cast<const RowCyclic *>(context);
  const Index local_row = offset / m->cols, P = static_cast<Index>(m->nprocs);
  const Index g = (local_row / m->group) * P + static_cast<Index>(m->rank);
  global[0] = g * m->group + local_row % m->group;
  global[1] = offset % m->cols;
  return GDS_STATUS_OK;
}

std::vector<unsigned> seeds() {
  std::vector<unsigned> out;
  if (const char *env = std::getenv("GDS_TEST_SEEDS"); env != nullptr && *env != '\0') {
    std::stringstream ss(env);
    std::string item;
    while (std::getline(ss, item, ','))
      if (!item.empty()) out.push_back(static_cast<unsigned>(std::strtoul(item.c_str(), nullptr, 10)));
    return out;
  }
  for (unsigned s = 1; s <= 12; ++s) out.push_back(s * 7919u);
  return out;
}

class MixedArrays : public MpiTest {
 protected:
  std::mt19937 shared_rng;  // the same sequence on every process
  std::mt19937 own_rng;     // this process's
  std::vector<Subject> subjects;
  RowCyclic mapping{};

  void make_subjects() {
    subjects.clear();
    subjects.resize(3);
    // A: GDS_alloc, 2-D or 3-D, either order, long long.
    Subject &a = subjects[0];
    a.what = "alloc";
    a.row = shared_rng() % 2 == 0;
    a.count = shared_rng() % 2 ? std::vector<Index>{9, 11} : std::vector<Index>{4, 5, 6};
    OrderInfo info(a.row);
    EXPECT_GDS_OK(GDS_alloc(a.ndims(), a.count.data(), nullptr, MPI_LONG_LONG, GDS_PRIORITY_HIGH, GDS_COMM_WORLD,
                            info.get(), &a.g));
    // B: GDS_create, 2-D row-major, block-row-cyclic, long long.
    Subject &b = subjects[1];
    b.what = "create";
    mapping = RowCyclic{7 + shared_rng() % 5, 3 + shared_rng() % 4, 1 + shared_rng() % 2, nprocs, rank};
    b.count = {mapping.rows, mapping.cols};
    b.local.assign(mapping.rows_of(rank) * mapping.cols, 0);
    EXPECT_GDS_OK(GDS_create_with_context(2, b.count.data(), MPI_LONG_LONG, rc_g2l, rc_l2g, &mapping, b.local.data(),
                                          b.local.size(), GDS_PRIORITY_HIGH, GDS_COMM_WORLD, MPI_INFO_NULL, &b.g));
    // C: GDS_alloc, 3x33 uint8 in column-major order (the shape of the get/put/wait report).
    Subject &c = subjects[2];
    c.what = "uint8";
    c.row = false;
    c.count = {3, 33};
    c.type = MPI_UINT8_T;
    c.esize = 1;
    OrderInfo col(false);
    EXPECT_GDS_OK(GDS_alloc(2, c.count.data(), nullptr, MPI_UINT8_T, GDS_PRIORITY_HIGH, GDS_COMM_WORLD, col.get(),
                            &c.g));
    for (Subject &s : subjects) s.model.assign(volume(s.count), 0);
  }

  void free_subjects() {
    for (Subject &s : subjects) EXPECT_GDS_OK(GDS_free(&s.g));
  }

  // A random box of s and a buffer for it with random padding, in s's order.
  struct Box {
    std::vector<Index> lo, hi, ext, ld;
    std::vector<unsigned char> data;
    Index offset(const Subject &s, const Index *idx) const {
      const std::size_t n = s.ndims();
      std::vector<Index> dims(ext), rel(n);
      for (std::size_t d = 0; d + 1 < n; ++d) dims[s.row ? d + 1 : d] = ld[d];
      for (std::size_t d = 0; d < n; ++d) rel[d] = idx[d] - lo[d];
      return linear(dims, rel.data(), s.row);
    }
    Index elements(const Subject &s) const {
      std::vector<Index> last(hi);
      return offset(s, last.data()) + 1;
    }
  };
  Box random_box(std::mt19937 &r, const Subject &s) {
    const std::size_t n = s.ndims();
    Box b;
    b.lo.resize(n);
    b.hi.resize(n);
    b.ext.resize(n);
    b.ld.assign(n - 1, 0);
    for (std::size_t d = 0; d < n; ++d) {
      b.lo[d] = r() % s.count[d];
      b.hi[d] = b.lo[d] + r() % (s.count[d] - b.lo[d]);
      b.ext[d] = b.hi[d] - b.lo[d] + 1;
    }
    // Padding makes many distinct strided shapes (the datatype cache fills up).
    for (std::size_t d = 0; d + 1 < n; ++d) b.ld[d] = b.ext[s.row ? d + 1 : d] + r() % 4;
    b.data.assign(b.elements(s) * s.esize, 0xEE);
    return b;
  }
  template <class F>
  void over(const Subject &s, const Box &b, F &&fn) {
    std::vector<Index> idx(b.lo);
    do fn(idx.data(), b.offset(s, idx.data()));
    while (next_index(b.lo, b.hi, idx, s.row));
  }
  Index at(const Subject &s, const Index *idx) const { return linear(s.count, idx, true); }

  // Checks a buffer the call filled against `expect` over the box, and that padding kept its fill.
  void check(const Subject &s, const Box &b, const std::vector<unsigned char> &buf, const std::vector<Value> &expect,
             const char *what, int step, unsigned seed) {
    std::vector<bool> inside(b.elements(s), false);
    int wrong = 0;
    over(s, b, [&](const Index *idx, Index off) {
      inside[off] = true;
      const Value got = s.load(buf.data() + off * s.esize), want = s.wrap(expect[at(s, idx)]);
      if (got != want && wrong++ < 3)
        ADD_FAILURE() << what << " on " << s.what << ", seed " << seed << " step " << step << ": element "
                      << at(s, idx) << " is " << got << ", expected " << want;
    });
    for (Index i = 0; i < inside.size(); ++i)
      if (!inside[i] && buf[i * s.esize] != 0xEE && wrong++ < 3)
        ADD_FAILURE() << what << " on " << s.what << ", seed " << seed << " step " << step
                      << ": padding written at " << i;
  }

  void write_phase(int step, unsigned seed) {
    Subject &s = subjects[shared_rng() % subjects.size()];
    const int actor = static_cast<int>(shared_rng() % static_cast<unsigned>(nprocs));
    const unsigned op = shared_rng() % 4;
    Box b = random_box(shared_rng, s);
    if (op == 0) {  // put new values
      over(s, b, [&](const Index *idx, Index off) {
        const Value v = s.wrap(step * 131 + static_cast<Value>(at(s, idx)));
        s.store(b.data.data() + off * s.esize, v);
        s.model[at(s, idx)] = v;
      });
      if (rank == actor) EXPECT_GDS_OK(GDS_put(b.data.data(), b.ld.data(), b.lo.data(), b.hi.data(), s.g));
    } else if (op == 1 || op == 2) {  // acc, or get_acc whose fetched values are checked at once
      const Value add = 1 + static_cast<Value>(shared_rng() % 5);
      std::vector<Value> before = s.model;
      over(s, b, [&](const Index *idx, Index off) {
        s.store(b.data.data() + off * s.esize, add);
        s.model[at(s, idx)] = s.wrap(s.model[at(s, idx)] + add);
      });
      if (rank == actor) {
        if (op == 1) {
          EXPECT_GDS_OK(GDS_acc(b.data.data(), b.ld.data(), b.lo.data(), b.hi.data(), MPI_SUM, s.g));
        } else {
          std::vector<unsigned char> result(b.data.size(), 0xEE);
          EXPECT_GDS_OK(GDS_get_acc(b.data.data(), b.ld.data(), result.data(), b.ld.data(), b.lo.data(),
                                    b.hi.data(), MPI_SUM, s.g));
          EXPECT_GDS_OK(GDS_wait(s.g));
          check(s, b, result, before, "get_acc(SUM)", step, seed);
        }
      }
    } else {  // compare-and-swap that succeeds
      const Index i = at(s, b.lo.data());
      const Value swap = s.wrap(-3 * step - 1);
      unsigned char cmp[8], src[8], res[8];
      s.store(cmp, s.model[i]);
      s.store(src, swap);
      if (rank == actor) {
        EXPECT_GDS_OK(GDS_compare_and_swap(cmp, src, res, b.lo.data(), s.g));
        EXPECT_GDS_OK(GDS_wait(s.g));
        EXPECT_EQ(s.load(res), s.model[i]) << "cas on " << s.what << ", seed " << seed << " step " << step;
      }
      s.model[i] = swap;
    }
    if (rank == actor) EXPECT_GDS_OK(GDS_wait(s.g));
    for (Subject &t : subjects) EXPECT_GDS_OK(GDS_fence(t.g));
  }

  // Every process: a few reads, atomic reads and rewrites of unchanged values, then one GDS_wait.
  void read_phase(int step, unsigned seed) {
    Subject &s = subjects[shared_rng() % subjects.size()];
    const int ops = 1 + static_cast<int>(shared_rng() % 4);
    struct Pending {
      Box box;
      std::vector<unsigned char> result;
      const char *what;
    };
    std::vector<Pending> pending;
    std::vector<Index> cas_index;
    std::vector<std::array<unsigned char, 8>> cas_result;
    pending.reserve(4);
    cas_result.reserve(4);
    for (int k = 0; k < ops; ++k) {
      const unsigned op = own_rng() % 4;
      Box b = random_box(own_rng, s);
      if (op == 0) {  // get
        std::vector<unsigned char> buf(b.data.size(), 0xEE);
        pending.push_back(Pending{std::move(b), std::move(buf), "get"});
        Pending &p = pending.back();
        EXPECT_GDS_OK(GDS_get(p.result.data(), p.box.ld.data(), p.box.lo.data(), p.box.hi.data(), s.g));
      } else if (op == 1) {  // atomic read
        std::vector<unsigned char> buf(b.data.size(), 0xEE);
        pending.push_back(Pending{std::move(b), std::move(buf), "get_acc(NO_OP)"});
        Pending &p = pending.back();
        EXPECT_GDS_OK(GDS_get_acc(nullptr, nullptr, p.result.data(), p.box.ld.data(), p.box.lo.data(),
                                  p.box.hi.data(), MPI_NO_OP, s.g));
      } else if (op == 2) {  // rewrite what the model holds (a put that changes nothing)
        over(s, b, [&](const Index *idx, Index off) { s.store(b.data.data() + off * s.esize, s.model[at(s, idx)]); });
        EXPECT_GDS_OK(GDS_put(b.data.data(), b.ld.data(), b.lo.data(), b.hi.data(), s.g));
      } else {  // a compare-and-swap that fails: an atomic read of one element
        const Index i = at(s, b.lo.data());
        unsigned char cmp[8], src[8];
        s.store(cmp, s.wrap(s.model[i] + 1));
        s.store(src, 0);
        cas_index.push_back(i);
        cas_result.emplace_back();
        EXPECT_GDS_OK(GDS_compare_and_swap(cmp, src, cas_result.back().data(), b.lo.data(), s.g));
      }
    }
    EXPECT_GDS_OK(GDS_wait(s.g));
    for (const Pending &p : pending) check(s, p.box, p.result, s.model, p.what, step, seed);
    for (std::size_t k = 0; k < cas_index.size(); ++k)
      EXPECT_EQ(s.load(cas_result[k].data()), s.wrap(s.model[cas_index[k]]))
          << "failing cas on " << s.what << ", seed " << seed << " step " << step;
    EXPECT_GDS_OK(GDS_fence(s.g));
  }

  void run(unsigned seed) {
    shared_rng.seed(seed);
    own_rng.seed(seed * 31u + static_cast<unsigned>(rank) + 1u);
    make_subjects();
    const int steps = nprocs <= 2 ? 400 : 40;
    for (int step = 0; step < steps; ++step) {  // never cut short on one process: collectives follow
      const unsigned what = shared_rng() % 20;
      if (what < 8) write_phase(step, seed);
      else if (what < 19) read_phase(step, seed);
      else {
        Subject &s = subjects[shared_rng() % subjects.size()];
        EXPECT_GDS_OK(GDS_version_inc(s.g, 1, nullptr, 0));
      }
    }
    free_subjects();
  }
};

}  // namespace

TEST_F(MixedArrays, RandomOperationsMatchTheModelRightAfterEachCall) {
  for (unsigned seed : seeds()) {
    if (rank == 0) std::printf("[ seed     ] %u (GDS_TEST_SEEDS=%u replays it)\n", seed, seed);
    std::fflush(stdout);
    run(seed);
    int failed = HasFailure() ? 1 : 0, any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any) break;  // the first failing seed is the one to replay
  }
}
