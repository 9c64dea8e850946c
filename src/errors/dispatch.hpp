// What the errors module's entry into the library (errors/module.cpp) needs
// of delivery and dispatch (dispatch.cpp).
#pragma once

#include <cstdint>

#include "core/array.hpp"
#include "core/module.hpp"

namespace gds::errors {

// The pending local errors of `a` (nullptr: GDS_ROOT only) and of GDS_ROOT.
GDS_status_t deliver_pending(const char *func, core::Array *a);
std::uint64_t global_pending(const core::Array *a);
GDS_status_t deliver_global(const char *func, core::Array *a);
bool has_high_checks(const core::Array &a);
GDS_status_t run_version_checks(const char *func, core::Array &a);
void raise_detected(const char *func, core::Array *a, GDS_status_t status, const core::Detected &what);
bool handling(const core::Array &a);
// GDS_finalize: drops GDS_ROOT's handlers, checks and pending errors, and the user-defined keys.
void finalize();

}  // namespace gds::errors
