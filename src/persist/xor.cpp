// XOR: SCR's RAID-5 layout over sets of processes in distinct failure
// groups. Each member's version file, padded to the set's longest, is cut
// into k - 1 chunks (k members); member m keeps the parity of one chunk of
// every other member (chunk (m - j - 1) mod k of member j), computed by a
// reduce-scatter in one exchange: every member sends each other member its
// chunk of that member's parity and XORs the k - 1 chunks it receives.
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

constexpr int kTagRebuild = 0x6d11;

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
    for (const int r : members_)
      if (r != p_.rank) others_.push_back(r);
  }

  // The other members (ranks of the array's communicator), in set order.
  [[nodiscard]] std::vector<int> tells() const override { return others_; }
  [[nodiscard]] std::vector<int> hears() const override { return others_; }

  // Every member's length, the chunk size from the longest, and a chunk
  // from every other member (buffers given back are reused).
  Result prepare(std::uint64_t, std::uint64_t length, std::span<const std::uint64_t> heard) override {
    lengths_ = set_lengths(k_, me_, length, heard);
    chunk_ = parity_chunk(*std::max_element(lengths_.begin(), lengths_.end()), static_cast<std::uint32_t>(k_));
    try {
      if (ins_.empty()) ins_ = std::move(spare_);
      ins_.resize(static_cast<std::size_t>(k_ - 1));
      for (std::vector<std::byte> &in : ins_) in.resize(chunk_);
      padding_ = zeros(chunk_);
    } catch (const std::bad_alloc &) {
      return Result::nomem("no memory for " + std::to_string(k_ - 1) + " XOR chunks of " + std::to_string(chunk_) +
                           " bytes");
    }
    return {};
  }

  // The reduce-scatter as one exchange: member m's chunk of this file goes
  // to m (from where the file's pieces are, zeros past its end), every
  // other member's chunk of this member's parity comes here; store XORs
  // them and writes the parity.
  Result start(std::uint64_t n, int tag, const FileView &file, const Files &where, Exchange *x) override {
    const std::uint64_t c = chunk_;
    x->in = std::move(ins_);
    ins_.clear();
    for (int j = 0, i = 0; j < k_; ++j)
      if (j != me_) x->inflows.push_back(Inflow{x->in[static_cast<std::size_t>(i++)].data(), c, 0, j, tag, set_.get()});
    for (int m = 0; m < k_; ++m)
      if (m != me_) post_range(&x->reqs, file, std::uint64_t(idx(me_, m)) * c, c, padding_, m, tag, set_.get());
    ParityHeader h = parity_head(n);
    const std::string path = parity_path(where.dir, n);
    where.spares->claim(path, c);
    x->store = [h, path, c, dir = where.dir](Exchange &e) mutable -> Result {
      for (std::size_t i = 1; i < e.in.size(); ++i) xor_into(e.in[0].data(), e.in[i].data(), c);
      h.parity_crc = core::crc32c(e.in[0].data(), c);
      std::vector<std::byte> head = encode_parity_head(h);
      PERSIST_TRY(write_file(path, {{head.data(), head.size()}, {e.in[0].data(), c}}));
      return sync_dir(dir);
    };
    return {};
  }

  // (Kept apart from ins_: an older exchange may complete between a
  // version's prepare() and its start(), asynchronous writes.)
  void give_back(std::vector<std::vector<std::byte>> &&in) override {
    if (in.size() == static_cast<std::size_t>(k_ - 1)) spare_ = std::move(in);
  }

  Result rebuild(std::uint64_t n, const std::vector<char> &lost, std::span<const std::byte> own,
                 const std::string &path, const Files &where) override {
    int nlost = 0, who = -1;
    for (int j = 0; j < k_; ++j)
      if (lost[static_cast<std::size_t>(members_[static_cast<std::size_t>(j)])]) {
        ++nlost;
        who = j;
      }
    if (nlost == 0) return {};
    if (nlost > 1)
      return Result::failure(GDS_STATUS_UNRECOVERABLE, "version " + std::to_string(n) + " is lost on " +
                                                           std::to_string(nlost) + " processes of one XOR set (of " +
                                                           std::to_string(k_) + "); XOR rebuilds one");
    Plan plan;
    PERSIST_TRY(plan_rebuild(n, who, own, where, &plan));
    return stream(who, own, path, plan);
  }

  void remove(std::uint64_t n, const Files &where) override { where.spares->keep(parity_path(where.dir, n)); }
  void release() override { set_.reset(); }
  [[nodiscard]] int tolerance() const override { return 1; }

 private:
  // What the rebuild of member `who` needs: the survivors' parity (their
  // files the caller checked), the set's agreed chunk size and the lost
  // file's length, and the buffers of the pieces.
  struct Plan {
    Mapped parity;
    std::uint64_t at = 0;  // of the parity chunk in its file
    std::uint64_t chunk = 0, length = 0;
    std::unique_ptr<std::byte[]> piece, sum;
  };

  // One agreement over the set: whether every survivor has its parity (and
  // every member its buffers), and the chunk size and the lost member's
  // length, which the survivors' parity headers must give alike (each
  // survivor's sends are read at its own chunk size). Maxima of (value,
  // ~value) give the largest and the smallest. Every member says the same
  // of a failure.
  Result plan_rebuild(std::uint64_t n, int who, std::span<const std::byte> own, const Files &where, Plan *p) {
    ParityHeader h;
    int ok = 1;
    const bool survivor = me_ != who;
    if (survivor)
      ok = p->parity.open(parity_path(where.dir, n)).ok() && parse_parity(p->parity.bytes(), &h, &p->at).ok() &&
           h.number == n && h.parts == 0 && h.member == static_cast<std::uint32_t>(me_) &&
           h.set_size == static_cast<std::uint32_t>(k_) && h.lengths[static_cast<std::size_t>(me_)] == own.size();
    // At most kRebuildPiece bytes each (the chunk size is not known before the agreement).
    try {
      p->piece = std::make_unique_for_overwrite<std::byte[]>(kRebuildPiece);
      if (!survivor) p->sum = std::make_unique_for_overwrite<std::byte[]>(kRebuildPiece);
    } catch (const std::bad_alloc &) {
      ok = 0;  // said below: the set agrees first
    }
    const std::uint64_t chunk = survivor && ok ? h.chunk : 0;
    const std::uint64_t lost_length = survivor && ok ? h.lengths[static_cast<std::size_t>(who)] : 0;
    const std::uint64_t mine[5] = {ok ? 0u : 1u, chunk, survivor ? ~chunk : 0, lost_length,
                                   survivor ? ~lost_length : 0};
    std::uint64_t most[5];
    if (const int rc = core::allreduce(mine, most, 5, MPI_UINT64_T, MPI_MAX, set_.get()); rc != MPI_SUCCESS)
      return Result::mpi("MPI_Allreduce", rc);
    const std::string lost_one = "version " + std::to_string(n) + " of process " +
                                 std::to_string(members_[static_cast<std::size_t>(who)]) + " is lost, and ";
    if (most[0] != 0)
      return Result::failure(GDS_STATUS_UNRECOVERABLE,
                             lost_one + "a member of its XOR set lacks its file, its parity or memory");
    if (most[1] != ~most[2] || most[3] != ~most[4])
      return Result::failure(GDS_STATUS_UNRECOVERABLE,
                             lost_one + "the parity files of its XOR set disagree on the chunk size or its length");
    p->chunk = most[1];
    p->length = most[3];
    return {};
  }

  // Chunk by chunk, in pieces: every survivor sends the lost member its
  // share of the chunk's XOR (its own chunk, or the parity it holds),
  // which the lost member XORs together and writes as each piece of its
  // file is complete. Pieces keep the buffers small (no chunk-sized
  // copies: the survivors' files are mapped).
  Result stream(int who, std::span<const std::byte> own, const std::string &path, Plan &p) {
    const std::uint64_t c = p.chunk, piece_bytes = std::min<std::uint64_t>(c, kRebuildPiece);
    Writer out;
    Result io = me_ == who ? out.open(path) : Result();
    for (int ch = 0; ch + 1 < k_; ++ch) {
      const int m = (who + ch + 1) % k_;  // the member holding that chunk's parity
      for (std::uint64_t off = 0; off < c; off += piece_bytes) {
        const std::uint64_t len = std::min(piece_bytes, c - off);
        if (me_ != who) {
          const std::byte *send = p.piece.get();
          if (me_ == m)
            send = p.parity.bytes().data() + p.at + off;
          else
            chunk_slice(own, idx(me_, m), c, off, len, p.piece.get());
          const int rc = MPI_Send(send, static_cast<int>(len), MPI_BYTE, who, kTagRebuild, set_.get());
          if (rc != MPI_SUCCESS) return Result::mpi("MPI_Send", rc);
          continue;
        }
        for (int j = 0, first = 1; j < k_; ++j) {
          if (j == who) continue;
          const int rc = MPI_Recv(first ? p.sum.get() : p.piece.get(), static_cast<int>(len), MPI_BYTE, j,
                                  kTagRebuild, set_.get(), MPI_STATUS_IGNORE);
          if (rc != MPI_SUCCESS) return Result::mpi("MPI_Recv", rc);
          if (!first) xor_into(p.sum.get(), p.piece.get(), len);
          first = 0;
        }
        // What lies within the file's length (the rest is padding).
        const std::uint64_t where = std::uint64_t(ch) * c + off;
        if (io.ok() && where < p.length) io = out.write_at(where, p.sum.get(), std::min(len, p.length - where));
      }
    }
    if (me_ == who && io.ok()) io = out.finish();
    return io;
  }

  // Which chunk of member j goes into member m's parity.
  [[nodiscard]] int idx(int j, int m) const { return ((m - j - 1) % k_ + k_) % k_; }
  Places p_;
  core::Comm set_;
  std::vector<int> members_;  // ranks of the array's communicator, in set order
  std::vector<int> others_;   // the same without this process
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
  std::vector<std::vector<std::byte>> ins_;  // room for a chunk of every other member (prepare), for start
  std::vector<std::vector<std::byte>> spare_;  // buffers given back, for the next prepare
  const std::byte *padding_ = nullptr;      // chunk_ zeros
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

