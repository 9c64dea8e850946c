"""Open Resilience and containment domains for the gds package.

Error descriptors are sets of typed attributes; predicates select handlers;
handlers and checks are Python callables. A handler's or check's exception is
carried across GDS's C frames and raised again from the call that delivered
the error (gds.Error statuses of the call come second: the handler's exception
is why it failed).
"""
from __future__ import annotations

import struct
from enum import IntEnum
from typing import Any, Callable, Dict, List, Mapping, Optional, Union

import numpy as np

from . import _gds
from ._core import Array, array_of
from ._calls import fresh
from ._errors import ArgumentError, Error, InvalidAttrValueError, InvalidError, RecoveryFailedError


class ValueType(IntEnum):
    """Value types of error attributes (GDS_EAVTYPE_*)."""

    BYTE = 1
    INT = 2
    FLOAT = 3
    BYTE_ARRAY = 4
    INT_ARRAY = 5
    FLOAT_ARRAY = 6
    MPIOBJ = 7
    MPIOBJ_ARRAY = 8


class Attr(IntEnum):
    """The predefined error attribute keys (GDS_EATTR_*), with their value types in the C reference."""

    MEMORY_VADDR = 1
    MEMORY_SIZE = 2
    MEMORY_AFFECTED_SIZE = 3
    MEMORY_N_RANGES = 4
    MEMORY_DATA = 5
    MEMORY_CHECK_BITS = 6
    MEMORY_LOCATION_REUSABLE = 7
    APP = 8
    DETECTED_BY = 9
    GDS_INDEX = 10
    GDS_COUNT = 11
    GDS_AFFECTED_COUNT = 12
    GDS_VERSION = 13
    GDS_LATENCY = 14
    LOST_PROCESSES = 15
    LOST_COMMUNICATOR = 16
    REPLACED_COMMUNICATOR = 17
    LOST_COMPUTATION = 18
    MPI_RANK_UNRESPONSIVE = 19
    GDS_STATUS = 20
    GDS_FUNCTION = 21
    MPI_ERROR_CLASS = 22
    GDS_PROCESS = 23
    GDS_FILE = 24


def define_error_key(name: str, value_type: Union[ValueType, str]) -> int:
    """GDS_define_error_attr_key(): a new key (or the one of that name). Collective over
    MPI.COMM_WORLD. value_type a ValueType or its name ('int', 'float', 'byte_array', ...)."""
    if isinstance(value_type, str):
        try:
            value_type = ValueType[value_type.upper()]
        except KeyError:
            raise InvalidError(f"gds.define_error_key: unknown value type {value_type!r}", 2) from None
    return _gds.define_error_key(str(name), int(value_type))


def _key_type(key: int) -> ValueType:
    return ValueType(_gds.error_key_info(int(key))[0])


def _encode(key: int, value: Any) -> bytes:
    """The bytes of `value` as key's type (ints as int64, floats as double, text as UTF-8)."""
    t = _key_type(key)
    try:
        if t is ValueType.INT:
            return struct.pack("=q", int(value))
        if t is ValueType.FLOAT:
            return struct.pack("=d", float(value))
        if t is ValueType.BYTE:
            return struct.pack("=B", int(value))
        if t is ValueType.BYTE_ARRAY:
            return value.encode() if isinstance(value, str) else bytes(value)
        if t is ValueType.INT_ARRAY:
            return np.asarray(value, dtype=np.int64).reshape(-1).tobytes()
        if t is ValueType.FLOAT_ARRAY:
            return np.asarray(value, dtype=np.float64).reshape(-1).tobytes()
        return bytes(value)  # MPI handles: their bytes, as the C API takes them
    except (TypeError, ValueError, OverflowError, struct.error) as e:
        raise InvalidAttrValueError(f"gds: value {value!r} does not fit key {key} ({t.name}): {e}", 33) from None


def _decode(key: int, raw: bytes) -> Any:
    t = _key_type(key)
    if t is ValueType.INT:
        return struct.unpack("=q", raw)[0]
    if t is ValueType.FLOAT:
        return struct.unpack("=d", raw)[0]
    if t is ValueType.BYTE:
        return raw[0]
    if t is ValueType.BYTE_ARRAY:
        try:
            return raw.decode()
        except UnicodeDecodeError:
            return raw
    if t is ValueType.INT_ARRAY:
        return np.frombuffer(raw, dtype=np.int64).tolist()
    if t is ValueType.FLOAT_ARRAY:
        return np.frombuffer(raw, dtype=np.float64).tolist()
    return raw


