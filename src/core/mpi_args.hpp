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
#include <string>

#include "gds_types.h"

namespace gds::core {

// Checks that `comm` is a valid intra-communicator.
GDS_status_t check_comm(const char *func, MPI_Comm comm, const char *argname);

// Hints GDS understands, read from an MPI_Info.
struct Hints {
  std::optional<std::string> order;                // GDS_ORDER_KEY
  std::optional<std::uint64_t> block_size;         // GDS_VERSION_BLOCK_SIZE_KEY
  std::optional<std::uint64_t> max_versions;       // GDS_MAX_VERSIONS_KEY
  std::optional<std::uint64_t> max_version_bytes;  // GDS_MAX_VERSION_BYTES_KEY
};

// Reads the gds_* keys of `info` (MPI_INFO_NULL gives no hints). Keys that
// start with "gds_" and are not in `known` are errors; other keys are ignored.
GDS_status_t read_hints(const char *func, MPI_Info info, Hints *hints);

}  // namespace gds::core
