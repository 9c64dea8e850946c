"""Arrays: making them, the local view, one-sided get/put/acc with NumPy boxes, and every
call with bad arguments (each a gds.Error subclass with GDS's message, never a crash)."""
import numpy as np
import pytest
from mpi4py import MPI

import gds

DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.uint64, np.float32, np.float64,
          np.complex64, np.complex128, np.bool_]


@pytest.mark.parametrize("dtype", DTYPES)
def test_alloc_put_get_every_dtype(comm, dtype):
    with gds.Array.alloc((6, 5), dtype) as a:
        assert a.shape == (6, 5) and a.dtype == np.dtype(dtype) and a.ndim == 2 and a.size == 30
        zeroed = (a.get[:, :] == 0).all()
        a.fence()  # every process has read before rank 0 writes
        assert zeroed
        model = (np.arange(30).reshape(6, 5) % 2).astype(dtype)
        if comm.Get_rank() == 0:
            a.put[:, :] = model
        a.fence()
        assert (a.get[...] == model).all()
        assert (a.get(lo=[1, 1], hi=[2, 3]) == model[1:3, 1:4]).all()
        comm.Barrier()


def test_boxes_numpy_semantics(comm):
    model = np.arange(8 * 9 * 3, dtype=np.float64).reshape(8, 9, 3)
    with gds.Array.alloc(model.shape) as a:
        if comm.Get_rank() == comm.Get_size() - 1:
            a.put[...] = model
        a.fence()
        for key in [(slice(None),), (2,), (slice(1, 5), 3), (-1, slice(None), slice(1, 2)), (Ellipsis, 0),
                    (slice(2, 100),), (slice(5, 2),), (3, 4, 2)]:
            got = a.get[key]
            assert got.shape == model[key].shape, key
            assert (got == model[key]).all(), key


def test_local_view_is_the_array(comm):
    rank, size = comm.Get_rank(), comm.Get_size()
    with gds.Array.alloc((7, 11), np.int64) as a:
        lo, hi = a.distribution()
        with a.local() as x:
            assert x.shape == (hi[0] - lo[0] + 1, hi[1] - lo[1] + 1)
            x[...] = rank + 1
        a.fence()
        whole = a.get[:, :]
        for r in range(size):
            box = a.distribution(r)
            if box is not None:
                assert (whole[box[0][0]:box[1][0] + 1, box[0][1]:box[1][1] + 1] == r + 1).all()
        assert (whole > 0).all()
        a.version_inc("after local stores")
        with a.local() as x:
            x[...] = -1
        a.fence()
        with a.at_version(0) as old:
            assert (old.get[:, :] == whole).all()  # the direct stores were versioned


def test_column_major(comm):
    model = np.arange(20, dtype=np.float64).reshape(4, 5)
    with gds.Array.alloc((4, 5), order="F") as a:
        if comm.Get_rank() == 0:
            a.put[:, :] = model
        a.fence()
        assert (a.get[:, :] == model).all()
        assert (a.get[1:3, 2] == model[1:3, 2]).all()
        with a.local() as x:
            lo, hi = a.distribution()
            assert (x == model[lo[0]:hi[0] + 1, lo[1]:hi[1] + 1]).all()


def test_acc_ops_and_atomics(comm):
    size = comm.Get_size()
    with gds.Array.alloc(10, np.int64) as a:
        a.acc[:] = 1
        a.acc(np.full(3, 2), lo=[0], hi=[2])
        a.fence()
        expect = np.full(10, size)
        expect[:3] += 2 * size
        assert (a.get[:] == expect).all()
        a.fence()
        a.acc(np.full(10, 100), op="max")
        a.acc(np.full(10, 7), op=MPI.MAX)  # an mpi4py op
        a.fence()
        assert (a.get[:] == 100).all()
        a.fence()
        olds = comm.allgather(a.fetch_and_op([9], 1))
        assert sorted(olds) == list(range(100, 100 + size))
        a.fence()
        won = comm.allgather(a.compare_and_swap([0], 100, comm.Get_rank() + 1000) == 100)
        assert sum(won) == 1
        a.fence()
        assert a.get[0] == 1000 + won.index(True)


def test_nonblocking(comm):
    with gds.Array.alloc(16, np.float32) as a:
        if comm.Get_rank() == 0:
            a.put(np.arange(16, dtype=np.float32), lo=[0], hi=[15], wait=False)
            a.wait()
        a.fence()
        out = np.empty(4, np.float32)
        a.get(lo=[4], hi=[7], out=out, wait=False)
        a.wait()
        assert (out == np.arange(4, 8)).all()
        assert (a.get_acc(None, [0], [3], "no_op") == np.arange(4)).all()


