// RS: a Reed-Solomon erasure code over the sets XOR uses (xor_sets: s
// processes of distinct failure groups), as redset's RS and FTI's level 3.
// Each member's version file, padded to the set's longest, is cut into
// d = s - k chunks. The set's s stripes rotate as RAID-6's do: stripe t
// holds one chunk of d members (member (t + k + i) mod s gives its chunk
// i) and the k encoding parts of them, kept by members t .. t + k - 1 (mod
// s). So every member keeps k encoding chunks, one per stripe it encodes,
// and any k lost members leave every stripe d of its s chunks: enough.
//
// The code is systematic: encoding part p of a stripe is sum_i G[p][i] *
// chunk_i over GF(2^8), G a k x d Cauchy matrix scaled so that its first
// row and column are ones (every square submatrix stays invertible, so
// any d of a stripe's chunks give the rest; part 0 is the XOR parity).
//
// Protecting a version is one exchange, as XOR's: every member sends each
// chunk of its file to the k members encoding its stripe, and computes
// its own k parts from the d chunks of each it receives. A rebuild finds,
// per stripe, d chunks that survive (a survivor's version file, which the
// caller checked, or its encoding file, checked here), inverts their rows
// of the code, and streams every lost chunk (version file and encoding
// file of each lost member) as the sum of those d chunks times the
// inverse's coefficients.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>

#include "core/collective.hpp"
#include "core/crc32c.hpp"
#include "core/gf256.hpp"
#include "core/log.hpp"
#include "core/util.hpp"
#include "persist/files.hpp"
#include "persist/scheme.hpp"

namespace gds::persist {

namespace {

namespace gf = core::gf256;

constexpr int kTagRebuild = 0x6d12;
// Bytes of each stripe encoded at a time (every source's and part's bytes stay in the caches).
constexpr std::uint64_t kEncodeBlock = 32 << 10;

int mod(int a, int s) { return ((a % s) + s) % s; }

// The code of a set of s members with k encoding parts: the positions of a
// stripe are its d data chunks (0 .. d-1), then its k parts (d .. s-1).
class Code {
 public:
  Code(int s, int k) : s_(s), k_(k), d_(s - k), g_(static_cast<std::size_t>(k * (s - k))) {
    // Cauchy: 1 / (x_p + y_i), x_p = p, y_i = k + i (distinct: s <= 255).
    for (int p = 0; p < k_; ++p)
      for (int i = 0; i < d_; ++i) at(p, i) = gf::inv(static_cast<std::uint8_t>(p ^ (k_ + i)));
    for (int i = 0; i < d_; ++i) {  // columns scaled: row 0 all ones
      const std::uint8_t b = gf::inv(at(0, i));
      for (int p = 0; p < k_; ++p) at(p, i) = gf::mul(at(p, i), b);
    }
    for (int p = 1; p < k_; ++p) {  // rows scaled: column 0 all ones
      const std::uint8_t a = gf::inv(at(p, 0));
      for (int i = 0; i < d_; ++i) at(p, i) = gf::mul(at(p, i), a);
    }
  }
  [[nodiscard]] std::uint8_t coef(int p, int i) const { return g_[static_cast<std::size_t>(p * d_ + i)]; }
  // Position q's row of the code (its chunk as a combination of the stripe's data).
  [[nodiscard]] std::vector<std::uint8_t> row(int q) const {
    std::vector<std::uint8_t> r(static_cast<std::size_t>(d_), 0);
    if (q < d_) r[static_cast<std::size_t>(q)] = 1;
    else
      for (int i = 0; i < d_; ++i) r[static_cast<std::size_t>(i)] = coef(q - d_, i);
    return r;
  }
  // The member at position q of stripe t, and member j's position in stripe t.
  [[nodiscard]] int member(int t, int q) const { return mod(t + (q < d_ ? q + k_ : q - d_), s_); }
  [[nodiscard]] int position(int j, int t) const {
    const int r = mod(j - t, s_);
    return r < k_ ? d_ + r : r - k_;
  }
  [[nodiscard]] int d() const { return d_; }

