#!/usr/bin/env python3
"""The application plain beside resilient, in one run: bench/cg27 (a CG with
HPCCG's shape over GDS_create vectors in a version group) in its three modes,
interleaved round by round (the order rotated), at 2 processes.

  cg27.py --program build/release/bench/gds_bench_cg27 [--rounds 5] [--n 64] [--iters 300]

Prints each mode's loop and matrix-vector times (median and range) and the
two ratios issue 44 sets targets for: versions off against plain (at most
1.02), and versions on against plain plus the versions' own time
(GDS_get_costs; at most 1.02). Exit 1 if the residuals differ between modes."""
import argparse
import re
import shlex
import statistics
import subprocess
import sys

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("--program", required=True)
ap.add_argument("--mpiexec", default="mpiexec.mpich", help="the launcher and its options, as one string")
ap.add_argument("--np", type=int, default=2)
ap.add_argument("--rounds", type=int, default=5)
ap.add_argument("--n", type=int, default=64)
ap.add_argument("--iters", type=int, default=300)
ap.add_argument("--every", type=int, default=10)
args = ap.parse_args()

MODES = ["plain", "off", "on"]
runs = {m: [] for m in MODES}
residuals = set()
for k in range(args.rounds):
    order = MODES[k % 3:] + MODES[:k % 3]
    for mode in order:
        cmd = shlex.split(args.mpiexec) + ["-n", str(args.np), args.program, "--mode", mode, "--n", str(args.n), "--iters",
               str(args.iters), "--every", str(args.every)]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        m = re.search(r"loop=([\d.]+) spmv=([\d.]+) versions=(\d+) version_seconds=([\d.]+) residual=(\S+)", p.stdout)
        if p.returncode != 0 or m is None:
            print(f"cg27 {mode} failed (exit {p.returncode}):\n{p.stdout}{p.stderr}")
            sys.exit(1)
        runs[mode].append(tuple(float(m.group(i)) for i in (1, 2, 4)))
        residuals.add(m.group(5))
        print(f"round {k + 1} {mode:5}: loop {float(m.group(1)):.3f} s, spmv {float(m.group(2)):.3f} s, "
              f"{m.group(3)} versions in {float(m.group(4)):.3f} s", flush=True)


def summary(values):
    return f"{statistics.median(values):.3f} s ({min(values):.3f}-{max(values):.3f})"


print(f"\n{args.np} processes, {args.n}^3 rows each, {args.iters} iterations, a version every {args.every} (on)")
for mode in MODES:
    print(f"{mode:5}: loop {summary([r[0] for r in runs[mode]])}, spmv {summary([r[1] for r in runs[mode]])}")
plain = [r[0] for r in runs["plain"]]
off = [r[0] / plain[i] for i, r in enumerate(runs["off"])]
on = [r[0] / (plain[i] + r[2]) for i, r in enumerate(runs["on"])]
print(f"versions off / plain (same round): median {statistics.median(off):.3f} ({min(off):.3f}-{max(off):.3f}); "
      f"target at most 1.02")
print(f"versions on / (plain + the versions' time): median {statistics.median(on):.3f} "
      f"({min(on):.3f}-{max(on):.3f}); target at most 1.02")
if len(residuals) != 1:
    print(f"the residuals differ between modes: {sorted(residuals)}")
    sys.exit(1)
