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
import os  # [inject]
import signal  # [inject]

import gds
import numpy as np
from mpi4py import MPI


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=64, help="columns, and rows per process")
    p.add_argument("--steps", type=int, default=100, help="Jacobi sweeps")
    p.add_argument("--every", type=int, default=10, help="check, then make a version, every k sweeps")
    p.add_argument("--inject", default="none", choices=["none", "flip", "latent", "library", "kill"])  # [inject]
    p.add_argument("--at", type=int, default=None)  # [inject] the sweep it strikes at (default: half way)
    p.add_argument("--delay", type=int, default=5)  # [inject] latent: sweeps the check is blind
    p.add_argument("--rank", type=int, default=None)  # [inject] the process struck (default: the last)
    args, _ = p.parse_known_args()
    gds.init()  # starts MPI (before any mpi4py call)
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    n, steps = args.n, args.steps
    at, victim = steps // 2 if args.at is None else args.at, size - 1 if args.rank is None else args.rank  # [inject]
    up, down = rank - 1 if rank > 0 else MPI.PROC_NULL, rank + 1 if rank < size - 1 else MPI.PROC_NULL

    u = np.zeros((n + 2, n))  # rows 1..n are this process's band; rows 0 and n+1 its halo
    if rank == 0:
        u[0, :] = 1.0  # the hot edge: a halo row no process sends
    band = gds.Array.create(u[1:-1], name="heat")  # the band's rows, versioned in place; a restart fills them
    if rank == 0 and band.restart_info.restarted: print(f"RESTARTED from={band.restart_info.version}", flush=True)
    sound = lambda: comm.allreduce(bool(((0 <= u[1:-1]) & (u[1:-1] <= 1)).all()), op=MPI.LAND)  # max principle
    start = MPI.Wtime()
    step = int(band.label or 0)  # the sweep the current version holds (a restart's, or 0)
    struck = False  # [inject]
    while step < steps:
        if step == at and args.inject != "none" and not struck and rank == victim:  # [inject] strikes once
            struck = True  # [inject]
            if args.inject == "kill":  # [inject]
                os.kill(os.getpid(), signal.SIGKILL)  # [inject]
            if args.inject == "library":  # [inject]
                gds.inject_fault("version_phase", 4)  # [inject] this process's next version fails
            if args.inject in ("flip", "latent"):  # [inject]
                u[1 + n // 2, n // 2] = 1e30  # [inject] an exponent bit flipped
        blind = args.inject == "latent" and at <= step < at + args.delay  # [inject]
        if args.every > 0 and step % args.every == 0:
            try:  # a version of checked state, labelled with the sweep it holds
                if not (blind or sound()):
                    raise gds.Error("the plate fails its check")
                band.version_inc(str(step))
            except gds.Error:  # back to the newest version that passes the check, on every process
                since, v = MPI.Wtime(), band.version
                while v > 0 and not (band.restore(v - 1) or sound()):
                    v -= 1
                if rank == 0: print(f"RECOVERED {args.inject} step={step} from={v - 1}\nRECOVERY_TIME {MPI.Wtime() - since:.6f}")
                step = int(band.label)
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
