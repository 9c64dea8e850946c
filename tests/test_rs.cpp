// The RS copy type from inside (white-box, MPI), as redset's tests do it:
// sets of 3-5 processes (the first s of the job, each its own failure
// group), k = 1-3 encoding parts; versions of uneven lengths per process
// (one much shorter, one in two pieces) are encoded, then every
// combination of up to k lost members is rebuilt (each lost member's
// version file and encoding file byte for byte), every combination of k+1
// refused alike on every member, and a flipped bit in a survivor's
// encoding file is found by its checksum and stood in for by the rest.
// Also: the GF(2^8) paths agree with the scalar field on every length and
// alignment. The seed is printed (GDS_TEST_SEED replays it).
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/gf256.hpp"
#include "persist/files.hpp"
#include "persist/names.hpp"
#include "persist/scheme.hpp"
#include "support/mpi_test.hpp"

using namespace gds::persist;
namespace gf = gds::core::gf256;
namespace fs = std::filesystem;
using gds::test::world_rank;
using gds::test::world_size;

namespace {

unsigned seed() {
  static const unsigned s = [] {
    unsigned v = 0;
    if (const char *e = std::getenv("GDS_TEST_SEED")) v = static_cast<unsigned>(std::strtoul(e, nullptr, 10));
    else v = static_cast<unsigned>(std::random_device{}());
    MPI_Bcast(&v, 1, MPI_UNSIGNED, 0, MPI_COMM_WORLD);
    if (world_rank() == 0) std::printf("test_rs: seed %u (GDS_TEST_SEED=%u replays it)\n", v, v);
    return v;
  }();
  return s;
}

std::vector<std::byte> read_all(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> c((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> b(c.size());
  std::memcpy(b.data(), c.data(), c.size());
  return b;
}

void write_all(const std::string &path, const std::vector<std::byte> &b) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char *>(b.data()), static_cast<std::streamsize>(b.size()));
}

TEST(Gf256, EveryPathMultipliesAsTheField) {
  std::mt19937_64 rng(seed());
  const gf::Path fastest = gf::path();
  for (const gf::Path path : {gf::Path::portable, gf::Path::avx2, gf::Path::avx512, gf::Path::gfni}) {
    if (!gf::supported(path)) continue;
    gf::use(path);
    for (int round = 0; round < 60; ++round) {
      const std::size_t n = rng() % 300, skew = rng() % 64;
      const auto c = static_cast<std::uint8_t>(round < 2 ? round : rng());
      std::vector<std::byte> src(n + 64), dst(n + 64), want;
      for (auto &b : src) b = std::byte(rng());
      for (auto &b : dst) b = std::byte(rng());
      want = dst;
      for (std::size_t i = 0; i < n; ++i)
        want[skew + i] ^= std::byte{gf::mul(c, static_cast<std::uint8_t>(src[(skew * 7) % 64 + i]))};
      gf::mul_add(dst.data() + skew, src.data() + (skew * 7) % 64, c, n);
      ASSERT_EQ(dst, want) << gf::name(path) << " c=" << int(c) << " n=" << n;
    }
  }
  gf::use(fastest);
  for (int a = 1; a < 256; ++a) EXPECT_EQ(gf::mul(static_cast<std::uint8_t>(a), gf::inv(static_cast<std::uint8_t>(a))), 1);
}

TEST(Gf256, InvertsAndRefusesSingular) {
  gf::Matrix m{1, 1, 1, 2};
  ASSERT_TRUE(gf::invert(m, 2));
  EXPECT_EQ(gf::mul(m[0], 1) ^ gf::mul(m[2], 1), 1);  // (M^-1 M)[0][0]
  gf::Matrix singular{3, 5, 3, 5};
  EXPECT_FALSE(gf::invert(singular, 2));
}

// One set of the first s processes of the job (the others wait).
class RsSet {
 public:
  RsSet(int s, int k, const std::string &root) : s_(s), k_(k) {
    const int me = world_rank();
    MPI_Comm_split(MPI_COMM_WORLD, me < s ? 0 : MPI_UNDEFINED, me, &comm_);
    if (comm_ == MPI_COMM_NULL) return;
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    Places p;
    p.comm = comm_;
    p.rank = me;
    p.nprocs = s;
    for (int r = 0; r < s; ++r) p.group_of.push_back(r);
    p.dir = root + "/s" + std::to_string(s) + "k" + std::to_string(k) + "/r" + std::to_string(me);
    fs::create_directories(p.dir);
    p.spares = std::make_shared<Spares>(p.dir, 0);
    where_ = Files{p.dir, p.spares, false};
    std::vector<int> all;
    for (int r = 0; r < s; ++r) all.push_back(r);
    ok_ = make_rs(p, {all}, k, &scheme_).ok();
  }
  ~RsSet() {
    if (scheme_) scheme_->release();
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }
  [[nodiscard]] bool in() const { return comm_ != MPI_COMM_NULL; }
  [[nodiscard]] bool made() const { return ok_ && scheme_->tolerance() == std::min(k_, s_ - 1); }

  // Encodes version n of this process's file, sent from two pieces.
  Result protect(std::uint64_t n, const std::vector<std::byte> &file) {
    std::uint64_t mine = file.size();
    std::vector<std::uint64_t> all(static_cast<std::size_t>(s_));
    MPI_Allgather(&mine, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, comm_);
    all.erase(all.begin() + world_rank());
    if (Result r = scheme_->prepare(n, mine, all); !r.ok()) return r;
    const std::size_t cut = file.size() / 3;
    FileView v;
    v.pieces = {{const_cast<std::byte *>(file.data()), cut}, {const_cast<std::byte *>(file.data()) + cut, file.size() - cut}};
    v.size = file.size();
    Exchange x;
    if (Result r = scheme_->start(n, 100 + static_cast<int>(n), v, where_, &x); !r.ok()) return r;
    bool done = false;
    if (Result r = progress(x, true, &done); !r.ok()) return r;
    if (Result r = x.store(x); !r.ok()) return r;
    scheme_->give_back(std::move(x.in));
    return {};
  }

