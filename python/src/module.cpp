// gds._gds: the C extension under the gds package (python/gds/__init__.py):
// statuses as exceptions, the conversions of bridge.hpp, and the runtime.
#include <mpi4py/mpi4py.h>

#include <complex>
#include <cstring>

#include "bridge.hpp"

namespace gds::python {

namespace {

// Set once by gds/__init__.py: factory(status, message) -> a gds.Error instance.
// Leaked on purpose: it must outlive every static destructor that might raise.
py::object *g_error_factory = nullptr;
// The first Python exception a callable raised under the C call in progress.
std::optional<py::error_already_set> *g_pending = nullptr;

}  // namespace

void raise_status(GDS_status_t status, const std::string &message) {
  const std::string text = message.empty() ? std::string(GDS_status_string(status)) : message;
  if (g_error_factory == nullptr) throw std::runtime_error(text);
  py::object e = (*g_error_factory)(static_cast<int>(status), text);
  PyErr_SetObject(reinterpret_cast<PyObject *>(Py_TYPE(e.ptr())), e.ptr());
  throw py::error_already_set();
}

void keep_pending(py::error_already_set &e) {
  if (!g_pending->has_value()) {
    g_pending->emplace(std::move(e));
    return;
  }
  // A second one while the first waits: recorded on the first, not lost.
  py::object first = (*g_pending)->value();
  if (py::hasattr(first, "add_note"))
    first.attr("add_note")("then, in another handler or check: " + std::string(py::str(e.value())));
}

std::optional<py::error_already_set> take_pending() {
  std::optional<py::error_already_set> p = std::move(*g_pending);
  g_pending->reset();
  return p;
}

void restore_pending(std::optional<py::error_already_set> outer) {
  if (!outer.has_value()) return;
  std::optional<py::error_already_set> inner = take_pending();
  g_pending->emplace(std::move(*outer));
  if (inner.has_value()) keep_pending(*inner);
}

void note_on_pending(GDS_status_t status, const std::string &message) {
  if (!g_pending->has_value() || g_error_factory == nullptr) return;
  py::object first = (*g_pending)->value();
  if (!py::hasattr(first, "add_note")) return;
  const std::string text = message.empty() ? std::string(GDS_status_string(status)) : message;
  py::object own = (*g_error_factory)(static_cast<int>(status), text);
  first.attr("add_note")("the GDS call then returned its own status: " +
                         std::string(py::str(py::type::handle_of(own).attr("__name__"))) + ": " + text);
}

void raise_pending() {
  if (!g_pending->has_value()) return;
  py::error_already_set e = std::move(**g_pending);
  g_pending->reset();
  throw e;
}

GDS_datatype_t datatype_of(const py::dtype &dt) {
  const char kind = dt.kind();
  const auto size = dt.itemsize();
  if (!dt.attr("isbuiltin").cast<int>() || dt.attr("hasobject").cast<bool>())
    raise_status(GDS_STATUS_INVALID_TYPE, "gds: dtype " + std::string(py::str(py::handle(dt))) + " cannot be a GDS element type");
  switch (kind) {
    case 'b': return MPI_C_BOOL;
    case 'i':
      switch (size) { case 1: return MPI_INT8_T; case 2: return MPI_INT16_T; case 4: return MPI_INT32_T; case 8: return MPI_INT64_T; }
      break;
    case 'u':
      switch (size) { case 1: return MPI_UINT8_T; case 2: return MPI_UINT16_T; case 4: return MPI_UINT32_T; case 8: return MPI_UINT64_T; }
      break;
    case 'f':
      if (size == 4) return MPI_FLOAT;
      if (size == 8) return MPI_DOUBLE;
      if (size == static_cast<py::ssize_t>(sizeof(long double))) return MPI_LONG_DOUBLE;
      break;
    case 'c':
      if (size == 8) return MPI_C_FLOAT_COMPLEX;
      if (size == 16) return MPI_C_DOUBLE_COMPLEX;
      if (size == static_cast<py::ssize_t>(sizeof(std::complex<long double>))) return MPI_C_LONG_DOUBLE_COMPLEX;
      break;
    default: break;
  }
  raise_status(GDS_STATUS_INVALID_TYPE, "gds: dtype " + std::string(py::str(py::handle(dt))) + " cannot be a GDS element type");
}

GDS_op_t op_of(const py::handle &op) {
  if (PyObject_TypeCheck(op.ptr(), &PyMPIOp_Type)) return *PyMPIOp_Get(op.ptr());
  if (!py::isinstance<py::str>(op)) raise_status(GDS_STATUS_INVALID_OP, "gds: op must be a name or an mpi4py MPI.Op");
  const std::string name = op.cast<std::string>();
  static const std::pair<const char *, GDS_op_t> ops[] = {
      {"sum", MPI_SUM},   {"prod", MPI_PROD}, {"max", MPI_MAX},         {"min", MPI_MIN},
      {"land", MPI_LAND}, {"lor", MPI_LOR},   {"lxor", MPI_LXOR},       {"band", MPI_BAND},
      {"bor", MPI_BOR},   {"bxor", MPI_BXOR}, {"replace", MPI_REPLACE}, {"no_op", MPI_NO_OP},
  };
  for (const auto &[n, o] : ops)
    if (name == n) return o;
  raise_status(GDS_STATUS_INVALID_OP, "gds: unknown op '" + name + "' (sum, prod, max, min, land, lor, lxor, band, "
                                      "bor, bxor, replace, no_op, or an mpi4py MPI.Op)");
}

GDS_comm_t comm_of(const py::handle &comm) {
  if (comm.is_none()) return GDS_COMM_WORLD;
  if (!PyObject_TypeCheck(comm.ptr(), &PyMPIComm_Type))
    raise_status(GDS_STATUS_INVALID_COMM, "gds: comm must be an mpi4py MPI.Comm, not " +
                                              std::string(py::str(py::type::of(comm).attr("__name__"))));
  return *PyMPIComm_Get(comm.ptr());
}

py::object comm_object(GDS_comm_t comm) {
  PyObject *c = PyMPIComm_New(comm);
  if (c == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(c);
}

void bind_runtime(py::module_ &m) {
  m.def("_set_error_factory", [](py::object f) { g_error_factory = new py::object(std::move(f)); });
  m.def("status_string", [](int s) { return std::string(GDS_status_string(static_cast<GDS_status_t>(s))); },
        "GDS_status_string(): a one-line description of a status.");
  m.def("init", [](int requested) {
    GDS_thread_support_t provided = GDS_THREAD_SINGLE;
    check(GDS_init(nullptr, nullptr, static_cast<GDS_thread_support_t>(requested), &provided));
    return static_cast<int>(provided);
  });
  m.def("finalize", [] { check(GDS_finalize()); });
  m.def("initialized", [] {
    int flag = 0;
    check(GDS_initialized(&flag));
    return flag != 0;
  });
  m.def("comm_world", [] {
    // GDS_COMM_WORLD as an mpi4py communicator (a handle GDS owns: never free it).
    return comm_object(GDS_COMM_WORLD);
  });
  m.def("should_exit", [] {
    int flag = 0;
    check(GDS_should_exit(&flag));
    return flag != 0;
  });
  m.def("costs", [] {
    GDS_costs_t c{};
    check(GDS_get_costs(&c));
    py::dict d;
    d["elapsed"] = c.elapsed;
    const std::pair<const char *, const GDS_cost_t *> kinds[] = {
        {"versions", &c.versions}, {"restores", &c.restores}, {"cache", &c.cache},
        {"redundancy", &c.redundancy}, {"flushes", &c.flushes}, {"restarts", &c.restarts}, {"tracking", &c.tracking}};
    for (const auto &[name, k] : kinds) d[name] = py::make_tuple(k->calls, k->seconds, k->bytes);
    return d;
  });
  m.def("reset_costs", [] { check(GDS_reset_costs()); });
  m.def("restart_query", [](py::object name) {
    GDS_persisted_t st{};
    std::string n = name.is_none() ? std::string() : name.cast<std::string>();
    check(GDS_restart_query(name.is_none() ? nullptr : n.c_str(), &st));
    return py::make_tuple(st.found != 0, st.level, st.version, st.current,
                          std::string(st.holds, std::min<std::size_t>(st.holds_size, GDS_PERSISTED_LABEL_MAX)));
  });
  m.def("inject_fault", [](int fault, GDS_size_t after) { check(GDS_inject_fault(static_cast<GDS_fault_t>(fault), after)); });
  m.def("failure_group", [](int rank) {
    int group = 0, ngroups = 0;
    check(GDS_failure_group(rank, &group, &ngroups));
    return py::make_tuple(group, ngroups);
  });
}

}  // namespace gds::python

PYBIND11_MODULE(_gds, m) {
  namespace gp = gds::python;
  if (import_mpi4py() < 0) throw pybind11::error_already_set();
  gp::g_pending = new std::optional<pybind11::error_already_set>();
  m.doc() = "GDS's C API for the gds package (use gds, not gds._gds).";
  m.attr("ROOT") = gp::to_int(GDS_ROOT);
  m.attr("STATUS_LAST") = static_cast<int>(GDS_STATUS_LAST);
  m.attr("VERSION") = GDS_VERSION_STRING;
  m.def("mpi_library_version", [] {
    char text[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(text, &len);
    return std::string(text, strnlen(text, static_cast<std::size_t>(len)));
  });
  gp::bind_runtime(m);
  gp::bind_array(m);
  gp::bind_versions(m);
  gp::bind_resilience(m);
  gp::bind_cd(m);
}
