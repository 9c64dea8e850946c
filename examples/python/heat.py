#!/usr/bin/env python3
"""The 2-D heat equation by Jacobi sweeps, as NumPy and mpi4py programmers write it.

The plate has n columns and n rows per process (weak scaling), split into
bands of rows; each process holds its band and a halo row above and below,
exchanged with its neighbours every sweep. The top edge is held at 1, the
other edges at 0. Prints STEPS, TIME (the loop's seconds) and ANSWER (the
plate's sum, the same bits for any run of the same size).

  mpiexec -n 2 python3 heat.py --n 256 --steps 500
"""
import argparse

import numpy as np
from mpi4py import MPI


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=64, help="columns, and rows per process")
    p.add_argument("--steps", type=int, default=100, help="Jacobi sweeps")
    args, _ = p.parse_known_args()
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    n, steps = args.n, args.steps
    up, down = rank - 1 if rank > 0 else MPI.PROC_NULL, rank + 1 if rank < size - 1 else MPI.PROC_NULL

    u = np.zeros((n + 2, n))  # rows 1..n are this process's band; rows 0 and n+1 its halo
    if rank == 0:
        u[0, :] = 1.0  # the hot edge: a halo row no process sends
    start = MPI.Wtime()
    step = 0
    while step < steps:
        comm.Sendrecv(u[1], dest=up, recvbuf=u[n + 1], source=down)
        comm.Sendrecv(u[n], dest=down, recvbuf=u[0], source=up)
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        step += 1
    elapsed = MPI.Wtime() - start

    sums = comm.gather(float(u[1:-1].sum()), root=0)  # summed in rank order: the same bits every run
    if rank == 0:
        print(f"STEPS {steps}\nTIME {elapsed:.6f}\nANSWER {sum(sums):.17g}", flush=True)


if __name__ == "__main__":
    main()
