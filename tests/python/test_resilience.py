"""Open Resilience from Python: keys, descriptors, predicates, local and global handlers as
callables, checks, and exceptions raised inside handlers (carried back, never lost)."""
import numpy as np
import pytest

import gds


@pytest.fixture(scope="module")
def keys():
    return {"step": gds.define_error_key("py.step", "int"), "norm": gds.define_error_key("py.norm", gds.ValueType.FLOAT),
            "where": gds.define_error_key("py.where", "int_array")}


def test_descriptor_values(keys):
    d = gds.ErrorDescriptor({gds.Attr.APP: "bad value", keys["step"]: 7, keys["norm"]: 2.5})
    d.set(keys["where"], [1, 2, 3])
    assert d.get(gds.Attr.APP) == "bad value" and d.get(keys["step"]) == 7 and d.get(keys["norm"]) == 2.5
    assert d.get(keys["where"]) == [1, 2, 3] and d.get(gds.Attr.GDS_VERSION, "none") == "none"
    with pytest.raises(gds.InvalidAttrValueError):
        d.set(keys["step"], "seven")
    with pytest.raises(gds.InvalidErrorKeyError):
        d.set(12345, 1)
    with pytest.raises(gds.ErrorKeyConflictError):
        gds.define_error_key("py.step", "float")
    with pytest.raises(gds.InvalidError):
        gds.define_error_key("py.x", "quaternion")


def test_local_handler_called_and_resumed(comm, keys):
    seen = []
    with gds.Array.alloc(4) as a:
        @a.on_local_error(gds.Predicate().value(keys["step"], 3))
        def fix(err):
            seen.append((err.get(keys["step"]), err.get(gds.Attr.APP), err.array is a, err.is_global))
            err.resume()

        a.raise_local({keys["step"]: 3, gds.Attr.APP: "flip"})
        a.invoke_local_error_handler()
        assert seen == [(3, "flip", True, False)]
        a.raise_local(gds.ErrorDescriptor().set(keys["step"], 3))
        a.get[:]  # delivered at the next call on the array
        assert len(seen) == 2


def test_handler_that_raises_is_carried_back(comm, keys):
    with gds.Array.alloc(4) as a:
        seen = []

        def boom(err):
            norm = err.get(keys["norm"])  # a GDS call inside the handler: never raises an earlier handler's error
            seen.append(norm)
            err.resume()
            raise ZeroDivisionError(f"from the handler of {norm}")

        a.on_local_error(gds.Predicate().any(keys["norm"]), boom)
        a.raise_local({keys["norm"]: 1.0})
        with pytest.raises(ZeroDivisionError, match="from the handler of 1.0") as e:
            a.invoke_local_error_handler()
        # the call's own status is kept on the handler's exception
        assert any("RecoveryFailedError" in n and "GDS_invoke_local_error_handler" in n for n in e.value.__notes__)
        a.get[:]  # nothing left pending: the next call is clean
        # two errors, both handlers raise: both run, the first is raised, the second is noted on it
        a.raise_local({keys["norm"]: 2.0})
        a.raise_local({keys["norm"]: 3.0})
        with pytest.raises(ZeroDivisionError, match="from the handler of 2.0") as e:
            a.invoke_local_error_handler()
        assert seen == [1.0, 2.0, 3.0]
        assert any("from the handler of 3.0" in n for n in e.value.__notes__), e.value.__notes__
        a.wait()


def test_handler_without_resume_and_unhandled(comm, keys):
    with gds.Array.alloc(4) as a:
        a.on_local_error(gds.Predicate().value(keys["step"], 1), lambda err: None)
        a.raise_local({keys["step"]: 1})
        with pytest.raises(gds.RecoveryFailedError):
            a.invoke_local_error_handler()
        a.raise_local({keys["step"]: 2})
        with pytest.raises(gds.UnhandledError):
            a.invoke_local_error_handler()
        a.on_local_error(gds.Predicate().range(keys["step"], 10, 20), lambda err: err.resume())
        a.on_local_error(gds.Predicate().range(keys["step"], 15, 30), lambda err: err.resume())
        a.raise_local({keys["step"]: 17})
        with pytest.raises(gds.AmbiguousHandlerError):
            a.invoke_local_error_handler()
        with pytest.raises(gds.InvalidError):
            a.on_local_error(gds.Predicate().any(keys["step"]), "not callable")


