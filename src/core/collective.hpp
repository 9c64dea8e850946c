// Agreement on the outcome of collective calls.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gds_types.h"

namespace gds::core {

// One allreduce in which every process contributes its local status and a
// signature of the arguments that must match. Returns, identically on every
// process, GDS_STATUS_OK if all succeeded with equal signatures; otherwise
// each failing process returns its own status (its message is recorded
// already), and the others GDS_STATUS_REMOTE_ERROR, or
// GDS_STATUS_COLLECTIVE_MISMATCH everywhere if only the signatures differ.
GDS_status_t agree(const char *func, MPI_Comm comm, GDS_status_t local, std::uint64_t signature = 0);

// The agreement of a stable point: as agree() without a signature, in one
// allreduce of one word (bitwise OR of "failed" and "has global errors
// pending"), cheaper than an MPI_Barrier in MPICH. *pending becomes whether
// any process has errors pending; *flag, if given, becomes whether it was
// set on any process.
GDS_status_t agree_and_poll(const char *func, MPI_Comm comm, GDS_status_t local, bool *pending,
                            bool *flag = nullptr);

// Every process's `mine`, concatenated in rank order into *all, with each
// process's size in *sizes. Sizes are 64-bit: one MPI_Allgatherv when every
// count fits an int, otherwise one broadcast per process in pieces of at
// most 1 GiB. Memory is reserved before any data moves, and the processes
// agree on `local` (what the caller found so far) and on all having that
// memory: a process that failed returns its status, the others
// GDS_STATUS_REMOTE_ERROR, before any data moves. Collective over comm.
GDS_status_t allgather_bytes(const char *func, MPI_Comm comm, GDS_status_t local, const std::vector<std::byte> &mine,
                             std::vector<std::byte> *all, std::vector<std::uint64_t> *sizes);

// FNV-1a, for argument signatures.
class Signature {
 public:
  Signature &add(const void *data, std::size_t bytes) {
    const auto *p = static_cast<const unsigned char *>(data);
    for (std::size_t i = 0; i < bytes; ++i) hash_ = (hash_ ^ p[i]) * 0x100000001b3ULL;
    return *this;
  }
  template <class T>
  Signature &add(const T &value) {
    return add(&value, sizeof value);
  }
  [[nodiscard]] std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

}  // namespace gds::core
