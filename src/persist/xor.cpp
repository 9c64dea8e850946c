// XOR: SCR's RAID-5 layout over sets of processes in distinct failure
// groups. Each member's version file, padded to the set's longest, is cut
// into k - 1 chunks (k members); member m keeps the parity of one chunk of
// every other member (chunk (m - j - 1) mod k of member j), computed by a
// ring reduce-scatter: k - 1 steps, each passing one chunk to the right.
// One lost member per set is rebuilt (every survivor streams it its share of
// each chunk's XOR, in pieces); two are beyond it.
//
// Sets (xor_sets): the processes at the same position within their failure
// groups form a row (in group order); a row is cut into sets of
// GDS_SET_SIZE, and a shorter rest joins the last set. Where groups differ
// in size, a process alone in its row joins or pairs with processes of
// other groups.
#include <algorithm>
#include <array>
#include <cstring>
#include <iterator>
#include <map>
#include <new>

#include "core/collective.hpp"
#include "core/crc32c.hpp"
#include "core/log.hpp"
#include "core/util.hpp"
#include "persist/files.hpp"
#include "persist/scheme.hpp"

namespace gds::persist {

namespace {

const std::array<std::byte, 4096> kZeros{};  // padding sent from no buffer
constexpr int kTagRing = 0x6d10, kTagRebuild = 0x6d11, kTagAsync = 0x6d12;

using gds::core::ull;

void xor_into(std::byte *dst, const std::byte *src, std::uint64_t n) {
  auto *d = reinterpret_cast<std::uint64_t *>(dst);
  const auto *s = reinterpret_cast<const std::uint64_t *>(src);
  for (std::uint64_t i = 0; i < n / 8; ++i) d[i] ^= s[i];
}

class Xor final : public Scheme {
 public:
  Xor(const Places &p, core::Comm set, std::vector<int> members, std::uint64_t set_id)
      : p_(p), set_(std::move(set)), members_(std::move(members)), set_id_(set_id) {
    k_ = static_cast<int>(members_.size());
    me_ = static_cast<int>(std::find(members_.begin(), members_.end(), p_.rank) - members_.begin());
  }

  // Every member's length, the chunk size from the longest, and the buffers.
  GDS_status_t prepare(const char *func, std::uint64_t, std::uint64_t length) override {
    lengths_.assign(static_cast<std::size_t>(k_), 0);
    const int rc = MPI_Allgather(&length, 1, MPI_UINT64_T, lengths_.data(), 1, MPI_UINT64_T, set_.get());
    if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Allgather", rc);
    chunk_ = parity_chunk(*std::max_element(lengths_.begin(), lengths_.end()), static_cast<std::uint32_t>(k_));
    try {
      if (p_.async) {
        // A chunk from every other member (start); buffers given back are reused.
        ins_.resize(static_cast<std::size_t>(k_ - 1));
        for (std::vector<std::byte> &in : ins_) in.resize(chunk_);
      } else {
        buf_.resize(chunk_);
        in_.resize(chunk_);
      }
    } catch (const std::bad_alloc &) {
      return core::fail_critical(GDS_STATUS_NOMEM, func, "no memory for %d %llu-byte XOR chunks",
                                 p_.async ? k_ - 1 : 2, ull(chunk_));
    }
    return GDS_STATUS_OK;
  }

  [[nodiscard]] std::uint64_t room(std::uint64_t length) const override {
    return std::max(length, std::uint64_t(k_ - 1) * chunk_);
  }

  // The reduce-scatter as one exchange: member m's chunk of this file goes
  // to m, every other member's chunk of its parity comes here; store XORs
  // them (the same parity as the ring's: XOR is associative).
  GDS_status_t start(const char *, std::uint64_t n, const std::byte *file, Exchange *x) override {
    const std::uint64_t c = chunk_;
    x->in = std::move(ins_);
    ins_.clear();
    for (int j = 0, i = 0; j < k_; ++j)
      if (j != me_) post_recv_bytes(&x->reqs, x->in[static_cast<std::size_t>(i++)].data(), c, j, kTagAsync, set_.get());
    for (int m = 0; m < k_; ++m)
      if (m != me_) post_bytes(&x->reqs, file + std::uint64_t(idx(me_, m)) * c, c, m, kTagAsync, set_.get());
    ParityHeader h = parity_head(n);
    const std::string path = parity_path(p_.dir, n);
    p_.spares->claim(path, c);
    x->store = [h, path, c, dir = p_.dir](Exchange &e) mutable {
      for (std::size_t i = 1; i < e.in.size(); ++i) xor_into(e.in[0].data(), e.in[i].data(), c);
      h.parity_crc = core::crc32c(e.in[0].data(), c);
      std::vector<std::byte> head = encode_parity_head(h);
      std::string why = store_file(path, {{head.data(), head.size()}, {e.in[0].data(), c}});
      if (why.empty() && !fsync_dir(dir)) why = dir + ": cannot fsync";
      return why;
    };
    return GDS_STATUS_OK;
  }

