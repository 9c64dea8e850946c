"""Bad inputs for every call of the package, as a table: each raises the gds.Error
subclass expected, its message starts with the Python call the program made, and
no message shows the binding's signature or a handle's number (issue 45).

Every process runs every row in the same order: rows that are collective fail on
every process alike (GDS agrees before it refuses), so none waits for another.
"""
from contextlib import ExitStack

import gds
import numpy as np
import pytest

BINDING_TEXT = ("incompatible function arguments", "Invoked with", "(arg0", "_gds.")


def _enter(cm):
    with cm:
        pass


def _rows(a, b, freed, g, key):
    """(call name, expected class, the bad call) for each row."""
    return [
        # module functions
        ("gds.init", gds.InvalidError, lambda: gds.init("bogus")),
        ("gds.inject_fault", gds.InvalidError, lambda: gds.inject_fault("nope")),
        ("gds.inject_fault", gds.ArgumentError, lambda: gds.inject_fault("rma", after="x")),
        ("gds.status_string", gds.ArgumentError, lambda: gds.status_string("x")),
        ("gds.define_error_key", gds.InvalidError, lambda: gds.define_error_key("k", "nope")),
        ("gds.restart_query", gds.ArgumentError, lambda: gds.restart_query(12)),
        # making arrays (collective: refused on every process)
        ("gds.Array.alloc", gds.InvalidError, lambda: gds.Array.alloc((-3, 4))),
        ("gds.Array.alloc", gds.ArgumentError, lambda: gds.Array.alloc("x")),
        ("gds.Array.alloc", gds.InvalidError, lambda: gds.Array.alloc((4,), min_chunks=[-1])),
        ("gds.Array.alloc", gds.InvalidError, lambda: gds.Array.alloc(4, priority="urgent")),
        ("gds.Array.alloc", gds.InvalidError, lambda: gds.Array.alloc(4, order="Z")),
        ("gds.Array.alloc", gds.InvalidTypeError, lambda: gds.Array.alloc(4, dtype=object)),
        ("gds.Array.alloc", gds.InvalidCountError, lambda: gds.Array.alloc(1 << 63, dtype=np.float64)),
        # data
        ("gds.Array.get", gds.RangeError, lambda: a.get[9, 0]),
        ("gds.Array.get", gds.InvalidBoxError, lambda: a.get[0:4:2, 0]),
        ("gds.Array.get", gds.InvalidBoxError, lambda: a.get(lo=[0, 0])),
        ("gds.Array.get", gds.RangeError, lambda: a.get(lo=[-1, 0], hi=[0, 0])),
        ("gds.Array.put", gds.InvalidTypeError, lambda: a.put.__setitem__((0, 0), "abc")),
        ("gds.Array.put", gds.InvalidCountError, lambda: a.put.__setitem__((slice(0, 2), 0), [1, 2, 3])),
        ("gds.Array.put", gds.RangeError, lambda: a.put.__setitem__((4, 0), 1.0)),
        ("gds.Array.acc", gds.InvalidOpError, lambda: a.acc(1.0, [0, 0], [0, 0], op="bogus")),
        ("gds.Array.get_acc", gds.RangeError, lambda: a.get_acc([1.0], [4, 0], [4, 0])),
        ("gds.Array.fetch_and_op", gds.RangeError, lambda: a.fetch_and_op([9, 0], 1.0)),
        ("gds.Array.compare_and_swap", gds.Error, lambda: a.compare_and_swap([0], 1.0, 2.0)),
        ("gds.Array.locate", gds.InvalidError, lambda: a.locate([-1, 0])),
        ("gds.Array.locate", gds.RangeError, lambda: a.locate([9, 0])),
        ("gds.Array.access", gds.InvalidError, lambda: _enter(a.access(mode="weird"))),
        # versions
        ("gds.Array.version_inc", gds.InvalidError, lambda: a.version_inc(increment=-1)),
        ("gds.Array.version_inc", gds.ArgumentError, lambda: a.version_inc(increment="x")),
        ("gds.Array.version_dec", gds.InvalidError, lambda: a.version_dec(-1)),
        ("gds.Array.version_dec", gds.NoVersionError, lambda: a.version_dec(10)),
        ("gds.Array.restore", gds.NoVersionError, lambda: a.restore(99)),
        ("gds.Array.restore", gds.InvalidError, lambda: a.restore(-1)),
        ("gds.Array.restore", gds.InvalidError, lambda: a.restore(1 << 64)),
        ("gds.Array.at_version", gds.NoVersionError, lambda: _enter(a.at_version(57))),
        ("gds.Array.at_version", gds.NoVersionError, lambda: _enter(a.at_version(2))),  # skipped by an increment
        ("gds.Array.at_version", gds.InvalidError, lambda: _enter(a.at_version(-2))),
        ("gds.Array.verify", gds.NullArgumentError, lambda: a.verify(0, lo=[0])),
        ("gds.Array.verify", gds.InvalidNdimsError, lambda: a.verify(0, lo=[0], hi=[0])),
        ("gds.Array.verify", gds.NoVersionError, lambda: a.verify(99)),
        # errors and handlers
        ("gds.Array.on_local_error", gds.Error, lambda: a.on_local_error("not a predicate", lambda e: None)),
        ("gds.Array.raise_local", gds.Error, lambda: a.raise_local({key: "not a number"})),
        ("gds.Predicate.value", gds.Error, lambda: gds.Predicate().value(999999, 1)),
        ("gds.ErrorDescriptor.set", gds.Error, lambda: gds.ErrorDescriptor().set(999999, 1)),
        # a freed array
        ("gds.Array.get", gds.FreedHandleError, lambda: freed.get[0]),
        ("gds.Array.put", gds.FreedHandleError, lambda: freed.put.__setitem__(0, 1.0)),
        ("gds.Array.local", gds.FreedHandleError, lambda: _enter(freed.local())),
        ("gds.Array.version_inc", gds.FreedHandleError, lambda: freed.version_inc()),
        ("gds.Array.version", gds.FreedHandleError, lambda: freed.version),
        ("gds.Array.restore", gds.FreedHandleError, lambda: freed.restore(0)),
        # groups
        ("gds.Group", gds.InvalidTypeError, lambda: gds.Group("bad", a, "not an array")),
        ("gds.Group", gds.InvalidError, lambda: gds.Group("bad name!", b)),
        ("gds.Group.version_inc", gds.InvalidError, lambda: g.version_inc(increment=-2)),
        ("gds.Group.restore", gds.NoVersionError, lambda: g.restore(99)),
        ("gds.Group.restore", gds.ArgumentError, lambda: g.restore("x")),
        ("gds.Group.version_dec", gds.InvalidError, lambda: g.version_dec(-1)),
        ("gds.Group.version_dec", gds.NoVersionError, lambda: g.version_dec(50)),
        ("gds.Group.verify", gds.NoVersionError, lambda: g.verify(99)),
    ]