  Result rebuild(std::uint64_t n, const std::vector<char> &lost, const std::vector<std::byte> &own,
                 const std::string &path) {
    const bool here = lost[static_cast<std::size_t>(world_rank())] != 0;
    return scheme_->rebuild(n, lost, here ? std::span<const std::byte>() : std::span<const std::byte>(own), path, where_);
  }
  [[nodiscard]] std::string enc(std::uint64_t n) const { return parity_path(where_.dir, n); }
  [[nodiscard]] std::string dir() const { return where_.dir; }
  void barrier() const { MPI_Barrier(comm_); }

 private:
  int s_, k_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  Files where_;
  std::unique_ptr<Scheme> scheme_;
  bool ok_ = false;
};

class RsLosses : public ::testing::TestWithParam<std::pair<int, int>> {};

TEST_P(RsLosses, EveryCombinationUpToKRebuildsAndBeyondRefuses) {
  const auto [s, asked] = GetParam();
  const int k = std::min(asked, s - 1);  // a set of 2 survives one
  if (world_size() < s) GTEST_SKIP() << "needs " << s << " processes";
  char tmpl[] = "/tmp/gds_test_rs.XXXXXX";
  std::string root;
  if (world_rank() == 0) root = mkdtemp(tmpl);
  int len = static_cast<int>(root.size());
  MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
  root.resize(static_cast<std::size_t>(len));
  MPI_Bcast(root.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD);
  {
    RsSet set(s, asked, root);
    const int me = world_rank();
    if (set.in()) {
      EXPECT_TRUE(set.made());
      std::mt19937_64 rng(seed() * 31 + static_cast<unsigned>(s * 8 + k) * 977 + static_cast<unsigned>(me));
      // Two versions: uneven lengths, one process's much shorter (its chunks mostly padding).
      std::vector<std::vector<std::byte>> files;
      for (std::uint64_t n = 1; n <= 2; ++n) {
        const std::size_t bytes = me == static_cast<int>(n) % s ? 1 + rng() % 50 : 1000 + rng() % 300000;
        std::vector<std::byte> f(bytes);
        for (auto &b : f) b = std::byte(rng());
        const Result r = set.protect(n, f);
        EXPECT_TRUE(r.ok()) << r.what();
        files.push_back(std::move(f));
      }
      const std::uint64_t n = 2;
      const std::vector<std::byte> &own = files[1];
      const std::vector<std::byte> enc = read_all(set.enc(n));
      EXPECT_FALSE(enc.empty());
      // Every combination of up to k + 1 lost members (bit masks), and with a
      // flipped bit in one survivor's encoding file where fewer than k are lost.
      for (int mask = 1; mask < (1 << s); ++mask) {
        const int nlost = __builtin_popcount(static_cast<unsigned>(mask));
        if (nlost > k + 1) continue;
        for (int flip = -1; flip < s; ++flip) {
          if (flip >= 0 && (nlost >= k || (mask >> flip) & 1)) continue;
          if (flip >= 0 && flip != (mask * 7 + 3) % s) continue;  // one survivor per combination
          std::vector<char> lost(static_cast<std::size_t>(s));
          for (int j = 0; j < s; ++j) lost[static_cast<std::size_t>(j)] = static_cast<char>((mask >> j) & 1);
          const bool here = lost[static_cast<std::size_t>(me)] != 0;
          if (here) fs::remove(set.enc(n));  // the node's directory is gone
          if (me == flip) {
            std::vector<std::byte> bad = enc;
            bad[rng() % bad.size()] ^= std::byte(static_cast<unsigned char>(1u << (rng() % 8)));
            write_all(set.enc(n), bad);
          }
          const std::string out = set.dir() + "/rebuilt";
          const Result r = set.rebuild(n, lost, own, out);
          const std::string what = "s=" + std::to_string(s) + " k=" + std::to_string(k) + " lost mask " +
                                   std::to_string(mask) + (flip >= 0 ? " flipped " + std::to_string(flip) : "");
          if (nlost <= k) {
            EXPECT_TRUE(r.ok()) << what << ": " << r.what();
            if (here && r.ok()) {
              EXPECT_EQ(read_all(out), own) << what << ": the version file rebuilt differs";
              EXPECT_EQ(read_all(set.enc(n)), enc) << what << ": the encoding file rebuilt differs";
            }
            if (me == flip && r.ok()) {  // repaired while its set rebuilt
              EXPECT_EQ(read_all(set.enc(n)), enc) << what << ": the damaged encoding file is not repaired";
            }
          } else {
            EXPECT_EQ(r.status(), GDS_STATUS_UNRECOVERABLE) << what << ": " << r.what();
          }
          fs::remove(out);
          write_all(set.enc(n), enc);
          set.barrier();
        }
      }
    }
    gds::test::barrier();
  }
  if (world_rank() == 0) fs::remove_all(root);
}

INSTANTIATE_TEST_SUITE_P(Sets, RsLosses,
                         ::testing::Values(std::pair{3, 1}, std::pair{3, 2}, std::pair{4, 1}, std::pair{4, 2},
                                           std::pair{4, 3}, std::pair{5, 1}, std::pair{5, 2}, std::pair{5, 3},
                                           std::pair{2, 2}),
                         [](const auto &info) {
                           return "s" + std::to_string(info.param.first) + "k" + std::to_string(info.param.second);
                         });

}  // namespace
