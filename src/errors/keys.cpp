#include "errors/keys.hpp"

#include <map>
#include <vector>

#include "core/collective.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"

using namespace gds::core;

namespace gds::errors {

namespace {

constexpr std::size_t kMaxNameBytes = 256;

const std::vector<KeyInfo> &predefined() {
  static const std::vector<KeyInfo> keys = {
      {"", GDS_EAVTYPE_BYTE},  // key 0 is not a key
      {"GDS_EATTR_MEMORY_VADDR", GDS_EAVTYPE_INT},
      {"GDS_EATTR_MEMORY_SIZE", GDS_EAVTYPE_INT},
      {"GDS_EATTR_MEMORY_AFFECTED_SIZE", GDS_EAVTYPE_INT},
      {"GDS_EATTR_MEMORY_N_RANGES", GDS_EAVTYPE_INT},
      {"GDS_EATTR_MEMORY_DATA", GDS_EAVTYPE_BYTE_ARRAY},
      {"GDS_EATTR_MEMORY_CHECK_BITS", GDS_EAVTYPE_BYTE_ARRAY},
      {"GDS_EATTR_MEMORY_LOCATION_REUSABLE", GDS_EAVTYPE_INT},
      {"GDS_EATTR_APP", GDS_EAVTYPE_BYTE_ARRAY},
      {"GDS_EATTR_DETECTED_BY", GDS_EAVTYPE_BYTE_ARRAY},
      {"GDS_EATTR_GDS_INDEX", GDS_EAVTYPE_INT_ARRAY},
      {"GDS_EATTR_GDS_COUNT", GDS_EAVTYPE_INT_ARRAY},
      {"GDS_EATTR_GDS_AFFECTED_COUNT", GDS_EAVTYPE_INT_ARRAY},
      {"GDS_EATTR_GDS_VERSION", GDS_EAVTYPE_INT},
      {"GDS_EATTR_GDS_LATENCY", GDS_EAVTYPE_INT},
      {"GDS_EATTR_LOST_PROCESSES", GDS_EAVTYPE_MPIOBJ},
      {"GDS_EATTR_LOST_COMMUNICATOR", GDS_EAVTYPE_MPIOBJ},
      {"GDS_EATTR_REPLACED_COMMUNICATOR", GDS_EAVTYPE_MPIOBJ},
      {"GDS_EATTR_LOST_COMPUTATION", GDS_EAVTYPE_FLOAT},
      {"GDS_EATTR_MPI_RANK_UNRESPONSIVE", GDS_EAVTYPE_INT},
      {"GDS_EATTR_GDS_STATUS", GDS_EAVTYPE_INT},
      {"GDS_EATTR_GDS_FUNCTION", GDS_EAVTYPE_BYTE_ARRAY},
      {"GDS_EATTR_MPI_ERROR_CLASS", GDS_EAVTYPE_INT},
      {"GDS_EATTR_GDS_PROCESS", GDS_EAVTYPE_INT},
      {"GDS_EATTR_GDS_FILE", GDS_EAVTYPE_BYTE_ARRAY},
  };
  return keys;
}

struct Registry {
  std::vector<KeyInfo> keys = predefined();
  std::map<std::string, GDS_error_attr_key_t> by_name = [this] {
    std::map<std::string, GDS_error_attr_key_t> m;
    for (std::size_t k = 1; k < keys.size(); ++k) m[keys[k].name] = static_cast<GDS_error_attr_key_t>(k);
    return m;
  }();
};

Registry &registry() {
  static Registry r;
  return r;
}

bool valid_type(GDS_error_attr_value_type_t t) { return t >= GDS_EAVTYPE_BYTE && t <= GDS_EAVTYPE_MPIOBJ_ARRAY; }

}  // namespace

std::size_t element_size(GDS_error_attr_value_type_t type) {
  switch (type) {
    case GDS_EAVTYPE_BYTE:
    case GDS_EAVTYPE_BYTE_ARRAY: return 1;
    case GDS_EAVTYPE_INT:
    case GDS_EAVTYPE_INT_ARRAY: return sizeof(std::int64_t);
    case GDS_EAVTYPE_FLOAT:
    case GDS_EAVTYPE_FLOAT_ARRAY: return sizeof(double);
    case GDS_EAVTYPE_MPIOBJ:
    case GDS_EAVTYPE_MPIOBJ_ARRAY: return sizeof(MPI_Comm);
  }
  return 0;
}

bool is_array(GDS_error_attr_value_type_t type) {
  return type == GDS_EAVTYPE_BYTE_ARRAY || type == GDS_EAVTYPE_INT_ARRAY || type == GDS_EAVTYPE_FLOAT_ARRAY ||
         type == GDS_EAVTYPE_MPIOBJ_ARRAY;
}

bool is_numeric(GDS_error_attr_value_type_t type) {
  return type != GDS_EAVTYPE_MPIOBJ && type != GDS_EAVTYPE_MPIOBJ_ARRAY && valid_type(type);
}

bool is_float(GDS_error_attr_value_type_t type) {
  return type == GDS_EAVTYPE_FLOAT || type == GDS_EAVTYPE_FLOAT_ARRAY;
}

const char *type_name(GDS_error_attr_value_type_t type) {
  switch (type) {
    case GDS_EAVTYPE_BYTE: return "BYTE";
    case GDS_EAVTYPE_INT: return "INT";
    case GDS_EAVTYPE_FLOAT: return "FLOAT";
    case GDS_EAVTYPE_BYTE_ARRAY: return "BYTE_ARRAY";
    case GDS_EAVTYPE_INT_ARRAY: return "INT_ARRAY";
    case GDS_EAVTYPE_FLOAT_ARRAY: return "FLOAT_ARRAY";
    case GDS_EAVTYPE_MPIOBJ: return "MPIOBJ";
    case GDS_EAVTYPE_MPIOBJ_ARRAY: return "MPIOBJ_ARRAY";
  }
  return "?";
}

const KeyInfo *find_key(GDS_error_attr_key_t key) {
  const std::vector<KeyInfo> &keys = registry().keys;
  return key > 0 && static_cast<std::size_t>(key) < keys.size() ? &keys[static_cast<std::size_t>(key)] : nullptr;
}

GDS_status_t check_key(const char *func, GDS_error_attr_key_t key, const char *argname, const KeyInfo **out) {
  *out = find_key(key);
  GDS_CHECK(*out != nullptr, GDS_STATUS_INVALID_ERROR_KEY, "%s=%d is not a defined error attribute key", argname,
            key);
  return GDS_STATUS_OK;
}

GDS_status_t check_value_size(const char *func, GDS_error_attr_key_t key, const KeyInfo &info, std::size_t len,
                              const char *argname) {
  const std::size_t e = element_size(info.type);
  const bool ok = is_array(info.type) ? len % e == 0 : len == e;
  GDS_CHECK(ok, GDS_STATUS_INVALID_ATTR_VALUE, "%s=%zu bytes does not fit key %d (%s), of type %s (%s%zu bytes)",
            argname, len, key, info.name.c_str(), type_name(info.type),
            is_array(info.type) ? "a multiple of " : "", e);
  return GDS_STATUS_OK;
}

void reset_keys() { registry() = Registry{}; }

}  // namespace gds::errors

