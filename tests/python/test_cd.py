"""Containment domains: `with gds.cd(...)`, preserved NumPy arrays and array boxes, restore,
re-execution with run(), handlers as callables, and bad arguments."""
import io
import os
import tempfile

import numpy as np
import pytest
from mpi4py import MPI

import gds


def test_preserve_restore_numpy(comm):
    x = np.arange(10.0)
    with gds.cd("py-root") as root:
        root.preserve(x)
        assert root.preserved_bytes >= x.nbytes
        x[:] = -1
        root.restore()
        assert (x == np.arange(10.0)).all()
        assert root.restored() and not root.restored()
        with gds.cd() as child:  # a child of the current CD
            y = np.ones(3)
            child.preserve(y, scope="constrained")
            y[:] = 0
            child.restore()
            assert (y == 1).all()
        x[:] = 5
        root.advance()
        x[:] = 6
        root.restore()
        assert (x == 5).all()
    assert root.handle is None


def test_run_reexecutes_after_a_handler_restores(comm):
    x = np.zeros(4)
    runs = []
    with gds.cd("py-run") as c:
        c.preserve(x)

        @c.on_error(gds.Predicate().value(gds.Attr.APP, "bad"))
        def contain(err):
            err.cd.restore()
            err.resume()

        def body(cd):
            runs.append(x.copy())
            x[:] += 1
            if len(runs) == 1:
                gds.raise_local({gds.Attr.APP: "bad"})
                gds.invoke_local_error_handler()

        c.run(body)
    assert len(runs) == 2 and (runs[1] == 0).all() and (x == 1).all()


def test_cd_handler_that_raises(comm):
    with gds.cd("py-raise") as c:
        c.on_error(gds.Predicate().value(gds.Attr.APP, "x"), lambda err: 1 / 0)
        gds.raise_local({gds.Attr.APP: "x"})
        with pytest.raises(ZeroDivisionError):
            gds.invoke_local_error_handler()


def test_preserve_array_box_collective(comm):
    rank = comm.Get_rank()
    with gds.Array.alloc((6, 4)) as a:
        with a.local() as v:
            v[...] = rank + 1
        a.fence()
        before = a.get[:, :]
        with gds.cd("py-box", comm=comm) as c:
            c.preserve(a)
            a.fence()
            with a.local() as v:
                v[...] = -7
            a.fence()
            c.restore()
            assert (a.get[:, :] == before).all()


def test_preserve_file_position(comm):
    with tempfile.TemporaryFile() as f:
        f.write(b"0123456789")
        f.seek(3)
        with gds.cd("py-file") as c:
            c.preserve(f)
            os.lseek(f.fileno(), 8, os.SEEK_SET)
            c.restore()
            assert os.lseek(f.fileno(), 0, os.SEEK_CUR) == 3


def test_cd_bad_arguments(comm):
    with gds.cd("py-bad") as c:
        with pytest.raises(gds.InvalidError):
            c.preserve("a string")
        with pytest.raises(gds.InvalidError):
            c.preserve(np.zeros(4)[::2])  # not contiguous
        with pytest.raises(gds.InvalidError):
            c.preserve(np.zeros(4), via="regen")
        with pytest.raises(gds.NotPreservedError):
            c.forget(np.zeros(4))
        with pytest.raises(gds.CDStateError):
            c.preserve(np.zeros(2), via="parent")  # a root has no parent
        with pytest.raises(gds.InvalidCommError):
            gds.cd(parent=c, comm="self")
    with pytest.raises(gds.InvalidError):
        c.restore()  # committed
    with pytest.raises(gds.InvalidError):
        with gds.cd("dup"):
            gds.cd("dup")
    while gds._gds.cd_current() is not None:  # the duplicate's parent, left current by the failure
        gds.CD(gds._gds.cd_current()).commit()