def test_create_over_program_buffers(comm):
    rank, size = comm.Get_rank(), comm.Get_size()
    mine = np.full((2, 3), float(rank))
    with gds.Array.create(mine) as a:
        assert a.shape == (6 * size,)
        assert a.distribution() == ([6 * rank], [6 * rank + 5])
        a.fence()
        assert (a.get[:] == np.repeat(np.arange(size, dtype=float), 6)).all()
        a.version_inc("1")
        with a.local() as x:
            assert x is mine
            x[0, 0] = -5.0  # the program's own store
        a.fence()
        assert a.get[6 * rank] == -5.0
        a.restore(0)
        assert mine[0, 0] == rank  # restored into the program's buffer


def test_create_versions_hold_numpy_stores(comm):
    """NumPy's stores into a GDS_create buffer (slices, fancy indexing, in-place ufuncs) reach
    every version, whether the kernel tracks the writes (the default where it can) or the
    version compares every block; each process writes different pages, some none."""
    rank, size = comm.Get_rank(), comm.Get_size()
    rng = np.random.default_rng([11, rank])
    mine = np.zeros(64 * 512 + (rank == 0))  # 64 pages, and an element more on process 0 (a block layout)
    before = gds.costs()["tracking"][0]
    with gds.Array.create(mine) as a:
        snapshots = []
        for step in range(8):
            if (step + rank) % 3:
                lo = int(rng.integers(0, mine.size - 700))
                mine[lo:lo + 700] = step + rank / 10  # a slice
                idx = rng.integers(0, mine.size, size=5)
                mine[idx] = -step  # fancy indexing
                np.add(mine[:10], 1.0, out=mine[:10])  # an in-place ufunc
            a.version_inc(str(step))
            snapshots.append(mine.copy())
        for v, want in enumerate(snapshots):
            with a.at_version(v) as old:
                first = old.distribution()[0][0]
                got = old.get(lo=[first], hi=[first + mine.size - 1])
                assert (got == want).all(), f"version {v} lacks NumPy's stores"
    assert gds.costs()["tracking"][0] >= before


# ---- bad arguments ---------------------------------------------------------------------


def test_bad_dtype(comm):
    with pytest.raises(gds.InvalidTypeError):
        gds.Array.alloc(4, object)
    with pytest.raises(gds.InvalidTypeError):
        gds.Array.alloc(4, "U3")
    with gds.Array.alloc(4, np.int32) as a:
        with pytest.raises(gds.InvalidTypeError, match="dtype"):
            a.put[:] = np.ones(4)  # float into int: not same kind
        with pytest.raises(TypeError):  # the built-in base
            a.put[:] = ["a", "b", "c", "d"]
        with pytest.raises(gds.InvalidTypeError, match="element type"):
            a.get(lo=[0], hi=[3], out=np.empty(4, np.float64))
    with pytest.raises(gds.InvalidTypeError):
        gds.Array.create([1.0, 2.0])


def test_bad_shape(comm):
    with pytest.raises(gds.InvalidCountError):
        gds.Array.alloc((4, 0))
    with gds.Array.alloc((4, 4)) as a:
        with pytest.raises(gds.InvalidCountError):
            a.put[0:2, 0:2] = np.ones(3)
        with pytest.raises(gds.InvalidNdimsError, match="dimensions"):
            a.get(lo=[0], hi=[1])
        with pytest.raises(gds.InvalidCountError, match="elements"):
            a.get(lo=[0, 0], hi=[1, 1], out=np.empty(3))
        with pytest.raises(gds.InvalidLdError):
            a.get(lo=[0, 0], hi=[1, 1], out=np.empty((2, 4))[:, :2])
        with pytest.raises(gds.InvalidBoxError):
            a.get[::2, :]
        with pytest.raises(gds.InvalidBoxError):
            a.get(lo=[2, 2], hi=[1, 3])
    with pytest.raises(gds.InvalidCountError, match="block layout"):
        gds.Array.create(np.zeros(comm.Get_rank() + 1) if comm.Get_size() > 1 else np.zeros(0))


def test_box_outside(comm):
    with gds.Array.alloc((4, 4)) as a:
        with pytest.raises(gds.RangeError, match="GDS_get"):
            a.get(lo=[0, 0], hi=[4, 1])
        with pytest.raises(gds.RangeError):
            a.put(np.ones(2), lo=[3, 3], hi=[3, 4])
        with pytest.raises(IndexError):
            a.get[4, 0]
        with pytest.raises(gds.RangeError):
            a.get[0, 0, 0]
        with pytest.raises(gds.RangeError):
            a.locate([9, 9])
        with pytest.raises(gds.RangeError):
            a.distribution(comm.Get_size())


