"""The runtime, arrays, boxes, versions and groups of the gds package."""
from __future__ import annotations

import atexit
import weakref
from contextlib import contextmanager
from typing import Any, Callable, Dict, Iterator, List, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from . import _gds
from ._calls import uint
from ._errors import (Error, InvalidBoxError, InvalidCommError, InvalidCountError, InvalidError, InvalidTypeError,
                      NoVersionError, RangeError, RemoteErrorError)

Index = Sequence[int]
Key = Union[int, slice, type(Ellipsis), Tuple[Any, ...]]

THREAD_LEVELS = {"single": 0, "funneled": 1, "serialized": 2, "multiple": 3}
PRIORITIES = {"high": 0, "medium": 1, "low": 2}
ACCESS_MODES = {"direct": 1, "copy": 2, "any": 3}
LEVEL_NONE, LEVEL_CACHE, LEVEL_PREFIX = 0, 1, 2
FLAVOR_CREATE, FLAVOR_ALLOC = 1, 2

# Handle -> live Array, so a handler learns which Array an error concerns.
_arrays: "weakref.WeakValueDictionary[int, Array]" = weakref.WeakValueDictionary()


# ---- runtime ----------------------------------------------------------------------------


class Runtime:
    """GDS initialised (GDS_init()); a context manager whose exit calls finalize()."""

    def __init__(self, provided: str) -> None:
        self.provided = provided  #: the thread level GDS provides

    def finalize(self) -> None:
        """GDS_finalize(): frees what is left (collective over MPI.COMM_WORLD)."""
        if _gds.initialized():
            _gds.finalize()

    def __enter__(self) -> "Runtime":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.finalize()


def init(thread_level: str = "single") -> Runtime:
    """GDS_init(): starts GDS on every process of MPI.COMM_WORLD (collective).

    Import mpi4py.MPI first (it initialises MPI); GDS then uses that MPI. If
    the program never calls finalize(), GDS is finalised at exit, before
    mpi4py finalises MPI. `thread_level` is single, funneled, serialized or
    multiple (granted as serialized). Returns a Runtime, a context manager.
    """
    if thread_level not in THREAD_LEVELS:
        raise InvalidError(f"gds.init: thread_level must be one of {sorted(THREAD_LEVELS)}", 2)
    provided = _gds.init(THREAD_LEVELS[thread_level])
    return Runtime({v: k for k, v in THREAD_LEVELS.items()}[provided])


def finalize() -> None:
    """GDS_finalize() (collective); arrays not yet freed are freed."""
    _gds.finalize()


def initialized() -> bool:
    """Whether GDS is initialised (GDS_initialized())."""
    return _gds.initialized()


@atexit.register
def _finalize_at_exit() -> None:
    # Python's atexit runs before mpi4py's MPI_Finalize (a C-level exit hook).
    try:
        if _gds.initialized():
            _gds.finalize()
    except Error:
        pass


class Persisted(NamedTuple):
    """What GDS_restart_query() found of this job's persisted state."""

    found: bool  #: whether the job persisted state of that name
    level: int  #: LEVEL_CACHE or LEVEL_PREFIX (LEVEL_NONE if not found)
    version: int  #: the newest version persisted
    current: int  #: the current version number after the restart
    holds: str  #: what that version holds: the label given when it was made


class RestartInfo(NamedTuple):
    """What an array's (or group's) creation found of its persisted versions."""

    restarted: bool
    level: int
    version: int
    versions: int
    rebuilt_processes: int
    rebuilt_files: int


def restart_query(name: Optional[str] = None) -> Persisted:
    """GDS_restart_query(): whether this job (GDS_JOB_ID) is restarting, before any array
    exists. Collective over MPI.COMM_WORLD; `name` an array's or group's name, None for any."""
    return Persisted(*_gds.restart_query(name))


def should_exit() -> bool:
    """GDS_should_exit(): leave the loop now (a halt file or too little time left, after a
    persisted version). Collective; the same answer everywhere."""
    return _gds.should_exit()


