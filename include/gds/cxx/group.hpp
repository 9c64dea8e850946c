// gds::group: a version group (gds_group.h) and gds::restart_query.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "../gds_group.h"
#include "error.hpp"
#include "types.hpp"

namespace gds {

/// Arrays versioned, restored, navigated and persisted as one (GDS_group_create).
/// Move-only; destroying a valid group frees it (collective). Free the group
/// before its arrays: declare it after them, so that it is destroyed first.
class group {
 public:
  group() noexcept = default;
  /// GDS_group_create over the arrays (any gds::array<T>, by reference).
  template <class... Arrays>
  group(std::string_view name, Arrays &...arrays) {
    const GDS_gds_t handles[] = {arrays.native_handle()...};
    const std::string n(name);
    detail::check(GDS_group_create(n.c_str(), static_cast<int>(sizeof...(Arrays)), handles, &handle_));
  }
  /// Takes over `o`'s group; `o` becomes empty.
  group(group &&o) noexcept : handle_(o.handle_) { o.handle_ = GDS_GROUP_NULL; }
  /// Frees this group and takes over `o`'s.
  group &operator=(group &&o) noexcept {
    if (this != &o) {
      release_quietly();
      handle_ = o.handle_;
      o.handle_ = GDS_GROUP_NULL;
    }
    return *this;
  }
  group(const group &) = delete;
  group &operator=(const group &) = delete;
  ~group() { release_quietly(); }

  /// Frees the group now (collective), throwing on failure; the arrays stay.
  void free() {
    if (handle_ != GDS_GROUP_NULL) detail::check(GDS_group_free(&handle_));
  }
  /// The C handle, for calls the wrappers lack.
  [[nodiscard]] GDS_group_t native_handle() const noexcept { return handle_; }

  /// Whether to make a group version now (GDS_group_need_version()): call
  /// once per step, version when true; the same answer on every process.
  [[nodiscard]] bool need_version() {
    int flag = 0;
    detail::check(GDS_group_need_version(handle_, &flag));
    return flag != 0;
  }
  /// A version of every member at once (GDS_group_version_inc).
  void version_inc(std::string_view label = {}, index_t increment = 1) {
    detail::check(GDS_group_version_inc(handle_, increment, label.data(), label.size()));
  }
  /// Every member back to a version they all retain (GDS_group_version_restore).
  void restore(index_t version) { detail::check(GDS_group_version_restore(handle_, version)); }
  /// Every member back to the newest version they all retain; returns its number
  /// (GDS_group_version_restore_newest(); throws GDS_STATUS_NO_VERSION before the first version).
  index_t restore_newest() {
    index_t v = 0;
    detail::check(GDS_group_version_restore_newest(handle_, &v));
    return v;
  }
  /// The label of the version the members' handles point at (GDS_group_get_version_label(), local).
  [[nodiscard]] std::string version_label() const {
    char *text = nullptr;
    size_t size = 0;
    detail::check(GDS_group_get_version_label(handle_, &text, &size));
    return std::string(text, size);
  }
  /// Whether every member's stored copy of `version` matches its checksums (GDS_group_version_verify()):
  /// false for GDS_STATUS_CORRUPT (the damaged blocks are raised as errors); other failures throw.
  [[nodiscard]] bool verify(index_t version) {
    const GDS_status_t s = GDS_group_version_verify(handle_, version);
    if (s == GDS_STATUS_CORRUPT) return false;
    detail::check(s);
    return true;
  }
  /// The version number the members' handles point at: the current one, or where the group's
  /// navigation moved them (GDS_group_get_version_number(), local).
  [[nodiscard]] index_t version_number() const {
    index_t v = 0;
    detail::check(GDS_group_get_version_number(handle_, &v));
    return v;
  }
  /// Moves every member's handle to the newest version (GDS_group_move_to_newest()).
  void move_to_newest() { detail::check(GDS_group_move_to_newest(handle_)); }
  /// Moves every member's handle to the next older version every member retains.
  void move_to_prev() { detail::check(GDS_group_move_to_prev(handle_)); }
  /// Moves every member's handle to the next newer version every member retains.
  void move_to_next() { detail::check(GDS_group_move_to_next(handle_)); }
  /// Moves every member's handle `dec` version numbers back (GDS_group_version_dec()).
  void version_dec(index_t dec) { detail::check(GDS_group_version_dec(handle_, dec)); }
  /// What the members' restart took, added up (GDS_group_get_restart_info()).
  [[nodiscard]] GDS_restart_info_t restart_info() const {
    GDS_restart_info_t info{};
    detail::check(GDS_group_get_restart_info(handle_, &info));
    return info;
  }

 private:
  void release_quietly() noexcept {
    if (handle_ != GDS_GROUP_NULL) (void)GDS_group_free(&handle_);
  }
  GDS_group_t handle_ = GDS_GROUP_NULL;
};

/// What this job persisted (GDS_restart_query; collective over GDS_COMM_WORLD):
/// `name` an array's or group's name, empty for any.
struct persisted {
  /// Whether the job has persisted state of that name.
  bool found = false;
  /// GDS_LEVEL_CACHE or GDS_LEVEL_PREFIX: where it was found.
  int level = GDS_LEVEL_NONE;
  /// The newest version persisted.
  index_t version = 0, current = 0;
  /// \var current
  /// The current version number after the restart.
  std::string holds;  ///< what the newest version holds: its successor's label
};
[[nodiscard]] inline persisted restart_query(std::string_view name = {}) {
  GDS_persisted_t st{};
  const std::string n(name);
  detail::check(GDS_restart_query(n.empty() ? nullptr : n.c_str(), &st));
  persisted p;
  p.found = st.found != 0;
  p.level = st.level;
  p.version = st.version;
  p.current = st.current;
  p.holds.assign(st.holds, std::min<std::size_t>(st.holds_size, GDS_PERSISTED_LABEL_MAX));
  return p;
}

}  // namespace gds
