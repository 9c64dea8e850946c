// Containment domains: the tree of CDs, their preserved entries, and the
// per-thread stacks of active CDs.
//
// A Domain lives in a handle table (its C handle is an id, as every GDS
// handle) and is shared with the error dispatcher's snapshot of the chain a
// handler runs in, so a handler that ends inner CDs does not leave the
// dispatcher holding freed memory. Every Domain is edited under g_mutex:
// the document makes the add and delete calls thread safe, and a thread may
// create a child of another thread's CD.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <sys/types.h>
#include <thread>
#include <utility>
#include <vector>

#include "core/array.hpp"
#include "core/mpi_handles.hpp"
#include "errors/registry.hpp"
#include "gds_cd.h"

namespace gds::cd {

// A regeneration function and the ranges it was registered with.
struct Regen {
  GDS_cd_regen_func_t fn = nullptr;
  void *context = nullptr;
  std::vector<GDS_cd_range_t> ranges;
};

// Preserved bytes: uninitialised storage from a small per-process pool, so
// that a CD per iteration preserving the same data reuses memory already
// touched instead of paying the first touch of new pages every time.
class Bytes {
 public:
  Bytes() = default;
  explicit Bytes(std::size_t n);  // uninitialised
  Bytes(const std::byte *from, std::size_t n) : Bytes(n) {
    if (n > 0) std::memcpy(p_, from, n);
  }
  Bytes(Bytes &&o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)), cap_(std::exchange(o.cap_, 0)) {}
  Bytes &operator=(Bytes &&o) noexcept {
    if (this != &o) {
      release();
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
      cap_ = std::exchange(o.cap_, 0);
    }
    return *this;
  }
  Bytes(const Bytes &) = delete;
  Bytes &operator=(const Bytes &) = delete;
  ~Bytes() { release(); }
  [[nodiscard]] std::byte *data() const { return p_; }
  [[nodiscard]] std::size_t size() const { return n_; }
  [[nodiscard]] bool empty() const { return n_ == 0; }

 private:
  void release() noexcept;
  std::byte *p_ = nullptr;
  std::size_t n_ = 0, cap_ = 0;
};

// Preserved bytes [lo, hi) of this process's memory (the map key is lo).
struct MemEntry {
  std::uintptr_t hi = 0;
  GDS_cd_via_t via = GDS_CD_VIA_COPY;
  bool rw = false;
  bool global = true;
  Bytes data;                    // via copy: the preserved bytes
  std::shared_ptr<Regen> regen;  // via regen
};
using MemMap = std::map<std::uintptr_t, MemEntry>;

// A box of a GDS array preserved in a CD (arrays.cpp).
struct BoxEntry {
  std::uint64_t primary = 0;  // the array's primary handle: resolves to FREED once the array is freed
  core::Array *array = nullptr;
  core::Dims lo, hi;
  GDS_cd_via_t via = GDS_CD_VIA_COPY;
  bool rw = false;
  bool versioned = false;     // a pinned version (collective CD over the array's processes)
  std::uint64_t version = 0;  // the pinned version
  bool has_part = false;      // this process owns part of the box
  core::Dims part_lo, part_hi;
  std::vector<std::byte> data;            // snapshot of the part (not versioned, via copy)
  std::vector<std::uint64_t> writes_at;   // rma::writes_to() at the CD's point in time
  GDS_cd_box_regen_func_t regen = nullptr;
  void *context = nullptr;
};

struct LogEntry {
  void *data = nullptr;  // malloc'd by the interposition layer, owned here
  int length = 0;
};

struct Domain {
  std::uint64_t handle = 0;
  Domain *parent = nullptr;
  std::vector<Domain *> children;  // live (uncommitted) children
  std::size_t children_ever = 0;   // children created so far (siblings decide log merging)
  std::thread::id owner;
  core::Comm comm_owned;  // the duplicate, for a collective CD
  MPI_Comm comm = MPI_COMM_SELF;
  int comm_size = 1;
  bool logging = false;
  std::string name;  // roots only
  int depth = 0;     // 0 for a root
  bool live = true;  // false once committed or discarded

