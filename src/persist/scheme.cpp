// What the redundancy schemes share: reading this process's own version
// file, the PARTNER placement, and messages of any size.
#include <algorithm>
#include <climits>
#include <cstring>
#include <iterator>
#include <map>

#include "core/util.hpp"
#include "persist/files.hpp"
#include "persist/scheme.hpp"

namespace gds::persist {

std::string read_own_version(const Places &p, std::uint64_t n, Mapped *file) {
  bool missing = false;
  if (!file->open(version_path(p.dir, n), &missing)) return missing ? "missing" : "unreadable";
  VersionFile v;
  std::string why = parse_version(file->bytes(), &v, true);
  if (why.empty() && (v.h.number != n || v.h.rank != static_cast<std::uint32_t>(p.rank) ||
                      v.h.nprocs != static_cast<std::uint32_t>(p.nprocs)))
    why = "written for another version or process";
  return why;
}

void FileView::copy(std::uint64_t at, std::uint64_t n, std::byte *out) const {
  std::uint64_t start = 0;  // of the piece
  for (const iovec &p : pieces) {
    if (n == 0) break;
    const std::uint64_t end = start + p.iov_len;
    if (at < end) {
      const std::uint64_t k = std::min(n, end - at);
      std::memcpy(out, static_cast<const std::byte *>(p.iov_base) + (at - start), k);
      out += k;
      at += k;
      n -= k;
    }
    start = end;
  }
  std::memset(out, 0, n);
}

void post_bytes(std::vector<MPI_Request> *reqs, const std::byte *data, std::uint64_t n, int peer, int tag,
                MPI_Comm comm) {
  for (std::uint64_t off = 0; off < n; off += core::kMaxPiece) {
    reqs->push_back(MPI_REQUEST_NULL);
    MPI_Isend(data + off, static_cast<int>(std::min(core::kMaxPiece, n - off)), MPI_BYTE, peer, tag, comm,
              &reqs->back());
  }
}

void post_recv_bytes(std::vector<MPI_Request> *reqs, std::byte *dst, std::uint64_t n, int peer, int tag,
                     MPI_Comm comm) {
  for (std::uint64_t off = 0; off < n; off += core::kMaxPiece) {
    reqs->push_back(MPI_REQUEST_NULL);
    MPI_Irecv(dst + off, static_cast<int>(std::min(core::kMaxPiece, n - off)), MPI_BYTE, peer, tag, comm,
              &reqs->back());
  }
}

int recv_bytes(std::byte *dst, std::uint64_t n, int peer, int tag, MPI_Comm comm) {
  for (std::uint64_t got = 0; got < n;) {
    MPI_Status st;
    int rc =
        MPI_Recv(dst + got, static_cast<int>(std::min(core::kMaxPiece, n - got)), MPI_BYTE, peer, tag, comm, &st);
    int count = 0;
    if (rc == MPI_SUCCESS) rc = MPI_Get_count(&st, MPI_BYTE, &count);
    if (rc != MPI_SUCCESS) return rc;
    if (count <= 0) return MPI_ERR_TRUNCATE;  // never sent: a protocol error, not a loop
    got += static_cast<std::uint64_t>(count);
  }
  return MPI_SUCCESS;
}

int wait_all(std::vector<MPI_Request> *reqs) {
  const int rc = MPI_Waitall(static_cast<int>(reqs->size()), reqs->data(), MPI_STATUSES_IGNORE);
  reqs->clear();
  return rc;
}

std::vector<int> positions_in_groups(const std::vector<int> &group_of) {
  std::map<int, int> seen;
  std::vector<int> position(group_of.size());
  for (std::size_t r = 0; r < group_of.size(); ++r) position[r] = seen[group_of[r]]++;
  return position;
}

std::vector<int> partners(const std::vector<int> &group_of) {
  std::map<int, std::vector<int>> members;  // group -> its ranks, ascending
  for (std::size_t r = 0; r < group_of.size(); ++r) members[group_of[r]].push_back(static_cast<int>(r));
  const std::vector<int> position = positions_in_groups(group_of);
  std::vector<int> partner(group_of.size());
  for (std::size_t r = 0; r < group_of.size(); ++r) {
    auto next = std::next(members.find(group_of[r]));
    if (next == members.end()) next = members.begin();
    partner[r] = next->second[static_cast<std::size_t>(position[r]) % next->second.size()];
  }
  return partner;
}

}  // namespace gds::persist
