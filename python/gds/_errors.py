"""GDS statuses as Python exceptions: gds.Error and one subclass per status.

Every failed call raises the subclass of its GDS_status_t, carrying GDS's
message (what GDS_last_error_message() says) and the status number. Where a
Python built-in exception means the same, the class derives from it too, so
`except IndexError` catches a box outside the array (RangeError) and `except
TypeError` a wrong dtype (InvalidTypeError).
"""
from __future__ import annotations

from typing import Dict, Type


class Error(Exception):
    """A failed GDS call. `status` is its GDS_status_t (an int), `message` GDS's message."""

    status: int = -1

    def __init__(self, message: str = "", status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status

    def __str__(self) -> str:
        return self.message


class RangeError(Error, IndexError):
    """GDS_STATUS_RANGE: An index or box lies outside the array."""

    status = 1


class InvalidError(Error, ValueError):
    """GDS_STATUS_INVALID: An argument value is invalid (no more specific status applies)."""

    status = 2


class NotInitializedError(Error):
    """GDS_STATUS_NOT_INITIALIZED: GDS_init() has not been called, or GDS_finalize() has."""

    status = 3


class AlreadyInitializedError(Error):
    """GDS_STATUS_ALREADY_INITIALIZED: GDS_init() called twice."""

    status = 4


class NullArgumentError(Error, ValueError):
    """GDS_STATUS_NULL_ARGUMENT: A required pointer argument is NULL."""

    status = 5


class NullHandleError(Error):
    """GDS_STATUS_NULL_HANDLE: A handle argument is a null handle."""

    status = 6


class FreedHandleError(Error):
    """GDS_STATUS_FREED_HANDLE: A handle that has been freed (or whose array has)."""

    status = 7


class InvalidHandleError(Error):
    """GDS_STATUS_INVALID_HANDLE: Not a handle of the kind the argument needs."""

    status = 8


class InvalidNdimsError(Error, ValueError):
    """GDS_STATUS_INVALID_NDIMS: Number of dimensions is zero or too large."""

    status = 9


class InvalidCountError(Error, ValueError):
    """GDS_STATUS_INVALID_COUNT: An extent is zero, or the size overflows."""

    status = 10


class InvalidBoxError(Error, ValueError):
    """GDS_STATUS_INVALID_BOX: Lo[d] > hi[d]."""

    status = 11


class InvalidLdError(Error, ValueError):
    """GDS_STATUS_INVALID_LD: A leading dimension is smaller than the box."""

    status = 12


class InvalidTypeError(Error, TypeError):
    """GDS_STATUS_INVALID_TYPE: Not a supported element datatype."""

    status = 13


class InvalidOpError(Error, ValueError):
    """GDS_STATUS_INVALID_OP: Not a predefined MPI reduction op, MPI_REPLACE or MPI_NO_OP."""

    status = 14


class TypeMismatchError(Error, TypeError):
    """GDS_STATUS_TYPE_MISMATCH: Op or operation not defined for the element type."""

    status = 15


class InvalidCommError(Error, ValueError):
    """GDS_STATUS_INVALID_COMM: Null, invalid or inter-communicator."""

    status = 16


class InvalidInfoError(Error, ValueError):
    """GDS_STATUS_INVALID_INFO: Invalid info object, or bad value for a gds_* key."""

    status = 17


class InvalidAttrError(Error, ValueError):
    """GDS_STATUS_INVALID_ATTR: Unknown attribute key."""

    status = 18


class InvalidMappingError(Error, ValueError):
    """GDS_STATUS_INVALID_MAPPING: A GDS_create() mapping function failed or is inconsistent."""

    status = 19


class NotLocalError(Error):
    """GDS_STATUS_NOT_LOCAL: GDS_ACCESS_BUFFER_DIRECT on data not stored locally."""

    status = 20


class AccessConflictError(Error):
    """GDS_STATUS_ACCESS_CONFLICT: The box overlaps a region open by GDS_access()."""

    status = 21


class BufferOverlapError(Error):
    """GDS_STATUS_BUFFER_OVERLAP: Buffers that must be disjoint overlap."""

    status = 22


class CollectiveMismatchError(Error):
    """GDS_STATUS_COLLECTIVE_MISMATCH: Processes passed different arguments to a collective."""

    status = 23


class RemoteErrorError(Error):
    """GDS_STATUS_REMOTE_ERROR: Another process failed this collective call."""

    status = 24


class WrongThreadError(Error):
    """GDS_STATUS_WRONG_THREAD: Called from a thread the thread level does not allow."""

    status = 25


class NoMemoryError(Error, MemoryError):
    """GDS_STATUS_NOMEM: Out of memory."""

    status = 26


class MPIError(Error):
    """GDS_STATUS_MPI_ERROR: The MPI library reported an error."""

    status = 27


class NotCurrentError(Error):
    """GDS_STATUS_NOT_CURRENT: A write or GDS_access through a handle at an old version."""

    status = 28


class NoVersionError(Error):
    """GDS_STATUS_NO_VERSION: No such version (navigation past either end, a skipped number)."""

    status = 29


class VersionDroppedError(Error):
    """GDS_STATUS_VERSION_DROPPED: The version was dropped by retention."""

    status = 30


class InternalError(Error):
    """GDS_STATUS_INTERNAL: A GDS bug: please report it."""

    status = 31


class InvalidErrorKeyError(Error, ValueError):
    """GDS_STATUS_INVALID_ERROR_KEY: Not a defined error attribute key."""

    status = 32


class InvalidAttrValueError(Error, ValueError):
    """GDS_STATUS_INVALID_ATTR_VALUE: An error attribute value of the wrong size for its type, or a bad range."""

    status = 33


class ErrorKeyConflictError(Error):
    """GDS_STATUS_ERROR_KEY_CONFLICT: An error attribute name already defined with another value type."""

    status = 34


class UnhandledError(Error):
    """GDS_STATUS_UNHANDLED_ERROR: An error was delivered and no registered handler matches it."""

    status = 35


class AmbiguousHandlerError(Error):
    """GDS_STATUS_AMBIGUOUS_HANDLER: Several handlers match an error equally well."""

    status = 36


class RecoveryFailedError(Error):
    """GDS_STATUS_RECOVERY_FAILED: A handler failed or returned without GDS_resume_local/global."""

    status = 37


class NotInHandlerError(Error):
    """GDS_STATUS_NOT_IN_HANDLER: GDS_resume_* outside the handler of that error."""

    status = 38


class ErrorFoundError(Error):
    """GDS_STATUS_ERROR_FOUND: An error check found an error."""

    status = 39


class CheckFailedError(Error):
    """GDS_STATUS_CHECK_FAILED: An error check function returned a failure status."""

    status = 40


class DescriptorInUseError(Error):
    """GDS_STATUS_DESCRIPTOR_IN_USE: The error descriptor is being handled (GDS_resume_* frees it)."""

    status = 41


class MPIBugError(Error):
    """GDS_STATUS_MPI_BUG: The MPI library computes this operation wrongly and GDS could not work around it; refused rather
    than answered wrongly."""

    status = 42


class FileError(Error, OSError):
    """GDS_STATUS_IO_ERROR: A file operation of a persistent level failed (unwritable directory, full disk, ...)."""

    status = 43


class CorruptError(Error):
    """GDS_STATUS_CORRUPT: Stored version data or a file failed its checksum or checks."""

    status = 44


class UnrecoverableError(Error):
    """GDS_STATUS_UNRECOVERABLE: Persisted versions were lost beyond what their redundancy rebuilds."""

    status = 45


class CDStateError(Error):
    """GDS_STATUS_CD_STATE: The containment domain cannot do this now: it has uncommitted children (commit, advance), it has no
    parent (via parent), or it is replaying."""

    status = 46


class NotPreservedError(Error):
    """GDS_STATUS_NOT_PRESERVED: The range is not preserved where the call needs it (delete from a CD, preserve via parent)."""

    status = 47


class NotContainedError(Error):
    """GDS_STATUS_NOT_CONTAINED: A containment domain changed state that no enclosing domain covers: one-sided writes to other
    processes, or a collective in a logged per-process domain."""

    status = 48


class ArgumentError(InvalidError, TypeError):
    """GDS_STATUS_INVALID, raised in Python before any C call: an argument of the wrong type, or
    one the C call's type cannot hold (a negative count or version, a number past 2**64 - 1).
    Both `except TypeError` and `except ValueError` catch it."""

    status = 2


#: Status number -> exception class.
BY_STATUS: Dict[int, Type[Error]] = {
    1: RangeError,
    2: InvalidError,
    3: NotInitializedError,
    4: AlreadyInitializedError,
    5: NullArgumentError,
    6: NullHandleError,
    7: FreedHandleError,
    8: InvalidHandleError,
    9: InvalidNdimsError,
    10: InvalidCountError,
    11: InvalidBoxError,
    12: InvalidLdError,
    13: InvalidTypeError,
    14: InvalidOpError,
    15: TypeMismatchError,
    16: InvalidCommError,
    17: InvalidInfoError,
    18: InvalidAttrError,
    19: InvalidMappingError,
    20: NotLocalError,
    21: AccessConflictError,
    22: BufferOverlapError,
    23: CollectiveMismatchError,
    24: RemoteErrorError,
    25: WrongThreadError,
    26: NoMemoryError,
    27: MPIError,
    28: NotCurrentError,
    29: NoVersionError,
    30: VersionDroppedError,
    31: InternalError,
    32: InvalidErrorKeyError,
    33: InvalidAttrValueError,
    34: ErrorKeyConflictError,
    35: UnhandledError,
    36: AmbiguousHandlerError,
    37: RecoveryFailedError,
    38: NotInHandlerError,
    39: ErrorFoundError,
    40: CheckFailedError,
    41: DescriptorInUseError,
    42: MPIBugError,
    43: FileError,
    44: CorruptError,
    45: UnrecoverableError,
    46: CDStateError,
    47: NotPreservedError,
    48: NotContainedError,
}


def make_error(status: int, message: str) -> Error:
    """The exception of `status` with `message` (the C extension raises what this returns)."""
    return BY_STATUS.get(status, Error)(message, status)
