"""pytest under mpiexec: every process runs every test in the same order.

GDS is initialised once per process for the session. A test's outcome is
agreed over MPI.COMM_WORLD after its call (as the C++ tests' MPI-aware main
does): a failure on any process fails the test on every process, naming the
failing ranks, so output at any process tells what failed. Tests call
collectives unconditionally and assert after them, so a failing rank does
not leave the others waiting.
"""
import os

import gds  # first: gds.init() starts MPI (kill_app.py tests the other order)
import pytest
from mpi4py import MPI

RUNTIME = gds.init()


def pytest_unconfigure(config):
    RUNTIME.finalize()


@pytest.fixture
def comm():
    return MPI.COMM_WORLD


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if rep.when != "call":
        return
    flags = MPI.COMM_WORLD.allgather(bool(rep.failed))
    bad = [r for r, f in enumerate(flags) if f]
    if bad and not rep.failed:
        rep.outcome = "failed"
        rep.longrepr = f"failed on rank(s) {bad} (passed on rank {MPI.COMM_WORLD.Get_rank()})"
    elif bad:
        rep.longrepr = f"[rank {MPI.COMM_WORLD.Get_rank()}; failed on rank(s) {bad}]\n{rep.longrepr}"


def pytest_report_header(config):
    return (f"gds {gds.__version__} on {gds.mpi_library_version().splitlines()[0]}, "
            f"{MPI.COMM_WORLD.Get_size()} process(es), pid {os.getpid()}")