def costs() -> Dict[str, Any]:
    """GDS_get_costs(): what resilience cost this process. `elapsed` seconds, and per kind
    (versions, restores, cache, redundancy, flushes, restarts, tracking) a (calls, seconds, bytes) tuple."""
    return _gds.costs()


def reset_costs() -> None:
    """GDS_reset_costs(): starts the accounts afresh."""
    _gds.reset_costs()


def inject_fault(kind: str, after: int = 1) -> None:
    """GDS_inject_fault(): the library fails on purpose, for tests. `kind`: none, rma,
    version_memory, version_phase, memory_sync, version_corrupt, late_write; `after`: the
    after-th next such operation fails (1: the next; for version_phase the phase, as in the C call)."""
    kinds = {"none": 0, "rma": 1, "version_memory": 2, "version_phase": 3, "memory_sync": 4, "version_corrupt": 5,
             "late_write": 6}
    if kind not in kinds:
        raise InvalidError(f"gds.inject_fault: kind must be one of {sorted(kinds)}", 2)
    _gds.inject_fault(kinds[kind], after)


def world() -> Any:
    """GDS_COMM_WORLD as an mpi4py communicator (GDS owns it: do not free it)."""
    return _gds.comm_world()


def fence() -> None:
    """GDS_fence(GDS_ROOT): every array, and the global errors raised on GDS_ROOT (collective)."""
    _gds.fence(_gds.ROOT)


def wait() -> None:
    """GDS_wait(GDS_ROOT): local completion on every array."""
    _gds.wait(_gds.ROOT)


# ---- boxes ------------------------------------------------------------------------------


def _info(order: str, name: Optional[str], settings: Dict[str, Any]) -> Dict[str, str]:
    if order not in ("C", "F"):
        raise InvalidError(f"gds: order must be 'C' (row-major) or 'F' (column-major), not {order!r}", 2)
    info = {"gds_order": "row_major" if order == "C" else "col_major"}
    if name is not None:
        info["gds_name"] = str(name)
    for k, v in settings.items():
        key = k if k.startswith("gds_") else "gds_" + k
        info[key] = ("1" if v else "0") if isinstance(v, bool) else str(v)
    return info


def _box_of(key: Key, shape: Tuple[int, ...]) -> Tuple[List[int], List[int], Tuple[int, ...]]:
    """NumPy basic indexing -> (lo, hi inclusive, result shape). Slices clip as in NumPy;
    an integer outside the array is a RangeError; steps other than 1 are refused."""
    if not isinstance(key, tuple):
        key = (key,)
    if any(k is Ellipsis for k in key):
        i = next(n for n, k in enumerate(key) if k is Ellipsis)
        key = key[:i] + (slice(None),) * (len(shape) - len(key) + 1) + key[i + 1:]
    if len(key) > len(shape):
        raise RangeError(f"gds: {len(key)} indices for an array of {len(shape)} dimensions", 1)
    key = key + (slice(None),) * (len(shape) - len(key))
    lo, hi, result = [], [], []
    for d, (k, n) in enumerate(zip(key, shape)):
        if isinstance(k, slice):
            start, stop, step = k.indices(n)
            if step != 1:
                raise InvalidBoxError(f"gds: dimension {d}: a box takes slices of step 1, not {step}", 11)
            lo.append(start)
            hi.append(max(start, stop) - 1)
            result.append(max(0, stop - start))
        else:
            i = int(k)
            if i < -n or i >= n:
                raise RangeError(f"gds: index {i} is outside dimension {d} of extent {n}", 1)
            i %= n
            lo.append(i)
            hi.append(i)
    return lo, hi, tuple(result)


