#!/usr/bin/env python3
"""kill_test.py's program: a group of an allocated 2-D array and an array over the program's
own buffer, versioned together V times with contents a model knows from the label. A rerun
with the same GDS_JOB_ID checks that what came back is exactly the model at the label the
restart took, then carries on to V versions. Prints RESTARTED from=<v> label=<l> and
`kill_app: ok`."""
import sys

import mpi4py
import numpy as np

mpi4py.rc.thread_level = "serialized"  # at most what GDS provides (Open MPI's osc/pt2pt refuses MULTIPLE)
from mpi4py import MPI  # noqa: E402  (mpi4py starts MPI: the order docs/python.md describes second)

import gds  # noqa: E402

V = 6
SHAPE = (5, 7)


def model_a(step):
    return (np.arange(np.prod(SHAPE)).reshape(SHAPE) * (step + 1)) % 1000


def model_b(step, rank):
    return np.full(4, 100.0 * rank + step)


def main():
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    with gds.init():
        saved = gds.restart_query("pair")
        mine = np.zeros(4)
        a = gds.Array.alloc(SHAPE, np.int64, name="a")
        b = gds.Array.create(mine, name="b")
        g = gds.Group("pair", a, b)
        took = g.restart_info
        step = 0
        if saved.found != took.restarted:
            print(f"kill_app: FAIL restart_query found={saved.found}, the group restarted={took.restarted}")
            return 1
        if took.restarted:
            step = int(a.label)
            ok = (a.get[:, :] == model_a(step - 1)).all() and (mine == model_b(step - 1, rank)).all()
            ok = comm.allreduce(bool(ok and b.label == a.label == saved.holds), op=MPI.LAND)
            if rank == 0:
                print(f"RESTARTED from={took.version} label={a.label} level={took.level}", flush=True)
            if not ok:
                print(f"kill_app: FAIL rank {rank}: the restarted content is not the model at step {step - 1}")
                return 1
        while step < V:
            if rank == 0:
                a.put[:, :] = model_a(step)
            mine[:] = model_b(step, rank)
            a.fence()
            g.version_inc(str(step + 1))  # the content of step `step`; the next sweep starts at step + 1
            step += 1
        g.free()
        b.free()
        a.free()
    if rank == 0:
        print("kill_app: ok", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
