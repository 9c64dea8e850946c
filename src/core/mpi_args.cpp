#include "core/mpi_args.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/log.hpp"
#include "gds_version.h"

namespace gds::core {
namespace {

// Sets MPI_ERRORS_RETURN on MPI_COMM_WORLD and MPI_COMM_SELF; restores the
// previous handlers on destruction.
class ErrorsReturnScope {
 public:
  ErrorsReturnScope() {
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &world_);
    MPI_Comm_get_errhandler(MPI_COMM_SELF, &self_);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  }
  ~ErrorsReturnScope() {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, world_);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, self_);
    MPI_Errhandler_free(&world_);
    MPI_Errhandler_free(&self_);
  }
  ErrorsReturnScope(const ErrorsReturnScope &) = delete;
  ErrorsReturnScope &operator=(const ErrorsReturnScope &) = delete;

 private:
  MPI_Errhandler world_ = MPI_ERRHANDLER_NULL;
  MPI_Errhandler self_ = MPI_ERRHANDLER_NULL;
};

constexpr const char *kKnownKeys[] = {GDS_ORDER_KEY, GDS_VERSION_BLOCK_SIZE_KEY, GDS_MAX_VERSIONS_KEY,
                                      GDS_MAX_VERSION_BYTES_KEY};

// A decimal unsigned integer, or nothing.
std::optional<std::uint64_t> parse_unsigned(const char *text) {
  if (*text == '\0' || *text == '-') return std::nullopt;
  errno = 0;
  char *end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (errno != 0 || *end != '\0') return std::nullopt;
  return v;
}

}  // namespace

GDS_status_t check_comm(const char *func, MPI_Comm comm, const char *argname) {
  if (comm == MPI_COMM_NULL)
    return fail(GDS_STATUS_INVALID_COMM, func, "%s is MPI_COMM_NULL", argname);
  int inter = 0;
  int rc;
  {
    ErrorsReturnScope scope;
    rc = MPI_Comm_test_inter(comm, &inter);
  }
  if (rc != MPI_SUCCESS)
    return fail(GDS_STATUS_INVALID_COMM, func, "%s is not a valid communicator", argname);
  if (inter)
    return fail(GDS_STATUS_INVALID_COMM, func, "%s is an inter-communicator", argname);
  return GDS_STATUS_OK;
}

GDS_status_t read_hints(const char *func, MPI_Info info, Hints *hints) {
  *hints = Hints{};
  if (info == MPI_INFO_NULL) return GDS_STATUS_OK;
  ErrorsReturnScope scope;
  int nkeys = 0;
  if (MPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS)
    return fail(GDS_STATUS_INVALID_INFO, func, "info is not a valid MPI_Info");
  char key[MPI_MAX_INFO_KEY + 1];
  for (int i = 0; i < nkeys; ++i) {
    if (MPI_Info_get_nthkey(info, i, key) != MPI_SUCCESS)
      return fail(GDS_STATUS_INVALID_INFO, func, "info: cannot read key %d", i);
    if (std::strncmp(key, "gds_", 4) != 0) continue;
    bool known = false;
    for (const char *k : kKnownKeys) known = known || std::strcmp(key, k) == 0;
    if (!known) return fail(GDS_STATUS_INVALID_INFO, func, "info: unknown GDS key \"%s\"", key);
    int len = 0, flag = 0;
    MPI_Info_get_valuelen(info, key, &len, &flag);
    std::vector<char> value(static_cast<std::size_t>(len) + 1, '\0');
    MPI_Info_get(info, key, len, value.data(), &flag);
    if (std::strcmp(key, GDS_ORDER_KEY) == 0) {
      hints->order = std::string(value.data());
      continue;
    }
    const std::optional<std::uint64_t> number = parse_unsigned(value.data());
    if (!number)
      return fail(GDS_STATUS_INVALID_INFO, func, "info: %s=\"%s\" is not a non-negative integer", key, value.data());
    if (std::strcmp(key, GDS_VERSION_BLOCK_SIZE_KEY) == 0) hints->block_size = number;
    else if (std::strcmp(key, GDS_MAX_VERSIONS_KEY) == 0) hints->max_versions = number;
    else hints->max_version_bytes = number;
  }
  return GDS_STATUS_OK;
}

}  // namespace gds::core
