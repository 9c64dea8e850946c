// Agreement on the outcome of collective calls.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/util.hpp"
#include "gds_types.h"

namespace gds::core {

// One allreduce in which every process contributes its local status and a
// signature of the arguments that must match. Returns, identically on every
// process, GDS_STATUS_OK if all succeeded with equal signatures; otherwise
// each failing process returns its own status (its message is recorded
// already), and the others GDS_STATUS_REMOTE_ERROR, or
// GDS_STATUS_COLLECTIVE_MISMATCH everywhere if only the signatures differ.
GDS_status_t agree(const char *func, MPI_Comm comm, GDS_status_t local, std::uint64_t signature = 0);

// The agreement of a collective step that also learns something from every
// process: as agree(), in the same one allreduce, and each of `values` (as
// many as the step needs, the same number on every process) becomes its
// maximum over the processes, whatever the status. A flag (0 or 1) becomes
// "set on some process"; a minimum is the complement of the maximum of the
// complements.
GDS_status_t agree(const char *func, MPI_Comm comm, GDS_status_t local, std::span<std::uint64_t> values,
                   std::uint64_t signature = 0, const char *what = "arguments");

// The statuses the agreements return where another process failed, or where
// the processes' arguments differed, with their messages (`what`: which
// arguments; agree() takes it too).
GDS_status_t remote_failure(const char *func);
GDS_status_t arguments_differ(const char *func, const char *what = "arguments");

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

// A check every agreement over more than one process makes first (the cd
// module's: no collective inside a per-process CD that logs its messages,
// which could not be replayed alone). Its failure is this process's status
// in the agreement, so every process returns.
using CollectiveGuard = GDS_status_t (*)(const char *func);
void set_collective_guard(CollectiveGuard guard);

// Argument signatures are FNV-1a hashes.
using Signature = Fnv1a;

}  // namespace gds::core
