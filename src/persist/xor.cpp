// XOR: SCR's RAID-5 layout over sets of processes in distinct failure
// groups. Each member's version file, padded to the set's longest, is cut
// into k - 1 chunks (k members); member m keeps the parity of one chunk of
// every other member (chunk (m - j - 1) mod k of member j), computed by a
// ring reduce-scatter: k - 1 steps, each passing one chunk to the right.
// One lost member per set is rebuilt (every survivor streams it its share of
// each chunk's XOR, in pieces); two are beyond it.
//
// Sets: the processes at the same position within their failure groups form
// a row (in group order); a row is cut into sets of GDS_SET_SIZE, and a
// shorter rest joins the last set.
#include <algorithm>
#include <array>
#include <cstring>

#include "core/collective.hpp"
#include "core/crc32c.hpp"
#include "core/log.hpp"
#include "persist/files.hpp"
#include "persist/scheme.hpp"

namespace gds::persist {

namespace {

constexpr std::uint64_t kPiece = std::uint64_t{1} << 30;  // bytes per message of an encode
const std::array<std::byte, 4096> kZeros{};                 // padding sent from no buffer
constexpr int kTagRebuild = 0x6d11;

unsigned long long ull(std::uint64_t v) { return static_cast<unsigned long long>(v); }

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

