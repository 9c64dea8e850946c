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
#include <set>
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

// This process's part of a box in a persisted point.
struct BoxImage {
  core::Dims lo, hi;    // the box
  core::Dims plo, phi;  // this process's part of it, if has_part
  bool copy = false;    // preserved via copy (else via regen: nothing saved)
  bool has_part = false;
  std::uint64_t esize = 0;
  std::vector<std::byte> data;  // the part, packed in storage order
};

// A root CD whose point in time is persisted (durable.cpp).
struct Durable {
  int level = 0;                 // GDS_LEVEL_CACHE or GDS_LEVEL_PREFIX
  std::string copy_type, prefix; // storage_info's, passed to the store's info ("": the environment's)
  GDS_gds_t store = nullptr;     // the internal array, from the first advance (or a restart) on
  int generation = -1;           // the store's generation (its capacity)
  std::vector<std::byte> buffer; // the store's memory: this process's row
  std::uint64_t points = 0;      // points persisted, counting those of the jobs before
  std::vector<std::pair<std::uintptr_t, std::size_t>> order;  // ranges added via copy, in order
  std::set<std::pair<std::uintptr_t, std::size_t>> known;     // the same, for lookups
  std::set<std::pair<std::uintptr_t, std::size_t>> memory_only;  // ranges added at level=memory: never persisted
  std::vector<int> files;                                     // files added, in order
  // A restarted point, handed to the add calls in order.
  struct Saved {
    std::uint64_t length = 0;
    bool present = false;  // false: the range was no longer preserved by copy when the point was made
    std::uint64_t at = 0;  // its bytes in buffer
  };
  bool restarting = false;
  std::vector<Saved> restart;
  std::vector<std::int64_t> restart_files;
  std::vector<BoxImage> restart_boxes;
  std::size_t next_range = 0, next_file = 0, next_box = 0;
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
  MPI_Comm comm = MPI_COMM_SELF;  // a collective CD's: inner_comm() of the program's
  int comm_size = 1;
  bool logging = false;
  std::string name;  // roots only
  int depth = 0;     // 0 for a root
  bool live = true;  // false once committed or discarded

  MemMap memory;
  std::map<int, off_t> files;  // descriptor -> preserved position
  std::vector<std::unique_ptr<BoxEntry>> boxes;
  errors::HandlerSet handlers;
  std::unique_ptr<Durable> durable;  // roots with storage_info level=cache or prefix
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
// The duplicate of `comm` that collective CDs over it agree on: made by the
// first (collective, MPI_Comm_dup), cached on comm. Collective CDs over one
// communicator are created and ended in one order on every process, as MPI's
// collectives over it are.
GDS_status_t inner_comm(const char *func, MPI_Comm comm, MPI_Comm *out);
// At GDS_finalize: every cached duplicate freed.
void free_inner_comms();
// Whether a root of this name is live.
bool root_name_taken(const std::string &name);
// Every live domain (GDS_finalize ends them).
std::vector<std::shared_ptr<Domain>> all_domains();

// GDS_cd_preserve as the entry point `func` (cd.h's add calls name
// themselves), with an entry's storage_info (NULL: the CD's own).
GDS_status_t preserve(const char *func, GDS_cd_t cd, GDS_cd_via_t via, const GDS_cd_range_t *ranges, int count,
                      GDS_cd_regen_func_t regen, void *context, const char *storage_info);

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
// The checks of add_ranges on the ranges themselves (count, NULLs, wrapping, overlap).
GDS_status_t check_ranges(const char *func, const GDS_cd_range_t *ranges, int count, bool labels);
// Whether d preserves every byte of [a, b) by copy; copies them out (a root's entries).
bool preserved_by_copy(const Domain &d, std::uintptr_t a, std::uintptr_t b);
GDS_status_t copy_preserved(const char *func, const Domain &d, std::uintptr_t a, std::uintptr_t b, std::byte *out);

// Persisted root CDs (durable.cpp).
// A storage_info string: "key=value" pairs separated by ';'.
struct StorageSpec {
  std::string first_item;  // "" when the string holds no item (NULL, "", blanks)
  int level = 0;           // GDS_LEVEL_NONE (memory), GDS_LEVEL_CACHE or GDS_LEVEL_PREFIX
  std::string copy_type, prefix;
};
// Its syntax: known keys and levels, copy_type and prefix only with a persisted level.
GDS_status_t parse_spec(const char *func, const char *info, StorageSpec *out);
// create's storage_info (*out set for level=cache or prefix).
GDS_status_t parse_storage(const char *func, const char *info, bool root, const char *name,
                           std::unique_ptr<Durable> *out);
// An entry's storage_info (cd.h's add calls): NULL, "" or the CD's own storage
// (*memory_only false), or level=memory (*memory_only true on a persisted root,
// whose entry then stays out of its persisted points); anything else refused.
GDS_status_t entry_storage(const char *func, const Domain &d, const char *info, bool *memory_only);
// A range keeps the level it was first added at (ranges checked already).
GDS_status_t check_entry_level(const char *func, const Domain &d, const GDS_cd_range_t *ranges, int count,
                               bool memory_only);
// Ranges added at level=memory to a persisted root (add), or deleted from it.
void note_memory_only(Domain &d, const GDS_cd_range_t *ranges, int count, bool add);
// At create: a restarted job's persisted point, if there is one (collective).
GDS_status_t open_durable(const char *func, Domain &d);
// Before ranges via copy are added to a restarted root: their bytes from the point.
GDS_status_t take_restarted_ranges(const char *func, Domain &d, const GDS_cd_range_t *ranges, int count);
// After they were added: their place in the persisted order.
void note_ranges(Domain &d, const GDS_cd_range_t *ranges, int count);
// Before a file is added: its restarted position; its place in the order.
GDS_status_t take_restarted_file(const char *func, Domain &d, int fd);
// After an advance: the point in time persisted (collective).
GDS_status_t persist_point(const char *func, Domain &d);
// When the root ends: its store freed (collective, as the commit is).
void close_durable(Domain &d);

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
// This process's part of each of d's boxes, in the order they were added (a persisted point).
GDS_status_t box_images(const char *func, const Domain &d, std::vector<BoxImage> *out);
// Whether this process's part of this array's box matches a restarted point's image (local).
GDS_status_t check_restarted_box(const char *func, const Domain &d, const core::Array &a, GDS_cd_via_t via,
                                 const core::Dims &lo, const core::Dims &hi, const BoxImage &saved);
// Whether a live CD preserves a box of this array (GDS_free refuses it).
bool preserves(const core::Array &a);
// Releases the boxes of a CD that ends (its pinned versions, snapshots).
void end_boxes(Domain &d);

}  // namespace gds::cd
