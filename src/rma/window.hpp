// An MPI window: the one place GDS calls MPI_Win_* and the RMA operations
// (window.cpp), after ARMCI-MPI.
//
// A window is created with hints, opened once with
// MPI_Win_lock_all(MPI_MODE_NOCHECK) for its whole life and completed with
// flushes, never locked per operation. It remembers which processes its
// operations went to since they last completed, so that local completion
// flushes only those. Errors return (MPI_ERRORS_RETURN) and become GDS
// statuses. Freeing a window is collective: free() is the explicit call; the
// destructor never frees one (a window left unfreed is reported).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gds_types.h"

namespace gds::rma {

// Settings of the rma module, read at GDS_init.
struct Settings {
  std::uint64_t outstanding_ops_max = 0;  // GDS_OUTSTANDING_RMA_OPS_MAX; 0 = no limit
  std::uint64_t acc_segment_size = 32768;  // GDS_ACC_SEGMENT_SIZE; 0 = never split
  // Whether completions may use MPI_Win_flush_all/_local_all (past a few
  // targets): not with MPICH before 4.1 (see Window::local_).
  bool flush_all_completes = true;
  // Whether an 8-byte compare-and-swap on this process's own memory is done
  // in memory (Window::compare_and_swap): with Open MPI 4, whose osc/rdma
  // crashes on it (tests/mpi_bugs/cas_self_8byte.c).
  bool self_cas_in_memory = false;
  // Whether get_accumulates go to MPI one contiguous run at a time, never
  // with a derived datatype: with Open MPI 4, whose osc/rdma returns zeros or
  // other elements for a strided origin, result or target
  // (tests/mpi_bugs/get_acc_derived.c).
  bool get_acc_runs_only = false;
  // Whether MPI_SUM accumulates of single-precision complex elements go to
  // MPI as sums of MPI_FLOAT pairs (contiguous runs only): with Open MPI 4,
  // whose osc/rdma adds them wrongly (tests/mpi_bugs/acc_wrong_types.c).
  bool float_complex_sum_as_floats = false;
  // Whether MPI_SUM accumulates of 1- and 2-byte integers go to MPI in
  // pieces of at most 15 bytes: where MPI's vector code saturates instead of
  // wrapping from 16 bytes on (Open MPI 4.1's op/avx; small_int_sums_saturate).
  bool small_int_sums_in_pieces = false;
  // Whether GDS_alloc arrays over two or more processes of one node get
  // shared-memory windows (Open MPI: osc/sm, 20-60 times faster there than
  // osc/rdma's MPI_Win_create windows) when the backing directory has room.
  bool allocate_on_one_node = false;
};
// Whether this MPI library's MPI_Win_flush_all completes small puts (from
// MPI_Get_library_version: MPICH before 4.1 does not).
bool flush_all_completes_puts();
extern Settings g_settings;

class Window {
 public:
  Window() = default;
  Window(const Window &) = delete;
  Window &operator=(const Window &) = delete;
  ~Window();

  // Collective over comm: exposes memory the caller owns. GDS maps memory
  // itself (core::Memory) rather than asking MPI_Win_allocate: MPICH 4.0.2
  // crashes in MPI_Win_allocate when it cannot get the memory, and puts RMA
  // to a process whose segment is not a multiple of 16 bytes at the wrong
  // address (tests/mpi_bugs/win_allocate_unaligned.c).
  // `anywhere`: the program's memory, which may start on any byte (every
  // process passes the same; one more collective learns whether some
  // process's does not start on 16 bytes: see skew_).
  GDS_status_t create(const char *func, MPI_Comm comm, void *base, MPI_Aint bytes, int disp_unit,
                      bool anywhere = false);
  // Collective over comm, all on one node: MPI allocates `bytes` bytes of
  // shared memory (MPI_Win_allocate_shared) and exposes them; *base receives
  // them. For Open MPI only, whose osc/sm serves such windows from a new
  // shared file (zero-filled) with plain loads and stores
  // (Settings::allocate_on_one_node).
  GDS_status_t allocate(const char *func, MPI_Comm comm, MPI_Aint bytes, int disp_unit, std::byte **base);
  // Collective: completes everything, ends the epoch and frees the window.
  GDS_status_t free(const char *func);

