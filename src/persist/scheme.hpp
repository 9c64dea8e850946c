// Redundancy schemes of the cache level, one file each (as redset does):
// single.cpp, partner.cpp, xor.cpp, rs.cpp. A scheme protects each process's
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
#include "persist/result.hpp"

namespace gds::persist {

// Where an array's files are: one directory per process, under its failure group's.
struct Places {
  MPI_Comm comm = MPI_COMM_NULL;  // the array's
  int rank = 0, nprocs = 0;
  std::vector<int> group_of;      // per rank
  std::string dir;                // this process's
  std::shared_ptr<Spares> spares;  // files of dropped versions in `dir`, to write over
};

// Maps and checks this process's own version file of version n (every block's CRC).
Result read_own_version(const Places &p, std::uint64_t n, Mapped *file);

// The files a scheme protects, and where it keeps what protects them: an
// array's version files in its directory, or a version group's files (one
// per process per group version, v<n>.gdsg) in the group's directory.
struct Files {
  std::string dir;
  std::shared_ptr<Spares> spares;  // in dir
  bool group = false;
};
// Whether `bytes` are a whole, good file of version n of process `rank` of
// `nprocs` of this kind (every block's CRC checked).
Result check_file(const Files &f, std::span<const std::byte> bytes, std::uint64_t n, int rank, int nprocs);

// A version file as the pieces it is written from (its header, then runs
// of blocks in the memory version, or one copy of it all), so that schemes
// send it from where it is.
struct FileView {
  std::vector<iovec> pieces;
  std::uint64_t size = 0;
};

// Bytes coming from one process into one buffer, in however many messages
// it cut them into: messages between two processes on one communicator and
// tag do not overtake, so each is received (MPI_Improbe, MPI_Imrecv) where
// the bytes before it end. A sender therefore sends from wherever its bytes
// are, cut as it likes.
struct Inflow {
  std::byte *dst = nullptr;
  std::uint64_t expected = 0, matched = 0;
  int peer = 0, tag = 0;
  MPI_Comm comm = MPI_COMM_NULL;
};

// A scheme's protection of one version file in progress: the sends and
// receives start() posted (each receive an Inflow into one of the buffers
// `in`), and what to write once they completed (`store`, on a background
// thread or the caller's: no MPI, nothing recorded; empty: nothing to
// write). A store writes into the process's directory (Places::dir) and
// fsyncs it last, which makes the entries of files written there before it
// durable too (the cache's own version file counts on it).
struct Exchange {
  std::vector<MPI_Request> reqs;
  std::vector<Inflow> inflows;
  std::vector<std::vector<std::byte>> in;
  std::function<Result(Exchange &)> store;
};

// Moves an exchange on: receives what arrived and tests every request
// (`block`: waits until all is done). *done once every byte arrived and
// every request completed. A failure of MPI ends it (what is still active
// is cancelled first, so that no buffer is used after it).
Result progress(Exchange &x, bool block, bool *done);

// A scheme protects a version in two steps, with an agreement between
// them, so that no process can wait for a message another has decided not
// to send (files of different lengths, a process out of memory, a failed
// write):
//   prepare  every process learns the lengths of the files it will receive
//            (the cache pipeline sends each process's lengths to tells()
//            and receives them from hears(), one message per peer for all
//            arrays of a version group) and reserves its buffers; the
//            caller agrees on every process's outcome
//   start    the messages are posted; the caller completes them, then runs
//            `store` and agrees again.
class Scheme {
 public:
  virtual ~Scheme() = default;
  // The processes (ranks of the array's communicator) this one sends its
  // file's length to, and those it receives lengths from, in order.
  [[nodiscard]] virtual std::vector<int> tells() const { return {}; }
  [[nodiscard]] virtual std::vector<int> hears() const { return {}; }
  // Local: this process's file of version n has `length` bytes; heard[i]
  // is the length of process hears()[i]'s. Reserves what start() receives into.
  virtual Result prepare(std::uint64_t n, std::uint64_t length, std::span<const std::uint64_t> heard) = 0;
  // Collective over the scheme's processes, after an agreed prepare():
  // posts the protection of version n's file, which stays unchanged until
  // the requests complete, in messages of tag `tag` (one of its own for
  // every version in flight); `x` takes the buffers prepare() reserved.
  virtual Result start(std::uint64_t n, int tag, const FileView &file, const Files &where, Exchange *x) = 0;
  // The buffers of an exchange completed and stored, for the next prepare().
  virtual void give_back(std::vector<std::vector<std::byte>> && /*in*/) {}
  // Collective: lost[r] says whether process r lacks a good file of version
  // n. `own` is this process's file of version n, every block checked by the
  // caller (empty where it is lost). If it is lost here, the file is rebuilt
  // into the file at `path` (written as the bytes arrive, fsynced; the
  // caller checks it). GDS_STATUS_UNRECOVERABLE where the scheme cannot (the
  // caller agrees).
  virtual Result rebuild(std::uint64_t n, const std::vector<char> &lost, std::span<const std::byte> own,
                         const std::string &path, const Files &where) = 0;
  // Removes what this process holds for version n.
  virtual void remove(std::uint64_t n, const Files &where) = 0;
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
// Collective: splits the array's communicator into `sets` (from xor_sets,
// not empty): this process's set, its members (ranks of the array's
// communicator, in set order) and the set's index.
Result split_sets(const Places &p, const std::vector<std::vector<int>> &sets, core::Comm *set,
                  std::vector<int> *members, std::uint64_t *id);
// Every member's file length in set order, from this member's (`me`) and
// those heard from the others (in set order, without it): XOR and RS.
std::vector<std::uint64_t> set_lengths(int members, int me, std::uint64_t length, std::span<const std::uint64_t> heard);
// Bytes [off, off + len) of chunk i (of c bytes) of a file into out, zero-padded past its end.
void chunk_slice(std::span<const std::byte> file, int i, std::uint64_t c, std::uint64_t off, std::uint64_t len,
                 std::byte *out);
// Collective (splits the array's communicator into the sets from xor_sets, not empty).
Result make_xor(const Places &p, const std::vector<std::vector<int>> &sets, std::unique_ptr<Scheme> *out);
// Collective: RS over the same sets, k encoding parts per set (fewer in a
// set of k or fewer members: its size - 1), k lost members of a set rebuilt (rs.cpp).
Result make_rs(const Places &p, const std::vector<std::vector<int>> &sets, int k, std::unique_ptr<Scheme> *out);

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
// Posts sends of bytes [at, at + n) of a file view to `peer`, zeros past
// its end (from `padding`, which holds that many): one message per
// contiguous segment, where the pieces are (derived datatypes would be
// packed, not sent in place).
void post_range(std::vector<MPI_Request> *reqs, const FileView &file, std::uint64_t at, std::uint64_t n,
                const std::byte *padding, int peer, int tag, MPI_Comm comm);
// Zeros to send padding from: a mapping of at least n bytes nobody writes
// (untouched, so it takes no memory), kept for the process's life.
const std::byte *zeros(std::uint64_t n);

}  // namespace gds::persist
