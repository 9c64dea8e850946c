// The Containment Domains document's API (cd.h) over GDS_cd_*: each call
// returns 0 or FAILURE and keeps the reason for GDS_cd_last_status().
#include "cd.h"

#include <cstdlib>

#include "cd/domain.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"

using namespace gds::cd;

static_assert(sizeof(cd_addrspec) == sizeof(GDS_cd_range_t) &&
                  offsetof(cd_addrspec, length) == offsetof(GDS_cd_range_t, length) &&
                  offsetof(cd_addrspec, addr_tp) == offsetof(GDS_cd_range_t, access) &&
                  offsetof(cd_addrspec, addr_scope) == offsetof(GDS_cd_range_t, scope),
              "struct cd_addrspec is laid out as GDS_cd_range_t");

namespace {

thread_local GDS_status_t t_last = GDS_STATUS_OK;

int done(GDS_status_t s) {
  t_last = s;
  return s == GDS_STATUS_OK ? 0 : FAILURE;
}

const GDS_cd_range_t *as_ranges(const cd_addrspec *a) { return reinterpret_cast<const GDS_cd_range_t *>(a); }

// The document's regeneration functions take the ranges they were added with.
int call_seed_regen(const GDS_cd_range_t ranges[], int count, void *context) {
  auto fn = reinterpret_cast<int (*)(cd_addrspec[], int)>(context);
  std::vector<cd_addrspec> copy(reinterpret_cast<const cd_addrspec *>(ranges),
                                reinterpret_cast<const cd_addrspec *>(ranges) + count);
  return fn(copy.data(), count);
}

// The log calls of the interposition layer, under the CD lock.
GDS_status_t log_add(const char *func, cd_handle cd, void *logent, int loglen) {
  std::lock_guard lock(g_mutex);
  std::shared_ptr<Domain> d;
  GDS_TRY(resolve(func, cd, &d));
  GDS_CHECK(logent != nullptr, GDS_STATUS_NULL_ARGUMENT, "logent is NULL");
  GDS_CHECK(loglen > 0, GDS_STATUS_INVALID, "loglen is %d", loglen);
  GDS_CHECK(d->logging, GDS_STATUS_CD_STATE, "%s does not log messages (COMM_LOGGING_DISABLED)",
            d->describe().c_str());
  GDS_CHECK(!d->replaying, GDS_STATUS_CD_STATE, "%s is replaying its log: entries are read, not added",
            d->describe().c_str());
  d->log.push_back(LogEntry{logent, loglen});
  return GDS_STATUS_OK;
}

}  // namespace

