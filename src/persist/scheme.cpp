// What the redundancy schemes share: reading this process's own version
// file, the PARTNER placement, and messages of any size cut anyhow.
#include <algorithm>
#include <climits>
#include <cstring>
#include <iterator>
#include <map>
#include <new>

#include <sched.h>
#include <sys/mman.h>

#include "core/collective.hpp"
#include "core/costs.hpp"
#include "core/util.hpp"
#include "persist/files.hpp"
#include "persist/scheme.hpp"

namespace gds::persist {

Result read_own_version(const Places &p, std::uint64_t n, Mapped *file) {
  const std::string path = version_path(p.dir, n);
  PERSIST_TRY(file->open(path));
  VersionFile v;
  if (Result why = parse_version(file->bytes(), &v, true); !why.ok()) return why.within(path);
  if (v.h.number != n || v.h.rank != static_cast<std::uint32_t>(p.rank) ||
      v.h.nprocs != static_cast<std::uint32_t>(p.nprocs))
    return Result::corrupt(path + ": written for another version or process");
  return {};
}

Result check_file(const Files &f, std::span<const std::byte> bytes, std::uint64_t n, int rank, int nprocs) {
  const auto r = static_cast<std::uint32_t>(rank), np = static_cast<std::uint32_t>(nprocs);
  if (f.group) {
    GroupVersion g;
    PERSIST_TRY(parse_group_version(bytes, &g, true));
    if (g.number != n || g.rank != r || g.nprocs != np) return Result::corrupt("written for another version or process");
    return {};
  }
  VersionFile v;
  PERSIST_TRY(parse_version(bytes, &v, true));
  if (v.h.number != n || v.h.rank != r || v.h.nprocs != np) return Result::corrupt("written for another version or process");
  return {};
}

void post_bytes(std::vector<MPI_Request> *reqs, const std::byte *data, std::uint64_t n, int peer, int tag,
                MPI_Comm comm) {
  core::add_bytes(core::Work::redundancy, n);
  for (std::uint64_t off = 0; off < n; off += core::kMaxPiece) {
    reqs->push_back(MPI_REQUEST_NULL);
    MPI_Isend(data + off, static_cast<int>(std::min(core::kMaxPiece, n - off)), MPI_BYTE, peer, tag, comm,
              &reqs->back());
  }
}

void post_range(std::vector<MPI_Request> *reqs, const FileView &file, std::uint64_t at, std::uint64_t n,
                const std::byte *padding, int peer, int tag, MPI_Comm comm) {
  std::uint64_t start = 0, want = at, left = n;
  for (const iovec &p : file.pieces) {
    const std::uint64_t end = start + p.iov_len;
    if (left > 0 && want < end) {
      const std::uint64_t k = std::min(left, end - want);
      post_bytes(reqs, static_cast<const std::byte *>(p.iov_base) + (want - start), k, peer, tag, comm);
      want += k;
      left -= k;
    }
    start = end;
  }
  post_bytes(reqs, padding, left, peer, tag, comm);
}

const std::byte *zeros(std::uint64_t n) {
  // Grown by doubling, never freed or written: readers of an older, smaller
  // mapping may still be sending from it.
  static std::vector<void *> maps;
  static std::uint64_t size = 0;
  if (n > size || maps.empty()) {
    const std::uint64_t want = std::max<std::uint64_t>({n, 2 * size, 4096});
    void *p = ::mmap(nullptr, want, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    maps.push_back(p);
    size = want;
  }
  return static_cast<const std::byte *>(maps.back());
}

namespace {

// Matches the messages of an inflow that arrived (all of them, blocking:
// polling, yielding the processor as core::wait does).
int match(Inflow &f, bool block, std::vector<MPI_Request> *reqs) {
  for (int idle = 0; f.matched < f.expected;) {
    int found = 0, count = 0;
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Status st;
    int rc = MPI_Improbe(f.peer, f.tag, f.comm, &found, &msg, &st);
    if (rc != MPI_SUCCESS) return rc;
    if (found == 0) {
      if (!block) return MPI_SUCCESS;
      core::idle(&idle);
      continue;
    }
    rc = MPI_Get_count(&st, MPI_BYTE, &count);
    if (rc != MPI_SUCCESS) return rc;
    // More than expected, or nothing: not a message of this protocol.
    if (count <= 0 || static_cast<std::uint64_t>(count) > f.expected - f.matched) return MPI_ERR_TRUNCATE;
    reqs->push_back(MPI_REQUEST_NULL);
    rc = MPI_Imrecv(f.dst + f.matched, count, MPI_BYTE, &msg, &reqs->back());
    if (rc != MPI_SUCCESS) return rc;
    f.matched += static_cast<std::uint64_t>(count);
  }
  return MPI_SUCCESS;
}

}  // namespace

Result progress(Exchange &x, bool block, bool *done) {
  *done = false;
  int rc = MPI_SUCCESS;
  bool matched = true;
  for (Inflow &f : x.inflows) {
    if (rc == MPI_SUCCESS) rc = match(f, block, &x.reqs);
    matched = matched && f.matched == f.expected;
  }
  int complete = 1;
  if (rc == MPI_SUCCESS && !x.reqs.empty())
    rc = block ? core::wait_all(&x.reqs)
               : MPI_Testall(static_cast<int>(x.reqs.size()), x.reqs.data(), &complete, MPI_STATUSES_IGNORE);
  if (rc != MPI_SUCCESS) {
    // What is still active may read or write the buffers: ended before they go.
    for (MPI_Request &r : x.reqs) {
      if (r == MPI_REQUEST_NULL) continue;
      MPI_Cancel(&r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    x.reqs.clear();
    x.inflows.clear();
    return Result::mpi(block ? "MPI_Waitall" : "MPI_Testall", rc);
  }
  *done = matched && complete != 0;
  return {};
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
