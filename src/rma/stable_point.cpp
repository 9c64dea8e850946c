#include "rma/stable_point.hpp"

#include "core/collective.hpp"
#include "core/runtime.hpp"
#include "rma/state.hpp"

namespace gds::rma {

GDS_status_t stable_point(const char *func, core::Array *a, GDS_status_t local, bool *delivered, bool *flag,
                          GDS_status_t *late) {
  core::Resilience *r = core::resilience();
  GDS_status_t s = local;
  if (a != nullptr) {
    Window &w = state(*a).window;
    if (s == GDS_STATUS_OK) s = core::checked(func, a, w.complete_remote(func));
    if (s == GDS_STATUS_OK) s = w.sync(func);
  }
  bool pending = r != nullptr && r->global_pending(a) != 0;
  const MPI_Comm comm = a != nullptr ? a->communicator() : core::g_rt.world;
  GDS_TRY(core::agree_and_poll(func, comm, s, &pending, flag));
  // What the others wrote before the agreement is visible after it. A
  // failure here comes after the agreement: the delivery (collective) still
  // takes place, and the failure goes to *late or is returned after it.
  const GDS_status_t synced = a != nullptr ? state(*a).window.sync(func) : GDS_STATUS_OK;
  if (late != nullptr) *late = synced;
  if (delivered != nullptr) *delivered = pending;
  const GDS_status_t d = pending && r != nullptr ? r->deliver_global(func, a) : GDS_STATUS_OK;
  return late == nullptr && synced != GDS_STATUS_OK ? synced : d;
}

GDS_status_t fence(const char *func, GDS_gds_t gds) {
  if (!core::is_root(gds)) {
    core::Cursor *cursor = nullptr;
    GDS_status_t delivered = GDS_STATUS_OK;
    GDS_TRY(core::resolve_collective(func, gds, &cursor, &delivered));
    return stable_point(func, cursor->array, delivered);
  }
  // Every array in creation order (processes sharing sub-communicators meet
  // in the same order), then GDS_ROOT's own errors over GDS_COMM_WORLD.
  GDS_status_t first = core::deliver_on_entry(func, nullptr);
  const GDS_status_t root_delivery = first;
  for (core::Array *a : core::arrays_in_creation_order()) {
    const GDS_status_t s = stable_point(func, a, core::deliver_on_entry(func, a));
    if (first == GDS_STATUS_OK) first = s;
  }
  const GDS_status_t s = stable_point(func, nullptr, root_delivery);
  return first != GDS_STATUS_OK ? first : s;
}

}  // namespace gds::rma