 private:
  std::uint8_t &at(int p, int i) { return g_[static_cast<std::size_t>(p * d_ + i)]; }
  int s_, k_, d_;
  std::vector<std::uint8_t> g_;  // k x d
};

class Rs final : public Scheme {
 public:
  Rs(const Places &p, core::Comm set, std::vector<int> members, std::uint64_t set_id, int k)
      : p_(p), set_(std::move(set)), members_(std::move(members)), set_id_(set_id), k_(k),
        s_(static_cast<int>(members_.size())), code_(std::make_shared<const Code>(s_, k)), code(*code_) {
    me_ = static_cast<int>(std::find(members_.begin(), members_.end(), p_.rank) - members_.begin());
    for (const int r : members_)
      if (r != p_.rank) others_.push_back(r);
    // Which of this member's parts take a chunk from member m: those of the
    // stripes m is data in, in part order (m's chunks arrive in that order).
    from_.resize(static_cast<std::size_t>(s_));
    for (int part = 0; part < k_; ++part) {
      const int t = mod(me_ - part, s_);
      for (int i = 0; i < code.d(); ++i) from_[static_cast<std::size_t>(code.member(t, i))].push_back(part);
    }
  }

  [[nodiscard]] std::vector<int> tells() const override { return others_; }
  [[nodiscard]] std::vector<int> hears() const override { return others_; }

  // Every member's length, the chunk size from the longest, and room for the
  // chunks every other member sends (the parts are encoded in place of them).
  Result prepare(std::uint64_t, std::uint64_t length, std::span<const std::uint64_t> heard) override {
    lengths_ = set_lengths(s_, me_, length, heard);
    chunk_ = rs_chunk(*std::max_element(lengths_.begin(), lengths_.end()), static_cast<std::uint32_t>(s_),
                      static_cast<std::uint32_t>(k_));
    try {
      if (ins_.empty()) ins_ = std::move(spare_);
      ins_.resize(static_cast<std::size_t>(s_));  // one per member (this one's empty)
      for (int j = 0; j < s_; ++j) ins_[static_cast<std::size_t>(j)].resize(from_[static_cast<std::size_t>(j)].size() * chunk_);
      padding_ = zeros(chunk_);
    } catch (const std::bad_alloc &) {
      return Result::nomem("no memory for the RS chunks of " + std::to_string(k_) + " encoding parts of " +
                           std::to_string(chunk_) + " bytes each");
    }
    return {};
  }

  Result start(std::uint64_t n, int tag, const FileView &file, const Files &where, Exchange *x) override {
    const std::uint64_t c = chunk_;
    x->in = std::move(ins_);
    ins_.clear();
    for (int j = 0; j < s_; ++j)
      if (!from_[static_cast<std::size_t>(j)].empty())
        x->inflows.push_back(Inflow{x->in[static_cast<std::size_t>(j)].data(),
                                    from_[static_cast<std::size_t>(j)].size() * c, 0, j, tag, set_.get()});
    // To each member its parts' chunks of this file, in its part order.
    for (int h = 0; h < s_; ++h) {
      if (h == me_) continue;
      for (int part = 0; part < k_; ++part) {
        const int q = code.position(me_, mod(h - part, s_));
        if (q < code.d()) post_range(&x->reqs, file, std::uint64_t(q) * c, c, padding_, h, tag, set_.get());
      }
    }
    // Where part p's source i lies: (buffer, offset) in x->in.
    std::vector<std::pair<std::size_t, std::uint64_t>> src;
    for (int part = 0; part < k_; ++part) {
      const int t = mod(me_ - part, s_);
      for (int i = 0; i < code.d(); ++i) {
        const auto m = static_cast<std::size_t>(code.member(t, i));
        const auto nth = std::find(from_[m].begin(), from_[m].end(), part) - from_[m].begin();
        src.emplace_back(m, std::uint64_t(nth) * c);
      }
    }
    ParityHeader h = head(n);
    const std::string path = parity_path(where.dir, n);
    where.spares->claim(path, std::uint64_t(k_) * c);
    x->store = [code = code_, k = k_, h, path, c, src = std::move(src),
                dir = where.dir](Exchange &e) mutable -> Result {
      encode(*code, k, e.in, src, c);
      std::vector<iovec> pieces{{nullptr, 0}};
      h.parity_crc = 0;
      for (int part = 0; part < k; ++part) {  // each part where its stripe's first chunk came
        const auto &[b, off] = src[static_cast<std::size_t>(part * code->d())];
        std::byte *out = e.in[b].data() + off;
        h.parity_crc = core::crc32c(out, c, h.parity_crc);
        pieces.push_back({out, c});
      }
      std::vector<std::byte> first = encode_parity_head(h);
      pieces[0] = iovec{first.data(), first.size()};
      PERSIST_TRY(write_file(path, pieces));
      return sync_dir(dir);
    };
    return {};
  }

