// GDS_status_string: one line per status, for people.
#include "gds_types.h"

extern "C" GDS_API const char *GDS_status_string(GDS_status_t status) {
  switch (status) {
    case GDS_STATUS_OK: return "success";
    case GDS_STATUS_RANGE: return "index or box outside the array";
    case GDS_STATUS_INVALID: return "invalid argument value";
    case GDS_STATUS_NOT_INITIALIZED: return "GDS is not initialized (call GDS_init first)";
    case GDS_STATUS_ALREADY_INITIALIZED: return "GDS is already initialized";
    case GDS_STATUS_NULL_ARGUMENT: return "a required pointer argument is NULL";
    case GDS_STATUS_NULL_HANDLE: return "null handle";
    case GDS_STATUS_FREED_HANDLE: return "handle has been freed";
    case GDS_STATUS_INVALID_HANDLE: return "not a valid handle of the required kind";
    case GDS_STATUS_INVALID_NDIMS: return "invalid number of dimensions";
    case GDS_STATUS_INVALID_COUNT: return "invalid extent (zero, or the size overflows)";
    case GDS_STATUS_INVALID_BOX: return "invalid box (lo > hi)";
    case GDS_STATUS_INVALID_LD: return "leading dimension smaller than the box";
    case GDS_STATUS_INVALID_TYPE: return "unsupported element datatype";
    case GDS_STATUS_INVALID_OP: return "unsupported operation (op)";
    case GDS_STATUS_TYPE_MISMATCH: return "operation not defined for the element type";
    case GDS_STATUS_INVALID_COMM: return "invalid communicator";
    case GDS_STATUS_INVALID_INFO: return "invalid info object or hint value";
    case GDS_STATUS_INVALID_ATTR: return "unknown attribute key";
    case GDS_STATUS_INVALID_MAPPING: return "mapping function failed or is inconsistent";
    case GDS_STATUS_NOT_LOCAL: return "data is not stored on the calling process";
    case GDS_STATUS_ACCESS_CONFLICT: return "box overlaps a region open by GDS_access";
    case GDS_STATUS_BUFFER_OVERLAP: return "buffers that must be disjoint overlap";
    case GDS_STATUS_COLLECTIVE_MISMATCH: return "processes passed different arguments to a collective call";
    case GDS_STATUS_REMOTE_ERROR: return "another process failed this collective call";
    case GDS_STATUS_WRONG_THREAD: return "called from a thread the thread level does not allow";
    case GDS_STATUS_NOMEM: return "out of memory";
    case GDS_STATUS_MPI_ERROR: return "the MPI library reported an error";
    case GDS_STATUS_NOT_CURRENT: return "the handle is at an old version; only the current version can be written";
    case GDS_STATUS_NO_VERSION: return "no such version";
    case GDS_STATUS_VERSION_DROPPED: return "the version was dropped by retention";
    case GDS_STATUS_INTERNAL: return "internal GDS error (please report it)";
    case GDS_STATUS_INVALID_ERROR_KEY: return "not a defined error attribute key";
    case GDS_STATUS_INVALID_ATTR_VALUE: return "error attribute value of the wrong size for its type, or a bad range";
    case GDS_STATUS_ERROR_KEY_CONFLICT: return "error attribute name already defined with another value type";
    case GDS_STATUS_UNHANDLED_ERROR: return "no registered error handler matches the error";
    case GDS_STATUS_AMBIGUOUS_HANDLER: return "several error handlers match the error equally well";
    case GDS_STATUS_RECOVERY_FAILED: return "an error handler failed or did not resume";
    case GDS_STATUS_NOT_IN_HANDLER: return "not inside the handler of this error";
    case GDS_STATUS_ERROR_FOUND: return "an error check found an error";
    case GDS_STATUS_CHECK_FAILED: return "an error check function failed";
    case GDS_STATUS_DESCRIPTOR_IN_USE: return "the error descriptor is being handled";
    case GDS_STATUS_MPI_BUG: return "the MPI library computes this operation wrongly; GDS refuses it";
    case GDS_STATUS_IO_ERROR: return "a file operation of a persistent level failed";
    case GDS_STATUS_CORRUPT: return "stored version data failed its checksum or checks";
    case GDS_STATUS_UNRECOVERABLE: return "persisted versions were lost beyond what their redundancy rebuilds";
    case GDS_STATUS_CD_STATE: return "the containment domain cannot do this in its present state";
    case GDS_STATUS_NOT_PRESERVED: return "the range is not preserved in the containment domain the call needs";
    case GDS_STATUS_NOT_CONTAINED: return "the containment domain changed state that no enclosing domain covers";
  }
  return "unknown GDS status";
}
