"""Version groups: arrays versioned, navigated and restored as one."""
import numpy as np
import pytest

import gds


def test_group_versions_and_restore(comm):
    rank = comm.Get_rank()
    with gds.Array.alloc((4, 4)) as x, gds.Array.alloc(6, np.int32) as n:
        with gds.Group("state", x, n) as g:
            assert g.version == 0
            for step in range(3):
                with x.local() as v:
                    v[...] = step + rank
                n.acc[:] = 1
                x.fence()
                n.fence()
                g.version_inc(f"{step + 1}")
            assert g.version == 3 and x.version == 3 and n.version == 3
            assert x.label == "3"
            g.restore(1)  # version 1: after the second step
            assert (n.get[:] == 2 * comm.Get_size()).all()
            with x.local() as v:
                assert (v == rank + 1).all()
            assert g.verify(1)
            g.move_to_prev()
            assert x.version == 2 and n.version == 2
            g.move_to_newest()
            g.version_dec(1)
            assert x.version == 2 and n.version == 2
            g.move_to_newest()
            assert not g.restart_info.restarted
            assert isinstance(g.need_version(), bool)


def test_group_bad_arguments(comm):
    with gds.Array.alloc(4) as a:
        with pytest.raises(gds.InvalidTypeError):
            gds.Group("g", a, "b")
        with pytest.raises(gds.Error):
            gds.Group("bad name with spaces", a)
        with gds.Group("g1", a) as g:
            with pytest.raises(gds.NoVersionError):
                g.restore(5)
        with pytest.raises(gds.FreedHandleError):
            g.version_inc("x")