def test_global_handler_at_fence(comm, keys):
    rank, size = comm.Get_rank(), comm.Get_size()
    got = []
    with gds.Array.alloc(4) as a:
        a.on_global_error(gds.Predicate().any(keys["where"]), lambda err: (got.append(err.get(keys["where"])),
                                                                             err.resume()))
        if rank == size - 1:
            a.raise_global({keys["where"]: [rank, 5]})
        a.fence()
        assert got == [[size - 1, 5]]  # on every process, once


def test_global_handler_raises_on_one_process(comm, keys):
    rank = comm.Get_rank()
    with gds.Array.alloc(4) as a:
        def handler(err):
            err.resume()
            if rank == 0:
                raise KeyError("rank 0 refuses")

        a.on_global_error(gds.Predicate().any(keys["norm"]), handler)
        if rank == 0:
            a.raise_global({keys["norm"]: 1.0})
        if rank == 0:
            with pytest.raises(KeyError):
                a.fence()
        else:
            with pytest.raises(gds.Error):  # the others learn the stable point failed
                a.fence()
        a.fence()


def test_checks(comm, keys):
    rank = comm.Get_rank()
    with gds.Array.alloc(4) as a:
        calls = []

        def check(array, priority):
            calls.append(priority)
            if (array.get[:] < 0).any():
                array.raise_local({gds.Attr.APP: "negative"})

        a.add_local_check(check, "low")
        clean = not a.local_error_found()
        a.fence()  # every process checked before rank 0 writes
        assert clean
        if rank == 0:
            a.put[1] = -1.0
        a.fence()
        assert a.local_error_found()
        fixed = []
        a.on_local_error(gds.Predicate().value(gds.Attr.APP, "negative"), lambda e: (fixed.append(1), e.resume()))
        a.check_all_errors()
        assert fixed and calls and calls[0] == "low"

        def bad_check(array, priority):
            raise RuntimeError("check broke")

        a.add_global_check(bad_check)
        with pytest.raises(RuntimeError, match="check broke"):
            a.check_all_errors()
        with pytest.raises(gds.InvalidError):
            a.add_local_check(check, "never")


def test_root_handlers(comm, keys):
    hits = []
    gds.on_local_error(gds.Predicate().value(gds.Attr.APP, "root"), lambda e: (hits.append(e.array), e.resume()))
    gds.raise_local({gds.Attr.APP: "root"})
    gds.invoke_local_error_handler()
    assert hits == [None]
    with gds.Array.alloc(2) as a:
        a.raise_local({gds.Attr.APP: "root"})  # no array handler: GDS_ROOT's takes it
        a.invoke_local_error_handler()
        assert hits[-1] is a
    gds.on_global_error(gds.Predicate().value(gds.Attr.APP, "root-g"), lambda e: (hits.append("g"), e.resume()))
    if comm.Get_rank() == 0:
        gds.raise_global({gds.Attr.APP: "root-g"})
    gds.fence()
    assert hits[-1] == "g"


def test_library_detected_errors(comm):
    statuses = []
    with gds.Array.alloc(64) as a:
        a.on_local_error(gds.Predicate().any(gds.Attr.GDS_STATUS),
                         lambda e: (statuses.append(e.get(gds.Attr.GDS_STATUS)), e.resume()))
        gds.inject_fault("rma")
        with pytest.raises(gds.MPIError):
            a.get[:]
        a.invoke_local_error_handler()
        a.fence()
        with pytest.raises(gds.InvalidError):
            gds.inject_fault("cosmic ray")