class ErrorDescriptor:
    """An error to raise: attributes set from a dict or one by one, converted to each key's
    type: `gds.ErrorDescriptor({gds.Attr.APP: "bad value", key: 3})`. Raising hands it to GDS."""

    def __init__(self, attributes: Optional[Mapping[int, Any]] = None) -> None:
        self.handle: Optional[int] = _gds.create_error_descriptor()
        for k, v in (attributes or {}).items():
            self.set(k, v)

    def set(self, key: int, value: Any) -> "ErrorDescriptor":
        """GDS_add_error_attr(): sets `key` to `value`; returns the descriptor."""
        _gds.add_error_attr(self._live(), int(key), _encode(key, value))
        return self

    def get(self, key: int, default: Any = None) -> Any:
        """The value of `key`, or `default` if absent."""
        raw = _gds.get_error_attr(self._live(), int(key))
        return default if raw is None else _decode(key, raw)

    def _live(self) -> int:
        if self.handle is None:
            raise InvalidError("gds.ErrorDescriptor: already raised (GDS owns it now)", 2)
        return self.handle

    def _give(self) -> int:
        h = self._live()
        self.handle = None
        return h

    def __del__(self) -> None:
        if self.handle is not None and _gds.initialized():
            try:
                _gds.free_error_descriptor(self.handle)
            except Error:
                pass


Descriptor = Union[ErrorDescriptor, Mapping[int, Any]]


def _descriptor(d: Descriptor) -> ErrorDescriptor:
    return d if isinstance(d, ErrorDescriptor) else ErrorDescriptor(d)


class Predicate:
    """Which errors a handler takes: terms all of which must hold, built by chaining:
    `gds.Predicate().any(k1).value(k2, 3).range(k3, 0.0, 1.0).absent(k4)`. The handler
    whose predicate fits best is called: most terms, then most VALUE, then most RANGE."""

    def __init__(self) -> None:
        self.handle = _gds.create_error_pred()

    def _term(self, key: int, expr: int, values: bytes) -> "Predicate":
        _gds.add_error_pred_term(self.handle, int(key), expr, values)
        return self

    def any(self, key: int) -> "Predicate":
        """The key is present, any value (GDS_EMEXP_ANY)."""
        return self._term(key, 1, b"")

    def value(self, key: int, value: Any) -> "Predicate":
        """The key has this value (GDS_EMEXP_VALUE)."""
        return self._term(key, 2, _encode(key, value))

    def range(self, key: int, low: Any, high: Any) -> "Predicate":
        """low <= the key's value <= high (GDS_EMEXP_RANGE; arrays element-wise)."""
        return self._term(key, 3, _encode(key, low) + _encode(key, high))

    def absent(self, key: int) -> "Predicate":
        """The key is absent (GDS_EMEXP_NOT)."""
        return self._term(key, 4, b"")

    def __del__(self) -> None:
        if _gds.initialized():
            try:
                _gds.free_error_pred(self.handle)
            except Error:
                pass


class RaisedError:
    """What a handler gets: the error's attributes, the Array it was raised on (None for
    GDS_ROOT), and resume(), which ends the recovery. A handler that returns without
    resuming has failed (RecoveryFailedError from the call that delivered the error)."""

    def __init__(self, where: int, handle: int, is_global: bool, cd: Optional["CD"] = None) -> None:
        self.where = where  #: the array's handle, or gds ROOT
        self.handle = handle  #: the descriptor (GDS_error_t as an int)
        self.is_global = is_global  #: whether the error is global
        self.cd = cd  #: the CD whose handler this is (CD handlers only)

    @property
    def array(self) -> Optional[Array]:
        """The Array the error concerns (None: GDS_ROOT)."""
        return array_of(self.where)

    def get(self, key: int, default: Any = None) -> Any:
        """The value of attribute `key`, or `default`."""
        raw = _gds.get_error_attr(self.handle, int(key))
        return default if raw is None else _decode(key, raw)

    def has(self, key: int) -> bool:
        """Whether the error has attribute `key`."""
        return _gds.get_error_attr(self.handle, int(key)) is not None

    def resume(self) -> None:
        """GDS_resume_local()/GDS_resume_global(): recovery is done; the descriptor is freed."""
        _gds.resume(self.where, self.handle, self.is_global)

    def escalate(self) -> None:
        """From a CD's handler: the error goes on to the enclosing CDs (GDS_cd_escalate())."""
        _gds.cd_escalate(self.handle)

    def __repr__(self) -> str:
        kind = "global" if self.is_global else "local"
        return f"<gds.RaisedError {kind} on {self.array!r} app={self.get(Attr.APP)!r}>"


