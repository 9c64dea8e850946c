"""GDS for Python: resilient, versioned global arrays for NumPy and mpi4py programs.

    from mpi4py import MPI          # initialises MPI
    import numpy as np
    import gds

    with gds.init():
        with gds.Array.alloc((512, 512), np.float64) as a:      # collective
            with a.local() as x:                                # this process's block, a NumPy view
                x[...] = MPI.COMM_WORLD.Get_rank()
            a.fence()
            a.version_inc("step 1")                             # a version of everything
            row = a.get[0, :]                                   # one-sided read of any box
            a.restore(0)                                        # roll back

MPI: import gds before mpi4py.MPI and call gds.init() first, and GDS starts MPI
itself (as GDS_init does in C, with the settings it needs from Open MPI);
mpi4py then uses that MPI, and GDS ends it at finalize. A program whose
mpi4py started MPI already works too (with Open MPI, set
OMPI_MCA_osc=sm,rdma,pt2pt for arrays over one process: docs/python.md).

GDS's C API (GVR 1.0) is the reference for what each call does; every function
here is one C call with Python arguments (docs/python.md). A failed call raises
the gds.Error subclass of its GDS status, with GDS's message. This module is
built for one MPI library: use it with an mpi4py built for the same one.
"""
import sys as _sys


def _check_interpreter() -> None:
    """The extension loads only into the Python it was built for: another one is told which."""
    from ._build import PYTHON, PYTHON_VERSION

    here = f"{_sys.version_info[0]}.{_sys.version_info[1]}"
    if here != PYTHON_VERSION:
        raise ImportError(f"gds: this module was built for {PYTHON} (Python {PYTHON_VERSION}), and this is "
                          f"{_sys.executable} (Python {here}): run the program with {PYTHON}, or configure GDS "
                          f"with -DPython3_EXECUTABLE={_sys.executable}")


_check_interpreter()


if "mpi4py.MPI" not in _sys.modules:  # MPI is not running yet: gds.init() starts it (GDS_init)
    import mpi4py as _mpi4py

    _mpi4py.rc.initialize = False


def _check_one_mpi() -> None:
    """The module and mpi4py must run on one MPI library: refused at import, in one
    line, when mpi4py's is of another family than the one gds was built for."""
    from mpi4py import MPI as _MPI

    from ._build import MPI_FAMILY

    theirs = _MPI.Get_library_version().splitlines()[0].strip()
    family = "Open MPI" if "Open MPI" in theirs else "MPICH" if "MPICH" in theirs else theirs
    if family != MPI_FAMILY:
        raise ImportError(f"gds: this module was built for {MPI_FAMILY}, but mpi4py here runs on {theirs}: "
                          f"use an mpi4py built for {MPI_FAMILY} (Debian: python3-mpi4py is Open MPI's), or "
                          f"build gds for {family} (docs/python.md)")


_check_one_mpi()
from . import _gds  # noqa: E402  (imports mpi4py.MPI)
from ._errors import *  # noqa: F401,F403  (gds.Error and one subclass per status)
from ._calls import index as _index
from ._calls import named as _named
from ._errors import BY_STATUS, Error, make_error
from ._core import (FLAVOR_ALLOC, FLAVOR_CREATE, LEVEL_CACHE, LEVEL_NONE, LEVEL_PREFIX, Array, Group, Persisted,
                    RestartInfo, Runtime, costs, fence, finalize, init, initialized, inject_fault, reset_costs,
                    restart_query, should_exit, wait, world)
from ._resilience import (CD, Attr, ErrorDescriptor, Predicate, RaisedError, ValueType, cd, check_all_errors,
                          define_error_key, invoke_global_error_handler, invoke_local_error_handler, on_global_error,
                          on_local_error, raise_global, raise_local)

_gds._set_error_factory(make_error)


def _name_the_calls() -> None:
    """Every exported call names itself in its errors (gds._calls)."""
    from . import _core
    from ._calls import name_class, named

    g = globals()
    for f in ("init", "finalize", "initialized", "restart_query", "should_exit", "costs", "reset_costs",
              "inject_fault", "fence", "wait", "world", "define_error_key", "on_local_error", "on_global_error",
              "raise_local", "raise_global", "invoke_local_error_handler", "invoke_global_error_handler",
              "check_all_errors", "cd"):
        g[f] = named(f"gds.{f}")(g[f])
    for cls in (Array, Group, CD, ErrorDescriptor, Predicate, RaisedError, Runtime):
        name_class(cls, f"gds.{cls.__name__}")
    name_class(_core._Get, "gds.Array.get")
    write = lambda self: "gds.Array.acc" if self._acc else "gds.Array.put"  # noqa: E731
    name_class(_core._Write, "gds.Array.put", {"__setitem__": write, "__call__": write, "__init__": write})


_name_the_calls()

__version__ = _gds.VERSION
ROOT = _gds.ROOT  #: GDS_ROOT: every array, for fence/wait and the error functions


def status_string(status: int) -> str:
    """GDS_status_string(): a one-line description of a status number."""
    return _gds.status_string(_index(status, "status"))


status_string = _named("gds.status_string")(status_string)


def mpi_library_version() -> str:
    """The MPI library this module runs on (MPI_Get_library_version())."""
    return _gds.mpi_library_version()
