// Agreement on the outcome of collective calls.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/util.hpp"
#include "gds_types.h"

namespace gds::core {

// MPI's blocking calls as GDS makes them: the nonblocking call, then a wait
// that yields the processor between polls. MPICH 4.0.2 busy-polls inside its
// blocking calls without yielding, so where a node runs more processes than
// it has cores a process waiting in a collective holds the core the process
// it waits for needs: 4.3-4.9 ms per MPI_Allreduce at 3-4 processes on the
// 2-core test machine, 10-16 us as MPI_Iallreduce waited for here (it polls
// 64 times before it yields: 0.87 us against 0.65 us on a core of its own).
// Where the host has a core for every process of it (no oversubscription)
// a waiting process never yields: a yield is a system call and a pass
// through the scheduler (about 1 us here) on every poll.
// Each returns MPI's error code, as the call it stands for.
int wait(MPI_Request *request);
int wait_all(std::vector<MPI_Request> *requests);  // (emptied)
// One unsuccessful poll of a wait (*polls: this wait's count so far): after
// the first 64, the processor is yielded where the host's processes
// outnumber its processors.
void idle(int *polls);
int allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int allgather(const void *in, int count, MPI_Datatype type, void *out, int out_count, MPI_Datatype out_type,
              MPI_Comm comm);
int allgatherv(const void *in, int count, MPI_Datatype type, void *out, const int *counts, const int *displs,
               MPI_Datatype out_type, MPI_Comm comm);
int bcast(void *buffer, int count, MPI_Datatype type, int root, MPI_Comm comm);
int gather(const void *in, int count, MPI_Datatype type, void *out, int out_count, MPI_Datatype out_type, int root,
           MPI_Comm comm);
int gatherv(const void *in, int count, MPI_Datatype type, void *out, const int *counts, const int *displs,
            MPI_Datatype out_type, int root, MPI_Comm comm);

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

// The values one agreement learns, gathered from the parties that take part
// in it (a version's members, its levels). Each party reserves a field of
// records of its own type (a struct of 64-bit members: flags, counts,
// nonnegative doubles, each becoming its maximum over the processes), fills
// them, and reads them back once the agreement is made. The parties reserve
// alike on every process (the same fields everywhere).
class Ballot {
 public:
  // `count` records of T, where reserve() put them.
  template <class T>
  struct Field {
    std::size_t at = 0, count = 0;
  };

  // `count` records of T, zero.
  template <class T>
  Field<T> reserve(std::size_t count = 1) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) % sizeof(std::uint64_t) == 0,
                  "a ballot's record is a whole number of 64-bit values");
    const Field<T> f{values_.size(), count};
    values_.resize(f.at + count * kWords<T>, 0);
    return f;
  }
  template <class T>
  [[nodiscard]] T get(Field<T> f, std::size_t i = 0) const {
    T v;
    std::memcpy(&v, &values_.at(index(f, i) + kWords<T> - 1) - (kWords<T> - 1), sizeof(T));
    return v;
  }
  template <class T>
  void put(Field<T> f, std::size_t i, const T &v) {
    std::memcpy(&values_.at(index(f, i) + kWords<T> - 1) - (kWords<T> - 1), &v, sizeof(T));
  }
  // Record i of f, changed by `change(T &)`.
  template <class T, class Change>
  void update(Field<T> f, std::size_t i, Change &&change) {
    T v = get(f, i);
    change(v);
    put(f, i, v);
  }
  // Whether `member` is set (not zero) in some record of f.
  template <class T, class M>
  [[nodiscard]] bool any(Field<T> f, M T::*member) const {
    for (std::size_t i = 0; i < f.count; ++i)
      if (get(f, i).*member != M{}) return true;
    return false;
  }
  std::span<std::uint64_t> values() { return values_; }
  void clear() { values_.clear(); }

 private:
  template <class T>
  static constexpr std::size_t kWords = sizeof(T) / sizeof(std::uint64_t);
  // Where record i of f starts (a record outside its field is a bug: refused;
  // so is one past the values, a field of a ballot cleared since: get() and
  // put() reach its last word through values_.at()).
  template <class T>
  static std::size_t index(Field<T> f, std::size_t i) {
    if (i >= f.count) throw std::out_of_range("a ballot record outside its field");
    return f.at + i * kWords<T>;
  }
  std::vector<std::uint64_t> values_;
};

// A sparse exchange (NBX: Hoefler, Siebert and Lumsdaine, PPoPP 2010): this
// process sends out[i].second to process out[i].first (one synchronous
// send each: MPI_Issend), receives what the others send it (each message to
// `on_message(source, words)`), and learns that nothing more will come
// from one MPI_Ibarrier it enters once its own sends were received: the
// barrier completes when every process's sends are. Messages go only where
// there is something to say; the one collective does not grow with the
// processes' data. Collective over comm; every message of the exchange is
// received before any process returns. MPI's failures are returned (the
// exchange may then have left messages behind).
GDS_status_t sparse_exchange(const char *func, MPI_Comm comm, int tag,
                             const std::vector<std::pair<int, std::vector<std::uint32_t>>> &out,
                             const std::function<void(int, std::span<const std::uint32_t>)> &on_message);

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