Handler = Callable[[RaisedError], Optional[int]]


def _predicate(pred: Any) -> "Predicate":
    if not isinstance(pred, Predicate):
        raise ArgumentError(f"gds: pred must be a gds.Predicate, not {type(pred).__name__}")
    return pred


def _register(where: int, pred: Predicate, fn: Optional[Handler], is_global: bool) -> Any:
    pred = _predicate(pred)

    def register(f: Handler) -> Handler:
        if not callable(f):
            raise InvalidError(f"gds: a handler must be callable, not {type(f).__name__}", 2)
        _gds.register_handler(where, pred.handle, fresh(lambda g, e: f(RaisedError(g, e, is_global))), is_global)
        return f

    return register if fn is None else register(fn)


def _register_check(where: int, fn: Callable[..., Optional[int]], priority: str, is_global: bool) -> None:
    from ._core import PRIORITIES

    if not callable(fn):
        raise InvalidError(f"gds: a check must be callable, not {type(fn).__name__}", 2)
    if priority not in PRIORITIES:
        raise InvalidError(f"gds: check priority must be high, medium or low, not {priority!r}", 2)

    def call(g: int, p: int) -> Optional[int]:
        return fn(array_of(g), {v: k for k, v in PRIORITIES.items()}[p])

    _gds.register_check(where, fresh(call), PRIORITIES[priority], is_global)


# Open Resilience on arrays: methods added to Array, and the same at GDS_ROOT as functions.
def _on_local_error(self: Array, pred: Predicate, fn: Optional[Handler] = None) -> Any:
    """Registers fn(err: RaisedError) for local errors on this array that `pred` fits (local).
    Without fn, a decorator. fn resumes (err.resume()) or fails; what it raises is raised
    again from the call that delivered the error."""
    return _register(self.handle, pred, fn, False)


def _on_global_error(self: Array, pred: Predicate, fn: Optional[Handler] = None) -> Any:
    """As on_local_error, for global errors (collective: every process registers one)."""
    return _register(self.handle, pred, fn, True)


def _add_local_check(self: Array, fn: Callable[..., Optional[int]], priority: str = "high") -> None:
    """Registers fn(array, priority) as a local check: it raises errors it finds (local)."""
    _register_check(self.handle, fn, priority, False)


def _add_global_check(self: Array, fn: Callable[..., Optional[int]], priority: str = "high") -> None:
    """Registers fn(array, priority) as a global check (collective)."""
    _register_check(self.handle, fn, priority, True)


def _raise_local(self: Array, error: Descriptor) -> None:
    """GDS_raise_local_error(): delivered at this process's next call on the array."""
    _gds.raise_error(self.handle, _descriptor(error)._give(), False)


def _raise_global(self: Array, error: Descriptor) -> None:
    """GDS_raise_global_error(): delivered on every process at the next stable point."""
    _gds.raise_error(self.handle, _descriptor(error)._give(), True)


def _check_all_errors(self: Array) -> None:
    """GDS_check_all_errors() (collective): runs every check and delivers what they find."""
    _gds.check_all_errors(self.handle)


def _local_error_found(self: Array) -> bool:
    """GDS_check_local_error(): whether the local checks find an error (nothing queued)."""
    return _gds.check_error(self.handle, False)


def _global_error_found(self: Array) -> bool:
    """GDS_check_global_error() (collective)."""
    return _gds.check_error(self.handle, True)


def _invoke_local_error_handler(self: Array) -> None:
    """Delivers this process's pending local errors now."""
    _gds.invoke_local_error_handler(self.handle)


def _invoke_global_error_handler(self: Array) -> None:
    """A stable point: completes every operation and delivers global errors (collective)."""
    _gds.invoke_global_error_handler(self.handle)