  void give_back(std::vector<std::vector<std::byte>> &&in) override {
    if (in.size() == static_cast<std::size_t>(k_ - 1)) ins_ = std::move(in);
  }

  // The ring reduce-scatter: k - 1 steps, each sending one chunk (c bytes,
  // agreed in prepare) to the right and receiving one from the left.
  GDS_status_t encode(const char *func, std::uint64_t n, const FileView &file) override {
    const std::uint64_t c = chunk_;
    const int right = (me_ + 1) % k_, left = (me_ + k_ - 1) % k_;
    // The first step sends a chunk of the file itself, from where its pieces
    // are, when it needs no more than a little padding (a choice of this
    // process alone: the receiver takes c bytes however they are cut).
    const std::uint64_t first_at = std::uint64_t(idx(me_, left)) * c;
    const bool in_place = first_at + c <= file.size + kZeros.size();
    if (!in_place) file.copy(first_at, c, buf_.data());
    std::vector<MPI_Request> reqs;
    for (int s = 0; s + 1 < k_; ++s) {
      if (s == 0 && in_place)
        post_range(file, first_at, c, right, &reqs);
      else
        post_bytes(&reqs, buf_.data(), c, right, kTagRing, set_.get());
      const int rc = recv_bytes(in_.data(), c, left, kTagRing, set_.get());
      const int sent = wait_all(&reqs);  // buf_ is written next
      if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Recv", rc);
      if (sent != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Waitall", sent);
      const int m = ((me_ - s - 2) % k_ + k_) % k_;  // whose parity arrived
      if (s + 2 < k_) {
        file.copy(std::uint64_t(idx(me_, m)) * c, c, buf_.data());
        xor_into(buf_.data(), in_.data(), c);
      }
    }
    ParityHeader h = parity_head(n);
    h.parity_crc = core::crc32c(in_.data(), c);
    std::vector<std::byte> head = encode_parity_head(h);
    return p_.spares->write(func, parity_path(p_.dir, n), {{head.data(), head.size()}, {in_.data(), c}});
  }

  GDS_status_t rebuild(const char *func, std::uint64_t n, const std::vector<char> &lost,
                       std::span<const std::byte> own, const std::string &path) override {
    int nlost = 0, who = -1;
    for (int j = 0; j < k_; ++j)
      if (lost[static_cast<std::size_t>(members_[static_cast<std::size_t>(j)])]) {
        ++nlost;
        who = j;
      }
    if (nlost == 0) return GDS_STATUS_OK;
    if (nlost > 1)
      return core::fail(GDS_STATUS_UNRECOVERABLE, func,
                        "version %llu is lost on %d processes of one XOR set (of %d); XOR rebuilds one", ull(n),
                        nlost, k_);
    // The survivors' parity (their files the caller checked); all agree that they have them.
    Mapped parity;
    ParityHeader h;
    std::uint64_t at = 0;
    int ok = 1;
    if (me_ != who) {
      ok = parity.open(parity_path(p_.dir, n)) && parse_parity(parity.bytes(), &h, &at).empty() && h.number == n &&
           h.member == static_cast<std::uint32_t>(me_) && h.set_size == static_cast<std::uint32_t>(k_) &&
           h.lengths[static_cast<std::size_t>(me_)] == own.size();
    }
    // The buffers of the pieces (at most kRebuildPiece bytes; the chunk size
    // is not known here before the agreement), reserved before it.
    std::unique_ptr<std::byte[]> piece, sum;
    try {
      piece = std::make_unique_for_overwrite<std::byte[]>(kRebuildPiece);
      if (me_ == who) sum = std::make_unique_for_overwrite<std::byte[]>(kRebuildPiece);
    } catch (const std::bad_alloc &) {
      ok = 0;
      core::fail_critical(GDS_STATUS_NOMEM, func, "no memory for the pieces of an XOR rebuild");
    }
    // One agreement: whether every survivor has them (and every member its
    // buffers), and the chunk size and the lost member's length, which the
    // survivors' parity headers must give alike (each survivor's sends are
    // read at its own chunk size). Maxima of (value, ~value) give the
    // largest and the smallest. Every member says the same of a failure.
    const bool survivor = me_ != who;
    const std::uint64_t chunk = survivor && ok ? h.chunk : 0;
    const std::uint64_t lost_length = survivor && ok ? h.lengths[static_cast<std::size_t>(who)] : 0;
    std::uint64_t most[5] = {ok ? 0u : 1u, chunk, survivor ? ~chunk : 0, lost_length, survivor ? ~lost_length : 0};
    GDS_TRY(core::agree(func, set_.get(), GDS_STATUS_OK, most));
    if (most[0] != 0)
      return core::fail(GDS_STATUS_UNRECOVERABLE, func,
                        "version %llu of process %d is lost, and a member of its XOR set lacks its file, its "
                        "parity or memory",
                        ull(n), members_[static_cast<std::size_t>(who)]);
    if (most[1] != ~most[2] || most[3] != ~most[4])
      return core::fail(GDS_STATUS_UNRECOVERABLE, func,
                        "version %llu of process %d is lost, and the parity files of its XOR set disagree on the "
                        "chunk size or its length",
                        ull(n), members_[static_cast<std::size_t>(who)]);
    const std::uint64_t c = most[1];
    // Chunk by chunk, in pieces: every survivor sends the lost member its
    // share of the chunk's XOR (its own chunk, or the parity it holds),
    // which the lost member XORs together. Pieces keep the buffers small
    // (no chunk-sized copies: the survivors' files are mapped).
    // The lost member writes each piece of its file as it is complete.
    const std::uint64_t piece_bytes = std::min<std::uint64_t>(c, kRebuildPiece), length = most[3];
    Writer out;
    GDS_status_t io = me_ == who ? out.open(func, path) : GDS_STATUS_OK;
    for (int ch = 0; ch + 1 < k_; ++ch) {
      const int m = (who + ch + 1) % k_;  // the member holding that chunk's parity
      for (std::uint64_t off = 0; off < c; off += piece_bytes) {
        const std::uint64_t len = std::min(piece_bytes, c - off);
        if (me_ != who) {
          const std::byte *send = piece.get();
          if (me_ == m)
            send = parity.bytes().data() + at + off;
          else
            slice(own, idx(me_, m), c, off, len, piece.get());
          const int rc = MPI_Send(send, static_cast<int>(len), MPI_BYTE, who, kTagRebuild, set_.get());
          if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Send", rc);
          continue;
        }
        bool first = true;
        for (int j = 0; j < k_; ++j) {
          if (j == who) continue;
          const int rc = MPI_Recv(first ? sum.get() : piece.get(), static_cast<int>(len), MPI_BYTE, j, kTagRebuild,
                                  set_.get(), MPI_STATUS_IGNORE);
          if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Recv", rc);
          if (!first) xor_into(sum.get(), piece.get(), len);
          first = false;
        }
        // What lies within the file's length (the rest is padding).
        const std::uint64_t where = std::uint64_t(ch) * c + off;
        if (io == GDS_STATUS_OK && where < length)
          io = out.write_at(func, where, sum.get(), std::min(len, length - where));
      }
    }
    if (me_ == who && io == GDS_STATUS_OK) io = out.finish(func);
    return io;
  }

  void remove(std::uint64_t n) override { p_.spares->keep(parity_path(p_.dir, n)); }
  void release() override { set_.reset(); }
  [[nodiscard]] int tolerance() const override { return 1; }

 private:
  // Which chunk of member j goes into member m's parity.
  [[nodiscard]] int idx(int j, int m) const { return ((m - j - 1) % k_ + k_) % k_; }
  // Bytes [off, off + len) of chunk i of a file, zero-padded to c bytes.
  static void slice(std::span<const std::byte> file, int i, std::uint64_t c, std::uint64_t off, std::uint64_t len,
                    std::byte *out) {
    const std::uint64_t start = std::uint64_t(i) * c + off;
    const std::uint64_t have = start < file.size() ? std::min(len, file.size() - start) : 0;
    if (have > 0) std::memcpy(out, file.data() + start, have);
    std::memset(out + have, 0, len - have);
  }
  // Posts sends of bytes [at, at + n) of the file (zeros past its end, at
  // most kZeros of them) from where its pieces are: one message per
  // contiguous segment (derived datatypes would be packed, not sent in place).
  void post_range(const FileView &file, std::uint64_t at, std::uint64_t n, int to, std::vector<MPI_Request> *reqs) {
    std::uint64_t start = 0, want = at, left = n;
    for (const iovec &p : file.pieces) {
      const std::uint64_t end = start + p.iov_len;
      if (left > 0 && want < end) {
        const std::uint64_t k = std::min(left, end - want);
        post_bytes(reqs, static_cast<const std::byte *>(p.iov_base) + (want - start), k, to, kTagRing, set_.get());
        want += k;
        left -= k;
      }
      start = end;
    }
    post_bytes(reqs, kZeros.data(), left, to, kTagRing, set_.get());  // the padding
  }

  Places p_;
  core::Comm set_;
  std::vector<int> members_;  // ranks of the array's communicator, in set order
  // The header of this member's parity of version n (its CRC once the parity is complete).
  [[nodiscard]] ParityHeader parity_head(std::uint64_t n) const {
    ParityHeader h;
    h.set_size = static_cast<std::uint32_t>(k_);
    h.member = static_cast<std::uint32_t>(me_);
    h.rank = static_cast<std::uint32_t>(p_.rank);
    h.number = n;
    h.set_id = set_id_;
    h.chunk = chunk_;
    h.lengths = lengths_;
    return h;
  }
  std::uint64_t set_id_;
  int k_ = 0, me_ = 0;
  std::vector<std::uint64_t> lengths_;  // of the members' files of the version being made (prepare)
  std::uint64_t chunk_ = 0;
  std::vector<std::byte> buf_, in_;
  std::vector<std::vector<std::byte>> ins_;  // an asynchronous encode's (prepare)
};

}  // namespace

std::vector<std::vector<int>> xor_sets(const std::vector<int> &group_of, int set_size) {
  // Rows: processes at the same position within their groups, in group order.
  const std::vector<int> position = positions_in_groups(group_of);
  std::map<int, std::vector<int>> rows;
  for (int r = 0; r < static_cast<int>(group_of.size()); ++r) rows[position[static_cast<std::size_t>(r)]].push_back(r);
  const auto by_group = [&](int a, int b) { return group_of[a] < group_of[b]; };
  std::vector<std::vector<int>> sets;
  std::vector<int> lone;
  for (auto &[pos, row] : rows) {
    std::stable_sort(row.begin(), row.end(), by_group);
    const int len = static_cast<int>(row.size());
    if (len < 2) {
      lone.push_back(row[0]);
      continue;
    }
    const int count = std::max(1, len / set_size);
    for (int i = 0; i < count; ++i)  // the rest joins the last set
      sets.emplace_back(row.begin() + i * set_size, i + 1 == count ? row.end() : row.begin() + (i + 1) * set_size);
  }
  // A process alone at its position (groups of different sizes) joins a
  // set with no process of its group, else pairs with a process taken from
  // a set of three or more (which keeps two), else a larger set.
  const auto without = [&](const std::vector<int> &set, int group) {
    return std::none_of(set.begin(), set.end(), [&](int r) { return group_of[r] == group; });
  };
  for (const int x : lone) {
    const int g = group_of[static_cast<std::size_t>(x)];
    std::vector<int> *join = nullptr, *donor = nullptr, *large = nullptr;
    for (std::vector<int> &set : sets) {
      const bool free = without(set, g);
      if (free && static_cast<int>(set.size()) < set_size && (join == nullptr || set.size() < join->size())) join = &set;
      if (free && large == nullptr) large = &set;
      if (set.size() >= 3 && (donor == nullptr || set.size() > donor->size())) donor = &set;
    }
    if (join == nullptr && donor != nullptr) {
      const auto y = std::find_if(donor->rbegin(), donor->rend(), [&](int r) { return group_of[r] != g; });
      std::vector<int> pair{*y, x};
      donor->erase(std::next(y).base());
      std::stable_sort(pair.begin(), pair.end(), by_group);
      sets.push_back(std::move(pair));
      continue;
    }
    if (join == nullptr) join = large;
    if (join == nullptr) return {};  // one group holds more than half of the processes
    join->push_back(x);
    std::stable_sort(join->begin(), join->end(), by_group);
  }
  return sets;
}

GDS_status_t make_xor(const char *func, const Places &p, const std::vector<std::vector<int>> &sets,
                      std::unique_ptr<Scheme> *out) {
  int color = 0;
  while (std::find(sets[static_cast<std::size_t>(color)].begin(), sets[static_cast<std::size_t>(color)].end(),
                   p.rank) == sets[static_cast<std::size_t>(color)].end())
    ++color;
  const std::vector<int> &members = sets[static_cast<std::size_t>(color)];
  const int at = static_cast<int>(std::find(members.begin(), members.end(), p.rank) - members.begin());
  MPI_Comm c = MPI_COMM_NULL;
  const int rc = MPI_Comm_split(p.comm, color, at, &c);
  if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Comm_split", rc);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  *out = std::make_unique<Xor>(p, core::Comm(c), members, static_cast<std::uint64_t>(color));
  return GDS_STATUS_OK;
}

}  // namespace gds::persist
