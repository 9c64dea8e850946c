// The Python binding's shared pieces: statuses to Python exceptions, Python
// exceptions carried across the C frames of a handler call, handles as
// integers, and the element types, ops and communicators of NumPy and mpi4py.
//
// The binding adds no semantics of its own (docs/python.md): every function
// here is one C call with its arguments converted. Handles travel as Python
// integers; GDS checks them (generation-checked ids), so a freed or made-up
// handle is a FreedHandleError or InvalidHandleError, never a crash.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <string>

#include <gds.h>

namespace gds::python {

namespace py = pybind11;

/// A C handle as the integer Python holds.
template <class H>
std::uintptr_t to_int(H h) noexcept {
  return reinterpret_cast<std::uintptr_t>(h);
}
/// The integer Python holds as a C handle.
template <class H>
H to_handle(std::uintptr_t v) noexcept {
  return reinterpret_cast<H>(v);
}

/// Raises the Python exception of `status` (gds.<Name>Error) with `message`.
[[noreturn]] void raise_status(GDS_status_t status, const std::string &message);

/// A Python exception raised by a callable GDS called (a handler, a check):
/// kept here, the C call goes on with a failure status, and check() raises it
/// once the C call has returned. The first one wins; later ones are added to
/// its notes.
void keep_pending(py::error_already_set &e);
/// Raises the pending exception, if any.
void raise_pending();
/// Around a callable GDS calls: the exception pending from the calls before
/// it (an earlier handler's), taken away so that the callable's own GDS calls
/// do not raise it, then put back first (what the callable raised noted on
/// it).
std::optional<py::error_already_set> take_pending();
void restore_pending(std::optional<py::error_already_set> outer);
/// Adds to the pending exception, if any, a note with the C call's own
/// failure `status` and `message` (the handler's exception is why the call
/// failed; the call's status is kept in its __notes__).
void note_on_pending(GDS_status_t status, const std::string &message);

/// Calls the Python callable held at `context` (a handler, a check, a
/// containment domain's handler) for GDS: what it returns as a status (None is
/// success, an int a status); what it raises kept (keep_pending) and
/// GDS_STATUS_RECOVERY_FAILED returned, never thrown through GDS's C frames.
template <class... Args>
GDS_status_t call_callable(void *context, Args &&...args) noexcept {
  py::gil_scoped_acquire gil;
  // An earlier handler's exception waits for the delivering call's end: this
  // callable's own GDS calls must not raise it (it would end this handler).
  std::optional<py::error_already_set> earlier = take_pending();
  GDS_status_t status = GDS_STATUS_RECOVERY_FAILED;
  try {
    py::object r = (*static_cast<py::object *>(context))(std::forward<Args>(args)...);
    status = py::isinstance<py::int_>(r) ? static_cast<GDS_status_t>(r.cast<int>()) : GDS_STATUS_OK;
  } catch (py::error_already_set &e) {
    keep_pending(e);
  } catch (const std::exception &e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
    py::error_already_set kept;
    keep_pending(kept);
  }
  restore_pending(std::move(earlier));
  return status;
}

/// After a C call: the pending exception first (it is why the call failed,
/// the call's own status in its notes), then the status as its gds.Error.
inline void check(GDS_status_t status) {
  if (status != GDS_STATUS_OK) note_on_pending(status, GDS_last_error_message());
  raise_pending();
  if (status != GDS_STATUS_OK) raise_status(status, GDS_last_error_message());
}

/// The MPI datatype of a NumPy dtype; InvalidTypeError for one GDS cannot hold.
GDS_datatype_t datatype_of(const py::dtype &dt);
/// An MPI op from its name ("sum", "max", ..., "replace", "no_op") or an mpi4py MPI.Op.
GDS_op_t op_of(const py::handle &op);
/// The communicator of an mpi4py MPI.Comm; None is GDS_COMM_WORLD.
GDS_comm_t comm_of(const py::handle &comm);
/// An mpi4py MPI.Comm for `comm` (sharing the handle: freeing it stays its owner's).
py::object comm_object(GDS_comm_t comm);

void bind_runtime(py::module_ &m);
void bind_array(py::module_ &m);
void bind_versions(py::module_ &m);
void bind_resilience(py::module_ &m);
void bind_cd(py::module_ &m);

}  // namespace gds::python
