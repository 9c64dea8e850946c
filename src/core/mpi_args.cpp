#include "core/mpi_args.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/log.hpp"
#include "core/module.hpp"
#include "gds_types.h"

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

bool known_key(const char *key) {
  if (std::strcmp(key, GDS_ORDER_KEY) == 0) return true;
  for (const Module *m : modules())
    for (const char *k : m->info_keys())
      if (std::strcmp(key, k) == 0) return true;
  return false;
}

}  // namespace

std::optional<std::uint64_t> parse_unsigned(const char *text, std::uint64_t max) {
  if (*text == '\0' || *text == '-' || *text == '+' || *text == ' ') return std::nullopt;
  errno = 0;
  char *end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (errno != 0 || *end != '\0' || v > max) return std::nullopt;
  return v;
}

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

GDS_status_t check_info(const char *func, MPI_Info info) {
  if (info == MPI_INFO_NULL) return GDS_STATUS_OK;
  ErrorsReturnScope scope;
  int nkeys = 0;
  if (MPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS)
    return fail(GDS_STATUS_INVALID_INFO, func, "info is not a valid MPI_Info");
  char key[MPI_MAX_INFO_KEY + 1];
  for (int i = 0; i < nkeys; ++i) {
    if (MPI_Info_get_nthkey(info, i, key) != MPI_SUCCESS)
      return fail(GDS_STATUS_INVALID_INFO, func, "info: cannot read key %d", i);
    if (std::strncmp(key, "gds_", 4) == 0 && !known_key(key))
      return fail(GDS_STATUS_INVALID_INFO, func, "info: unknown GDS key \"%s\"", key);
  }
  return GDS_STATUS_OK;
}

std::optional<std::string> info_value(MPI_Info info, const char *key) {
  if (info == MPI_INFO_NULL) return std::nullopt;
  int len = 0, flag = 0;
  MPI_Info_get_valuelen(info, key, &len, &flag);
  if (!flag) return std::nullopt;
  std::vector<char> value(static_cast<std::size_t>(len) + 1, '\0');
  MPI_Info_get(info, key, len, value.data(), &flag);
  return std::string(value.data());
}

GDS_status_t info_unsigned(const char *func, MPI_Info info, const char *key, std::uint64_t max,
                           std::optional<std::uint64_t> *out) {
  out->reset();
  const std::optional<std::string> text = info_value(info, key);
  if (!text) return GDS_STATUS_OK;
  *out = parse_unsigned(text->c_str(), max);
  GDS_CHECK(out->has_value(), GDS_STATUS_INVALID_INFO, "info: %s=\"%s\" is not an integer in [0, %llu]", key,
            text->c_str(), static_cast<unsigned long long>(max));
  return GDS_STATUS_OK;
}

}  // namespace gds::core
