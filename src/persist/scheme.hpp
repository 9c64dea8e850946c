// Redundancy schemes of the cache level, one file each (as redset does):
// single.cpp, partner.cpp, xor.cpp. A scheme protects each process's
// version file across failure groups, and rebuilds the file of a process
// whose copy was lost or corrupted from what the others hold.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/mpi_handles.hpp"
#include "gds_types.h"
#include "persist/files.hpp"
#include "persist/format.hpp"

namespace gds::persist {

// Where an array's files are: one directory per process, under its failure group's.
struct Places {
  MPI_Comm comm = MPI_COMM_NULL;  // the array's
  int rank = 0, nprocs = 0;
  std::vector<int> group_of;      // per rank
  std::string dir;                // this process's
  std::shared_ptr<Spares> spares;  // files of dropped versions in `dir`, to write over
};

inline std::string version_path(const std::string &dir, std::uint64_t n) { return dir + "/v" + std::to_string(n) + ".gdsv"; }
inline std::string record_path(const std::string &dir, std::uint64_t n) { return dir + "/v" + std::to_string(n) + ".done"; }
inline std::string partner_path(const std::string &dir, int of, std::uint64_t n) {
  return dir + "/p" + std::to_string(of) + ".v" + std::to_string(n) + ".gdsv";
}
inline std::string parity_path(const std::string &dir, std::uint64_t n) { return dir + "/x" + std::to_string(n) + ".gdsx"; }

// Maps and checks this process's own version file of version n (every block's CRC); "" or what is wrong.
std::string read_own_version(const Places &p, std::uint64_t n, Mapped *file);

// A version file as the pieces it was written from (its header, then runs
// of blocks in the memory version), so that schemes read it where it is.
struct FileView {
  std::vector<iovec> pieces;
  std::uint64_t size = 0;
  // Bytes [at, at + n) of the file into out, zeros past its end.
  void copy(std::uint64_t at, std::uint64_t n, std::byte *out) const;
};

class Scheme {
 public:
  virtual ~Scheme() = default;
  // Collective: protects version n's file of this process (written and
  // durable already). Returns this process's status; the caller agrees.
  virtual GDS_status_t encode(const char *func, std::uint64_t n, const FileView &file) = 0;
  // Collective: lost[r] says whether process r lacks a good file of version
  // n. `own` is this process's file of version n, every block checked by the
  // caller (empty where it is lost). If it is lost here, the file is rebuilt
  // into the file at `path` (written as the bytes arrive, fsynced; the
  // caller checks it). GDS_STATUS_UNRECOVERABLE where the scheme cannot (the
  // caller agrees).
  virtual GDS_status_t rebuild(const char *func, std::uint64_t n, const std::vector<char> &lost,
                               std::span<const std::byte> own, const std::string &path) = 0;
  // Removes what this process holds for version n.
  virtual void remove(std::uint64_t n) = 0;
  // Collective: frees the scheme's communicators.
  virtual void release() {}
  // How many lost processes of one set it rebuilds (0: none).
  [[nodiscard]] virtual int tolerance() const = 0;
};

std::unique_ptr<Scheme> make_single(const Places &p);
std::unique_ptr<Scheme> make_partner(const Places &p);
// Collective (splits the array's communicator into sets); `set_size` checked by the caller.
GDS_status_t make_xor(const char *func, const Places &p, int set_size, std::unique_ptr<Scheme> *out);

// Each rank's position among the ranks of its failure group (0 for the lowest).
std::vector<int> positions_in_groups(const std::vector<int> &group_of);
// For each rank, the process that holds its PARTNER copies: in the next
// failure group (of the array's processes, in group order), at the rank's
// position in its own group (wrapped by the next group's size).
std::vector<int> partners(const std::vector<int> &group_of);

// Bytes per message of a rebuild (the receiver writes each as it arrives).
constexpr std::uint64_t kRebuildPiece = std::uint64_t{8} << 20;

}  // namespace gds::persist