  void give_back(std::vector<std::vector<std::byte>> &&in) override {
    if (in.size() == static_cast<std::size_t>(s_)) spare_ = std::move(in);
  }

  Result rebuild(std::uint64_t n, const std::vector<char> &lost, std::span<const std::byte> own,
                 const std::string &path, const Files &where) override {
    std::vector<char> gone(static_cast<std::size_t>(s_));
    for (int j = 0; j < s_; ++j) gone[static_cast<std::size_t>(j)] = lost[static_cast<std::size_t>(members_[static_cast<std::size_t>(j)])];
    const auto nlost = std::count(gone.begin(), gone.end(), 1);
    if (nlost == 0) return {};
    if (nlost > k_)
      return Result::failure(GDS_STATUS_UNRECOVERABLE,
                             "version " + std::to_string(n) + " is lost on " + std::to_string(nlost) +
                                 " processes of one RS set (of " + std::to_string(s_) + "); its " +
                                 std::to_string(k_) + " encoding part(s) rebuild " + std::to_string(k_));
    Plan plan;
    PERSIST_TRY(plan_rebuild(n, gone, own, where, &plan));
    PERSIST_TRY(solve(n, gone, &plan));
    return stream(n, gone, own, path, where, plan);
  }

  void remove(std::uint64_t n, const Files &where) override { where.spares->keep(parity_path(where.dir, n)); }
  void release() override { set_.reset(); }
  [[nodiscard]] int tolerance() const override { return k_; }

 private:
  // Part p = sum over its stripe's d chunks of G[p][i] * chunk i (src:
  // where each lies in `in`), a block at a time, in place of its first
  // chunk (G[p][0] = 1; every chunk received serves one part only).
  static void encode(const Code &code, int k, std::vector<std::vector<std::byte>> &in,
                     const std::vector<std::pair<std::size_t, std::uint64_t>> &src, std::uint64_t c) {
    const int d = code.d();
    for (std::uint64_t at = 0; at < c; at += kEncodeBlock) {
      const std::uint64_t len = std::min(kEncodeBlock, c - at);
      for (int part = 0; part < k; ++part) {
        const auto &[first, first_off] = src[static_cast<std::size_t>(part * d)];
        std::byte *out = in[first].data() + first_off + at;
        for (int i = 1; i < d; ++i) {
          const auto &[b, off] = src[static_cast<std::size_t>(part * d + i)];
          gf::mul_add(out, in[b].data() + off + at, code.coef(part, i), len);
        }
      }
    }
  }

  // What a rebuild needs: this member's encoding file, the set's agreed
  // chunk size and lengths, which members' encoding files are good, per
  // stripe the d positions it is rebuilt from and each lost position's
  // coefficients, and the pieces' buffers.
  struct Plan {
    Mapped enc;
    std::uint64_t at = 0;  // of part 0 in the encoding file
    std::uint64_t chunk = 0;
    std::vector<std::uint64_t> lengths;
    std::vector<char> enc_ok;
    std::vector<std::vector<int>> from;                  // per stripe: the positions read
    std::vector<std::vector<std::vector<std::uint8_t>>> coef;  // per stripe, per member: its position's coefficients
    std::unique_ptr<std::byte[]> piece, sum;
  };

