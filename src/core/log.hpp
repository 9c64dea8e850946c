// Messages to stderr and the record of the last failed call.
//
// Every line reads "GDS <version> <LEVEL>: rank N: <function>: <text>", printed
// with one write so lines from different processes do not interleave.
#pragma once

#include <cstdarg>

#include "gds_types.h"

namespace gds::core {

// notice: what a user must hear of at every debug level although nothing
// failed (one line per restart, on one process).
enum class Level { error, warning, notice, info, debug };

// Prints a message (whatever the debug level: callers decide).
void log(Level level, const char *func, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

// Prints a message if GDS_DEBUG_LEVEL >= 2.
#define GDS_DEBUG(...)                                                 \
  do {                                                                 \
    if (::gds::core::debug_level() >= 2) [[unlikely]]                  \
      ::gds::core::log(::gds::core::Level::debug, __func__, __VA_ARGS__); \
  } while (0)

int debug_level();

// A call failed because of its arguments or the program's state: records the
// message for GDS_last_error_message(), prints it at GDS_DEBUG_LEVEL >= 1 and
// returns the status.
GDS_status_t fail(GDS_status_t status, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

// A call failed because the system did (MPI, memory, a GDS bug): as fail(),
// but always printed.
GDS_status_t fail_critical(GDS_status_t status, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

// The status for the exception being handled (called in a catch block):
// GDS_STATUS_NOMEM for exhausted memory or a size no allocation can have,
// GDS_STATUS_INTERNAL for anything else; always reported.
GDS_status_t exception_status(const char *func) noexcept;

// An MPI call returned rc != MPI_SUCCESS: GDS_STATUS_MPI_ERROR with MPI's text.
GDS_status_t mpi_fail(const char *func, const char *mpi_call, int rc);
// The MPI error class of the last mpi_fail (for the errors GDS raises itself).
int last_mpi_error_class();
// Keeps rc's class as the last one (a failure reported in words of its own).
void note_mpi_error(int rc);

}  // namespace gds::core

// Ends the function-try-block of every C entry point
//   GDS_API GDS_status_t GDS_x(...) try { ... } GDS_API_CATCH
// so that no exception crosses the C API (tests/check_api_guard.py checks it).
#define GDS_API_CATCH \
  catch (...) {       \
    return ::gds::core::exception_status(__func__); \
  }

// Returns from the calling function with the status of `expr` if it is not OK.
#define GDS_TRY(expr)                                     \
  do {                                                    \
    GDS_status_t gds_try_status_ = (expr);                \
    if (gds_try_status_ != GDS_STATUS_OK) [[unlikely]]    \
      return gds_try_status_;                             \
  } while (0)

// Argument check in an entry point: returns fail(status, __func__, ...)
// unless `cond` holds.
#define GDS_REQUIRE(cond, status, ...)                              \
  do {                                                              \
    if (!(cond)) [[unlikely]]                                       \
      return ::gds::core::fail((status), __func__, __VA_ARGS__);    \
  } while (0)

// The same in a helper that received the entry point's name as `func`.
#define GDS_CHECK(cond, status, ...)                                \
  do {                                                              \
    if (!(cond)) [[unlikely]]                                       \
      return ::gds::core::fail((status), func, __VA_ARGS__);        \
  } while (0)

// An MPI call inside an entry point: returns GDS_STATUS_MPI_ERROR on failure.
#define GDS_MPI(call)                                                       \
  do {                                                                      \
    int gds_mpi_rc_ = (call);                                               \
    if (gds_mpi_rc_ != MPI_SUCCESS) [[unlikely]]                            \
      return ::gds::core::mpi_fail(__func__, #call, gds_mpi_rc_);           \
  } while (0)
