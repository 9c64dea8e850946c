#include "core/collective.hpp"

#include "core/log.hpp"

namespace gds::core {

GDS_status_t agree(const char *func, MPI_Comm comm, GDS_status_t local, std::uint64_t signature) {
  // max(~s) = ~min(s): one MPI_MAX reduction yields both bounds of the signatures.
  std::uint64_t mine[3] = {local != GDS_STATUS_OK ? 1u : 0u, signature, ~signature};
  std::uint64_t all[3];
  const int rc = MPI_Allreduce(mine, all, 3, MPI_UINT64_T, MPI_MAX, comm);
  if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Allreduce", rc);
  if (local != GDS_STATUS_OK) return local;
  if (all[0] != 0)
    return fail(GDS_STATUS_REMOTE_ERROR, func, "another process failed this collective call");
  if (all[1] != ~all[2])
    return fail(GDS_STATUS_COLLECTIVE_MISMATCH, func,
                "processes passed different arguments to this collective call");
  return GDS_STATUS_OK;
}

GDS_status_t agree_and_poll(const char *func, MPI_Comm comm, GDS_status_t local, bool *pending) {
  const unsigned mine = (local != GDS_STATUS_OK ? 1u : 0u) | (*pending ? 2u : 0u);
  unsigned all = 0;
  const int rc = MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED, MPI_BOR, comm);
  if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Allreduce", rc);
  *pending = (all & 2u) != 0;
  if (local != GDS_STATUS_OK) return local;
  if ((all & 1u) != 0) return fail(GDS_STATUS_REMOTE_ERROR, func, "another process failed this collective call");
  return GDS_STATUS_OK;
}

}  // namespace gds::core