  // One allgather over the set: whether each member's encoding file is good
  // (and it has its buffers), its chunk size, lengths and own file's length.
  // The good encoding files must agree; every member decides alike.
  Result plan_rebuild(std::uint64_t n, const std::vector<char> &gone, std::span<const std::byte> own,
                      const Files &where, Plan *p) {
    ParityHeader h;
    const bool survivor = !gone[static_cast<std::size_t>(me_)];
    const bool enc = survivor && p->enc.open(parity_path(where.dir, n)).ok() &&
                     parse_parity(p->enc.bytes(), &h, &p->at).ok() && h.number == n &&
                     h.parts == static_cast<std::uint32_t>(k_) && h.member == static_cast<std::uint32_t>(me_) &&
                     h.set_size == static_cast<std::uint32_t>(s_) && h.set_id == set_id_ &&
                     h.rank == static_cast<std::uint32_t>(p_.rank) &&
                     h.lengths[static_cast<std::size_t>(me_)] == own.size();
    bool mem = true;
    try {
      p->piece = std::make_unique_for_overwrite<std::byte[]>(kRebuildPiece);
      if (!survivor || !enc) p->sum = std::make_unique_for_overwrite<std::byte[]>(kRebuildPiece);
    } catch (const std::bad_alloc &) {
      mem = false;  // said below: the set agrees first
    }
    const auto w = static_cast<std::size_t>(s_ + 3);
    std::vector<std::uint64_t> mine(w, 0), all(w * static_cast<std::size_t>(s_));
    mine[0] = (enc ? 1u : 0u) | (mem ? 2u : 0u);
    mine[1] = enc ? h.chunk : 0;
    mine[2] = own.size();
    for (int j = 0; enc && j < s_; ++j) mine[3 + static_cast<std::size_t>(j)] = h.lengths[static_cast<std::size_t>(j)];
    if (const int rc = MPI_Allgather(mine.data(), static_cast<int>(w), MPI_UINT64_T, all.data(), static_cast<int>(w),
                                     MPI_UINT64_T, set_.get());
        rc != MPI_SUCCESS)
      return Result::mpi("MPI_Allgather", rc);
    const std::string lost_here = "version " + std::to_string(n) + " is lost in an RS set, and ";
    p->enc_ok.assign(static_cast<std::size_t>(s_), 0);
    const std::uint64_t *agreed = nullptr;
    for (int j = 0; j < s_; ++j) {
      const std::uint64_t *r = all.data() + static_cast<std::size_t>(j) * w;
      if ((r[0] & 2u) == 0) return Result::failure(GDS_STATUS_UNRECOVERABLE, lost_here + "a member lacks memory");
      if ((r[0] & 1u) == 0) continue;
      p->enc_ok[static_cast<std::size_t>(j)] = 1;
      if (agreed == nullptr) agreed = r;
      else if (!std::equal(r + 3, r + w, agreed + 3) || r[1] != agreed[1])
        return Result::failure(GDS_STATUS_UNRECOVERABLE,
                               lost_here + "the encoding files of its set disagree on the chunk size or the lengths");
    }
    if (agreed == nullptr)
      return Result::failure(GDS_STATUS_UNRECOVERABLE, lost_here + "no member of its set has a good encoding file");
    p->chunk = agreed[1];
    p->lengths.assign(agreed + 3, agreed + w);
    for (int j = 0; j < s_; ++j)  // a survivor's file must be the one encoded
      if (!gone[static_cast<std::size_t>(j)] && all[static_cast<std::size_t>(j) * w + 2] != p->lengths[static_cast<std::size_t>(j)])
        return Result::failure(GDS_STATUS_UNRECOVERABLE, lost_here + "process " +
                                                             std::to_string(members_[static_cast<std::size_t>(j)]) +
                                                             "'s file is not the one its set encoded");
    return {};
  }

  // Whether member j rebuilds its position in stripe t: it is lost, or its
  // encoding file is damaged and it holds one of the stripe's parts there
  // (repaired while the set rebuilds anyway).
  [[nodiscard]] bool rebuilds(const Plan &p, const std::vector<char> &gone, int j, int t) const {
    return gone[static_cast<std::size_t>(j)] != 0 ||
           (p.enc_ok[static_cast<std::size_t>(j)] == 0 && code.position(j, t) >= code.d());
  }