  // Nonblocking operations; counts and displacements in the datatypes' units
  // (target displacement in disp_unit). Each is remembered for completion.
  GDS_status_t put(const char *func, const void *origin, int ocount, MPI_Datatype otype, int target,
                   MPI_Aint disp, int tcount, MPI_Datatype ttype);
  GDS_status_t get(const char *func, void *origin, int ocount, MPI_Datatype otype, int target,
                   MPI_Aint disp, int tcount, MPI_Datatype ttype);
  GDS_status_t accumulate(const char *func, const void *origin, int ocount, MPI_Datatype otype,
                          int target, MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op);
  GDS_status_t get_accumulate(const char *func, const void *origin, int ocount, MPI_Datatype otype,
                              void *result, int rcount, MPI_Datatype rtype, int target,
                              MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op);
  GDS_status_t compare_and_swap(const char *func, const void *origin, const void *compare,
                                void *result, MPI_Datatype type, int target, MPI_Aint disp);

 private:
  GDS_status_t make(const char *func, MPI_Comm comm, MPI_Aint bytes, int disp_unit, void *base,
                    std::byte **allocated, bool anywhere = false);
  GDS_status_t compare_and_swap_in_memory(const char *func, const void *origin, const void *compare, void *result,
                                          MPI_Aint disp);

 public:

  // Local completion of every operation issued since the last completion
  // (GDS_wait): flushes only the processes they went to.
  GDS_status_t complete_local(const char *func) {
    if (local_.size() == 1 && ops_ == 0 && !put_after_get_) [[likely]] {
      const int target = local_.only();
      local_.clear();
      got_ = false;
      return flush_local_one(func, target);
    }
    return complete_local_slow(func);
  }
  // Completion at their targets of every operation issued (GDS_fence):
  // flushes the processes they went to since the last remote completion.
  GDS_status_t complete_remote(const char *func);
  // Completion at the target of the operations to `target`.
  GDS_status_t flush(const char *func, int target);
  // Synchronizes the public and private copies of this process's memory.
  GDS_status_t sync(const char *func);

 private:
  // Remembers an operation to `target`; past GDS_OUTSTANDING_RMA_OPS_MAX
  // operations, completes them all locally.
  GDS_status_t noted(const char *func, int target) {
    if (g_settings.outstanding_ops_max == 0 && target == last_) [[likely]] return GDS_STATUS_OK;
    return noted_slow(func, target);
  }
  GDS_status_t noted_slow(const char *func, int target);
  GDS_status_t complete_local_slow(const char *func);
  GDS_status_t flush_local_one(const char *func, int target);
  void forget_local();  // after a local completion

  // Accumulates of more than GDS_ACC_SEGMENT_SIZE bytes (count x one type) go
  // out as several operations of that many bytes: MPICH 4.0.2 applies one
  // large accumulate at about 1 GB/s but overlaps several 32 KiB ones at
  // 3-3.5 GB/s (bench/bench_rma.cpp, "acc 1 MiB"). Element-wise atomicity and
  // same-origin ordering, all that MPI promises for an accumulate, are kept.
  struct Segments {
    int elements = 0;         // per operation; 0: issue one operation
    MPI_Aint extent = 0;      // bytes per element in the local buffers
    MPI_Aint disp_units = 0;  // target displacement units per element
  };
  [[nodiscard]] Segments segments(int count, MPI_Datatype type) const;

