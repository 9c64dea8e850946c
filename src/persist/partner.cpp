// PARTNER: each process's version file is copied to a process of the next
// failure group (partners()), which keeps it as p<rank>.v<n>.gdsv in its own
// directory. One lost group is rebuilt from the copies, as long as the
// group holding them survives (any two adjacent groups lost is beyond it).
#include <algorithm>
#include <memory>
#include <new>

#include "core/log.hpp"
#include "core/util.hpp"
#include "persist/files.hpp"
#include "persist/scheme.hpp"

namespace gds::persist {

namespace {

constexpr int kTagSize = 0x6d01, kTagData = 0x6d02, kTagRebuild = 0x6d03, kTagAsync = 0x6d04;

using gds::core::ull;

class Partner final : public Scheme {
 public:
  explicit Partner(const Places &p) : p_(p) {
    partner_ = partners(p_.group_of);
    to_ = partner_[static_cast<std::size_t>(p_.rank)];
    for (int q = 0; q < p_.nprocs; ++q)
      if (partner_[static_cast<std::size_t>(q)] == p_.rank) holders_.push_back(q);
    inbox_.resize(holders_.size());
    sizes_.resize(holders_.size());
  }

  // The sizes of the files this process will keep, and room for them.
  GDS_status_t prepare(const char *func, std::uint64_t, std::uint64_t length) override {
    length_ = length;
    std::vector<MPI_Request> reqs;
    for (std::size_t i = 0; i < holders_.size(); ++i) {
      reqs.emplace_back();
      MPI_Irecv(&sizes_[i], 1, MPI_UINT64_T, holders_[i], kTagSize, p_.comm, &reqs.back());
    }
    reqs.emplace_back();
    MPI_Isend(&length, 1, MPI_UINT64_T, to_, kTagSize, p_.comm, &reqs.back());
    const int rc = wait_all(&reqs);
    if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Waitall", rc);
    try {
      for (std::size_t i = 0; i < holders_.size(); ++i) inbox_[i].resize(sizes_[i]);
    } catch (const std::bad_alloc &) {
      return core::fail_critical(GDS_STATUS_NOMEM, func, "no memory for the PARTNER copies of processes' files");
    }
    return GDS_STATUS_OK;
  }