  // Per stripe: the first d positions that survive, and for every position
  // rebuilt the coefficients that give it from them (its row of the code
  // times the inverse of theirs).
  Result solve(std::uint64_t n, const std::vector<char> &gone, Plan *p) const {
    const int d = code.d();
    p->from.assign(static_cast<std::size_t>(s_), {});
    p->coef.assign(static_cast<std::size_t>(s_), std::vector<std::vector<std::uint8_t>>(static_cast<std::size_t>(s_)));
    for (int t = 0; t < s_; ++t) {
      std::vector<int> &from = p->from[static_cast<std::size_t>(t)];
      for (int q = 0; q < s_ && static_cast<int>(from.size()) < d; ++q) {
        const auto m = static_cast<std::size_t>(code.member(t, q));
        if (!gone[m] && (q < d || p->enc_ok[m])) from.push_back(q);
      }
      if (static_cast<int>(from.size()) < d)
        return Result::failure(GDS_STATUS_UNRECOVERABLE,
                               "version " + std::to_string(n) + " is lost in an RS set, and stripe " + std::to_string(t) +
                                   " has " + std::to_string(from.size()) + " good chunks of the " + std::to_string(d) +
                                   " it needs (encoding files damaged too)");
      gf::Matrix m;
      for (const int q : from) {
        const std::vector<std::uint8_t> r = code.row(q);
        m.insert(m.end(), r.begin(), r.end());
      }
      if (!gf::invert(m, d))
        return Result::failure(GDS_STATUS_UNRECOVERABLE, "RS: a stripe's surviving rows are singular");
      for (int j = 0; j < s_; ++j) {
        if (!rebuilds(*p, gone, j, t)) continue;
        const std::vector<std::uint8_t> r = code.row(code.position(j, t));
        std::vector<std::uint8_t> &w = p->coef[static_cast<std::size_t>(t)][static_cast<std::size_t>(j)];
        w.assign(static_cast<std::size_t>(d), 0);
        for (int a = 0; a < d; ++a)
          for (int i = 0; i < d; ++i)
            w[static_cast<std::size_t>(a)] ^= gf::mul(r[static_cast<std::size_t>(i)], m[static_cast<std::size_t>(i * d + a)]);
      }
    }
    return {};
  }

  // Stripe by stripe, lost member by lost member, in pieces: each of the d
  // surviving positions' holders sends its piece, which the lost member
  // multiplies into the sum and writes where it belongs (its version file,
  // or its encoding file, rebuilt too). Every member walks the same order:
  // blocking pairs cannot wait on each other.
  Result stream(std::uint64_t n, const std::vector<char> &gone, std::span<const std::byte> own,
                const std::string &path, const Files &where, Plan &p) {
    const std::uint64_t c = p.chunk, piece_bytes = std::min<std::uint64_t>(c, kRebuildPiece);
    const int d = code.d();
    const bool lost_here = gone[static_cast<std::size_t>(me_)] != 0;
    const bool repairing = !lost_here && !p.enc_ok[static_cast<std::size_t>(me_)];  // its encoding file only
    Writer out, enc_out;
    ParityHeader h = head(n);
    h.chunk = c;
    h.lengths = p.lengths;
    const std::uint64_t head_bytes = encode_parity_head(h).size();
    const std::string enc_path = parity_path(where.dir, n);
    // The version file's writes (io) and the encoding file's (enc_io): a
    // failure of the second costs the version its redundancy, not its file.
    Result io = lost_here ? out.open(path) : Result();
    Result enc_io = lost_here || repairing ? enc_out.open(enc_path + ".tmp") : Result();
    std::vector<std::uint32_t> part_crc(static_cast<std::size_t>(k_), 0);
    const std::uint64_t length = p.lengths[static_cast<std::size_t>(me_)];
    for (int t = 0; t < s_; ++t) {
      for (int j = 0; j < s_; ++j) {
        if (!rebuilds(p, gone, j, t)) continue;
        const int qj = code.position(j, t);
        const std::vector<std::uint8_t> &w = p.coef[static_cast<std::size_t>(t)][static_cast<std::size_t>(j)];
        for (std::uint64_t off = 0; off < c; off += piece_bytes) {
          const std::uint64_t len = std::min(piece_bytes, c - off);
          if (me_ == j) std::memset(p.sum.get(), 0, len);
          for (int a = 0; a < d; ++a) {
            const int q = p.from[static_cast<std::size_t>(t)][static_cast<std::size_t>(a)];
            const int holder = code.member(t, q);
            if (holder == me_) {
              const std::byte *send = p.piece.get();
              if (q < d) chunk_slice(own, q, c, off, len, p.piece.get());
              else send = p.enc.bytes().data() + p.at + std::uint64_t(q - d) * c + off;
              const int rc = MPI_Send(send, static_cast<int>(len), MPI_BYTE, j, kTagRebuild, set_.get());
              if (rc != MPI_SUCCESS) return Result::mpi("MPI_Send", rc);
            } else if (me_ == j) {
              const int rc = MPI_Recv(p.piece.get(), static_cast<int>(len), MPI_BYTE, holder, kTagRebuild, set_.get(),
                                      MPI_STATUS_IGNORE);
              if (rc != MPI_SUCCESS) return Result::mpi("MPI_Recv", rc);
              gf::mul_add(p.sum.get(), p.piece.get(), w[static_cast<std::size_t>(a)], len);
            }
          }
          if (me_ != j || !io.ok()) continue;
          if (qj < d) {  // what lies within the file's length (the rest is padding)
            const std::uint64_t where_at = std::uint64_t(qj) * c + off;
            if (where_at < length) io = out.write_at(where_at, p.sum.get(), std::min(len, length - where_at));
          } else {
            const auto part = static_cast<std::size_t>(qj - d);
            part_crc[part] = core::crc32c(p.sum.get(), len, part_crc[part]);
            if (enc_io.ok()) enc_io = enc_out.write_at(head_bytes + part * c + off, p.sum.get(), len);
          }
        }
      }
    }
    if (!lost_here && !repairing) return io;
    if (lost_here && io.ok()) io = out.finish();
    if (io.ok() && enc_io.ok()) enc_io = finish_encoding(h, part_crc, enc_out, enc_path);
    if (!enc_io.ok()) {
      remove_file(enc_path + ".tmp");
      if (io.ok())
        core::log(core::Level::warning, "restart",
                  "version %llu of process %d: its RS encoding file is not rebuilt (%s): that version survives "
                  "fewer lost nodes until a newer one is cached",
                  static_cast<unsigned long long>(n), p_.rank, enc_io.what().c_str());
    }
    return io;
  }

