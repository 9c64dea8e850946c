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

constexpr int kTagRebuild = 0x6d03;

class Partner final : public Scheme {
 public:
  explicit Partner(const Places &p) : p_(p) {
    partner_ = partners(p_.group_of);
    to_ = partner_[static_cast<std::size_t>(p_.rank)];
    for (int q = 0; q < p_.nprocs; ++q)
      if (partner_[static_cast<std::size_t>(q)] == p_.rank) holders_.push_back(q);
  }

  [[nodiscard]] std::vector<int> tells() const override { return {to_}; }
  [[nodiscard]] std::vector<int> hears() const override { return holders_; }

  // Room for the copies this process keeps (buffers given back are reused).
  Result prepare(std::uint64_t, std::uint64_t length, std::span<const std::uint64_t> heard) override {
    length_ = length;
    sizes_.assign(heard.begin(), heard.end());
    try {
      if (inbox_.empty()) inbox_ = std::move(spare_);
      inbox_.resize(holders_.size());
      for (std::size_t i = 0; i < holders_.size(); ++i) inbox_[i].resize(sizes_[i]);
    } catch (const std::bad_alloc &) {
      return Result::nomem("no memory for the PARTNER copies of processes' files");
    }
    return {};
  }

  // The file goes to the partner from where its pieces are; each holder's
  // file arrives into the buffer prepare() reserved, which x takes.
  Result start(std::uint64_t n, int tag, const FileView &file, const Files &where, Exchange *x) override {
    std::vector<std::string> paths;
    x->in = std::move(inbox_);
    inbox_.clear();
    for (std::size_t i = 0; i < holders_.size(); ++i) {
      paths.push_back(partner_path(where.dir, holders_[i], n, where.group));
      where.spares->claim(paths.back(), sizes_[i]);
      x->inflows.push_back(Inflow{x->in[i].data(), sizes_[i], 0, holders_[i], tag, p_.comm});
    }
    post_range(&x->reqs, file, 0, length_, nullptr, to_, tag, p_.comm);
    x->store = [paths = std::move(paths), dir = where.dir](Exchange &e) -> Result {
      for (std::size_t i = 0; i < paths.size(); ++i) PERSIST_TRY(write_file(paths[i], {{e.in[i].data(), e.in[i].size()}}));
      return sync_dir(dir);
    };
    return {};
  }

  // (Kept apart from inbox_: an older exchange may complete between a
  // version's prepare() and its start(), asynchronous writes.)
  void give_back(std::vector<std::vector<std::byte>> &&in) override {
    if (in.size() == holders_.size()) spare_ = std::move(in);
  }

  // Every lost process gets its file from its partner, in rank order: it
  // says whether it has memory for the pieces, the holder answers with the
  // copy's size (kNone: no good copy, or nobody to take it), then the pieces.
  Result rebuild(std::uint64_t n, const std::vector<char> &lost, std::span<const std::byte>,
                 const std::string &path, const Files &where) override {
    Result status;
    for (int r = 0; r < p_.nprocs; ++r) {
      if (!lost[static_cast<std::size_t>(r)]) continue;
      const int holder = partner_[static_cast<std::size_t>(r)];
      if (p_.rank == holder) {
        int ready = 0;
        int rc = MPI_Recv(&ready, 1, MPI_INT, r, kTagRebuild, p_.comm, MPI_STATUS_IGNORE);
        Mapped copy;
        std::uint64_t size = kNone;
        if (ready != 0 && copy.open(partner_path(where.dir, r, n, where.group)).ok() &&
            check_file(where, copy.bytes(), n, r, p_.nprocs).ok())
          size = copy.bytes().size();
        if (rc == MPI_SUCCESS) rc = MPI_Send(&size, 1, MPI_UINT64_T, r, kTagRebuild, p_.comm);
        for (std::uint64_t at = 0; rc == MPI_SUCCESS && size != kNone && at < size; at += kRebuildPiece)
          rc = MPI_Send(copy.bytes().data() + at, static_cast<int>(std::min(kRebuildPiece, size - at)), MPI_BYTE, r,
                        kTagRebuild, p_.comm);
        if (rc != MPI_SUCCESS && status.ok()) status = Result::mpi("MPI_Send", rc);
      } else if (p_.rank == r) {
        // The copy, piece by piece into the file (every piece is received,
        // so the holder never waits, even if writing fails here).
        std::unique_ptr<std::byte[]> piece;
        try {
          piece = std::make_unique_for_overwrite<std::byte[]>(kRebuildPiece);
        } catch (const std::bad_alloc &) {
          status = Result::nomem("no memory for the pieces of a PARTNER rebuild");
        }
        const int ready = piece != nullptr;
        int rc = MPI_Send(&ready, 1, MPI_INT, holder, kTagRebuild, p_.comm);
        std::uint64_t size = kNone;
        if (rc == MPI_SUCCESS) rc = MPI_Recv(&size, 1, MPI_UINT64_T, holder, kTagRebuild, p_.comm, MPI_STATUS_IGNORE);
        Writer out;
        Result io = rc == MPI_SUCCESS && size != kNone ? out.open(path) : Result();
        for (std::uint64_t at = 0; rc == MPI_SUCCESS && size != kNone && at < size; at += kRebuildPiece) {
          const std::uint64_t len = std::min(kRebuildPiece, size - at);
          rc = MPI_Recv(piece.get(), static_cast<int>(len), MPI_BYTE, holder, kTagRebuild, p_.comm,
                        MPI_STATUS_IGNORE);
          if (rc == MPI_SUCCESS && io.ok()) io = out.write_at(at, piece.get(), len);
        }
        if (rc == MPI_SUCCESS && size != kNone && io.ok()) io = out.finish();
        if (!ready)
          continue;  // status says why
        if (rc != MPI_SUCCESS)
          status = Result::mpi("MPI_Recv", rc);
        else if (size == kNone)
          status = Result::failure(GDS_STATUS_UNRECOVERABLE, "version " + std::to_string(n) + " of process " +
                                                                 std::to_string(r) + " is lost, and so is its " +
                                                                 "PARTNER copy on process " + std::to_string(holder));
        else
          status = io;
      }
    }
    return status;
  }

  void remove(std::uint64_t n, const Files &where) override {
    for (const int q : holders_) where.spares->keep(partner_path(where.dir, q, n, where.group));
  }
  [[nodiscard]] int tolerance() const override { return 1; }

 private:
  Places p_;
  std::vector<int> partner_;  // per rank
  int to_ = 0;
  std::uint64_t length_ = 0;                  // of this process's file (prepare)
  std::vector<int> holders_;                  // the processes whose copies this one keeps
  std::vector<std::uint64_t> sizes_;          // their files' sizes (prepare)
  std::vector<std::vector<std::byte>> inbox_;  // room for their files (prepare), for start
  std::vector<std::vector<std::byte>> spare_;  // buffers given back, for the next prepare
};

}  // namespace

std::unique_ptr<Scheme> make_partner(const Places &p) { return std::make_unique<Partner>(p); }

}  // namespace gds::persist
