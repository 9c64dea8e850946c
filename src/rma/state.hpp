// The rma module's state of an array, and the handles of regions opened by
// GDS_access.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/array.hpp"
#include "core/memory.hpp"
#include "gds_access.h"
#include "rma/window.hpp"
#include "rma/write_log.hpp"

namespace gds::rma {

using core::Index;

struct ArrayState final : core::ArrayState {
  static constexpr core::Layer kLayer = 0;  // its place above core (core/module.hpp)
  core::Memory memory;                  // GDS_alloc: this process's part
  Window window;
  std::byte *base = nullptr;            // this process's memory in the window
  WriteLog writes;                      // what this process wrote since the versions module last looked
  std::vector<std::uint64_t> accesses;  // GDS_access handles this process has open on the array
};

inline ArrayState &state(core::Array &a) { return a.state<ArrayState>(); }
inline const ArrayState &state(const core::Array &a) { return a.state<ArrayState>(); }

// The write log, for the versions module: it sets the block size (or turns
// the log off) when the array is attached; at GDS_version_inc it reads what
// this process wrote and exposed since the last drain (merged, sorted), and
// drains the log once the version has taken them (a failed version_inc keeps
// them for the next).
inline void track_writes(core::Array &a, unsigned block_shift, bool enabled) {
  state(a).writes.configure(a.rank, block_shift, enabled);
}
// Whether this process wrote into another process's memory (or its own)
// since the last drain, with the log off too.
inline bool wrote_others_since_drain(const core::Array &a) { return state(a).writes.wrote_others(); }
inline bool wrote_self_since_drain(const core::Array &a) { return state(a).writes.wrote_self(); }
inline const std::vector<BlockRange> &writes_since_drain(core::Array &a) { return state(a).writes.written(); }
inline const std::vector<BlockRange> &exposed_since_drain(core::Array &a) { return state(a).writes.exposed(); }
inline void drain_writes(core::Array &a) { state(a).writes.clear(); }
// Writes issued to each process's memory since the array was made (GDS_alloc arrays).
inline const std::vector<std::uint64_t> &writes_to(const core::Array &a) { return state(a).writes.targets(); }

// How another module writes into this process's part (a restart filling it
// from files): write(memory) stores into it and returns a status, then the
// window is synchronized (MPI_Win_sync, as GDS_release does after a DIRECT
// access) so that RMA sees the stores. Local; the caller agrees on the result.
template <class F>
GDS_status_t write_local_part(const char *func, core::Array &a, F &&write) {
  ArrayState &s = state(a);
  const GDS_status_t written = write(s.base);
  const GDS_status_t synced = s.window.sync(func);
  return written != GDS_STATUS_OK ? written : synced;
}

// A region this process opened with GDS_access.
struct OpenAccess {
  core::Array *array = nullptr;
  core::Dims lo, hi;
  GDS_access_buffer_t kind = GDS_ACCESS_BUFFER_DIRECT;  // DIRECT or COPY
  void *buffer = nullptr;                               // what the application got
  std::unique_ptr<std::byte[]> copy;                    // COPY: the copy
  core::Dims ld;                                        // ndims-1 leading dimensions
};

extern core::HandleTable<OpenAccess> g_accesses;

// GDS_get through a handle at an old version: served by the module that
// keeps versions, which registers it.
using VersionReader = GDS_status_t (*)(const char *func, core::Array &a, std::uint64_t version, void *dest,
                                       const Index *dest_ld, const Index *lo, const Index *hi);
void set_version_reader(VersionReader reader);
VersionReader version_reader();

// The rma module (src/lib/modules.cpp lists it).
core::Module &module();

}  // namespace gds::rma
