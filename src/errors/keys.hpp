// Error attribute keys: the predefined ones and those GDS_define_error_attr_key
// adds, each with its value type, and the rules for value sizes.
#pragma once

#include <cstddef>
#include <string>

#include "gds_error.h"

namespace gds::errors {

struct KeyInfo {
  std::string name;
  GDS_error_attr_value_type_t type;
};

// The key, or nullptr if it is not defined.
const KeyInfo *find_key(GDS_error_attr_key_t key);
// As find_key, reporting an undefined key as GDS_STATUS_INVALID_ERROR_KEY.
GDS_status_t check_key(const char *func, GDS_error_attr_key_t key, const char *argname, const KeyInfo **out);

// Bytes per element of a type (arrays: of one element); 0 for an invalid type.
std::size_t element_size(GDS_error_attr_value_type_t type);
bool is_array(GDS_error_attr_value_type_t type);
bool is_numeric(GDS_error_attr_value_type_t type);
bool is_float(GDS_error_attr_value_type_t type);
const char *type_name(GDS_error_attr_value_type_t type);

// Whether `len` bytes are a value of the key's type (GDS_STATUS_INVALID_ATTR_VALUE if not).
GDS_status_t check_value_size(const char *func, GDS_error_attr_key_t key, const KeyInfo &info, std::size_t len,
                              const char *argname);

// GDS_finalize: forget the user-defined keys.
void reset_keys();

}  // namespace gds::errors
