// Error descriptors: sets of typed attributes, their handles, and the byte
// form in which global errors travel to every process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/handles.hpp"
#include "gds_error.h"

namespace gds::errors {

struct Attribute {
  GDS_error_attr_key_t key;
  std::vector<std::byte> value;
};

struct Descriptor {
  // Sorted by key, one value per key.
  std::vector<Attribute> attrs;
  // Whether a handler has it (it may not be freed or raised then).
  enum class Use { free, local_handler, global_handler } use = Use::free;
  // Raised by GDS itself (a system failure): without a handler the failing
  // call's own status is the report.
  bool system = false;

  [[nodiscard]] const Attribute *find(GDS_error_attr_key_t key) const;
  void set(GDS_error_attr_key_t key, const void *value, std::size_t len);

  // Appends the byte form; read() parses one back (false if malformed).
  void write(std::vector<std::byte> &out) const;
  static bool read(const std::byte *&p, const std::byte *end, Descriptor *out);
};

extern core::HandleTable<Descriptor> g_descriptors;

GDS_status_t resolve_descriptor(const char *func, GDS_error_t h, Descriptor **out, const char *argname = "error_desc");

}  // namespace gds::errors