def test_freed_array(comm):
    a = gds.Array.alloc(8)
    a.free()
    for call in (lambda: a.get[:], lambda: a.put.__setitem__(slice(None), 1.0), a.fence, a.wait,
                 lambda: a.version_inc("x"), lambda: a.version, a.free, lambda: a.restore(0)):
        with pytest.raises(gds.FreedHandleError) as e:
            call()
        assert "freed" in str(e.value) or e.value.status == 7


def test_bad_op_comm_priority(comm):
    with gds.Array.alloc(4) as a:
        with pytest.raises(gds.InvalidOpError):
            a.acc(np.ones(4), op="avg")
        with pytest.raises(gds.InvalidOpError):
            a.acc(np.ones(4), op=3)
        with pytest.raises(gds.TypeMismatchError):
            a.acc(np.ones(4), op="band")  # bitwise and of doubles
    with pytest.raises(gds.InvalidCommError):
        gds.Array.alloc(4, comm="world")
    with pytest.raises(gds.InvalidCommError):
        gds.Array.alloc(4, comm=MPI.COMM_NULL)
    with pytest.raises(gds.InvalidError):
        gds.Array.alloc(4, priority="urgent")
    with pytest.raises(gds.InvalidError):
        gds.Array.alloc(4, order="K")
    with pytest.raises(gds.InvalidInfoError):
        gds.Array.alloc(4, copy_type="MIRROR")


def test_sub_communicator(comm):
    half = comm.Split(comm.Get_rank() % 2, comm.Get_rank())
    with gds.Array.alloc(half.Get_size() * 2, np.int32, comm=half) as a:
        a.acc[:] = 1
        a.fence()
        assert (a.get[:] == half.Get_size()).all()
    half.Free()


def test_errors_hierarchy():
    assert issubclass(gds.RangeError, gds.Error) and issubclass(gds.RangeError, IndexError)
    assert len(gds.BY_STATUS) == gds._gds.STATUS_LAST
    for status, cls in gds.BY_STATUS.items():
        assert cls.status == status and cls.__doc__.startswith("GDS_STATUS_")
        assert gds.status_string(status)
    e = gds.make_error(11, "GDS_get: lo[0]=2 > hi[0]=1")
    assert isinstance(e, gds.InvalidBoxError) and str(e) == "GDS_get: lo[0]=2 > hi[0]=1"


def test_access_conflict(comm):
    with gds.Array.alloc((4, 4)) as a:
        box = a.distribution()
        if box is not None:
            with a.access(box[0], box[1], "direct"):
                with pytest.raises(gds.AccessConflictError):
                    a.put(np.zeros(1), lo=box[0], hi=box[0])
        with pytest.raises(gds.InvalidError):
            with a.access(mode="sideways"):
                pass
        comm.Barrier()


def test_bad_arguments_on_one_process_do_not_hang(comm):
    """A collective call refused on one process fails on every process (that one with its
    own error, the others with RemoteErrorError or the like), never leaving them waiting."""
    rank, last = comm.Get_rank(), comm.Get_size() - 1
    cases = [
        lambda bad: gds.Array.alloc(4, object if bad else np.float64),
        lambda bad: gds.Array.alloc(4, priority="urgent" if bad else "high"),
        lambda bad: gds.Array.alloc((4, 4), min_chunks=[1] if bad else [1, 1]),
        lambda bad: gds.Array.create([1.0] if bad else np.zeros(2)),
        lambda bad: gds.Array.alloc(3 if bad else 4),  # shapes differ: COLLECTIVE_MISMATCH everywhere
    ]
    with gds.Array.alloc(4) as a, gds.Array.alloc(4) as b:  # a member that is no array on one process
        try:
            gds.Group("g", a, "b" if rank == last else b).free()
            outcome = None
        except gds.Error as e:
            outcome = type(e)
        outcomes = comm.allgather(outcome)
        assert outcomes[last] is gds.InvalidTypeError
        assert all(o is not None for o in outcomes), outcomes
    for case in cases if comm.Get_size() > 1 else cases[:-1]:
        try:
            case(rank == last).free()
            outcome = None
        except gds.Error as e:
            outcome = type(e)
        outcomes = comm.allgather(outcome)
        if comm.Get_size() > 1:
            assert all(o is not None for o in outcomes), outcomes
        assert outcomes[last] is not None