std::vector<std::uint64_t> set_lengths(int members, int me, std::uint64_t length, std::span<const std::uint64_t> heard) {
  std::vector<std::uint64_t> lengths(static_cast<std::size_t>(members), 0);
  for (int j = 0, i = 0; j < members; ++j)
    lengths[static_cast<std::size_t>(j)] = j == me ? length : heard[static_cast<std::size_t>(i++)];
  return lengths;
}

void chunk_slice(std::span<const std::byte> file, int i, std::uint64_t c, std::uint64_t off, std::uint64_t len,
                 std::byte *out) {
  const std::uint64_t start = std::uint64_t(i) * c + off;
  const std::uint64_t have = start < file.size() ? std::min(len, file.size() - start) : 0;
  if (have > 0) std::memcpy(out, file.data() + start, have);
  std::memset(out + have, 0, len - have);
}

Result split_sets(const Places &p, const std::vector<std::vector<int>> &sets, core::Comm *set,
                  std::vector<int> *members, std::uint64_t *id) {
  int color = 0;
  while (std::find(sets[static_cast<std::size_t>(color)].begin(), sets[static_cast<std::size_t>(color)].end(),
                   p.rank) == sets[static_cast<std::size_t>(color)].end())
    ++color;
  *members = sets[static_cast<std::size_t>(color)];
  const int at = static_cast<int>(std::find(members->begin(), members->end(), p.rank) - members->begin());
  MPI_Comm c = MPI_COMM_NULL;
  const int rc = MPI_Comm_split(p.comm, color, at, &c);
  if (rc != MPI_SUCCESS) return Result::mpi("MPI_Comm_split", rc);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  *set = core::Comm(c);
  *id = static_cast<std::uint64_t>(color);
  return {};
}

Result make_xor(const Places &p, const std::vector<std::vector<int>> &sets, std::unique_ptr<Scheme> *out) {
  core::Comm c;
  std::vector<int> members;
  std::uint64_t id = 0;
  PERSIST_TRY(split_sets(p, sets, &c, &members, &id));
  *out = std::make_unique<Xor>(p, std::move(c), std::move(members), id);
  return {};
}

}  // namespace gds::persist
