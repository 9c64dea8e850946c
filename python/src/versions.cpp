// Versions, persistence queries and version groups (gds_version.h,
// gds_persist.h, gds_group.h, gds_costs.h).
#include <string>
#include <vector>

#include "bridge.hpp"

namespace gds::python {

namespace {

GDS_gds_t H(std::uintptr_t h) { return to_handle<GDS_gds_t>(h); }
GDS_group_t G(std::uintptr_t g) { return to_handle<GDS_group_t>(g); }

py::tuple restart_tuple(const GDS_restart_info_t &i) {
  return py::make_tuple(i.restarted != 0, i.level, i.version, i.versions, i.rebuilt_processes, i.rebuilt_files);
}

void bind_array_versions(py::module_ &m) {
  m.def("version_inc", [](std::uintptr_t h, const std::string &label, GDS_size_t increment) {
    check(GDS_version_inc(H(h), increment, label.data(), label.size()));
  });
  m.def("version", [](std::uintptr_t h) {
    GDS_size_t v = 0;
    check(GDS_get_version_number(H(h), &v));
    return v;
  });
  m.def("label", [](std::uintptr_t h) {
    char *text = nullptr;
    size_t size = 0;
    check(GDS_get_version_label(H(h), &text, &size));
    return std::string(text, size);
  });
  m.def("holds", [](std::uintptr_t h) {
    char *text = nullptr;
    size_t size = 0;
    check(GDS_get_version_holds(H(h), &text, &size));
    return std::string(text, size);
  });
  m.def("move_to_newest", [](std::uintptr_t h) { check(GDS_move_to_newest(H(h))); });
  m.def("move_to_next", [](std::uintptr_t h) { check(GDS_move_to_next(H(h))); });
  m.def("move_to_prev", [](std::uintptr_t h) { check(GDS_move_to_prev(H(h))); });
  m.def("version_dec", [](std::uintptr_t h, GDS_size_t dec) { check(GDS_version_dec(H(h), dec)); });
  m.def("clone", [](std::uintptr_t h) {
    GDS_gds_t c = GDS_NULL;
    check(GDS_descriptor_clone(H(h), &c));
    return to_int(c);
  });
  m.def("restore", [](std::uintptr_t h, GDS_size_t v) { check(GDS_version_restore(H(h), v)); });
  m.def("verify", [](std::uintptr_t h, GDS_size_t v, py::object lo, py::object hi) {
    if (lo.is_none() != hi.is_none()) raise_status(GDS_STATUS_NULL_ARGUMENT, "GDS_version_verify: give both lo and hi, or neither");
    if (lo.is_none()) return check(GDS_version_verify(H(h), v, nullptr, nullptr));
    const auto l = lo.cast<std::vector<GDS_size_t>>(), u = hi.cast<std::vector<GDS_size_t>>();
    GDS_size_t n = 0;
    int flag = 0;
    check(GDS_get_attr(H(h), GDS_NUMBER_DIMENSIONS, &n, &flag));
    if (l.size() != n || u.size() != n) raise_status(GDS_STATUS_INVALID_NDIMS, "GDS_version_verify: the box has the wrong number of dimensions");
    check(GDS_version_verify(H(h), v, l.data(), u.data()));
  });
  m.def("restart_info", [](std::uintptr_t h) {
    GDS_restart_info_t i{};
    check(GDS_get_restart_info(H(h), &i));
    return restart_tuple(i);
  });
  m.def("flush_wait", [](std::uintptr_t h) { check(GDS_flush_wait(H(h))); });
  m.def("cache_wait", [](std::uintptr_t h) { check(GDS_cache_wait(H(h))); });
  m.def("version_wait", [](std::uintptr_t h) { check(GDS_version_wait(H(h))); });
  m.def("need_version", [](std::uintptr_t h) {
    int flag = 0;
    check(GDS_need_version(H(h), &flag));
    return flag != 0;
  });
  m.def("version_stats", [](std::uintptr_t h) {
    GDS_version_stats_t s{};
    check(GDS_get_version_stats(H(h), &s));
    py::dict d;
    d["versions"] = s.versions;
    d["oldest"] = s.oldest;
    d["current"] = s.current;
    d["block_bytes"] = s.block_bytes;
    d["local_bytes"] = s.local_bytes;
    d["bytes_stored"] = s.bytes_stored;
    d["bytes_shared"] = s.bytes_shared;
    d["bytes_allocated"] = s.bytes_allocated;
    d["table_bytes"] = s.table_bytes;
    return d;
  });
}

void bind_groups(py::module_ &m) {
  m.def("group_create", [](const std::string &name, const std::vector<std::uintptr_t> &arrays) {
    std::vector<GDS_gds_t> handles;
    for (auto a : arrays) handles.push_back(H(a));
    GDS_group_t g = nullptr;
    check(GDS_group_create(name.c_str(), static_cast<int>(handles.size()), handles.data(), &g));
    return to_int(g);
  });
  m.def("group_free", [](std::uintptr_t g) {
    GDS_group_t h = G(g);
    check(GDS_group_free(&h));
  });
  m.def("group_version_inc", [](std::uintptr_t g, const std::string &label, GDS_size_t increment) {
    check(GDS_group_version_inc(G(g), increment, label.data(), label.size()));
  });
  m.def("group_restore", [](std::uintptr_t g, GDS_size_t v) { check(GDS_group_version_restore(G(g), v)); });
  m.def("group_verify", [](std::uintptr_t g, GDS_size_t v) {
    const GDS_status_t s = GDS_group_version_verify(G(g), v);
    if (s == GDS_STATUS_CORRUPT) {
      raise_pending();
      return false;
    }
    check(s);
    return true;
  });
  m.def("group_version", [](std::uintptr_t g) {
    GDS_size_t v = 0;
    check(GDS_group_get_version_number(G(g), &v));
    return v;
  });
  m.def("group_label", [](std::uintptr_t g) {
    char *text = nullptr;
    size_t size = 0;
    check(GDS_group_get_version_label(G(g), &text, &size));
    return std::string(text, size);
  });
  m.def("group_restore_newest", [](std::uintptr_t g) {
    GDS_size_t v = 0;
    check(GDS_group_version_restore_newest(G(g), &v));
    return v;
  });
  m.def("group_move_to_newest", [](std::uintptr_t g) { check(GDS_group_move_to_newest(G(g))); });
  m.def("group_move_to_prev", [](std::uintptr_t g) { check(GDS_group_move_to_prev(G(g))); });
  m.def("group_move_to_next", [](std::uintptr_t g) { check(GDS_group_move_to_next(G(g))); });
  m.def("group_version_dec", [](std::uintptr_t g, GDS_size_t dec) { check(GDS_group_version_dec(G(g), dec)); });
  m.def("group_restart_info", [](std::uintptr_t g) {
    GDS_restart_info_t i{};
    check(GDS_group_get_restart_info(G(g), &i));
    return restart_tuple(i);
  });
  m.def("group_need_version", [](std::uintptr_t g) {
    int flag = 0;
    check(GDS_group_need_version(G(g), &flag));
    return flag != 0;
  });
}

}  // namespace

void bind_versions(py::module_ &m) {
  bind_array_versions(m);
  bind_groups(m);
}

}  // namespace gds::python