for _f in (_on_local_error, _on_global_error, _add_local_check, _add_global_check, _raise_local, _raise_global,
           _check_all_errors, _local_error_found, _global_error_found, _invoke_local_error_handler,
           _invoke_global_error_handler):
    _f.__name__ = _f.__qualname__ = _f.__name__[1:]
    setattr(Array, _f.__name__, _f)


def on_local_error(pred: Predicate, fn: Optional[Handler] = None) -> Any:
    """A local handler on GDS_ROOT: errors no array handler takes."""
    return _register(_gds.ROOT, pred, fn, False)


def on_global_error(pred: Predicate, fn: Optional[Handler] = None) -> Any:
    """A global handler on GDS_ROOT (collective over MPI.COMM_WORLD)."""
    return _register(_gds.ROOT, pred, fn, True)


def raise_local(error: Descriptor) -> None:
    """A local error on GDS_ROOT, delivered at this process's next GDS call."""
    _gds.raise_error(_gds.ROOT, _descriptor(error)._give(), False)


def raise_global(error: Descriptor) -> None:
    """A global error on GDS_ROOT, delivered at the next gds.fence() or invoke."""
    _gds.raise_error(_gds.ROOT, _descriptor(error)._give(), True)


def invoke_local_error_handler() -> None:
    """Delivers this process's pending local errors on GDS_ROOT now."""
    _gds.invoke_local_error_handler(_gds.ROOT)


def invoke_global_error_handler() -> None:
    """A stable point on GDS_ROOT (collective over MPI.COMM_WORLD)."""
    _gds.invoke_global_error_handler(_gds.ROOT)


def check_all_errors() -> None:
    """Every check on GDS_ROOT, and delivery of what they find (collective)."""
    _gds.check_all_errors(_gds.ROOT)


# ---- containment domains ----------------------------------------------------------------

_VIA = {"copy": 0, "parent": 1}
_ACCESS = {"ro": 0, "read_only": 0, "rw": 1, "read_write": 1}
_SCOPE = {"global": 0, "constrained": 1}
_LOGGING = {None: 0, False: 0, True: 1, "disabled": 0, "enabled": 1, "inherit": 2}
# Preserved NumPy arrays, per live CD handle: GDS keeps their addresses.
_kept: Dict[int, List[Any]] = {}


def _choice(table: Mapping[Any, int], value: Any, what: str) -> int:
    try:
        return table[value]
    except (KeyError, TypeError):
        raise InvalidError(f"gds.cd: {what} must be one of {[k for k in table if k is not None]}, not {value!r}", 2) from None


