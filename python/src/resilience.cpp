// Open Resilience (gds_error.h): keys, descriptors, predicates, and handlers
// and checks that are Python callables.
//
// A callable runs under the C call that delivers the error. What it raises
// must not cross GDS's C frames: the trampoline keeps the exception
// (keep_pending), returns GDS_STATUS_RECOVERY_FAILED to GDS, and check()
// raises it when the C call has returned, so it is neither lost nor thrown
// through C.
#include <string>

#include "bridge.hpp"

namespace gds::python {

namespace {

GDS_gds_t H(std::uintptr_t h) { return to_handle<GDS_gds_t>(h); }

void *hold(py::object f) { return new py::object(std::move(f)); }
void drop(void *context) {
  py::gil_scoped_acquire gil;
  delete static_cast<py::object *>(context);
}

GDS_status_t handler_trampoline(GDS_gds_t gds, GDS_error_t e, void *context) {
  return call_callable(context, to_int(gds), to_int(e));
}
GDS_status_t check_trampoline(GDS_gds_t gds, GDS_priority_t p, void *context) {
  return call_callable(context, to_int(gds), static_cast<int>(p));
}

void bind_descriptors(py::module_ &m) {
  m.def("define_error_key", [](const std::string &name, int type) {
    GDS_error_attr_key_t k = 0;
    check(GDS_define_error_attr_key(name.data(), name.size(), static_cast<GDS_error_attr_value_type_t>(type), &k));
    return k;
  });
  m.def("error_key_info", [](int key) {
    GDS_error_attr_value_type_t t{};
    const char *name = nullptr;
    check(GDS_get_error_attr_key_info(key, &t, &name));
    return py::make_tuple(static_cast<int>(t), std::string(name ? name : ""));
  });
  m.def("create_error_descriptor", [] {
    GDS_error_t e = GDS_ERROR_NULL;
    check(GDS_create_error_descriptor(&e));
    return to_int(e);
  });
  m.def("free_error_descriptor", [](std::uintptr_t e) {
    GDS_error_t h = to_handle<GDS_error_t>(e);
    check(GDS_free_error_descriptor(&h));
  });
  m.def("add_error_attr", [](std::uintptr_t e, int key, const py::bytes &value) {
    const std::string v = value;
    check(GDS_add_error_attr(to_handle<GDS_error_t>(e), key, v.size(), v.data()));
  });
  m.def("get_error_attr", [](std::uintptr_t e, int key) -> py::object {
    GDS_size_t len = 0;
    int flag = 0;
    check(GDS_get_error_attr_len(to_handle<GDS_error_t>(e), key, &len, &flag));
    if (!flag) return py::none();
    std::string v(len, '\0');
    check(GDS_get_error_attr(to_handle<GDS_error_t>(e), key, v.data(), &flag));
    return py::bytes(v);
  });
  m.def("create_error_pred", [] {
    GDS_error_pred_t p = GDS_ERROR_PRED_NULL;
    check(GDS_create_error_pred(&p));
    return to_int(p);
  });
  m.def("free_error_pred", [](std::uintptr_t p) {
    GDS_error_pred_t h = to_handle<GDS_error_pred_t>(p);
    check(GDS_free_error_pred(&h));
  });
  m.def("add_error_pred_term", [](std::uintptr_t p, int key, int expr, const py::bytes &values) {
    const std::string v = values;
    GDS_error_pred_term_t t = GDS_ERROR_PRED_TERM_NULL;
    check(GDS_create_error_pred_term(key, static_cast<GDS_error_match_expr_t>(expr), v.size(), v.empty() ? nullptr : v.data(), &t));
    const GDS_status_t s = GDS_add_error_pred_term(to_handle<GDS_error_pred_t>(p), t);
    static_cast<void>(GDS_free_error_pred_term(&t));
    check(s);
  });
}

void bind_handlers(py::module_ &m) {
  m.def("register_handler", [](std::uintptr_t where, std::uintptr_t pred, py::object f, bool global) {
    auto *register_fn = global ? &GDS_register_global_error_handler_with_context : &GDS_register_local_error_handler_with_context;
    void *context = hold(std::move(f));
    const GDS_status_t s = register_fn(H(where), to_handle<GDS_error_pred_t>(pred), &handler_trampoline, context, &drop);
    if (s != GDS_STATUS_OK) delete static_cast<py::object *>(context);
    check(s);
  });
  m.def("register_check", [](std::uintptr_t where, py::object f, int priority, bool global) {
    auto *register_fn = global ? &GDS_register_global_error_check_with_context : &GDS_register_local_error_check_with_context;
    void *context = hold(std::move(f));
    const GDS_status_t s = register_fn(H(where), &check_trampoline, static_cast<GDS_priority_t>(priority), context, &drop);
    if (s != GDS_STATUS_OK) delete static_cast<py::object *>(context);
    check(s);
  });
  m.def("raise_error", [](std::uintptr_t where, std::uintptr_t e, bool global) {
    const GDS_error_t d = to_handle<GDS_error_t>(e);
    check(global ? GDS_raise_global_error(H(where), d) : GDS_raise_local_error(H(where), d));
  });
  m.def("resume", [](std::uintptr_t where, std::uintptr_t e, bool global) {
    const GDS_error_t d = to_handle<GDS_error_t>(e);
    check(global ? GDS_resume_global(H(where), d) : GDS_resume_local(H(where), d));
  });
  m.def("invoke_local_error_handler", [](std::uintptr_t h) { check(GDS_invoke_local_error_handler(H(h))); });
  m.def("invoke_global_error_handler", [](std::uintptr_t h) { check(GDS_invoke_global_error_handler(H(h))); });
  m.def("check_all_errors", [](std::uintptr_t h) { check(GDS_check_all_errors(H(h))); });
  m.def("check_error", [](std::uintptr_t h, bool global) {
    const GDS_status_t s = global ? GDS_check_global_error(H(h)) : GDS_check_local_error(H(h));
    if (s == GDS_STATUS_ERROR_FOUND) {
      raise_pending();
      return true;
    }
    check(s);
    return false;
  });
}

}  // namespace

void bind_resilience(py::module_ &m) {
  bind_descriptors(m);
  bind_handlers(m);
}

}  // namespace gds::python
