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

// Whether this process wrote one-sidedly into another process's blocks of a
// member since the last exchange (what it would send in one).
bool wrote_others(std::span<core::Array *const> members);

// Phase exchange without its messages, for a version made on the guess that
// no process wrote into another's blocks (the agreement checks the guess:
// wrote_others() on every process): this process's own writes and the
// blocks written directly that differ from their base are the members'
// dirty blocks. Local. Where this process wrote into others' blocks
// (`wrote`: wrote_others(), as the caller found it) it does nothing: the
// version takes another round, with exchange(), which sends its writes then.
GDS_status_t exchange_local(const char *func, std::span<core::Array *const> members, bool wrote,
                            GDS_status_t local);

}  // namespace gds::versions
