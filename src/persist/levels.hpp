// The persist module's levels above memory, in the order versions calls
// them and restart asks them: the cache (cache.cpp), then the prefix
// (prefix.cpp); and the one restart driver over them (restart.cpp).
#pragma once

#include "core/array.hpp"
#include "versions/level.hpp"

namespace gds::persist {

versions::Level &cache_level();
versions::Level &prefix_level();

// Restart (collective, at GDS_alloc/GDS_create with restart asked for):
// asks the levels that hold the array, in order, for their catalogue
// (recover), replays the first one that has a version into memory
// versions, and tells the other levels which version was taken.
// GDS_STATUS_UNRECOVERABLE if some level had versions and none could be
// restored; GDS_STATUS_OK with nothing restarted if no level had any.
GDS_status_t restart(const char *func, core::Array &a);

}  // namespace gds::persist
