// Phase exchange of the versions' collective calls (exchange.cpp).
#pragma once

#include <span>

#include "core/array.hpp"
#include "gds_types.h"

namespace gds::versions {

// Every write this process issued on the members is completed at its
// target, and every process learns, for every member in one sparse
// exchange, which blocks of its memory the others wrote; those blocks, its
// own writes and the blocks written directly that differ from their base
// are the members' dirty blocks. Collective over the members'
// communicator (one MPI_Ibarrier, and a message to each process written
// to); every process takes part whatever `local` is. Returns this process's
// status, for the caller's agreement.
GDS_status_t exchange(const char *func, std::span<core::Array *const> members, GDS_status_t local);

}  // namespace gds::versions
