// Opaque C handles as ids into per-kind tables.
//
// A handle is never a pointer to the object: it encodes (kind, generation,
// slot index) in 64 bits, so looking one up costs a shift, a bounds check and
// a compare, and a freed or foreign handle is recognised instead of being
// dereferenced. Erasing an entry bumps its slot's generation, so every copy
// of the old handle reads as freed.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "gds_types.h"

namespace gds::core {

enum class HandleKind : std::uint8_t {
  root = 0xA0,  // GDS_ROOT
  array = 0xA1,
  access = 0xA2,
  error = 0xA3,      // error descriptors
  error_pred = 0xA4,
  error_term = 0xA5,
  group = 0xA6,  // version groups
  cd = 0xA7,     // containment domains
};

constexpr std::uint64_t make_handle(HandleKind kind, std::uint32_t generation, std::uint32_t index) {
  return (std::uint64_t{static_cast<std::uint8_t>(kind)} << 56) |
         (std::uint64_t{generation & 0xFFFFFFu} << 32) | index;
}
constexpr HandleKind handle_kind(std::uint64_t h) { return static_cast<HandleKind>(h >> 56); }

static_assert(make_handle(HandleKind::root, 0, 0) == 0xA000000000000000ULL,
              "GDS_ROOT in gds_types.h must match HandleKind::root");

template <class T>
class HandleTable {
 public:
  explicit HandleTable(HandleKind kind) : kind_(kind) {}

  std::uint64_t insert(std::unique_ptr<T> object) {
    std::uint32_t index;
    if (!free_.empty()) {
      index = free_.back();
      free_.pop_back();
    } else {
      index = static_cast<std::uint32_t>(slots_.size());
      slots_.emplace_back();
    }
    slots_[index].object = std::move(object);
    return make_handle(kind_, slots_[index].generation, index);
  }

  // GDS_STATUS_OK with *out set, or NULL_HANDLE / FREED_HANDLE / INVALID_HANDLE.
  GDS_status_t find(std::uint64_t h, T **out) const {
    if (h == 0) [[unlikely]] return GDS_STATUS_NULL_HANDLE;
    if (handle_kind(h) != kind_) [[unlikely]] return GDS_STATUS_INVALID_HANDLE;
    const std::uint32_t index = static_cast<std::uint32_t>(h);
    const std::uint32_t generation = static_cast<std::uint32_t>(h >> 32) & 0xFFFFFFu;
    if (index >= slots_.size()) [[unlikely]] return GDS_STATUS_INVALID_HANDLE;
    const Slot &slot = slots_[index];
    if (slot.generation != generation || !slot.object) [[unlikely]]
      return generation < slot.generation || (generation == slot.generation && !slot.object)
                 ? GDS_STATUS_FREED_HANDLE
                 : GDS_STATUS_INVALID_HANDLE;
    *out = slot.object.get();
    return GDS_STATUS_OK;
  }

  // Removes a live entry (find() must have succeeded) and returns its object.
  std::unique_ptr<T> erase(std::uint64_t h) {
    const std::uint32_t index = static_cast<std::uint32_t>(h);
    Slot &slot = slots_[index];
    std::unique_ptr<T> object = std::move(slot.object);
    slot.generation = (slot.generation + 1) & 0xFFFFFFu;
    free_.push_back(index);
    return object;
  }

 private:
  struct Slot {
    std::uint32_t generation = 0;
    std::unique_ptr<T> object;
  };
  HandleKind kind_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_;
};

// Text for a handle status, for messages: "is a null handle", ...
inline const char *handle_problem(GDS_status_t status) {
  switch (status) {
    case GDS_STATUS_NULL_HANDLE: return "is a null handle";
    case GDS_STATUS_FREED_HANDLE: return "has been freed";
    default: return "is not a valid handle of this kind";
  }
}

}  // namespace gds::core
