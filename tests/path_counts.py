#!/usr/bin/env python3
"""Runs tests/path_counts (every collective path of GDS, counted per process
by a PMPI counter, its data checked) at several process counts and compares:
from 2 processes on, every path makes the same collectives, messages and
one-sided operations, with the same bytes, at every count; none gathers data
that grows with the processes, except the paths in GROWING, whose bytes per
process grow by at most their documented bytes per process (docs/design.md,
"Every collective path, counted"). At 1 process no path makes more than at 2.

  path_counts.py --mpiexec CMD --program PATH --np 1 2 3 4
  (./scripts/gds count: --np 2 8 16 32 64; oversubscribed: counts, not time)

One host acts as one node per process (GDS_RANKS_PER_NODE=1), so PARTNER
rebuilds across "nodes"."""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpilaunch  # tests/mpilaunch.py

FIELDS = ("collectives", "collective_bytes", "growing", "objects", "messages", "message_bytes", "rma", "rma_bytes")

# Paths whose result needs every process's data, and the most bytes each
# process may receive per process of the job (the model in docs/design.md).
GROWING = {
    # The failure groups: every process's GDS_NODE_ID, GDS_RANKS_PER_NODE,
    # Slurm node and host (32 bytes); the MPI library check on the host's
    # processes (8 bytes).
    "init": 40,
    # A flush's seal: rank 0 writes the table of the file's stripe checksums,
    # gathered from the processes that wrote or read back the stripes (4
    # bytes of count and the checksums of its stripes from each: rank 0
    # receives 4 bytes per process and 4 per stripe; what each process
    # sends does not grow).
    "flush_wait": 0,
    # An RS rebuild: per version lost, an allgather over the RS set (at most
    # GDS_SET_SIZE members, s + 3 words each) of which encoding files are
    # good; it grows with the set, never with the job (0 bytes per process).
    "restart.rs": 0,
}

PATHS = ("init", "alloc.memory", "version.memory", "restore", "navigation", "navigation.newest", "group.create",
         "group.version", "group.restore", "group.free", "free.memory", "alloc.cache", "version.cache",
         "version.flush", "flush_wait", "should_exit", "free.cache", "restart_query", "restart.cache",
         "restart.rebuild", "restart.prefix", "alloc.rs", "version.rs", "restart.rs", "finalize")
RS_PATHS = ("alloc.rs", "version.rs", "restart.rs")  # over the first 3 processes: from 3 on


def run(args, np, scratch):
    cmd = mpilaunch.split(args.mpiexec) + ["-n", str(np), args.program, scratch]
    env = dict(os.environ, GDS_RANKS_PER_NODE="1", MPIEXEC_TIMEOUT=str(args.timeout))
    for k in list(env):
        if k.startswith(("GDS_TEST_", "SCR_")) or k in ("GDS_NODE_ID", "GDS_JOB_ID", "GDS_CACHE_BASE", "GDS_PREFIX"):
            del env[k]
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=args.timeout + 30)
    except subprocess.TimeoutExpired as e:
        return None, f"timed out after {args.timeout} s: {e.stdout}{e.stderr}", time.monotonic() - start
    out = p.stdout + p.stderr
    if p.returncode != 0 or f"path_counts: ok at {np} process(es)" not in p.stdout:
        return None, f"exit {p.returncode}:\n{out}", time.monotonic() - start
    counts = {}
    for line in p.stdout.splitlines():
        m = re.match(r"count (\S+) (.*)$", line)
        if m:
            counts[m.group(1)] = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", m.group(2))}
    return counts, out, time.monotonic() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--program", required=True)
    ap.add_argument("--np", type=int, nargs="+", required=True)
    ap.add_argument("--timeout", type=int, default=900, help="seconds per run")
    args = ap.parse_args()
    failures = []
    at = {}
    with tempfile.TemporaryDirectory(prefix="gds-path-counts-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None) as scratch:
        for np in args.np:
            counts, out, seconds = run(args, np, scratch)
            print(f"--- {np} process(es): {seconds:.1f} s", flush=True)
            if counts is None:
                failures.append(f"{np} process(es): {out}")
                continue
            missing = [p for p in PATHS if p not in counts and not (np == 1 and p == "restart.rebuild")
                       and not (np < 3 and p in RS_PATHS)]
            if missing:
                failures.append(f"{np} process(es): paths not counted: {missing}")
            at[np] = counts
    counts_at = sorted(at)
    # The table: collectives/bytes/messages per path and count.
    print(f"{'path':<18}" + "".join(f"{'P=' + str(n):>30}" for n in counts_at))
    for path in PATHS:
        cells = []
        for n in counts_at:
            c = at[n].get(path)
            cells.append("-" if c is None else f"{c['collectives']}c/{c['collective_bytes']}B {c['messages']}m/"
                                               f"{c['message_bytes']}B")
        print(f"{path:<18}" + "".join(f"{x:>30}" for x in cells))
    several = [n for n in counts_at if n >= 2]
    for path in PATHS:
        for n in counts_at:
            c = at[n].get(path)
            if c is not None and c["growing"] != 0 and path not in GROWING:
                failures.append(f"{path} at {n} process(es): {c['growing']} collective(s) whose data grows with the "
                                f"processes")
        got = [(n, at[n][path]) for n in several if path in at[n]]
        for (n0, c0), (n1, c1) in zip(got, got[1:]):
            for f in FIELDS:
                if path in GROWING and f == "collective_bytes":
                    grew = (c1[f] - c0[f]) / (n1 - n0)
                    if grew > GROWING[path] or c1[f] < c0[f]:
                        failures.append(f"{path}: {f} grows by {grew:.1f} bytes per process from {n0} to {n1} "
                                        f"processes, more than the documented {GROWING[path]}")
                elif c1[f] != c0[f]:
                    failures.append(f"{path}: {f} is {c0[f]} at {n0} processes and {c1[f]} at {n1}")
        if 1 in at and several and path in at[1] and path in at[several[0]]:
            one, two = at[1][path], at[several[0]][path]
            for f in ("collectives", "messages", "rma", "objects"):
                if one[f] > two[f]:
                    failures.append(f"{path}: {f} is {one[f]} at 1 process, more than {two[f]} at {several[0]}")
    for f in failures:
        print("FAIL:", f, flush=True)
    print(f"path_counts: {len(PATHS)} paths at {', '.join(map(str, args.np))} process(es), {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
