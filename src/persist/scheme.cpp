// What the redundancy schemes share: reading this process's own version
// file, the PARTNER placement, and messages of any size.
#include <algorithm>
#include <climits>

#include "persist/files.hpp"
#include "persist/scheme.hpp"

namespace gds::persist {

namespace {
constexpr std::uint64_t kPiece = std::uint64_t{1} << 30;
}

std::string read_own_version(const Places &p, std::uint64_t n, std::vector<std::byte> *file) {
  bool missing = false;
  if (!read_file(version_path(p.dir, n), file, &missing)) return missing ? "missing" : "unreadable";
  VersionFile v;
  std::string why = parse_version(*file, &v, true);
  if (why.empty() && (v.h.number != n || v.h.rank != static_cast<std::uint32_t>(p.rank) ||
                      v.h.nprocs != static_cast<std::uint32_t>(p.nprocs)))
    why = "written for another version or process";
  return why;
}

int partner_of(const std::vector<int> &group_of, int r) {
  std::vector<int> groups(group_of);
  std::sort(groups.begin(), groups.end());
  groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  const auto g = static_cast<std::size_t>(std::lower_bound(groups.begin(), groups.end(), group_of[r]) - groups.begin());
  const int next = groups[(g + 1) % groups.size()];
  int position = 0;  // r's among the processes of its group
  for (int q = 0; q < r; ++q) position += group_of[q] == group_of[r];
  std::vector<int> members;
  for (int q = 0; q < static_cast<int>(group_of.size()); ++q)
    if (group_of[q] == next) members.push_back(q);
  return members[static_cast<std::size_t>(position) % members.size()];
}

int send_bytes(const void *data, std::uint64_t n, int to, int tag, MPI_Comm comm) {
  const auto *p = static_cast<const char *>(data);
  do {
    const std::uint64_t k = std::min(n, kPiece);
    const int rc = MPI_Send(p, static_cast<int>(k), MPI_BYTE, to, tag, comm);
    if (rc != MPI_SUCCESS) return rc;
    p += k;
    n -= k;
  } while (n > 0);
  return MPI_SUCCESS;
}

int recv_bytes(void *data, std::uint64_t n, int from, int tag, MPI_Comm comm) {
  auto *p = static_cast<char *>(data);
  do {
    const std::uint64_t k = std::min(n, kPiece);
    const int rc = MPI_Recv(p, static_cast<int>(k), MPI_BYTE, from, tag, comm, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
    p += k;
    n -= k;
  } while (n > 0);
  return MPI_SUCCESS;
}

}  // namespace gds::persist
