#include "errors/descriptor.hpp"

#include <algorithm>
#include <cstring>

#include "core/array.hpp"
#include "core/check.hpp"
#include "core/memory.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"
#include "errors/keys.hpp"

using namespace gds::core;

namespace gds::errors {

core::HandleTable<Descriptor> g_descriptors{HandleKind::error};

const Attribute *Descriptor::find(GDS_error_attr_key_t key) const {
  auto it = std::lower_bound(attrs.begin(), attrs.end(), key,
                             [](const Attribute &a, GDS_error_attr_key_t k) { return a.key < k; });
  return it != attrs.end() && it->key == key ? &*it : nullptr;
}

void Descriptor::set(GDS_error_attr_key_t key, const void *value, std::size_t len) {
  auto it = std::lower_bound(attrs.begin(), attrs.end(), key,
                             [](const Attribute &a, GDS_error_attr_key_t k) { return a.key < k; });
  if (it == attrs.end() || it->key != key) it = attrs.insert(it, Attribute{key, {}});
  const auto *bytes = static_cast<const std::byte *>(value);
  it->value.assign(bytes, bytes + len);
}

namespace {

template <class T>
void put(std::vector<std::byte> &out, T v) {
  const auto *p = reinterpret_cast<const std::byte *>(&v);
  out.insert(out.end(), p, p + sizeof v);
}

template <class T>
bool take(const std::byte *&p, const std::byte *end, T *v) {
  if (end - p < static_cast<std::ptrdiff_t>(sizeof *v)) return false;
  std::memcpy(v, p, sizeof *v);
  p += sizeof *v;
  return true;
}

}  // namespace

// [count][key, length, bytes]...: processes of one program share the ABI.
void Descriptor::write(std::vector<std::byte> &out) const {
  put<std::uint64_t>(out, attrs.size());
  for (const Attribute &a : attrs) {
    put<std::int64_t>(out, a.key);
    put<std::uint64_t>(out, a.value.size());
    out.insert(out.end(), a.value.begin(), a.value.end());
  }
}

bool Descriptor::read(const std::byte *&p, const std::byte *end, Descriptor *out) {
  std::uint64_t n = 0;
  if (!take(p, end, &n)) return false;
  out->attrs.clear();
  for (std::uint64_t i = 0; i < n; ++i) {
    std::int64_t key = 0;
    std::uint64_t len = 0;
    if (!take(p, end, &key) || !take(p, end, &len) || static_cast<std::uint64_t>(end - p) < len) return false;
    out->attrs.push_back(Attribute{static_cast<GDS_error_attr_key_t>(key), std::vector<std::byte>(p, p + len)});
    p += len;
  }
  return true;
}

GDS_status_t resolve_descriptor(const char *func, GDS_error_t h, Descriptor **out, const char *argname) {
  const GDS_status_t s = g_descriptors.find(handle_value(h), out);
  if (s == GDS_STATUS_OK) [[likely]] return s;
  return fail(s, func, "%s %s%s", argname, handle_problem(s),
              s == GDS_STATUS_FREED_HANDLE ? " (raised descriptors belong to GDS; resumed ones are freed)" : "");
}

}  // namespace gds::errors

using namespace gds::errors;

extern "C" {

GDS_API GDS_status_t GDS_create_error_descriptor(GDS_error_t *error_desc) try {
  GDS_ENTER();
  GDS_REQUIRE(error_desc != nullptr, GDS_STATUS_NULL_ARGUMENT, "error_desc is NULL");
  *error_desc = to_handle<GDS_error_t>(g_descriptors.insert(std::make_unique<Descriptor>()));
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_free_error_descriptor(GDS_error_t *error_desc) try {
  GDS_ENTER();
  GDS_REQUIRE(error_desc != nullptr, GDS_STATUS_NULL_ARGUMENT, "error_desc is NULL");
  Descriptor *d = nullptr;
  GDS_TRY(resolve_descriptor(__func__, *error_desc, &d));
  GDS_REQUIRE(d->use == Descriptor::Use::free, GDS_STATUS_DESCRIPTOR_IN_USE,
              "error_desc is being handled; GDS_resume_%s frees it",
              d->use == Descriptor::Use::local_handler ? "local" : "global");
  g_descriptors.erase(handle_value(*error_desc));
  *error_desc = GDS_ERROR_NULL;
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_add_error_attr(GDS_error_t error_desc, GDS_error_attr_key_t attr_key, GDS_size_t attr_len,
                                        const void *attr_val) try {
  GDS_ENTER();
  Descriptor *d = nullptr;
  GDS_TRY(resolve_descriptor(__func__, error_desc, &d));
  const KeyInfo *info = nullptr;
  GDS_TRY(check_key(__func__, attr_key, "attr_key", &info));
  GDS_TRY(check_value_size(__func__, attr_key, *info, attr_len, "attr_len"));
  GDS_REQUIRE(attr_val != nullptr || attr_len == 0, GDS_STATUS_NULL_ARGUMENT, "attr_val is NULL");
  GDS_REQUIRE(attr_len == 0 || fits_address_space(attr_val, attr_len), GDS_STATUS_INVALID_ATTR_VALUE,
              "attr_len=%llu bytes from attr_val would run past the end of the address space",
              static_cast<unsigned long long>(attr_len));
  GDS_REQUIRE(allocatable(attr_len), GDS_STATUS_NOMEM, "no memory for a %llu-byte attribute value",
              static_cast<unsigned long long>(attr_len));
  d->set(attr_key, attr_val, attr_len);
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_get_error_attr(GDS_error_t error_desc, GDS_error_attr_key_t attr_key, void *attr_val,
                                        int *flag) try {
  GDS_ENTER();
  Descriptor *d = nullptr;
  GDS_TRY(resolve_descriptor(__func__, error_desc, &d));
  const KeyInfo *info = nullptr;
  GDS_TRY(check_key(__func__, attr_key, "attr_key", &info));
  GDS_REQUIRE(flag != nullptr, GDS_STATUS_NULL_ARGUMENT, "flag is NULL");
  const Attribute *a = d->find(attr_key);
  GDS_REQUIRE(a == nullptr || a->value.empty() || attr_val != nullptr, GDS_STATUS_NULL_ARGUMENT,
              "attr_val is NULL (the value has %zu bytes)", a->value.size());
  *flag = a != nullptr ? 1 : 0;
  if (a != nullptr && !a->value.empty()) std::memcpy(attr_val, a->value.data(), a->value.size());
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_get_error_attr_len(GDS_error_t error_desc, GDS_error_attr_key_t attr_key,
                                            GDS_size_t *attr_len, int *flag) try {
  GDS_ENTER();
  Descriptor *d = nullptr;
  GDS_TRY(resolve_descriptor(__func__, error_desc, &d));
  const KeyInfo *info = nullptr;
  GDS_TRY(check_key(__func__, attr_key, "attr_key", &info));
  GDS_REQUIRE(attr_len != nullptr, GDS_STATUS_NULL_ARGUMENT, "attr_len is NULL");
  GDS_REQUIRE(flag != nullptr, GDS_STATUS_NULL_ARGUMENT, "flag is NULL");
  const Attribute *a = d->find(attr_key);
  *flag = a != nullptr ? 1 : 0;
  *attr_len = a != nullptr ? a->value.size() : 0;
  return GDS_STATUS_OK;
} GDS_API_CATCH

}  // extern "C"
