#include "core/collective.hpp"

#include "core/log.hpp"

namespace gds::core {

GDS_status_t agree(const char *func, MPI_Comm comm, GDS_status_t local, std::uint64_t signature,
                   std::uint64_t *poll) {
  // max(~s) = ~min(s): one MPI_MAX reduction yields both bounds of the signatures.
  std::uint64_t mine[4] = {local != GDS_STATUS_OK ? 1u : 0u, signature, ~signature, poll != nullptr ? *poll : 0};
  std::uint64_t all[4];
  const int rc = MPI_Allreduce(mine, all, poll != nullptr ? 4 : 3, MPI_UINT64_T, MPI_MAX, comm);
  if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Allreduce", rc);
  if (poll != nullptr) *poll = all[3];
  if (local != GDS_STATUS_OK) return local;
  if (all[0] != 0)
    return fail(GDS_STATUS_REMOTE_ERROR, func, "another process failed this collective call");
  if (all[1] != ~all[2])
    return fail(GDS_STATUS_COLLECTIVE_MISMATCH, func,
                "processes passed different arguments to this collective call");
  return GDS_STATUS_OK;
}

}  // namespace gds::core