  // Calls issue(n, byte offset, target element offset) for each segment of
  // a run of `count` elements; returns the first MPI error.
  template <class Issue>
  static int each_segment(int count, Segments seg, Issue issue) {
    for (int done = 0; done < count; done += seg.elements) {
      const int n = count - done < seg.elements ? count - done : seg.elements;
      const int rc = issue(n, done * seg.extent, done * seg.disp_units);
      if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
  }

  // The processes operations went to since they were last completed, each
  // once: a bit per process of the window, and their list.
  class Targets {
   public:
    void resize(int nprocs) { seen_.assign(static_cast<std::size_t>(nprocs), false); }
    void add(int target) {
      if (seen_[static_cast<std::size_t>(target)]) return;
      seen_[static_cast<std::size_t>(target)] = true;
      list_.push_back(target);
    }
    void clear() {
      for (const int t : list_) seen_[static_cast<std::size_t>(t)] = false;
      list_.clear();
    }
    [[nodiscard]] std::size_t size() const { return list_.size(); }
    [[nodiscard]] int only() const { return list_.front(); }
    [[nodiscard]] const std::vector<int> &list() const { return list_; }

   private:
    std::vector<bool> seen_;
    std::vector<int> list_;
  };

  // The displacement MPI is given for `disp` units of `target`'s memory.
  [[nodiscard]] MPI_Aint at(int target, MPI_Aint disp) const {
    return skew_.empty() ? disp : skew_[static_cast<std::size_t>(target)] + disp * disp_unit_;
  }
  // The displacement unit MPI knows the window by.
  [[nodiscard]] int mpi_unit() const { return skew_.empty() ? disp_unit_ : 1; }

  MPI_Win win_ = MPI_WIN_NULL;
  int disp_unit_ = 1;
  // MPICH 4.0.2 (ch4) puts into a window made by MPI_Win_create whose base
  // is not 16-byte aligned at the base rounded down to 16
  // (tests/mpi_bugs/win_create_unaligned.c): where some process's memory is
  // so, every window starts on a 16-byte boundary at or before it, MPI
  // counts displacements in bytes, and skew_ holds, per process, the bytes
  // from its window's start to its memory. Empty where all are aligned.
  std::vector<MPI_Aint> skew_;
  unsigned char *base_ = nullptr;  // this process's part of the window
  bool shared_ = false;            // made by allocate: osc/sm's own (locked) atomics apply
  int rank_ = -1;                  // this process's rank in the window's communicator
  // Completions flush the processes operations went to, one by one; past
  // kMaxTargets of them one MPI_Win_flush_all/_local_all does it, except
  // where that call is unsafe: MPICH 4.0.2 ch4:ucx, 3 or more processes on
  // a host, returns from MPI_Win_flush_all, MPI_Win_flush_local_all and
  // MPI_Win_unlock_all before small puts issued before them have read their
  // origin buffers, so a buffer the application frees after GDS_fence or
  // GDS_wait is sent in its new state; flushes of each target complete them
  // (tests/mpi_bugs/flush_all_small_put.c). Window::free never relies on
  // MPI_Win_unlock_all to complete anything.
  static constexpr std::size_t kMaxTargets = 4;
  Targets local_;   // since the last local completion
  Targets remote_;  // since the last remote completion
  int last_ = -1;   // the target of the last operation, in both sets (-1: none)
  std::uint64_t ops_ = 0;  // operations since the last local completion, with GDS_OUTSTANDING_RMA_OPS_MAX
  // MPICH 4.0.2 ch4:ucx: a put issued after a get to the same target makes
  // MPI_Win_flush_local(_all) return before the get has landed (the put
  // overwrites the target's "needs a local flush" mark with "needs a
  // flush", and the local flush looks only for the former). Reproducer:
  // tests/mpi_bugs/get_put_flush_local.c. Once a put follows a get before
  // they complete, local completion flushes remotely, which completes both.
  bool got_ = false;            // an MPI_Get is outstanding
  bool put_after_get_ = false;  // and an MPI_Put was issued after it
};

// Fault injection (GDS_inject_fault): the `after`-th next RMA operation of
// this process fails as if MPI returned MPI_ERR_OTHER; 0 cancels.
void inject_rma_failure(std::uint64_t after);
// GDS_FAULT_MEMORY_SYNC: the after-th next Window::sync fails (0: none).
void inject_sync_failure(std::uint64_t after);

}  // namespace gds::rma