  // The rebuilt encoding file's header (its CRC joined from its parts'), then durable under its name.
  Result finish_encoding(ParityHeader &h, const std::vector<std::uint32_t> &part_crc, Writer &enc_out,
                         const std::string &enc_path) const {
    h.parity_crc = part_crc[0];
    for (int part = 1; part < k_; ++part)
      h.parity_crc = core::crc32c_combine(h.parity_crc, part_crc[static_cast<std::size_t>(part)], h.chunk);
    const std::vector<std::byte> head = encode_parity_head(h);
    PERSIST_TRY(enc_out.write_at(0, head.data(), head.size()));
    PERSIST_TRY(enc_out.finish());
    if (::rename((enc_path + ".tmp").c_str(), enc_path.c_str()) != 0)
      return Result::io(enc_path, "cannot rename the rebuilt encoding file to it", errno);
    return sync_dir(enc_path.substr(0, enc_path.rfind('/')));
  }


  // The header of this member's encoding file of version n (its CRC once the parts are complete).
  [[nodiscard]] ParityHeader head(std::uint64_t n) const {
    ParityHeader h;
    h.set_size = static_cast<std::uint32_t>(s_);
    h.member = static_cast<std::uint32_t>(me_);
    h.rank = static_cast<std::uint32_t>(p_.rank);
    h.parts = static_cast<std::uint32_t>(k_);
    h.number = n;
    h.set_id = set_id_;
    h.chunk = chunk_;
    h.lengths = lengths_;
    return h;
  }

  Places p_;
  core::Comm set_;
  std::vector<int> members_;  // ranks of the array's communicator, in set order
  std::vector<int> others_;   // the same without this process
  std::uint64_t set_id_;
  int k_, s_, me_ = 0;
  std::shared_ptr<const Code> code_;  // shared with the stores in flight
  const Code &code;
  std::vector<std::vector<int>> from_;  // per member: this member's parts it sends a chunk to, in order
  std::vector<std::uint64_t> lengths_;  // of the members' files of the version being made (prepare)
  std::uint64_t chunk_ = 0;
  std::vector<std::vector<std::byte>> ins_;    // per member its chunks, then the k parts (prepare), for start
  std::vector<std::vector<std::byte>> spare_;  // buffers given back, for the next prepare
  const std::byte *padding_ = nullptr;         // chunk_ zeros
};

}  // namespace

Result make_rs(const Places &p, const std::vector<std::vector<int>> &sets, int k, std::unique_ptr<Scheme> *out) {
  core::Comm c;
  std::vector<int> members;
  std::uint64_t id = 0;
  PERSIST_TRY(split_sets(p, sets, &c, &members, &id));
  const int parts = std::min(k, static_cast<int>(members.size()) - 1);
  *out = std::make_unique<Rs>(p, std::move(c), std::move(members), id, parts);
  return {};
}

}  // namespace gds::persist
