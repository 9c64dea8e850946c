#!/usr/bin/env python3
"""What a version of heat_resilient.py's band costs from Python, against its floor: a NumPy
copy of the same bytes into warm memory (docs/python.md, "What it costs").

Every process holds heat's band (n rows of n doubles, the program's own buffer under
gds.Array.create), changes all of it (as a Jacobi sweep does), then times band.version_inc()
and, apart, np.copyto() of the band into a ring of as many warm slots as GDS retains. Prints,
per repeat, the medians over the versions of the slowest process, and their ratio.

  mpiexec -n 2 python3 heat_cost.py --n 1024 --versions 30 --repeats 5
"""
import argparse
import statistics

import numpy as np
from mpi4py import MPI

import gds


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=1024, help="columns, and rows per process (heat's --n)")
    p.add_argument("--versions", type=int, default=30, help="versions timed per repeat")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--ring", type=int, default=4, help="warm slots the copy cycles through")
    args = p.parse_args()
    comm = MPI.COMM_WORLD
    n = args.n
    u = np.random.default_rng(comm.Get_rank()).random((n + 2, n))
    ring = np.zeros((args.ring, n, n))
    ring[...] = 1.0  # touched: warm
    with gds.init(), gds.Array.create(u[1:-1], name="cost") as band:
        for _ in range(3):  # warm-up: GDS's version memory touched once
            u[1:-1] += 1e-9
            band.version_inc()
        if comm.Get_rank() == 0:
            print(f"band {n}x{n} doubles = {u[1:-1].nbytes / 2**20:.1f} MiB per process, "
                  f"{comm.Get_size()} processes, {args.versions} versions per repeat")
            print("repeat  version_inc ms  numpy copy ms  ratio")
        for r in range(args.repeats):
            inc, copy = [], []
            for k in range(args.versions):
                u[1:-1] += 1e-9  # every block changes, as in a sweep
                comm.Barrier()
                t = MPI.Wtime()
                band.version_inc(str(k))
                inc.append(comm.allreduce(MPI.Wtime() - t, op=MPI.MAX))
                u[1:-1] += 1e-9
                comm.Barrier()
                t = MPI.Wtime()
                np.copyto(ring[k % args.ring], u[1:-1])
                copy.append(comm.allreduce(MPI.Wtime() - t, op=MPI.MAX))
            a, b = statistics.median(inc) * 1e3, statistics.median(copy) * 1e3
            if comm.Get_rank() == 0:
                print(f"{r:6d}  {a:14.3f}  {b:13.3f}  {a / b:5.2f}", flush=True)


if __name__ == "__main__":
    main()
