/**
 * \file gds.hpp
 * \brief GDS for C++20: header-only, over the C API of gds.h.
 *
 * RAII owns every GDS object: gds::runtime (GDS_init/GDS_finalize),
 * gds::array<T> (a move-only typed array; destroying it frees it, which is
 * collective), gds::local_access<T> (GDS_access/GDS_release). Failures throw
 * gds::error, which carries the GDS_status_t. native_handle() gives the C
 * handle for calls the wrappers do not cover. Open Resilience: gds::predicate,
 * gds::error_descriptor, and handlers and checks that are any callable
 * (resilience.hpp).
 */
#ifndef GDS_HPP
#define GDS_HPP

#include "gds.h"
#include "cxx/error.hpp"
#include "cxx/types.hpp"
#include "cxx/runtime.hpp"
#include "cxx/box.hpp"
#include "cxx/resilience.hpp"
#include "cxx/array.hpp"
#include "cxx/group.hpp"
#include "cxx/cd.hpp"

#endif  // GDS_HPP