class CD:
    """A containment domain (GDS_cd_create()): a scope whose preserved state is restored
    when an error inside it is contained. Made by gds.cd(); a context manager that commits
    at the end of the block; run(body) re-executes the body after a restore."""

    def __init__(self, handle: int) -> None:
        self.handle: Optional[int] = handle  #: the GDS_cd_t as an int; None once committed
        _kept.setdefault(handle, [])

    def _live(self) -> int:
        if self.handle is None:
            raise InvalidError("gds.CD: the CD was committed", 2)
        return self.handle

    def child(self, comm: Any = None, logging: Any = "inherit") -> "CD":
        """A child CD over `comm` (None: MPI.COMM_SELF, per process), current on this thread."""
        return CD(_gds.cd_create(self._live(), comm, None, None, _choice(_LOGGING, logging, "logging")))

    def preserve(self, obj: Any, *, via: str = "copy", access: str = "rw", scope: str = "global",
                 lo: Optional[List[int]] = None, hi: Optional[List[int]] = None) -> None:
        """Preserves `obj`: a contiguous NumPy array (its bytes), a gds.Array (all of it, or the
        inclusive box [lo, hi]), or a file (a file object or descriptor: its position).
        via 'copy' or 'parent'; access 'rw' (advance refreshes it) or 'ro'; scope 'global'
        (handed to the parent at commit) or 'constrained'."""
        h = self._live()
        v, a = _choice(_VIA, via, "via"), _choice(_ACCESS, access, "access")
        if isinstance(obj, Array):
            if lo is None and hi is None:
                lo, hi = [0] * obj.ndim, [n - 1 for n in obj.shape]
            _gds.cd_preserve_box(h, v, obj.handle, [int(i) for i in lo], [int(i) for i in hi], a)
        elif isinstance(obj, np.ndarray):
            _gds.cd_preserve(h, v, obj, a, _choice(_SCOPE, scope, "scope"))
            _kept[h].append(obj)
        elif isinstance(obj, int) or hasattr(obj, "fileno"):
            if hasattr(obj, "flush"):
                obj.flush()
            _gds.cd_preserve_file(h, obj if isinstance(obj, int) else obj.fileno())
        else:
            raise InvalidError(f"gds.CD.preserve: cannot preserve a {type(obj).__name__} (a NumPy array, gds.Array "
                               "or file)", 2)

    def forget(self, obj: Any) -> None:
        """Stops preserving a NumPy array (GDS_cd_delete()) or a file."""
        h = self._live()
        if isinstance(obj, np.ndarray):
            _gds.cd_delete(h, obj)
        else:
            _gds.cd_delete_file(h, obj if isinstance(obj, int) else obj.fileno())

    def restore(self) -> None:
        """GDS_cd_restore(): the CD's point in time back (its descendants' entries first)."""
        _gds.cd_restore(self._live())

    def advance(self) -> None:
        """GDS_cd_advance(): the point in time moves to now (read-write entries refreshed)."""
        _gds.cd_advance(self._live())

    def restored(self) -> bool:
        """Whether the CD was restored since the last call (and clears it)."""
        return _gds.cd_restored(self._live())

    def commit(self) -> None:
        """GDS_cd_commit(): global entries go to the parent; the CD ends."""
        h = self._live()
        parent = _gds.cd_parent(h)
        _gds.cd_commit(h)
        self.handle = None
        kept = _kept.pop(h, [])
        if parent is not None:
            _kept.setdefault(parent, []).extend(kept)

    def on_error(self, pred: Predicate, fn: Optional[Handler] = None) -> Any:
        """Registers fn(err) for local errors raised while this CD (or a descendant) is
        current: it restores (err.cd.restore(), then err.resume()) or err.escalate()s."""

        pred = _predicate(pred)

        def register(f: Handler) -> Handler:
            cd = self

            def call(c: int, g: int, e: int) -> Optional[int]:
                return f(RaisedError(g, e, False, cd))

            _gds.cd_register_handler(self._live(), pred.handle, fresh(call))
            return f

        return register if fn is None else register(fn)

    def run(self, body: Callable[["CD"], Any], max_runs: int = 1000) -> Any:
        """Runs body(cd); while the CD was restored during a run (by a handler or the body),
        runs it again, at most max_runs times in all. A gds.Error from a run that was restored
        is why it was; anything else leaves."""
        for _ in range(max_runs):
            self.restored()
            try:
                result = body(self)
            except Error:
                if not self.restored():
                    raise
                continue
            if not self.restored():
                return result
        raise RecoveryFailedError(f"gds.CD.run: the body was restored and re-executed {max_runs} times", 37)

    @property
    def preserved_bytes(self) -> int:
        """Bytes the CD holds."""
        return _gds.cd_preserved_bytes(self._live())

    def inject_fault(self) -> None:
        """Flips a bit of the CD's preserved copy (GDS_cd_inject_fault(), for tests)."""
        _gds.cd_inject_fault(self._live())

    def __enter__(self) -> "CD":
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if self.handle is None:
            return
        try:
            self.commit()
        except Error as e:
            if exc is None:
                raise
            exc.add_note(f"then committing the CD failed: {e}") if hasattr(exc, "add_note") else None


def cd(name: Optional[str] = None, *, parent: Optional[CD] = None, comm: Any = None, storage: Optional[str] = None,
       logging: Any = None) -> CD:
    """GDS_cd_create(): a containment domain, current on this thread. Use as `with gds.cd(...)
    as c:` (committed at the end of the block).

    With `parent` a child of it; without parent, a child of this thread's current CD if there
    is one and no name is given, else a root CD named `name`. comm: the processes it spans (an
    mpi4py communicator; None is MPI.COMM_SELF, a per-process CD; collective over it
    otherwise). storage: a root's storage_info ("level=cache", "level=prefix;prefix=/dir").
    logging: None/False, True or 'inherit'."""
    log = _choice(_LOGGING, logging, "logging")
    if parent is None and name is None and _gds.cd_current() is not None:
        return CD(_gds.cd_create(_gds.CD_CURRENT, comm, None, None, log if logging is not None else 2))
    if parent is not None:
        return CD(_gds.cd_create(parent._live(), comm, name, storage, log if logging is not None else 2))
    return CD(_gds.cd_create(0, comm, name, storage, log))