def test_every_bad_input_raises_a_gds_error_naming_the_call(comm):
    with ExitStack() as stack:
        a = stack.enter_context(gds.Array.alloc((4, 3)))
        b = stack.enter_context(gds.Array.alloc(6))
        freed = gds.Array.alloc(5)
        freed.free()
        g = stack.enter_context(gds.Group("bad_inputs", b))
        a.version_inc("1")
        a.version_inc("3", increment=2)  # versions 1 and 3: 2 is skipped
        g.version_inc("g1")
        key = gds.define_error_key("bad_inputs_step", "int")
        wrong = []
        for name, expected, call in _rows(a, b, freed, g, key):
            try:
                call()
            except gds.Error as e:
                text = str(e)
                if not isinstance(e, expected):
                    wrong.append(f"{name}: {type(e).__name__} where {expected.__name__} was expected: {text}")
                elif not text.startswith(name + ":") and not text.startswith(name + " "):
                    wrong.append(f"{name}: the message does not start with the call: {text}")
                elif any(t in text for t in BINDING_TEXT):
                    wrong.append(f"{name}: the binding's text in the message: {text}")
            except Exception as e:  # noqa: BLE001 (what the table exists to find)
                wrong.append(f"{name}: {type(e).__name__}, not a gds.Error: {e}")
            else:
                wrong.append(f"{name}: no error raised")
        assert wrong == [], "\n".join(wrong)
        # Nothing of the refusals is left behind: the arrays work on.
        a.put[0, 0] = 5.0
        a.fence()
        assert a.get[0, 0] == 5.0


