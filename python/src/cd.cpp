// Containment domains (gds_cd.h): NumPy arrays as preserved ranges, array
// boxes, files, and handlers that are Python callables (as resilience.cpp's).
#include <string>
#include <vector>

#include "bridge.hpp"

namespace gds::python {

namespace {

GDS_cd_t C(std::uintptr_t c) { return to_handle<GDS_cd_t>(c); }

// A NumPy array's bytes as one range; it must be contiguous (GDS copies bytes).
GDS_cd_range_t range_of(const py::array &a, int access, int scope, const char *fn) {
  if (!(a.flags() & (py::array::c_style | py::array::f_style)))
    raise_status(GDS_STATUS_INVALID, std::string(fn) + ": the array is not contiguous (preserve a contiguous one)");
  if (access == GDS_CD_READ_WRITE && !a.writeable())
    raise_status(GDS_STATUS_INVALID, std::string(fn) + ": a read-only array cannot be preserved READ_WRITE");
  return GDS_cd_range_t{const_cast<void *>(a.data()), static_cast<size_t>(a.nbytes()),
                        static_cast<GDS_cd_access_t>(access), static_cast<GDS_cd_scope_t>(scope)};
}

GDS_status_t cd_trampoline(GDS_cd_t cd, GDS_gds_t gds, GDS_error_t e, void *context) noexcept {
  return call_callable(context, to_int(cd), to_int(gds), to_int(e));
}

void drop(void *context) {
  py::gil_scoped_acquire gil;
  delete static_cast<py::object *>(context);
}

void bind_lifecycle(py::module_ &m) {
  m.def("cd_create", [](std::uintptr_t parent, py::handle comm, py::object name, py::object storage, int logging) {
    const MPI_Comm c = comm.is_none() ? MPI_COMM_SELF : comm_of(comm);
    const std::string n = name.is_none() ? std::string() : name.cast<std::string>();
    const std::string s = storage.is_none() ? std::string() : storage.cast<std::string>();
    GDS_cd_t cd = GDS_CD_NULL;
    check(GDS_cd_create(C(parent), c, name.is_none() ? nullptr : n.c_str(), storage.is_none() ? nullptr : s.c_str(),
                        static_cast<GDS_cd_logging_t>(logging), &cd));
    return to_int(cd);
  });
  m.def("cd_commit", [](std::uintptr_t cd) {
    GDS_cd_t h = C(cd);
    check(GDS_cd_commit(&h));
  });
  m.def("cd_restore", [](std::uintptr_t cd) { check(GDS_cd_restore(C(cd))); });
  m.def("cd_advance", [](std::uintptr_t cd) { check(GDS_cd_advance(C(cd))); });
  m.def("cd_restored", [](std::uintptr_t cd) {
    int r = 0;
    check(GDS_cd_restored(C(cd), &r));
    return r != 0;
  });
  m.def("cd_current", []() -> py::object {
    GDS_cd_t cd = GDS_CD_NULL;
    const GDS_status_t s = GDS_cd_current(&cd);
    if (s != GDS_STATUS_OK || cd == GDS_CD_NULL) {
      raise_pending();
      return py::none();
    }
    return py::int_(to_int(cd));
  });
  m.def("cd_parent", [](std::uintptr_t cd) -> py::object {
    GDS_cd_t p = GDS_CD_NULL;
    check(GDS_cd_get_parent(C(cd), &p));
    if (p == GDS_CD_NULL) return py::none();
    return py::int_(to_int(p));
  });
  m.def("cd_preserved_bytes", [](std::uintptr_t cd) {
    GDS_size_t b = 0;
    check(GDS_cd_get_preserved_bytes(C(cd), &b));
    return b;
  });
  m.def("cd_inject_fault", [](std::uintptr_t cd) { check(GDS_cd_inject_fault(C(cd))); });
}

void bind_entries(py::module_ &m) {
  m.def("cd_preserve", [](std::uintptr_t cd, int via, const py::array &a, int access, int scope) {
    const GDS_cd_range_t r = range_of(a, access, scope, "GDS_cd_preserve");
    check(GDS_cd_preserve(C(cd), static_cast<GDS_cd_via_t>(via), &r, 1, nullptr, nullptr));
  });
  m.def("cd_delete", [](std::uintptr_t cd, const py::array &a) {
    const GDS_cd_range_t r = range_of(a, GDS_CD_READ_ONLY, GDS_CD_GLOBAL, "GDS_cd_delete");
    check(GDS_cd_delete(C(cd), &r, 1));
  });
  m.def("cd_preserve_file", [](std::uintptr_t cd, int fd) { check(GDS_cd_preserve_file(C(cd), fd)); });
  m.def("cd_delete_file", [](std::uintptr_t cd, int fd) { check(GDS_cd_delete_file(C(cd), fd)); });
  m.def("cd_preserve_box", [](std::uintptr_t cd, int via, std::uintptr_t gds, const std::vector<GDS_size_t> &lo,
                              const std::vector<GDS_size_t> &hi, int access) {
    const GDS_gds_t g = to_handle<GDS_gds_t>(gds);
    GDS_size_t n = 0;
    int flag = 0;
    check(GDS_get_attr(g, GDS_NUMBER_DIMENSIONS, &n, &flag));
    if (lo.size() != n || hi.size() != n)
      raise_status(GDS_STATUS_INVALID_NDIMS, "GDS_cd_preserve_box: the box has the wrong number of dimensions");
    check(GDS_cd_preserve_box(C(cd), static_cast<GDS_cd_via_t>(via), g, lo.data(), hi.data(),
                              static_cast<GDS_cd_access_t>(access), nullptr, nullptr));
  });
  m.def("cd_register_handler", [](std::uintptr_t cd, std::uintptr_t pred, py::object f) {
    void *context = new py::object(std::move(f));
    const GDS_status_t s = GDS_cd_register_handler(C(cd), to_handle<GDS_error_pred_t>(pred), &cd_trampoline, context, &drop);
    if (s != GDS_STATUS_OK) delete static_cast<py::object *>(context);
    check(s);
  });
  m.def("cd_escalate", [](std::uintptr_t e) { check(GDS_cd_escalate(to_handle<GDS_error_t>(e))); });
}

}  // namespace

void bind_cd(py::module_ &m) {
  m.attr("CD_CURRENT") = to_int(GDS_CD_CURRENT);
  bind_lifecycle(m);
  bind_entries(m);
}

}  // namespace gds::python