  // The file goes to the partner as its pieces, where they are; each holder's
  // file arrives whole (its size agreed in prepare) however it was cut.
  GDS_status_t encode(const char *func, std::uint64_t n, const FileView &file) override {
    std::vector<MPI_Request> reqs;
    for (const iovec &piece : file.pieces)
      post_bytes(&reqs, static_cast<const std::byte *>(piece.iov_base), piece.iov_len, to_, kTagData, p_.comm);
    int rc = MPI_SUCCESS;
    for (std::size_t i = 0; i < holders_.size() && rc == MPI_SUCCESS; ++i)
      rc = recv_bytes(inbox_[i].data(), sizes_[i], holders_[i], kTagData, p_.comm);
    const int sent = wait_all(&reqs);
    if (rc != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Recv", rc);
    if (sent != MPI_SUCCESS) return core::mpi_fail(func, "MPI_Waitall", sent);
    for (std::size_t i = 0; i < holders_.size(); ++i)
      GDS_TRY(p_.spares->write(func, partner_path(p_.dir, holders_[i], n), {{inbox_[i].data(), inbox_[i].size()}}));
    return GDS_STATUS_OK;
  }

  // The file goes to the partner whole; each holder's file arrives into the
  // buffer prepare() reserved, which x takes (with sizes_, the paths).
  GDS_status_t start(const char *func, std::uint64_t n, const std::byte *file, Exchange *x) override {
    std::vector<std::string> paths;
    x->in = std::move(inbox_);
    inbox_.assign(holders_.size(), {});
    for (std::size_t i = 0; i < holders_.size(); ++i) {
      paths.push_back(partner_path(p_.dir, holders_[i], n));
      p_.spares->claim(paths.back(), sizes_[i]);
      post_recv_bytes(&x->reqs, x->in[i].data(), sizes_[i], holders_[i], kTagAsync, p_.comm);
    }
    post_bytes(&x->reqs, file, length_, to_, kTagAsync, p_.comm);
    x->store = [paths = std::move(paths), dir = p_.dir](Exchange &e) {
      for (std::size_t i = 0; i < paths.size(); ++i)
        if (std::string why = store_file(paths[i], {{e.in[i].data(), e.in[i].size()}}); !why.empty()) return why;
      return fsync_dir(dir) ? std::string() : dir + ": cannot fsync";
    };
    (void)func;
    return GDS_STATUS_OK;
  }

  void give_back(std::vector<std::vector<std::byte>> &&in) override {
    if (in.size() == holders_.size()) inbox_ = std::move(in);
  }

  // Every lost process gets its file from its partner, in rank order: it
  // says whether it has memory for the pieces, the holder answers with the
  // copy's size (kNone: no good copy, or nobody to take it), then the pieces.
  GDS_status_t rebuild(const char *func, std::uint64_t n, const std::vector<char> &lost, std::span<const std::byte>,
                       const std::string &path) override {
    GDS_status_t status = GDS_STATUS_OK;
    for (int r = 0; r < p_.nprocs; ++r) {
      if (!lost[static_cast<std::size_t>(r)]) continue;
      const int holder = partner_[static_cast<std::size_t>(r)];
      if (p_.rank == holder) {
        int ready = 0;
        int rc = MPI_Recv(&ready, 1, MPI_INT, r, kTagRebuild, p_.comm, MPI_STATUS_IGNORE);
        Mapped copy;
        VersionFile v;
        std::uint64_t size = kNone;
        if (ready != 0 && copy.open(partner_path(p_.dir, r, n)) && parse_version(copy.bytes(), &v, true).empty() &&
            v.h.number == n && v.h.rank == static_cast<std::uint32_t>(r))
          size = copy.bytes().size();
        if (rc == MPI_SUCCESS) rc = MPI_Send(&size, 1, MPI_UINT64_T, r, kTagRebuild, p_.comm);
        for (std::uint64_t at = 0; rc == MPI_SUCCESS && size != kNone && at < size; at += kRebuildPiece)
          rc = MPI_Send(copy.bytes().data() + at, static_cast<int>(std::min(kRebuildPiece, size - at)), MPI_BYTE, r,
                        kTagRebuild, p_.comm);
        if (rc != MPI_SUCCESS && status == GDS_STATUS_OK) status = core::mpi_fail(func, "MPI_Send", rc);
      } else if (p_.rank == r) {
        // The copy, piece by piece into the file (every piece is received,
        // so the holder never waits, even if writing fails here).
        std::unique_ptr<std::byte[]> piece;
        try {
          piece = std::make_unique_for_overwrite<std::byte[]>(kRebuildPiece);
        } catch (const std::bad_alloc &) {
          status = core::fail_critical(GDS_STATUS_NOMEM, func, "no memory for the pieces of a PARTNER rebuild");
        }
        const int ready = piece != nullptr;
        int rc = MPI_Send(&ready, 1, MPI_INT, holder, kTagRebuild, p_.comm);
        std::uint64_t size = kNone;
        if (rc == MPI_SUCCESS) rc = MPI_Recv(&size, 1, MPI_UINT64_T, holder, kTagRebuild, p_.comm, MPI_STATUS_IGNORE);
        Writer out;
        GDS_status_t io = rc == MPI_SUCCESS && size != kNone ? out.open(func, path) : GDS_STATUS_OK;
        for (std::uint64_t at = 0; rc == MPI_SUCCESS && size != kNone && at < size; at += kRebuildPiece) {
          const std::uint64_t len = std::min(kRebuildPiece, size - at);
          rc = MPI_Recv(piece.get(), static_cast<int>(len), MPI_BYTE, holder, kTagRebuild, p_.comm,
                        MPI_STATUS_IGNORE);
          if (rc == MPI_SUCCESS && io == GDS_STATUS_OK) io = out.write_at(func, at, piece.get(), len);
        }
        if (rc == MPI_SUCCESS && size != kNone && io == GDS_STATUS_OK) io = out.finish(func);
        if (!ready)
          continue;  // status says why
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
  std::uint64_t length_ = 0;                  // of this process's file (prepare)
  std::vector<int> holders_;                  // the processes whose copies this one keeps
  std::vector<std::uint64_t> sizes_;          // their files' sizes (prepare)
  std::vector<std::vector<std::byte>> inbox_;  // their files of the version being made
};

}  // namespace

std::unique_ptr<Scheme> make_partner(const Places &p) { return std::make_unique<Partner>(p); }

}  // namespace gds::persist