def _explicit_box(lo: Optional[Index], hi: Optional[Index], shape: Tuple[int, ...]) -> Tuple[List[int], List[int]]:
    if lo is None and hi is None:
        return [0] * len(shape), [n - 1 for n in shape]
    if lo is None or hi is None:
        raise InvalidBoxError("gds: give both lo and hi (inclusive, as in the C API), or neither", 11)
    lo, hi = [int(i) for i in np.atleast_1d(lo)], [int(i) for i in np.atleast_1d(hi)]
    if any(i < 0 for i in lo + hi):
        raise RangeError(f"gds: negative index in the box lo={lo} hi={hi}", 1)
    return lo, hi


def _extents(lo: Sequence[int], hi: Sequence[int]) -> Tuple[int, ...]:
    return tuple(max(0, h - l + 1) for l, h in zip(lo, hi))


# ---- arrays -----------------------------------------------------------------------------


class _Get:
    """`a.get[i, j:k]` reads a box (blocking) as NumPy indexing does; `a.get(lo, hi)` reads
    the inclusive box [lo, hi] (`out=` a buffer; `wait=False`: valid after a.wait())."""

    def __init__(self, a: "Array") -> None:
        self._a = a

    def __getitem__(self, key: Key) -> np.ndarray:
        a = self._a
        lo, hi, shape = _box_of(key, a.shape)
        out = np.empty(_extents(lo, hi), dtype=a.dtype, order=a.order)
        if out.size:
            _gds.get(a.handle, out, lo, hi, a.order == "F")
            _gds.wait(a.handle)
        return out.reshape(shape, order=a.order)

    def __call__(self, lo: Optional[Index] = None, hi: Optional[Index] = None, out: Optional[np.ndarray] = None,
                 wait: bool = True) -> np.ndarray:
        a = self._a
        lo, hi = _explicit_box(lo, hi, a.shape)
        if out is None:
            out = np.empty(_extents(lo, hi), dtype=a.dtype, order=a.order)
        _gds.get(a.handle, out, lo, hi, a.order == "F")
        if wait:
            _gds.wait(a.handle)
        else:
            a._inflight.append(out)
        return out


class _Write:
    """`a.put[box] = values` / `a.acc[box] = values` (blocking: local completion; others see
    it after a fence), and the explicit call with lo, hi (inclusive), op and wait."""

    def __init__(self, a: "Array", acc: bool) -> None:
        self._a, self._acc = a, acc

    def _send(self, values: Any, lo: List[int], hi: List[int], shape: Tuple[int, ...], op: Any, wait: bool) -> None:
        a = self._a
        v = np.asarray(values)
        if not np.can_cast(v.dtype, a.dtype, "same_kind"):
            raise InvalidTypeError(f"gds: values of dtype {v.dtype} do not fit the array's {a.dtype}", 13)
        try:
            v = np.broadcast_to(v, shape)
        except ValueError:
            raise InvalidCountError(f"gds: values of shape {np.shape(values)} do not fit the box's {shape}", 10) from None
        buf = np.require(v.reshape(_extents(lo, hi), order=a.order) if v.size else v, dtype=a.dtype,
                         requirements=[a.order])
        if buf.size == 0:
            return
        if self._acc:
            _gds.acc(a.handle, buf, lo, hi, op, a.order == "F")
        else:
            _gds.put(a.handle, buf, lo, hi, a.order == "F")
        if wait:
            _gds.wait(a.handle)
        else:
            a._inflight.append(buf)

    def __setitem__(self, key: Key, values: Any) -> None:
        lo, hi, shape = _box_of(key, self._a.shape)
        self._send(values, lo, hi, shape, "sum", True)

    def __call__(self, values: Any, lo: Optional[Index] = None, hi: Optional[Index] = None, op: Any = "sum",
                 wait: bool = True) -> None:
        lo, hi = _explicit_box(lo, hi, self._a.shape)
        self._send(values, lo, hi, _extents(lo, hi), op, wait)