  MemMap memory;
  std::map<int, off_t> files;  // descriptor -> preserved position
  std::vector<std::unique_ptr<BoxEntry>> boxes;
  errors::HandlerSet handlers;
  bool restored = false;  // since the last GDS_cd_restored()

  std::vector<LogEntry> log;
  std::size_t log_cursor = 0;
  bool replaying = false;

  Domain();
  ~Domain();
  Domain(const Domain &) = delete;
  Domain &operator=(const Domain &) = delete;
  [[nodiscard]] bool per_process() const { return comm_size == 1; }
  // "CD 'root'" or "CD #5 (depth 2)", for messages.
  [[nodiscard]] std::string describe() const;
};

extern std::recursive_mutex g_mutex;

// Resolves a handle (GDS_CD_CURRENT: the calling thread's current CD).
GDS_status_t resolve(const char *func, GDS_cd_t cd, std::shared_ptr<Domain> *out, const char *argname = "cd");
// As resolve(), and the CD must belong to the calling thread.
GDS_status_t resolve_own(const char *func, GDS_cd_t cd, std::shared_ptr<Domain> *out);
// A new domain, registered and pushed on the calling thread's stack.
std::shared_ptr<Domain> insert(std::unique_ptr<Domain> d);
// Ends a domain: unregistered, off its thread's stack, off its parent.
void end(Domain &d);
// The calling thread's current CD, or nullptr.
Domain *current();
// The calling thread's stack made to end at d (d's thread calls this).
void make_current(Domain &d);
// Whether a root of this name is live.
bool root_name_taken(const std::string &name);
// Every live domain (GDS_finalize ends them).
std::vector<std::shared_ptr<Domain>> all_domains();

// Memory entries (memory.cpp). All or nothing; copies taken before return.
GDS_status_t add_ranges(const char *func, Domain &d, GDS_cd_via_t via, const GDS_cd_range_t *ranges, int count,
                        GDS_cd_regen_func_t regen, void *context);
GDS_status_t delete_ranges(const char *func, Domain &d, const GDS_cd_range_t *ranges, int count);
// Writes d's preserved bytes back, by kind: copies, then parents, then regens.
GDS_status_t restore_memory(const char *func, Domain &d);
// Hands d's GLOBAL entries the parent lacks to it; promotes the parent's
// READ_ONLY bytes d holds READ_WRITE.
void commit_memory_into_parent(Domain &d);
// What advance_memory needs that can fail (the files' positions), checked
// before the advance changes anything.
GDS_status_t check_advance(const char *func, const Domain &d);
// Refreshes READ_WRITE copies from memory and demotes them (all or nothing).
GDS_status_t advance_memory(const char *func, Domain &d);
std::uint64_t preserved_bytes(const Domain &d);

// Array boxes (arrays.cpp).
GDS_status_t add_box(const char *func, Domain &d, GDS_cd_via_t via, core::Array &a, const GDS_size_t *lo,
                     const GDS_size_t *hi, GDS_cd_access_t access, GDS_cd_box_regen_func_t regen, void *context);
// Whether restoring d (with its descendants) stays within d's processes: a
// per-process CD that wrote one-sidedly to another process's part cannot.
GDS_status_t check_contained(const char *func, Domain &d);
// Restores d's boxes (collective over d's communicator for a collective CD).
GDS_status_t restore_boxes(const char *func, Domain &d);
void commit_boxes_into_parent(Domain &d);
GDS_status_t advance_boxes(const char *func, Domain &d);
// Whether a live CD preserves a box of this array (GDS_free refuses it).
bool preserves(const core::Array &a);
// Releases the boxes of a CD that ends (its pinned versions, snapshots).
void end_boxes(Domain &d);

}  // namespace gds::cd
