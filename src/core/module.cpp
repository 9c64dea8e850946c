#include "core/module.hpp"

namespace gds::core {

std::uint64_t g_deliverable = 0;

namespace {
Resilience *g_resilience = nullptr;
}

Resilience *resilience() { return g_resilience; }
void set_resilience(Resilience *r) { g_resilience = r; }

GDS_status_t detected(const char *func, Array *a, GDS_status_t status, const Detected &what) {
  if (g_resilience != nullptr && a != nullptr) g_resilience->raise_detected(func, a, status, what);
  return status;
}

}  // namespace gds::core