class Array:
    """A GDS array (GDS_gds_t): global, distributed over a communicator, versioned.

    Made by Array.alloc() (GDS's memory, block-distributed) or Array.create()
    (over the program's own NumPy buffers). Freeing is collective: call free(),
    or use the array as a context manager; the garbage collector never frees
    one (that would be a collective at an arbitrary point). GDS_finalize()
    frees what is left.

    Data: a.get[...] reads, a.put[...] = v writes, a.acc[...] = v adds (each
    blocking until local completion; another process sees a write after a
    fence()); with a.local() as x: x is this process's part as a NumPy view.
    Versions: version_inc(label), restore(v), at_version(v), ... Errors:
    on_local_error(pred, fn), raise_local(...), ... Every failure raises the
    gds.Error subclass of its status with GDS's message.
    """

    def __init__(self, handle: int, dtype: np.dtype, order: str, *, primary: bool = True,
                 buffer: Optional[np.ndarray] = None, local_box: Any = None) -> None:
        self.handle = handle  #: the GDS_gds_t as an int (for gds._gds calls)
        self.dtype = np.dtype(dtype)  #: the element type
        self.order = order  #: 'C' (row-major) or 'F' (column-major)
        self.shape = tuple(int(n) for n in _gds.count(handle))  #: the global shape
        self._primary = primary
        self._buffer = buffer  # Array.create: the program's buffer, kept alive while GDS uses it
        self._local_box = local_box
        self._inflight: List[np.ndarray] = []  # buffers of nonblocking calls, kept until wait/fence
        if primary:
            _arrays[handle] = self

    # -- making and freeing --

    @classmethod
    def alloc(cls, shape: Union[int, Sequence[int]], dtype: Any = np.float64, comm: Any = None, *,
              order: str = "C", min_chunks: Optional[Sequence[int]] = None, priority: str = "high",
              name: Optional[str] = None, **settings: Any) -> "Array":
        """GDS_alloc(): a zeroed array of `shape` and `dtype`, block-distributed over `comm`
        (an mpi4py communicator; None: GDS_COMM_WORLD). Collective over comm.

        order 'C' or 'F' (GDS_ORDER_KEY); min_chunks the smallest block extent per dimension;
        priority high, medium or low; name the array's name for persistence (GDS_NAME_KEY);
        any other keyword is a persistence setting, an info key without its gds_ prefix:
        copy_type='PARTNER', cache_base=..., cache_size=2, prefix=..., flush=10, restart=True,
        cache_sync=False, ... (docs/configuration.md; the environment gives the defaults).
        With a job id and persisted versions, the array restarts from them (restart_info).
        """
        try:  # refused here: the other processes are told in GDS_alloc, rather than left waiting
            shape = (uint(shape, "shape"),) if np.isscalar(shape) else tuple(uint(n, "shape") for n in shape)
            chunks = None if min_chunks is None else [uint(c, "min_chunks") for c in min_chunks]
            dt = np.dtype(dtype)
            if priority not in PRIORITIES:
                raise InvalidError(f"gds.Array.alloc: priority must be high, medium or low, not {priority!r}", 2)
            info = _info(order, name, settings)
        except (TypeError, ValueError, Error):
            _gds.fail_collectively(comm)
            raise
        h = _gds.alloc(list(shape), chunks, dt, PRIORITIES[priority], comm, info)
        a = cls(h, dt, order)
        a._local_box = _gds.distribution(h, a.comm.Get_rank())
        return a

    @classmethod
    def create(cls, buffer: np.ndarray, comm: Any = None, *, priority: str = "high", name: Optional[str] = None,
               **settings: Any) -> "Array":
        """GDS_create() over the program's own buffers: a 1-D array, the concatenation of every
        process's `buffer` in rank order (GDS's block layout, no mapping functions). Collective.

        `buffer` (any shape, C-contiguous, writable) stays the program's: GDS versions it, puts
        a restart's data into it, and others reach it with get/put/acc at global index
        offset + k, offset the sizes of the lower ranks' buffers. Sizes must be those of a
        block layout: all equal, or the first n % p processes one element more. Stores into
        `buffer` between versions are versioned (GDS compares blocks); bracket them with
        `with a.local():` when other processes read them one-sidedly. Other keywords as alloc().
        """
        from mpi4py import MPI

        c = comm if comm is not None else _gds.comm_world()
        if not isinstance(c, MPI.Comm) or c == MPI.COMM_NULL:
            raise InvalidCommError(f"gds.Array.create: comm must be an mpi4py MPI.Comm, not {c!r}", 16)
        local: Optional[Error] = None  # refused here: every process learns it in the allgather below
        if not isinstance(buffer, np.ndarray):
            local = InvalidTypeError(f"gds.Array.create: buffer must be a NumPy array, not {type(buffer).__name__}", 13)
        elif priority not in PRIORITIES:
            local = InvalidError(f"gds.Array.create: priority must be high, medium or low, not {priority!r}", 2)
        gathered = c.allgather((local is None, int(buffer.size) if local is None else 0))
        if local is not None:
            raise local
        if not all(ok for ok, _ in gathered):
            bad = [r for r, (ok, _) in enumerate(gathered) if not ok]
            raise RemoteErrorError(f"gds.Array.create: process(es) {bad} passed bad arguments", 24)
        sizes = [s for _, s in gathered]
        n, p, rank = sum(sizes), len(sizes), c.Get_rank()
        if n == 0 or any(s != n // p + (k < n % p) for k, s in enumerate(sizes)):
            raise InvalidCountError(f"gds.Array.create: buffer sizes {sizes} are not a block layout of {n} elements "
                                    f"over {p} processes (all equal, or the first n%p one more)", 10)
        h = _gds.create([n], buffer, PRIORITIES[priority], comm, _info("C", name, settings))
        lo = sum(sizes[:rank])
        return cls(h, buffer.dtype, "C", buffer=buffer, local_box=([lo], [lo + sizes[rank] - 1]))

    def free(self) -> None:
        """GDS_free(): frees the array (collective), or a clone's handle (local)."""
        _gds.free(self.handle)
        self._buffer = None
        self._inflight.clear()

    def __enter__(self) -> "Array":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.free()

    def __repr__(self) -> str:
        return f"<gds.Array shape={self.shape} dtype={self.dtype} order={self.order} handle={self.handle:#x}>"

    # -- attributes --

    @property
    def ndim(self) -> int:
        """Number of dimensions."""
        return len(self.shape)

    @property
    def size(self) -> int:
        """Number of elements."""
        return int(np.prod(self.shape))

    @property
    def comm(self) -> Any:
        """The array's communicator (GDS_get_comm(): GDS's duplicate; do not free it)."""
        return _gds.comm(self.handle)

    @property
    def process_grid(self) -> Optional[Tuple[int, ...]]:
        """GDS_GLOBAL_LAYOUT: blocks per dimension (alloc arrays; None for create ones)."""
        g = _gds.process_grid(self.handle)
        return None if g is None else tuple(g)

    @property
    def chunk_size(self) -> Optional[Tuple[int, ...]]:
        """GDS_CHUNK_SIZE: the largest block extent per dimension (alloc arrays)."""
        g = _gds.chunk_size(self.handle)
        return None if g is None else tuple(g)

    def distribution(self, rank: Optional[int] = None) -> Optional[Tuple[List[int], List[int]]]:
        """GDS_distribution(): the inclusive box (lo, hi) `rank` owns (default: this process),
        or None if it owns none."""
        flavor = _gds.flavor(self.handle)  # (a freed array fails here, as every call on it does)
        if rank is None and self._local_box is not None:
            return self._local_box
        if flavor == FLAVOR_CREATE:
            raise InvalidError("gds.Array.distribution: a create() array knows only this process's box", 2)
        return _gds.distribution(self.handle, self.comm.Get_rank() if rank is None else rank)

    def locate(self, index: Index) -> Tuple[int, int]:
        """GDS_locate(): (owner rank, offset in its buffer) of an element."""
        return _gds.locate(self.handle, [uint(i, "index") for i in index])

    # -- data --

    @property
    def get(self) -> _Get:
        """GDS_get: `a.get[i, j:k]` (NumPy indexing) or `a.get(lo, hi, out=None, wait=True)`
        (an inclusive box) returns the box as a NumPy array (blocking unless wait=False)."""
        return _Get(self)

    @property
    def put(self) -> _Write:
        """GDS_put: `a.put[i, j:k] = values` or `a.put(values, lo, hi, wait=True)`; values are
        broadcast to the box and cast if of the same kind. Returns at local completion; other
        processes see the values after a fence()."""
        return _Write(self, acc=False)

    @property
    def acc(self) -> _Write:
        """GDS_acc: `a.acc[i, j:k] = values` adds them (MPI_SUM); `a.acc(values, lo, hi,
        op="sum", wait=True)` with any op name or mpi4py MPI.Op. Atomic per element."""
        return _Write(self, acc=True)

    def get_acc(self, values: Any, lo: Index, hi: Index, op: Any = "sum") -> np.ndarray:
        """GDS_get_acc(): combines `values` into [lo, hi] with op and returns the old content
        (blocking). op 'no_op' (values None) is an atomic read."""
        lo, hi = _explicit_box(lo, hi, self.shape)
        ext = _extents(lo, hi)
        result = np.empty(ext, dtype=self.dtype, order=self.order)
        src = None
        if values is not None:
            src = np.require(np.broadcast_to(np.asarray(values, dtype=self.dtype), ext), dtype=self.dtype,
                             requirements=[self.order])
        _gds.get_acc(self.handle, src, result, lo, hi, op, self.order == "F")
        _gds.wait(self.handle)
        return result

    def fetch_and_op(self, index: Index, operand: Any, op: Any = "sum") -> Any:
        """Atomic fetch-and-op on one element (GDS_get_acc on a point); returns the old value."""
        at = [int(i) for i in index]
        return self.get_acc(np.full([1] * len(at), operand, dtype=self.dtype), at, at, op).reshape(()).item()

    def compare_and_swap(self, index: Index, compare: Any, swap: Any) -> Any:
        """GDS_compare_and_swap() on one element (integer, bool or byte types): writes
        `swap` if the element equals `compare`; returns the old value (blocking)."""
        at = [int(i) for i in index]
        c, s = np.array([compare], dtype=self.dtype), np.array([swap], dtype=self.dtype)
        r = np.empty(1, dtype=self.dtype)
        _gds.compare_and_swap(self.handle, c, s, r, at)
        _gds.wait(self.handle)
        return r[0].item()

    def wait(self) -> None:
        """GDS_wait(): this process's operations are complete locally (gets landed, buffers free)."""
        _gds.wait(self.handle)
        self._inflight.clear()

    def wait_local(self) -> None:
        """GDS_wait_local(): this process's operations on its own part are complete."""
        _gds.wait_local(self.handle)

    def fence(self) -> None:
        """GDS_fence() (collective): every process's operations complete at their targets;
        later reads see earlier writes; global errors are delivered."""
        _gds.fence(self.handle)
        self._inflight.clear()

    @contextmanager
    def access(self, lo: Optional[Index] = None, hi: Optional[Index] = None, mode: str = "any") -> Iterator[np.ndarray]:
        """GDS_access()/GDS_release() over the inclusive box [lo, hi]: yields a NumPy array
        of the box. mode 'direct' (the array's own memory; the box must be local), 'copy'
        (written back at the end of the block) or 'any'. Stores into a direct view are the
        array's, versioned by the next version_inc. Do not keep the view past the block."""
        if mode not in ACCESS_MODES:
            raise InvalidError(f"gds.Array.access: mode must be direct, copy or any, not {mode!r}", 2)
        lo, hi = _explicit_box(lo, hi, self.shape)
        handle, view, _ = _gds.access(self.handle, lo, hi, ACCESS_MODES[mode], self.dtype, self.order == "F", self)
        try:
            yield view
        finally:
            _gds.release(handle)

    @contextmanager
    def local(self) -> Iterator[np.ndarray]:
        """This process's part as a NumPy view (GDS_access DIRECT over its block), for
        NumPy code: `with a.local() as x: x[...] = ...`. For a create() array it is the
        program's own buffer, in its own shape. Empty if the process owns nothing."""
        box = self._local_box
        if box is None:
            yield np.empty((0,) * self.ndim, dtype=self.dtype)
            return
        with self.access(box[0], box[1], "direct") as view:
            yield view if self._buffer is None else self._buffer

    # -- versions --

    def version_inc(self, label: str = "", increment: int = 1) -> None:
        """GDS_version_inc() (collective): freezes the content as a version and advances the
        current number by `increment`; `label` goes to the new current version (what it will
        hold: e.g. the step it starts). A stable point: global errors are delivered."""
        _gds.version_inc(self.handle, str(label), uint(increment, "increment"))

    @property
    def version(self) -> int:
        """The version number this handle is at (GDS_get_version_number())."""
        return _gds.version(self.handle)

    @property
    def label(self) -> str:
        """The label of the version this handle is at."""
        return _gds.label(self.handle)

    @property
    def holds(self) -> str:
        """What the version this handle is at holds: its successor's label."""
        return _gds.holds(self.handle)

    def move_to_newest(self) -> None:
        """Moves this handle to the current version (local)."""
        _gds.move_to_newest(self.handle)

    def move_to_next(self) -> None:
        """Moves this handle one version newer (local); NoVersionError past the newest."""
        _gds.move_to_next(self.handle)

    def move_to_prev(self) -> None:
        """Moves this handle one version older (local); NoVersionError past the oldest."""
        _gds.move_to_prev(self.handle)

    def version_dec(self, dec: int) -> None:
        """Moves this handle `dec` version numbers back (local)."""
        _gds.version_dec(self.handle, uint(dec, "dec"))

    def clone(self) -> "Array":
        """GDS_descriptor_clone(): another handle at this version, moving on its own; its
        free() is local. Writes through a handle at an old version fail (NotCurrentError)."""
        c = Array(_gds.clone(self.handle), self.dtype, self.order, primary=False, local_box=self._local_box)
        return c

    @contextmanager
    def at_version(self, version: int) -> Iterator["Array"]:
        """A read-only handle at an older `version` for the block: `with a.at_version(3) as
        old: old.get[...]` (a clone moved back; local)."""
        version = uint(version, "version")
        c = self.clone()
        try:
            cur = c.version
            if version > cur:
                raise NoVersionError(f"gds.Array.at_version: version {version} is newer than the handle's {cur}", 29)
            if version < cur:
                c.version_dec(cur - version)
            yield c
        finally:
            c.free()

    def restore(self, version: int) -> None:
        """GDS_version_restore() (collective): the current content becomes `version`'s."""
        _gds.restore(self.handle, uint(version, "version"))

    def verify(self, version: int, lo: Optional[Index] = None, hi: Optional[Index] = None) -> None:
        """GDS_version_verify() (collective): checks a version (or the blocks of [lo, hi])
        against its checksums; CorruptError on every process if a block is damaged."""
        _gds.verify(self.handle, uint(version, "version"), None if lo is None else list(lo), None if hi is None else list(hi))

    @property
    def restart_info(self) -> RestartInfo:
        """What the array's creation found of its persisted versions."""
        return RestartInfo(*_gds.restart_info(self.handle))

    def need_version(self) -> bool:
        """GDS_need_version(): whether to make a version now (collective; same answer everywhere)."""
        return _gds.need_version(self.handle)

    def flush_wait(self) -> None:
        """GDS_flush_wait() (collective): flushes to the prefix are done."""
        _gds.flush_wait(self.handle)

    def cache_wait(self) -> None:
        """GDS_cache_wait() (collective): versions written to the cache in the background are durable."""
        _gds.cache_wait(self.handle)

    def version_stats(self) -> Dict[str, int]:
        """GDS_get_version_stats(): what the versions hold on this process."""
        return _gds.version_stats(self.handle)


class Group:
    """A version group (GDS_group_create()): arrays versioned, restored and persisted as
    one. Collective; free it (or leave the `with` block) before its arrays."""

    def __init__(self, name: str, *arrays: Array) -> None:
        if len(arrays) == 1 and isinstance(arrays[0], (list, tuple)):
            arrays = tuple(arrays[0])
        self.arrays = arrays
        bad = [type(a).__name__ for a in arrays if not isinstance(a, Array)]
        if bad:  # every process must pass arrays (a program error, as different arguments are)
            handles = [a.handle if isinstance(a, Array) else 0 for a in arrays]
            first = next((i for i, h in enumerate(handles) if h), None)
            if first is not None:  # the others wait in GDS_group_create: refused there, they fail too
                handles[0], handles[first] = handles[first], handles[0]
                try:
                    _gds.group_create(str(name), handles)
                except Error:
                    pass
            # (With no array at all there is no communicator to tell the others on, as in C.)
            raise InvalidTypeError(f"gds.Group: members must be gds.Array, not {', '.join(bad)}", 13)
        self.handle = _gds.group_create(str(name), [a.handle for a in arrays])

    def free(self) -> None:
        """GDS_group_free() (collective); the arrays stay."""
        _gds.group_free(self.handle)

    def __enter__(self) -> "Group":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.free()

    def version_inc(self, label: str = "", increment: int = 1) -> None:
        """A version of every member at once (one agreement, one commit record)."""
        _gds.group_version_inc(self.handle, str(label), uint(increment, "increment"))

    def restore(self, version: int) -> None:
        """Every member back to `version` (collective)."""
        _gds.group_restore(self.handle, uint(version, "version"))

    def verify(self, version: int) -> bool:
        """Whether every member's copy of `version` matches its checksums (False: CORRUPT)."""
        return _gds.group_verify(self.handle, uint(version, "version"))

    @property
    def version(self) -> int:
        """The version the members' handles point at (GDS_group_get_version_number(), local):
        the current one, or where move_to_prev/next/version_dec moved them."""
        return _gds.group_version(self.handle)

    @property
    def label(self) -> str:
        """The label of the version the members' handles point at (GDS_group_get_version_label())."""
        return _gds.group_label(self.handle)

    def restore_newest(self) -> int:
        """GDS_group_version_restore_newest() (collective): every member back to the newest
        version they all retain; returns its number (NoVersionError before the first)."""
        return _gds.group_restore_newest(self.handle)

    def move_to_newest(self) -> None:
        """Every member's handle to the current version."""
        _gds.group_move_to_newest(self.handle)

    def move_to_prev(self) -> None:
        """Every member's handle one version older (one they all retain)."""
        _gds.group_move_to_prev(self.handle)

    def move_to_next(self) -> None:
        """Every member's handle one version newer."""
        _gds.group_move_to_next(self.handle)

    def version_dec(self, dec: int) -> None:
        """Every member's handle `dec` version numbers back."""
        _gds.group_version_dec(self.handle, uint(dec, "dec"))

    @property
    def restart_info(self) -> RestartInfo:
        """What the members' restart took, added up."""
        return RestartInfo(*_gds.group_restart_info(self.handle))

    def need_version(self) -> bool:
        """GDS_group_need_version(): whether to make a group version now (collective)."""
        return _gds.group_need_version(self.handle)


def array_of(handle: int) -> Optional[Array]:
    """The live Array of a handle (None for GDS_ROOT or one Python does not know)."""
    return _arrays.get(handle)