  GDS_status_t encode(const char *func, std::uint64_t n, const FileView &file) override {
    std::vector<std::uint64_t> lengths(static_cast<std::size_t>(k_));
    std::uint64_t mine = file.size;
    int rc = MPI_Allgather(&mine, 1, MPI_UINT64_T, lengths.data(), 1, MPI_UINT64_T, set_.get());
    if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Allgather", rc);
    const std::uint64_t longest = *std::max_element(lengths.begin(), lengths.end());
    const std::uint64_t c = parity_chunk(longest, static_cast<std::uint32_t>(k_));
    buf_.resize(c);
    in_.resize(c);
    const int right = (me_ + 1) % k_, left = (me_ + k_ - 1) % k_;
    // The first step sends a chunk of the file itself, from where its pieces
    // are (through datatypes) when it needs no more than a little padding.
    const std::uint64_t first_at = std::uint64_t(idx(me_, left)) * c;
    const bool in_place = first_at + c <= file.size + kZeros.size();
    if (!in_place) file.copy(first_at, c, buf_.data());
    for (int s = 0; s + 1 < k_; ++s) {
      rc = s == 0 && in_place ? sendrecv_range(file, first_at, in_.data(), c, right, left)
                              : sendrecv(buf_.data(), in_.data(), c, right, left);
      if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Sendrecv", rc);
      const int m = ((me_ - s - 2) % k_ + k_) % k_;  // whose parity arrived
      if (s + 2 < k_) {
        file.copy(std::uint64_t(idx(me_, m)) * c, c, buf_.data());
        xor_into(buf_.data(), in_.data(), c);
      }
    }
    ParityHeader h;
    h.set_size = static_cast<std::uint32_t>(k_);
    h.member = static_cast<std::uint32_t>(me_);
    h.rank = static_cast<std::uint32_t>(p_.rank);
    h.number = n;
    h.set_id = set_id_;
    h.chunk = c;
    h.lengths = lengths;
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
    // One agreement: whether every survivor has them, and the chunk size and
    // the lost member's length, which the survivors' parity headers must
    // give alike (each survivor's sends are read at its own chunk size).
    // Maxima of (value, ~value) give the largest and the smallest.
    const bool survivor = me_ != who;
    const std::uint64_t chunk = survivor && ok ? h.chunk : 0;
    const std::uint64_t lost_length = survivor && ok ? h.lengths[static_cast<std::size_t>(who)] : 0;
    std::uint64_t mine[5] = {ok ? 0u : 1u, chunk, survivor ? ~chunk : 0, lost_length, survivor ? ~lost_length : 0};
    std::uint64_t most[5] = {};
    int rc = MPI_Allreduce(mine, most, 5, MPI_UINT64_T, MPI_MAX, set_.get());
    if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Allreduce", rc);
    if (most[0] != 0)
      return core::fail(GDS_STATUS_UNRECOVERABLE, func,
                        "version %llu of process %d is lost, and another member of its XOR set lacks its file or "
                        "parity",
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
    std::vector<std::byte> piece(piece_bytes), sum(me_ == who ? piece_bytes : 0);
    Writer out;
    GDS_status_t io = me_ == who ? out.open(func, path) : GDS_STATUS_OK;
    for (int ch = 0; ch + 1 < k_; ++ch) {
      const int m = (who + ch + 1) % k_;  // the member holding that chunk's parity
      for (std::uint64_t off = 0; off < c; off += piece_bytes) {
        const std::uint64_t len = std::min(piece_bytes, c - off);
        if (me_ != who) {
          const std::byte *send = piece.data();
          if (me_ == m)
            send = parity.bytes().data() + at + off;
          else
            slice(own, idx(me_, m), c, off, len, piece.data());
          rc = MPI_Send(send, static_cast<int>(len), MPI_BYTE, who, kTagRebuild, set_.get());
          if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Send", rc);
          continue;
        }
        bool first = true;
        for (int j = 0; j < k_; ++j) {
          if (j == who) continue;
          rc = MPI_Recv(first ? sum.data() : piece.data(), static_cast<int>(len), MPI_BYTE, j, kTagRebuild,
                        set_.get(), MPI_STATUS_IGNORE);
          if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Recv", rc);
          if (!first) xor_into(sum.data(), piece.data(), len);
          first = false;
        }
        // What lies within the file's length (the rest is padding).
        const std::uint64_t where = std::uint64_t(ch) * c + off;
        if (io == GDS_STATUS_OK && where < length)
          io = out.write_at(func, where, sum.data(), std::min(len, length - where));
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
  int sendrecv(const std::byte *send, std::byte *recv, std::uint64_t n, int to, int from) {
    for (std::uint64_t off = 0; off < n; off += kPiece) {
      const int len = static_cast<int>(std::min(kPiece, n - off));
      const int rc = MPI_Sendrecv(send + off, len, MPI_BYTE, to, 0x6d10, recv + off, len, MPI_BYTE, from, 0x6d10,
                                  set_.get(), MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
  }
  // As sendrecv, sending bytes [at, at + n) of the file (zeros past its end,
  // at most kZeros of them) from where its pieces are: one message per
  // contiguous segment (derived datatypes would be packed, not sent in
  // place), received in order into one buffer, each message's size learnt
  // as it arrives (messages between two processes do not overtake).
  int sendrecv_range(const FileView &file, std::uint64_t at, std::byte *recv, std::uint64_t n, int to, int from) {
    std::vector<MPI_Request> reqs;
    const auto post = [&](const std::byte *p, std::uint64_t len) {
      for (std::uint64_t off = 0; off < len; off += kPiece) {
        reqs.emplace_back();
        MPI_Isend(p + off, static_cast<int>(std::min(kPiece, len - off)), MPI_BYTE, to, 0x6d10, set_.get(),
                  &reqs.back());
      }
    };
    std::uint64_t start = 0, want = at, left = n;
    for (const iovec &p : file.pieces) {
      const std::uint64_t end = start + p.iov_len;
      if (left > 0 && want < end) {
        const std::uint64_t k = std::min(left, end - want);
        post(static_cast<const std::byte *>(p.iov_base) + (want - start), k);
        want += k;
        left -= k;
      }
      start = end;
    }
    if (left > 0) post(kZeros.data(), left);  // the padding
    int rc = MPI_SUCCESS;
    for (std::uint64_t got = 0; got < n && rc == MPI_SUCCESS;) {
      MPI_Status st;
      rc = MPI_Recv(recv + got, static_cast<int>(std::min(kPiece, n - got)), MPI_BYTE, from, 0x6d10, set_.get(), &st);
      int count = 0;
      if (rc == MPI_SUCCESS) rc = MPI_Get_count(&st, MPI_BYTE, &count);
      if (rc == MPI_SUCCESS && count <= 0) rc = MPI_ERR_TRUNCATE;
      got += static_cast<std::uint64_t>(count);
    }
    const int waited = MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
    return rc != MPI_SUCCESS ? rc : waited;
  }

  Places p_;
  core::Comm set_;
  std::vector<int> members_;  // ranks of the array's communicator, in set order
  std::uint64_t set_id_;
  int k_ = 0, me_ = 0;
  std::vector<std::byte> buf_, in_;
};

}  // namespace

GDS_status_t make_xor(const char *func, const Places &p, int set_size, std::unique_ptr<Scheme> *out) {
  // Rows: processes at the same position within their groups, in group order.
  const std::vector<int> position = positions_in_groups(p.group_of);
  std::vector<int> row;
  for (int r = 0; r < p.nprocs; ++r)
    if (position[static_cast<std::size_t>(r)] == position[static_cast<std::size_t>(p.rank)]) row.push_back(r);
  std::stable_sort(row.begin(), row.end(), [&](int a, int b) { return p.group_of[a] < p.group_of[b]; });
  const int len = static_cast<int>(row.size());
  const int at = static_cast<int>(std::find(row.begin(), row.end(), p.rank) - row.begin());
  const int sets = std::max(1, len / set_size);
  const int set = std::min(at / set_size, sets - 1);
  const int first = set * set_size;
  const int last = set == sets - 1 ? len : first + set_size;  // the rest joins the last set
  std::vector<int> members(row.begin() + first, row.begin() + last);
  // Every process must be in a set of two or more: agreed, so all fail alike.
  const GDS_status_t ok =
      members.size() >= 2
          ? GDS_STATUS_OK
          : core::fail(GDS_STATUS_INVALID_INFO, func,
                       "copy type XOR: process %d has no other process at its position in another failure group "
                       "to form a set with (groups of different sizes)",
                       p.rank);
  GDS_TRY(core::agree(func, p.comm, ok));
  const int color = position[static_cast<std::size_t>(p.rank)] * (p.nprocs + 1) + set;
  MPI_Comm c = MPI_COMM_NULL;
  const int rc = MPI_Comm_split(p.comm, color, at, &c);
  if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Comm_split", rc);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  *out = std::make_unique<Xor>(p, core::Comm(c), std::move(members), static_cast<std::uint64_t>(color));
  return GDS_STATUS_OK;
}

}  // namespace gds::persist
