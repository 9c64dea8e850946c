"""Versions against a NumPy model: each process writes boxes of its own (drawn from a seed
every process knows), so every process can replay every other's writes into the model;
old versions read back one-sidedly, navigation, restore, labels, and bad arguments."""
import numpy as np
import pytest

import gds

SHAPE = (9, 13)
STEPS = 6


def writes(step, rank, rng_seed=7):
    """The boxes and values process `rank` puts (or adds) at `step`."""
    rng = np.random.default_rng([rng_seed, step, rank])
    out = []
    for _ in range(rng.integers(0, 4)):
        lo = [int(rng.integers(0, n)) for n in SHAPE]
        hi = [int(rng.integers(l, n)) for l, n in zip(lo, SHAPE)]
        vals = rng.integers(-50, 50, size=[h - l + 1 for l, h in zip(lo, hi)]).astype(np.float64)
        out.append((lo, hi, vals, bool(rng.integers(0, 2))))
    return out


def apply(model, step, size):
    # Within a step, puts by different processes to one element race; the model takes the
    # test's rule: in a step every process first adds (acc), and only rank `step % size` puts.
    for rank in range(size):
        for lo, hi, vals, _ in writes(step, rank):
            model[lo[0]:hi[0] + 1, lo[1]:hi[1] + 1] += vals
    for lo, hi, vals, _ in writes(step, step % size, 99):
        model[lo[0]:hi[0] + 1, lo[1]:hi[1] + 1] = vals


def test_versions_match_numpy_model(comm):
    rank, size = comm.Get_rank(), comm.Get_size()
    model = np.zeros(SHAPE)
    history = []
    with gds.Array.alloc(SHAPE) as a:
        for step in range(STEPS):
            for lo, hi, vals, _ in writes(step, rank):
                a.acc(vals, lo=lo, hi=hi)
            a.fence()
            if rank == step % size:
                for lo, hi, vals, _ in writes(step, rank, 99):
                    a.put(vals, lo=lo, hi=hi)
            a.fence()
            apply(model, step, size)
            assert (a.get[:, :] == model).all(), f"step {step}"
            history.append(model.copy())
            a.version_inc(f"step {step + 1}")
            assert a.version == step + 1 and a.label == f"step {step + 1}"
        # every process reads every version, each from a different box
        for v, expect in enumerate(history):
            with a.at_version(v) as old:
                assert old.version == v
                assert old.holds == f"step {v + 1}"
                r0 = (rank + v) % SHAPE[0]
                assert (old.get[r0:, :] == expect[r0:, :]).all()
                with pytest.raises(gds.NotCurrentError):
                    old.put[0, 0] = 1.0
        # navigation
        h = a.clone()
        h.move_to_prev()
        assert h.version == STEPS - 1
        h.version_dec(2)
        assert h.version == STEPS - 3
        assert (h.get[:, :] == history[STEPS - 3]).all()
        h.move_to_next()
        h.move_to_newest()
        assert h.version == STEPS
        with pytest.raises(gds.NoVersionError):
            h.move_to_next()
        h.free()
        # restore: the current content becomes version 2's (collective)
        a.restore(2)
        assert (a.get[:, :] == history[2]).all()
        a.fence()
        a.verify(2)
        a.verify(1, lo=[0, 0], hi=[3, 3])
        stats = a.version_stats()
        assert stats["current"] == a.version and stats["versions"] >= 1


def test_version_bad_arguments(comm):
    with gds.Array.alloc(5) as a:
        a.version_inc("1")
        with pytest.raises(gds.NoVersionError):
            a.restore(7)
        with pytest.raises(gds.NoVersionError):
            with a.at_version(5):
                pass
        with pytest.raises(gds.NoVersionError):
            a.version_dec(10)
        with pytest.raises(gds.InvalidNdimsError):
            a.verify(0, lo=[0, 0], hi=[1, 1])
        with pytest.raises(gds.NullArgumentError):
            a.verify(0, lo=[0])
        assert isinstance(a.need_version(), bool)
        c = gds.costs()
        assert c["versions"][0] >= 1 and c["elapsed"] > 0


def test_restart_query_fresh_job(comm):
    q = gds.restart_query()
    assert not q.found and q.level == gds.LEVEL_NONE
    with gds.Array.alloc(3, name="fresh") as a:
        assert not a.restart_info.restarted
