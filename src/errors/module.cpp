// The errors module's part of the library's and of every array's life (each
// array's handlers, checks and pending errors), and Open Resilience as the
// lower modules see it.
#include "errors/module.hpp"

#include "errors/dispatch.hpp"
#include "errors/registry.hpp"

namespace gds::errors {
namespace {

class Errors final : public core::Module, public core::Resilience {
 public:
  [[nodiscard]] core::Layer layer() const override { return Scope::kLayer; }
  [[nodiscard]] const char *name() const override { return "errors"; }
  void finalize() override { errors::finalize(); }

  GDS_status_t prepare(const char *, const core::ArraySpec &, MPI_Info, core::Signature &,
                       std::unique_ptr<core::ArrayState> *state) override {
    *state = std::make_unique<Scope>();
    return GDS_STATUS_OK;
  }
  GDS_status_t attach(const char *, core::Array &a) override {
    a.state<Scope>().array = &a;
    return GDS_STATUS_OK;
  }
  GDS_status_t detach(const char *, core::Array &) override { return GDS_STATUS_OK; }

  GDS_status_t deliver_local(const char *func, core::Array *a) override { return deliver_pending(func, a); }
  [[nodiscard]] std::uint64_t global_pending(const core::Array *a) const override { return errors::global_pending(a); }
  GDS_status_t deliver_global(const char *func, core::Array *a) override { return errors::deliver_global(func, a); }
  [[nodiscard]] bool has_version_checks(const core::Array &a) const override { return has_high_checks(a); }
  GDS_status_t run_version_checks(const char *func, core::Array &a) override {
    return errors::run_version_checks(func, a);
  }
  [[nodiscard]] bool handling(const core::Array &a) const override { return errors::handling(a); }
  void raise_detected(const char *func, core::Array *a, GDS_status_t status, const core::Detected &what) override {
    errors::raise_detected(func, a, status, what);
  }
};

Errors g_module;

}  // namespace

core::Module &module() { return g_module; }

}  // namespace gds::errors
