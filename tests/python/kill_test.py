#!/usr/bin/env python3
"""kill -9 inside a version, then restart (the Python module; tests/persist_test.py does the
same for C): kill_app.py is run with GDS_TEST_KILL=<step>:<n> so that every process dies at
that kill point of its n-th version, from the cache (PARTNER; XOR at 3-4 processes, each
process a node), then with a prefix and the cache deleted; the rerun must restart
(restart_query finds it, the group restarts) with exactly the content of a version whose
label it reports, and finish.

  kill_test.py --np N --mpiexec "mpiexec ..." --python python3 [--tmpdir d]
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# (kill point, n-th time, storage): a version killed before its commit record, one killed after.
CASES = [("persist cache.durable:4", "cache"), ("persist cache.recorded:3", "cache"), ("persist flush.published:3", "prefix")]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--np", type=int, required=True)
    p.add_argument("--mpiexec", required=True)
    p.add_argument("--python", default=sys.executable)
    p.add_argument("--tmpdir", default=None)
    args = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="gds-py-kill-", dir=args.tmpdir)
    failures = []
    try:
        for n, (point, storage) in enumerate(CASES):
            kill = point.split()[1]
            base = os.path.join(tmp, f"case{n}")
            env = {k: v for k, v in os.environ.items() if not k.startswith(("GDS_", "SCR_"))}
            env.update(GDS_JOB_ID=f"pykill{n}", GDS_CACHE_BASE=os.path.join(base, "cache"), MPIEXEC_TIMEOUT="60",
                       GDS_COPY_TYPE="XOR" if args.np >= 3 else ("PARTNER" if args.np == 2 else "SINGLE"),
                       GDS_RANKS_PER_NODE="1")
            if storage == "prefix":
                env.update(GDS_PREFIX=os.path.join(base, "prefix"), GDS_FLUSH="1")
            cmd = shlex.split(args.mpiexec) + ["-n", str(args.np), args.python, os.path.join(HERE, "kill_app.py")]
            first = subprocess.run(cmd, env=dict(env, GDS_TEST_KILL=kill), capture_output=True, text=True, timeout=90)
            if first.returncode == 0 or "kill_app: ok" in first.stdout:
                failures.append(f"{kill}: the job was not killed\n{first.stdout}{first.stderr}")
                continue
            if storage == "prefix":
                shutil.rmtree(os.path.join(base, "cache"), ignore_errors=True)
            second = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=90)
            m = re.search(r"RESTARTED from=(\d+) label=(\d+) level=(\d)", second.stdout)
            print(f"[{kill} {storage}] killed (exit {first.returncode}); rerun exit {second.returncode}: "
                  f"{m.group(0) if m else 'no RESTARTED line'}", flush=True)
            if second.returncode != 0 or "kill_app: ok" not in second.stdout or not m:
                failures.append(f"{kill} ({storage}): the rerun failed\n{second.stdout}{second.stderr}")
            elif int(m.group(3)) != (2 if storage == "prefix" else 1):
                failures.append(f"{kill} ({storage}): restarted from level {m.group(3)}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print("FAIL", f)
    print("kill_test:", "FAILED" if failures else "ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
