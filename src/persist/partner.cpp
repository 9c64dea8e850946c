// PARTNER: each process's version file is copied to a process of the next
// failure group (partners()), which keeps it as p<rank>.v<n>.gdsv in its own
// directory. One lost group is rebuilt from the copies, as long as the
// group holding them survives (any two adjacent groups lost is beyond it).
#include <algorithm>

#include "core/log.hpp"
#include "persist/files.hpp"
#include "persist/scheme.hpp"

namespace gds::persist {

namespace {

constexpr int kTagSize = 0x6d01, kTagData = 0x6d02, kTagRebuild = 0x6d03;
constexpr std::uint64_t kPiece = std::uint64_t{1} << 30;

unsigned long long ull(std::uint64_t v) { return static_cast<unsigned long long>(v); }

// Nonblocking sends of a piece of any size, in messages of at most kPiece bytes.
void post(std::vector<MPI_Request> *reqs, std::byte *data, std::uint64_t n, int peer, MPI_Comm comm) {
  do {
    const std::uint64_t k = std::min(n, kPiece);
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Isend(data, static_cast<int>(k), MPI_BYTE, peer, kTagData, comm, &r);
    reqs->push_back(r);
    data += k;
    n -= k;
  } while (n > 0);
}

class Partner final : public Scheme {
 public:
  explicit Partner(const Places &p) : p_(p) {
    partner_ = partners(p_.group_of);
    to_ = partner_[static_cast<std::size_t>(p_.rank)];
    for (int q = 0; q < p_.nprocs; ++q)
      if (partner_[static_cast<std::size_t>(q)] == p_.rank) holders_.push_back(q);
    inbox_.resize(holders_.size());
  }

  GDS_status_t encode(const char *func, std::uint64_t n, const FileView &file) override {
    std::vector<std::uint64_t> sizes(holders_.size());
    std::uint64_t mine = file.size;
    std::vector<MPI_Request> reqs;
    for (std::size_t i = 0; i < holders_.size(); ++i) {
      reqs.emplace_back();
      MPI_Irecv(&sizes[i], 1, MPI_UINT64_T, holders_[i], kTagSize, p_.comm, &reqs.back());
    }
    reqs.emplace_back();
    MPI_Isend(&mine, 1, MPI_UINT64_T, to_, kTagSize, p_.comm, &reqs.back());
    int rc = MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Waitall", rc);
    // The file goes as its pieces, each in messages of at most kPiece bytes;
    // a holder receives them in order into one buffer (messages between two
    // processes do not overtake), learning each one's size as it comes.
    reqs.clear();
    for (const iovec &piece : file.pieces)
      if (piece.iov_len > 0) post(&reqs, static_cast<std::byte *>(piece.iov_base), piece.iov_len, to_, p_.comm);
    for (std::size_t i = 0; i < holders_.size(); ++i) {
      inbox_[i].resize(sizes[i]);
      for (std::uint64_t got = 0; got < sizes[i];) {
        MPI_Status st;
        rc = MPI_Recv(inbox_[i].data() + got, static_cast<int>(std::min(kPiece, sizes[i] - got)), MPI_BYTE,
                      holders_[i], kTagData, p_.comm, &st);
        int count = 0;
        if (rc == MPI_SUCCESS) rc = MPI_Get_count(&st, MPI_BYTE, &count);
        if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Recv", rc);
        if (count <= 0)
          return core::fail(GDS_STATUS_INTERNAL, func, "an empty PARTNER message from process %d", holders_[i]);
        got += static_cast<std::uint64_t>(count);
      }
    }
    rc = MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Waitall", rc);
    for (std::size_t i = 0; i < holders_.size(); ++i)
      GDS_TRY(p_.spares->write(func, partner_path(p_.dir, holders_[i], n), {{inbox_[i].data(), inbox_[i].size()}}));
    return GDS_STATUS_OK;
  }

  // Every lost process gets its file from its partner, in rank order.
  GDS_status_t rebuild(const char *func, std::uint64_t n, const std::vector<char> &lost, std::span<const std::byte>,
                       const std::string &path) override {
    GDS_status_t status = GDS_STATUS_OK;
    for (int r = 0; r < p_.nprocs; ++r) {
      if (!lost[static_cast<std::size_t>(r)]) continue;
      const int holder = partner_[static_cast<std::size_t>(r)];
      if (p_.rank == holder) {
        Mapped copy;
        VersionFile v;
        std::uint64_t size = kNone;
        if (copy.open(partner_path(p_.dir, r, n)) && parse_version(copy.bytes(), &v, true).empty() &&
            v.h.number == n && v.h.rank == static_cast<std::uint32_t>(r))
          size = copy.bytes().size();
        int rc = MPI_Send(&size, 1, MPI_UINT64_T, r, kTagRebuild, p_.comm);
        for (std::uint64_t at = 0; rc == MPI_SUCCESS && size != kNone && at < size; at += kRebuildPiece)
          rc = MPI_Send(copy.bytes().data() + at, static_cast<int>(std::min(kRebuildPiece, size - at)), MPI_BYTE, r,
                        kTagRebuild, p_.comm);
        if (rc != MPI_SUCCESS && status == GDS_STATUS_OK) status = core::mpi_fail(func, "MPI_Send", rc);
      } else if (p_.rank == r) {
        // The copy, piece by piece into the file (every piece is received,
        // so the holder never waits, even if writing fails here).
        std::uint64_t size = kNone;
        int rc = MPI_Recv(&size, 1, MPI_UINT64_T, holder, kTagRebuild, p_.comm, MPI_STATUS_IGNORE);
        Writer out;
        GDS_status_t io = rc == MPI_SUCCESS && size != kNone ? out.open(func, path) : GDS_STATUS_OK;
        std::vector<std::byte> piece(rc == MPI_SUCCESS && size != kNone ? std::min(kRebuildPiece, size) : 0);
        for (std::uint64_t at = 0; rc == MPI_SUCCESS && size != kNone && at < size; at += kRebuildPiece) {
          const std::uint64_t len = std::min(kRebuildPiece, size - at);
          rc = MPI_Recv(piece.data(), static_cast<int>(len), MPI_BYTE, holder, kTagRebuild, p_.comm,
                        MPI_STATUS_IGNORE);
          if (rc == MPI_SUCCESS && io == GDS_STATUS_OK) io = out.write_at(func, at, piece.data(), len);
        }
        if (rc == MPI_SUCCESS && size != kNone && io == GDS_STATUS_OK) io = out.finish(func);
        if (rc != MPI_SUCCESS)
          status = core::mpi_fail(func, "MPI_Recv", rc);
        else if (size == kNone)
          status = core::fail(GDS_STATUS_UNRECOVERABLE, func,
                              "version %llu of process %d is lost, and so is its PARTNER copy on process %d",
                              ull(n), r, holder);
        else
          status = io;
      }
    }
    return status;
  }

  void remove(std::uint64_t n) override {
    for (const int q : holders_) p_.spares->keep(partner_path(p_.dir, q, n));
  }
  [[nodiscard]] int tolerance() const override { return 1; }

 private:
  Places p_;
  std::vector<int> partner_;  // per rank
  int to_ = 0;
  std::vector<int> holders_;                  // the processes whose copies this one keeps
  std::vector<std::vector<std::byte>> inbox_;  // their files of the version being made
};

}  // namespace

std::unique_ptr<Scheme> make_partner(const Places &p) { return std::make_unique<Partner>(p); }

}  // namespace gds::persist