extern "C" {

GDS_API GDS_status_t GDS_cd_last_status(void) try { return t_last; } GDS_API_CATCH

GDS_API cd_handle create_cd(cd_handle parent_cd, const char *storage_info, enum comm_log log_mpi_traffic,
                            const char *name, int *error) {
  cd_handle cd = GDS_CD_NULL;
  const int r = done(GDS_cd_create(parent_cd, MPI_COMM_SELF, name, storage_info,
                                   static_cast<GDS_cd_logging_t>(log_mpi_traffic), &cd));
  if (error != nullptr) *error = r;
  return cd;
}
GDS_API cd_handle create_cd_without_error(cd_handle parent_cd, const char *storage_info,
                                          enum comm_log log_mpi_traffic) {
  return create_cd(parent_cd, storage_info, log_mpi_traffic, nullptr, nullptr);
}
GDS_API cd_handle create_cd_name_first(cd_handle parent_cd, const char *storage_info, const char *name,
                                       enum comm_log log_mpi_traffic) {
  return create_cd(parent_cd, storage_info, log_mpi_traffic, name, nullptr);
}

GDS_API int commit_cd(cd_handle cd) { return done(GDS_cd_commit(&cd)); }
GDS_API int restore_cd(cd_handle cd) { return done(GDS_cd_restore(cd)); }
GDS_API int advance_cd_point_in_time(cd_handle cd) { return done(GDS_cd_advance(cd)); }

GDS_API int add_to_cd_via_copy_with_storage(cd_handle cd, struct cd_addrspec addrlist[], int ascount,
                                            const char *storage_info) try {
  return done(preserve("add_to_cd_via_copy", cd, GDS_CD_VIA_COPY, as_ranges(addrlist), ascount, nullptr, nullptr,
                       storage_info));
} catch (...) {
  return done(gds::core::exception_status("add_to_cd_via_copy"));
}
GDS_API int add_to_cd_via_parent_with_storage(cd_handle cd, struct cd_addrspec addrlist[], int ascount,
                                              const char *storage_info) try {
  return done(preserve("add_to_cd_via_parent", cd, GDS_CD_VIA_PARENT, as_ranges(addrlist), ascount, nullptr,
                       nullptr, storage_info));
} catch (...) {
  return done(gds::core::exception_status("add_to_cd_via_parent"));
}
GDS_API int add_to_cd_via_regen_with_storage(cd_handle cd, struct cd_addrspec addrlist[], int ascount,
                                             const char *storage_info,
                                             int (*regen)(struct cd_addrspec addrlist[], int ascount)) try {
  return done(preserve("add_to_cd_via_regen", cd, GDS_CD_VIA_REGEN, as_ranges(addrlist), ascount,
                       regen != nullptr ? call_seed_regen : nullptr, reinterpret_cast<void *>(regen), storage_info));
} catch (...) {
  return done(gds::core::exception_status("add_to_cd_via_regen"));
}
GDS_API int add_to_cd_via_copy(cd_handle cd, struct cd_addrspec addrlist[], int ascount) {
  return add_to_cd_via_copy_with_storage(cd, addrlist, ascount, nullptr);
}
GDS_API int add_to_cd_via_parent(cd_handle cd, struct cd_addrspec addrlist[], int ascount) {
  return add_to_cd_via_parent_with_storage(cd, addrlist, ascount, nullptr);
}
GDS_API int add_to_cd_via_regen(cd_handle cd, struct cd_addrspec addrlist[], int ascount,
                                int (*regen)(struct cd_addrspec addrlist[], int ascount)) {
  return add_to_cd_via_regen_with_storage(cd, addrlist, ascount, nullptr, regen);
}
GDS_API int add_file_to_cd(cd_handle cd, int filedes) { return done(GDS_cd_preserve_file(cd, filedes)); }
GDS_API int delete_file_from_cd(cd_handle cd, int filedes) { return done(GDS_cd_delete_file(cd, filedes)); }
GDS_API int delete_from_cd(cd_handle cd, struct cd_addrspec addrlist[], int ascount) {
  return done(GDS_cd_delete(cd, as_ranges(addrlist), ascount));
}

GDS_API int add_MPI_log_to_cd(cd_handle cd, void *logent, int loglen) try {
  if (!gds::core::g_rt.initialized) return done(gds::core::entry_refused(__func__));
  return done(log_add(__func__, cd, logent, loglen));
} catch (...) {
  return done(gds::core::exception_status(__func__));
}

GDS_API void *get_MPI_log_from_cd(cd_handle cd, int *error) try {
  const auto get = [&](void **out) -> GDS_status_t {
    const char *func = "get_MPI_log_from_cd";
    if (!gds::core::g_rt.initialized) return gds::core::entry_refused(func);
    std::lock_guard lock(g_mutex);
    std::shared_ptr<Domain> d;
    GDS_TRY(resolve(func, cd, &d));
    if (d->log_cursor < d->log.size()) {
      *out = d->log[d->log_cursor++].data;
    } else {
      d->replaying = false;  // the log is consumed: re-execution is live again
    }
    return GDS_STATUS_OK;
  };
  void *entry = nullptr;
  const int r = done(get(&entry));
  if (error != nullptr) *error = r;
  return entry;
} catch (...) {
  const int r = done(gds::core::exception_status(__func__));
  if (error != nullptr) *error = r;
  return nullptr;
}

GDS_API int delete_MPI_log_from_cd(cd_handle cd) try {
  const auto del = [&]() -> GDS_status_t {
    const char *func = "delete_MPI_log_from_cd";
    if (!gds::core::g_rt.initialized) return gds::core::entry_refused(func);
    std::lock_guard lock(g_mutex);
    std::shared_ptr<Domain> d;
    GDS_TRY(resolve(func, cd, &d));
    for (LogEntry &e : d->log) std::free(e.data);
    d->log.clear();
    d->log_cursor = 0;
    d->replaying = false;
    return GDS_STATUS_OK;
  };
  return done(del());
} catch (...) {
  return done(gds::core::exception_status(__func__));
}

}  // extern "C"
