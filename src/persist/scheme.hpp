// Redundancy schemes of the cache level, one file each (as redset does):
// single.cpp, partner.cpp, xor.cpp. A scheme protects each process's
// version file across failure groups, and rebuilds the file of a process
// whose copy was lost or corrupted from what the others hold.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/mpi_handles.hpp"
#include "gds_types.h"
#include "persist/files.hpp"
#include "persist/format.hpp"
#include "persist/names.hpp"

namespace gds::persist {

// Where an array's files are: one directory per process, under its failure group's.
struct Places {
  MPI_Comm comm = MPI_COMM_NULL;  // the array's
  int rank = 0, nprocs = 0;
  std::vector<int> group_of;      // per rank
  std::string dir;                // this process's
  std::shared_ptr<Spares> spares;  // files of dropped versions in `dir`, to write over
  bool async = false;  // start() rather than encode() (GDS_CACHE_SYNC unset)
};

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

// An asynchronous encode (the cache's default; GDS_CACHE_SYNC=1 keeps
// encode()): start() posts every message of the protection of a version's
// file and returns; the caller completes the requests at later calls
// (MPI_Testall or MPI_Waitall), then `store` runs on a background thread
// (no MPI): it writes what arrived (PARTNER copies, the XOR parity),
// fsynced, and returns "" or what failed.
struct Exchange {
  std::vector<MPI_Request> reqs;
  std::vector<std::vector<std::byte>> in;  // what arrives
  std::function<std::string(Exchange &)> store;  // empty: nothing to store
};

// A scheme's collective steps send messages whose number and sizes are
// decided by agreed values only: prepare() tells every process the lengths
// it will receive and reserves the memory encode() needs, and the caller
// agrees on every process's outcome before encode() sends a byte. So no
// process can wait for a message another has decided not to send (files of
// different lengths, a process out of memory, a failed write).
class Scheme {
 public:
  virtual ~Scheme() = default;
  // Collective: this process's file of version n will have `length` bytes.
  // Exchanges lengths with the processes it sends to or receives from and
  // reserves what encode() needs. Returns this process's status; the caller
  // agrees on it (with the write's) before calling encode().
  virtual GDS_status_t prepare(const char *func, std::uint64_t n, std::uint64_t length) = 0;
  // Collective, after an agreed prepare(): protects version n's file of this
  // process (written and durable already; `file.size` is the length given
  // to prepare). Returns this process's status; the caller agrees.
  virtual GDS_status_t encode(const char *func, std::uint64_t n, const FileView &file) = 0;
  // The bytes start() sends from: the file, then zeros up to this length.
  [[nodiscard]] virtual std::uint64_t room(std::uint64_t length) const { return length; }
  // Collective, after an agreed prepare() (in place of encode()): posts the
  // protection of version n's file, whole in `file` (room() bytes: the file
  // then zeros), which stays unchanged until the requests complete; `x`
  // takes the buffers reserved by prepare(). No failure is possible after
  // the agreement but MPI's (returned, and agreed on when the caller
  // completes x).
  virtual GDS_status_t start(const char *func, std::uint64_t n, const std::byte *file, Exchange *x) = 0;
  // The buffers of an exchange completed and stored, for the next prepare().
  virtual void give_back(std::vector<std::vector<std::byte>> && /*in*/) {}
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
// XOR sets: every process of the array (its ranks, by failure group) in one
// set of two or more processes of distinct failure groups, of at most
// `set_size` where the groups allow; members in group order. Empty if there
// are none such (one group holds more than half of the processes).
std::vector<std::vector<int>> xor_sets(const std::vector<int> &group_of, int set_size);
// Collective (splits the array's communicator into the sets from xor_sets, not empty).
GDS_status_t make_xor(const char *func, const Places &p, const std::vector<std::vector<int>> &sets,
                      std::unique_ptr<Scheme> *out);

// Each rank's position among the ranks of its failure group (0 for the lowest).
std::vector<int> positions_in_groups(const std::vector<int> &group_of);
// For each rank, the process that holds its PARTNER copies: in the next
// failure group (of the array's processes, in group order), at the rank's
// position in its own group (wrapped by the next group's size).
std::vector<int> partners(const std::vector<int> &group_of);

// Bytes per message of a rebuild (the receiver writes each as it arrives).
constexpr std::uint64_t kRebuildPiece = std::uint64_t{8} << 20;

// Messages of any size between two processes. The sender cuts its bytes as
// it likes (pieces of a file where they lie in memory, each in messages of
// at most 1 GiB); the receiver takes exactly the number of bytes both sides
// agreed on, in however many messages they come, learning each one's size
// as it arrives (messages between two processes on one communicator and tag
// do not overtake). So the sender's cut is its own business.
void post_bytes(std::vector<MPI_Request> *reqs, const std::byte *data, std::uint64_t n, int peer, int tag,
                MPI_Comm comm);
// Posts the receives of exactly n bytes from `peer` into dst, sent by
// post_bytes() from one buffer (so cut alike).
void post_recv_bytes(std::vector<MPI_Request> *reqs, std::byte *dst, std::uint64_t n, int peer, int tag,
                     MPI_Comm comm);
// Receives exactly n bytes from `peer` into dst. MPI_SUCCESS or MPI's error code.
int recv_bytes(std::byte *dst, std::uint64_t n, int peer, int tag, MPI_Comm comm);
// Waits for posted sends (the vector is emptied). MPI_SUCCESS or MPI's error code.
int wait_all(std::vector<MPI_Request> *reqs);

}  // namespace gds::persist