def test_unknown_version_is_one_exception_type(comm):
    with gds.Array.alloc(3) as a, gds.Group("unknown_version", a) as g:
        g.version_inc()
        g.version_inc(increment=3)  # 1, then 4: 2 and 3 skipped
        for call in (lambda: a.restore(9), lambda: a.restore(2), lambda: _enter(a.at_version(9)),
                     lambda: _enter(a.at_version(3)), lambda: a.verify(9), lambda: g.restore(9), lambda: g.restore(2),
                     lambda: g.verify(9)):
            with pytest.raises(gds.NoVersionError):
                call()


def test_group_label_restore_newest_and_navigation(comm):
    with gds.Array.alloc(4) as x, gds.Array.alloc(4) as y, gds.Group("nav", x, y) as g:
        with pytest.raises(gds.NoVersionError, match="^gds.Group.restore_newest: "):
            g.restore_newest()
        for step in (1, 2, 3):
            x.put[:] = float(step)
            y.put[:] = -float(step)
            x.fence()
            g.version_inc(f"step={step}")
        assert (g.version, g.label) == (3, "step=3")
        g.move_to_prev()
        assert (g.version, g.label) == (2, "step=2")  # follows the handles, as each member's does
        assert (x.version, y.version) == (2, 2)
        g.version_dec(1)
        assert (g.version, g.label) == (1, "step=1")
        g.move_to_next()
        assert g.version == 2
        x.move_to_newest()  # one handle moved alone: the group's handles disagree
        with pytest.raises(gds.InvalidError, match="^gds.Group.version: "):
            g.version
        g.move_to_newest()
        assert g.version == 3
        x.put[:] = 99.0
        x.fence()
        assert g.restore_newest() == 2  # the newest stored version: the state at the last version_inc
        assert (x.get[:] == 3.0).all() and (y.get[:] == -3.0).all()


def test_every_call_on_a_freed_array_names_itself(comm):
    """Every method and property of Array that takes no argument, on a freed array:
    FreedHandleError whose message starts with gds.Array.<name>."""
    import inspect

    freed = gds.Array.alloc(4)
    freed.free()
    wrong, tried = [], []
    for name, member in inspect.getmembers(gds.Array):
        if name.startswith("_") or name in ("alloc", "create"):
            continue
        if isinstance(member, property):
            call = lambda name=name: getattr(freed, name)  # noqa: E731
        elif inspect.isfunction(member):
            params = list(inspect.signature(member).parameters.values())[1:]
            if any(p.default is inspect.Parameter.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
                   for p in params):
                continue  # takes arguments: the table above
            call = lambda name=name: (lambda r: _enter(r) if hasattr(r, "__enter__") else r)(getattr(freed, name)())  # noqa: E731
        else:
            continue
        tried.append(name)
        try:
            value = call()
        except gds.FreedHandleError as e:
            if not str(e).startswith(f"gds.Array.{name}:"):
                wrong.append(f"{name}: {e}")
        except Exception as e:  # noqa: BLE001
            wrong.append(f"{name}: {type(e).__name__}: {e}")
        else:
            if name not in ("shape", "dtype", "order", "ndim", "size", "get", "put", "acc", "handle"):
                wrong.append(f"{name}: returned {value!r} on a freed array")
    assert len(tried) >= 25, tried
    assert wrong == [], "\n".join(wrong)