extern "C" {

GDS_API GDS_status_t GDS_define_error_attr_key(const char *attr_name, GDS_size_t attr_name_size,
                                               GDS_error_attr_value_type_t value_type,
                                               GDS_error_attr_key_t *new_key) try {
  GDS_ENTER();
  using namespace gds::errors;
  // Arguments are checked, then the outcome and the (name, type) signature agreed.
  GDS_status_t s = GDS_STATUS_OK;
  if (new_key == nullptr) s = fail(GDS_STATUS_NULL_ARGUMENT, __func__, "new_key is NULL");
  else if (attr_name == nullptr) s = fail(GDS_STATUS_NULL_ARGUMENT, __func__, "attr_name is NULL");
  else if (attr_name_size == 0 || attr_name_size > kMaxNameBytes)
    s = fail(GDS_STATUS_INVALID, __func__, "attr_name_size=%llu is not in [1, %zu]",
             static_cast<unsigned long long>(attr_name_size), kMaxNameBytes);
  else if (!valid_type(value_type))
    s = fail(GDS_STATUS_INVALID, __func__, "value_type=%d is not a GDS_error_attr_value_type_t",
             static_cast<int>(value_type));
  std::string name;
  Signature sig;
  if (s == GDS_STATUS_OK) {
    name.assign(attr_name, attr_name_size);
    sig.add(name.data(), name.size()).add(value_type);
  }
  Registry &r = registry();
  const auto known = s == GDS_STATUS_OK ? r.by_name.find(name) : r.by_name.end();
  if (known != r.by_name.end() && r.keys[static_cast<std::size_t>(known->second)].type != value_type)
    s = fail(GDS_STATUS_ERROR_KEY_CONFLICT, __func__, "\"%s\" is defined already with type %s, not %s",
             name.c_str(), type_name(r.keys[static_cast<std::size_t>(known->second)].type),
             type_name(value_type));
  GDS_TRY(agree(__func__, g_rt.world, s, sig.value()));
  if (known != r.by_name.end()) {
    *new_key = known->second;
    return GDS_STATUS_OK;
  }
  const auto key = static_cast<GDS_error_attr_key_t>(r.keys.size());
  r.keys.push_back(KeyInfo{name, value_type});
  r.by_name[name] = key;
  *new_key = key;
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_get_error_attr_key_info(GDS_error_attr_key_t key, GDS_error_attr_value_type_t *value_type,
                                                 const char **name) try {
  GDS_ENTER();
  using namespace gds::errors;
  GDS_REQUIRE(value_type != nullptr, GDS_STATUS_NULL_ARGUMENT, "value_type is NULL");
  const KeyInfo *info = nullptr;
  GDS_TRY(check_key(__func__, key, "key", &info));
  *value_type = info->type;
  if (name != nullptr) *name = info->name.c_str();
  return GDS_STATUS_OK;
} GDS_API_CATCH

}  // extern "C"
