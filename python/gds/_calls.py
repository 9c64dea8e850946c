"""Every public call of the package names itself in the errors it raises.

A C call's message names the C function that failed ("GDS_get_attr: ..."),
which is not always the call the program made (a.get[...] asks GDS_get_attr
for the array's shape first); a check in Python says "gds: ...". The
functions and methods the package exports are wrapped here, once, so that
every gds.Error they raise starts with the Python call ("gds.Array.get:
GDS_get_attr: the handle was freed"), and an argument the binding cannot
convert (a negative count, a string for a number) raises ArgumentError
naming the call instead of pybind11's TypeError with the binding's
signature. Errors already named (a call made inside another, a handler's)
keep their name; exceptions that are not gds.Error pass untouched.
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import operator
import threading
from typing import Any, Callable, Union

from ._errors import ArgumentError, Error, InvalidError

# What pybind11 says when an argument does not convert to the C type.
_UNCONVERTIBLE = "incompatible function arguments"
_UNCASTABLE = "Unable to cast Python instance"

Name = Union[str, Callable[[Any], str]]


def uint(value: Any, what: str) -> int:
    """`value` as a C GDS_size_t: an integer from 0 to 2**64 - 1 (ArgumentError
    for another type, InvalidError for one out of range; the call's name is
    added when it reaches the program)."""
    try:
        v = operator.index(value)
    except TypeError:
        raise ArgumentError(f"gds: {what} must be an integer, not {type(value).__name__}") from None
    if not 0 <= v < 1 << 64:
        raise InvalidError(f"gds: {what} must be from 0 to 2**64 - 1, not {v}", 2)
    return v


def index(value: Any, what: str) -> int:
    """`value` as an integer (ArgumentError for another type)."""
    try:
        return operator.index(value)
    except TypeError:
        raise ArgumentError(f"gds: {what} must be an integer, not {type(value).__name__}") from None


def _rename(e: Error, call: str) -> None:
    message = e.message
    if message.startswith("gds."):
        return  # named already (a Python check of the call, or a call made inside it)
    if message.startswith("gds: "):
        message = message[len("gds: "):]
    e.message = f"{call}: {message}"
    e.args = (e.message,)


def _translated(e: Exception, call: str) -> ArgumentError:
    # pybind11's text lists the signatures and the arguments (handles as
    # numbers): only its first line, without them, says what was wrong.
    return ArgumentError(f"{call}: an argument has the wrong type or is out of range for the C call "
                         "(integers from 0 to 2**64 - 1 for counts, versions and indices)")


def _name_of(name: Name, args: tuple) -> str:
    return name(args[0]) if callable(name) else name


# How many named calls this thread is inside: only the outermost names the
# errors (a.local() calls a.access(), a.at_version() calls version_dec()...);
# a handler or check GDS calls back starts again at 0 (fresh()).
_depth = threading.local()


def _level() -> int:
    return getattr(_depth, "n", 0)


def _run(name: Name, args: tuple, step: Callable[[], Any]) -> Any:
    _depth.n = _level() + 1
    try:
        return step()
    except Error as e:
        if _depth.n == 1:
            _rename(e, _name_of(name, args))
        raise
    except TypeError as e:
        if _depth.n != 1 or _UNCONVERTIBLE not in str(e):
            raise
        raise _translated(e, _name_of(name, args)) from None
    except RuntimeError as e:
        if _depth.n != 1 or _UNCASTABLE not in str(e):
            raise
        raise _translated(e, _name_of(name, args)) from None
    finally:
        _depth.n -= 1


def fresh(f: Callable) -> Callable:
    """`f` (a handler, a check) called by GDS from inside a named call: the calls it
    makes name themselves again."""

    @functools.wraps(f)
    def call(*args: Any, **kwargs: Any) -> Any:
        outer = _level()
        _depth.n = 0
        try:
            return f(*args, **kwargs)
        finally:
            _depth.n = outer

    return call


def named(name: Name) -> Callable[[Callable], Callable]:
    """Wraps a function (or a generator function: a @contextmanager's) so that its
    errors name `name` (a string, or a function of the first argument, for methods
    whose call depends on the instance). A generator's steps are named calls; the
    code between them (a with block's body) is not inside the call."""

    def wrap(f: Callable) -> Callable:
        if inspect.isgeneratorfunction(f):
            @functools.wraps(f)
            def gen(*args: Any, **kwargs: Any) -> Any:
                inner = _run(name, args, lambda: f(*args, **kwargs))
                step: Callable[[], Any] = lambda: next(inner)  # noqa: E731
                while True:
                    try:
                        value = _run(name, args, step)
                    except StopIteration as stop:
                        return stop.value
                    try:
                        sent = yield value
                    except BaseException as thrown:  # noqa: BLE001 (the block's exception, into the generator)
                        step = functools.partial(inner.throw, thrown)
                    else:
                        step = functools.partial(inner.send, sent)

            return gen

        @functools.wraps(f)
        def call(*args: Any, **kwargs: Any) -> Any:
            return _run(name, args, lambda: f(*args, **kwargs))

        return call

    return wrap


def name_class(cls: type, prefix: str, names: dict | None = None) -> None:
    """Wraps, in place, every public method, property getter and setter, class
    and static method of `cls` (and the dunder methods that are calls:
    __getitem__, __setitem__, __call__, __enter__, __exit__) as `prefix.method`;
    `names` overrides a method's name (a string or a function of the instance)."""
    names = names or {}
    calls = {"__init__", "__getitem__", "__setitem__", "__call__", "__enter__", "__exit__"}
    for attr, value in list(vars(cls).items()):
        if attr.startswith("_") and attr not in calls:
            continue
        name: Name = names[attr] if attr in names else prefix if attr in calls else f"{prefix}.{attr}"
        if isinstance(value, property):
            setattr(cls, attr, property(named(name)(value.fget) if value.fget else None,
                                        named(name)(value.fset) if value.fset else None, value.fdel, value.__doc__))
        elif isinstance(value, classmethod):
            setattr(cls, attr, classmethod(named(name)(value.__func__)))
        elif isinstance(value, staticmethod):
            setattr(cls, attr, staticmethod(named(name)(value.__func__)))
        elif inspect.isfunction(value):
            wrapped = getattr(value, "__wrapped__", None)
            if wrapped is not None and inspect.isgeneratorfunction(wrapped):
                # A @contextmanager: its errors come when the block is entered; wrap the generator.
                setattr(cls, attr, contextlib.contextmanager(named(name)(wrapped)))
            else:
                setattr(cls, attr, named(name)(value))
