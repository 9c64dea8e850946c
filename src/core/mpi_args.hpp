// Validation of MPI handles that applications pass in (communicators, info).
//
// MPI reports a bad handle through the error handler of MPI_COMM_WORLD or
// MPI_COMM_SELF, which aborts by default; the checks here switch both to
// MPI_ERRORS_RETURN for the duration of the probe, so a bad handle becomes a
// status instead of ending the job.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "gds_types.h"

namespace gds::core {

// Checks that `comm` is a valid intra-communicator.
GDS_status_t check_comm(const char *func, MPI_Comm comm, const char *argname);

// Checks that `info` is MPI_INFO_NULL or a valid info object whose keys
// starting with "gds_" are all known to core or to a module (others are
// ignored: they belong to the MPI library or the application).
GDS_status_t check_info(const char *func, MPI_Info info);

// The value of `key` in `info` (MPI_INFO_NULL: none). check_info first.
std::optional<std::string> info_value(MPI_Info info, const char *key);

// The value of `key` as a decimal unsigned integer (GDS_STATUS_INVALID_INFO
// if it is not one, or is above `max`).
GDS_status_t info_unsigned(const char *func, MPI_Info info, const char *key, std::uint64_t max,
                           std::optional<std::uint64_t> *out);

// A decimal unsigned integer at most `max`, or nothing.
std::optional<std::uint64_t> parse_unsigned(const char *text, std::uint64_t max = UINT64_MAX);

}  // namespace gds::core
