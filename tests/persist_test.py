#!/usr/bin/env python3
"""Persistence tests: jobs that version an array into the cache, end (or are
killed), and restart. One host acts as <np> nodes (GDS_RANKS_PER_NODE=1), so
every process has a failure group and a cache directory of its own.

  persist_test.py --mpiexec M --app A --np N [--kill-seconds S] [--seed X] [suite ...]

Suites: roundtrip, lost, corrupt, kill, config, scr, gvr (default: all; gvr
needs --gvr-app, an unchanged GVR 1.0 program configured by SCR_* alone).
Every job is bounded by a timeout; the kill suite runs random kill points for
--kill-seconds and prints its seed (--seed replays it)."""
import argparse
import itertools
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

ap = argparse.ArgumentParser()
ap.add_argument("--mpiexec", required=True)
ap.add_argument("--app", required=True)
ap.add_argument("--np", type=int, required=True)
ap.add_argument("--kill-seconds", type=float, default=40)
ap.add_argument("--seed", type=int, default=None)
ap.add_argument("--gvr-app", default=None)
ap.add_argument("suites", nargs="*")
args = ap.parse_args()
NP = args.np
SUITES = args.suites or ["roundtrip", "lost", "corrupt", "kill", "config", "scr"] + (["gvr"] if args.gvr_app else [])
failures = []
runs = 0
root = tempfile.mkdtemp(prefix="gds-persist-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
V = 6           # versions each write job makes
CACHE_SIZE = 3  # versions the cache keeps


def env_for(base, copy, extra=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GDS_", "SCR_"))}
    for k in ("MPIEXEC_TIMEOUT", "HWLOC_COMPONENTS", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
        if k in os.environ:
            env[k] = os.environ[k]
    env.update({"GDS_RANKS_PER_NODE": "1", "GDS_CACHE_BASE": base, "GDS_CACHE_SIZE": str(CACHE_SIZE),
                "GDS_JOB_ID": "t"})
    if copy:
        env["GDS_COPY_TYPE"] = copy
    env.update(extra or {})
    return env


def run(what, argv, env, expect_ok=True, kill_env=None, victim=None, timeout=240, app=None, marker="persist_app: ok"):
    """Runs the app on NP processes; kill_env goes to `victim` (None: all)."""
    global runs
    runs += 1
    cmd = [args.mpiexec]
    if kill_env and victim is not None:
        for r in range(NP):
            cmd += ["-n", "1"] + (["-env", "GDS_TEST_KILL", kill_env] if r == victim else []) + [app or args.app] + argv
            if r + 1 < NP:
                cmd.append(":")
    else:
        if kill_env:
            env = dict(env, GDS_TEST_KILL=kill_env)
        cmd += ["-n", str(NP), app or args.app] + argv
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        failures.append(f"{what}: timed out after {timeout} s")
        print(f"FAIL {what}: timeout", flush=True)
        return None
    ok = p.returncode == 0 and marker in p.stdout
    if expect_ok and not ok:
        failures.append(what)
        print(f"FAIL {what}: exit {p.returncode}\n  cmd: {' '.join(cmd)}\n{p.stdout}{p.stderr}", flush=True)
    return p


def shapes():
    return [("1", "row", "alloc"), ("2", "col", "alloc"), ("3", "row", "alloc"), ("3", "col", "create"),
            ("2", "row", "create"), ("1", "col", "create")]


def copies():
    return ["SINGLE"] + (["PARTNER", "XOR"] if NP >= 2 else [])


def fresh_base(tag):
    base = os.path.join(root, tag)
    shutil.rmtree(base, ignore_errors=True)
    os.makedirs(base)
    return base


def node_dir(base, g):
    return os.path.join(base, "gds.t", f"node{g}")


def roundtrip():
    for i, copy in enumerate(copies()):
        for shape in shapes()[i::len(copies())] if NP >= 2 else shapes()[:3]:
            tag = f"roundtrip {copy} {'/'.join(shape)}"
            base = fresh_base("rt")
            env = env_for(base, copy)
            argv = list(shape) + [str(V)]
            if run(tag + " write", ["write"] + argv, env) is None:
                continue
            # The files of dropped versions are written over while the array
            # lives (spares); GDS_free removes the ones left.
            spares = [os.path.join(d, f) for d, _, fs in os.walk(base) for f in fs if f.startswith("spare")]
            if spares:
                failures.append(f"{tag}: spare files left after GDS_free: {spares}")
            renv = dict(env, GDS_RESTART="1")
            run(tag + " restart", ["check"] + argv + [str(V - 1), "2"], renv)
            run(tag + " second restart", ["check"] + argv[:3] + [str(V + 2), str(V + 1)], renv)
            # Without the restart setting a new run starts afresh, whatever is on disk.
            run(tag + " fresh run", ["check"] + argv + ["fresh"], dict(env, GDS_RESTART="0"))


def snapshot(copy, extra=None, shape=("2", "row", "alloc")):
    base = fresh_base("snap")
    env = env_for(base, copy, extra)
    run(f"{copy} write for snapshot", ["write", *shape, str(V)], env)
    pristine = os.path.join(root, "pristine")
    shutil.rmtree(pristine, ignore_errors=True)
    shutil.copytree(base, pristine)
    return base, pristine, env


def restore(base, pristine):
    shutil.rmtree(base, ignore_errors=True)
    shutil.copytree(pristine, base)


def lost():
    if NP < 2:
        return
    schemes = [("SINGLE", {}), ("PARTNER", {}), ("XOR", {})]
    if NP == 4:
        schemes.append(("XOR", {"GDS_SET_SIZE": "2"}))
    for copy, extra in schemes:
        base, pristine, env = snapshot(copy, extra)
        set_size = int(extra.get("GDS_SET_SIZE", min(8, NP)))
        for k in range(1, NP + 1):
            for gone in itertools.combinations(range(NP), k):
                restore(base, pristine)
                for g in gone:
                    shutil.rmtree(node_dir(base, g))
                if copy == "SINGLE":
                    ok = False
                elif copy == "PARTNER":
                    ok = all((g + 1) % NP not in gone for g in gone)
                else:
                    sets = [list(range(s, min(s + set_size, NP))) for s in range(0, NP, set_size)]
                    if len(sets) > 1 and len(sets[-1]) < 2:
                        sets[-2] += sets.pop()
                    ok = all(sum(g in gone for g in s) <= 1 for s in sets)
                expect = str(V - 1) if ok else ("fresh" if k == NP else "GDS_STATUS_UNRECOVERABLE")
                tag = f"lost {copy}{' set ' + str(set_size) if extra else ''} groups {gone}: expect {expect}"
                p = run(tag, ["check", "2", "row", "alloc", str(V), expect, "1"], dict(env, GDS_RESTART="1"))
                if p is not None and ok and "rebuilt" in p.stdout and f"{k} process(es) rebuilt" not in p.stdout:
                    failures.append(tag + ": wrong rebuilt count")
                    print(f"FAIL {tag}: {p.stdout}", flush=True)


def mutate(path, how, rng):
    data = bytearray(open(path, "rb").read())
    if how == "flip":
        at = rng.randrange(len(data))
        data[at] ^= 1 << rng.randrange(8)
    elif how == "truncate":
        data = data[: rng.randrange(len(data))]
    else:
        data = bytearray(rng.randbytes(len(data)))
    open(path, "wb").write(bytes(data))


def corrupt():
    """Damages one file of each kind GDS writes (the newest and the oldest
    version file, a commit record, a PARTNER copy, an XOR parity) in each way
    (a flipped bit, truncation, garbage). At 3-4 processes only XOR (the
    others are covered at 1-2, and jobs are slow when oversubscribed)."""
    rng = random.Random(1234)
    for copy in copies() if NP <= 2 else ["XOR"]:
        base, pristine, env = snapshot(copy)
        d0 = os.path.join(node_dir(base, 0), "model", "r0")
        names = os.listdir(os.path.join(pristine, "gds.t", "node0", "model", "r0"))
        number = lambda n: int(n.split(".v")[-1].split(".")[0].lstrip("vpx")) if n[0] != "p" else int(n.split(".v")[1].split(".")[0])
        versions = sorted(n for n in names if n.endswith(".gdsv") and n[0] == "v")
        picks = {versions[0], versions[-1]}
        for prefix, suffix in (("v", ".done"), ("p", ".gdsv"), ("x", ".gdsx")):
            kind = sorted((n for n in names if n[0] == prefix and n.endswith(suffix)), key=number)
            if kind:
                picks.add(kind[-1])
        for name in sorted(picks):
            for how in ("flip", "truncate", "garbage"):
                restore(base, pristine)
                mutate(os.path.join(d0, name), how, rng)
                redundant = copy != "SINGLE"
                # With redundancy every damaged file is rebuilt or not needed; SINGLE
                # restarts from an older version or refuses, never from wrong data.
                expect = str(V - 1) if redundant or name.endswith(".done") else "any|GDS_STATUS_UNRECOVERABLE"
                if name == f"v{V - 1}.done" and NP == 1:
                    expect = str(V - 2)  # the only record of the newest version: the one before it
                run(f"corrupt {copy} {how} {name}: expect {expect}",
                    ["check", "2", "row", "alloc", str(V), expect], dict(env, GDS_RESTART="1"))


KILL_POINTS = ["settle", "exchange", "reserve", "freeze", "persist", "cache.decide", "cache.write",
               "cache.redundancy", "cache.agree", "cache.record", "cache.drop", "commit"]


def kill():
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
    print(f"kill suite: seed {seed} (--seed {seed} replays it), {args.kill_seconds} s", flush=True)
    rng = random.Random(seed)
    end = time.monotonic() + args.kill_seconds
    rounds = killed = 0
    started = {}
    while time.monotonic() < end or rounds < 3:
        rounds += 1
        copy = rng.choice(copies())
        point = rng.choice(KILL_POINTS)
        nth = rng.randrange(1, V + 1)
        victim = rng.choice([None] + list(range(NP)))
        shape = rng.choice(shapes())
        base = fresh_base("kill")
        env = env_for(base, copy)
        what = f"kill round {rounds}: {copy} {'/'.join(shape)} at {point}:{nth} of {'every process' if victim is None else 'rank ' + str(victim)}"
        p = run(what + " (write)", ["write", *shape, str(V)], env, expect_ok=False, kill_env=f"{point}:{nth}",
                victim=victim)
        if p is None:
            continue
        killed += p.returncode != 0
        # The newest complete version, whichever it is, must be exact; and it goes on from there.
        q = run(what + " (restart)", ["check", *shape, str(V), "any", "1"], dict(env, GDS_RESTART="1"))
        if q is not None:
            got = q.stdout.split("restarted from version ")[1].split()[0] if "restarted from" in q.stdout else "fresh"
            started[got] = started.get(got, 0) + 1
    print(f"kill suite: {rounds} rounds, {killed} jobs killed; restarted from: "
          + ", ".join(f"{k}: {v}" for k, v in sorted(started.items())), flush=True)
    if killed == 0:
        failures.append("kill suite: no job was killed (GDS_TEST_KILL had no effect)")


def config():
    app = ["check", "1", "row", "alloc", str(V)]
    base = fresh_base("cfg")
    run("config: unknown copy type", app + ["GDS_STATUS_INVALID"], env_for(base, "RAID6"))
    run("config: cache base not a directory", app + ["GDS_STATUS_IO_ERROR"],
        env_for("/proc/gds-no-such-dir", "SINGLE"))
    run("config: set size beyond the groups", app + ["GDS_STATUS_INVALID_INFO"],
        env_for(base, "XOR", {"GDS_SET_SIZE": str(NP + 1)}))
    run("config: PARTNER on one node", app + ["GDS_STATUS_INVALID_INFO"],
        env_for(base, "PARTNER", {"GDS_RANKS_PER_NODE": str(NP)}))
    run("config: bad cache size", app + ["GDS_STATUS_INVALID"], env_for(base, "SINGLE", {"GDS_CACHE_SIZE": "0"}))


def scr():
    """A job script written for GVR 1.0 + SCR: only SCR_* variables."""
    base = fresh_base("scr")
    conf = os.path.join(root, "scr.conf")
    with open(conf, "w") as f:
        f.write("# SCR configuration\nSCR_CACHE_SIZE=3\nSCR_COPY_TYPE = XOR\nCKPT=0 TYPE=XOR SET_SIZE=4\n")
    env = env_for(base, None)
    for k in ("GDS_CACHE_BASE", "GDS_CACHE_SIZE", "GDS_JOB_ID"):
        del env[k]
    copy = "LOCAL" if NP == 1 else "PARTNER"
    env.update({"SCR_CACHE_BASE": base, "SCR_JOB_ID": "gvrjob", "SCR_CONF_FILE": conf, "SCR_COPY_TYPE": copy})
    run("scr: write", ["write", "2", "row", "alloc", str(V)], env)
    if not os.path.isdir(os.path.join(base, "gds.gvrjob")):
        failures.append("scr: SCR_CACHE_BASE/SCR_JOB_ID not used")
    # The same job id restarts without GDS_RESTART (as SCR does); SCR_CACHE_SIZE=3 from the file.
    run("scr: restart", ["check", "2", "row", "alloc", str(V), str(V - 1)], env)


def gvr():
    """An unchanged GVR 1.0 program (tests/gvr_app.c: GVR calls only, no info
    keys) under a job script that sets SCR_* variables only: it is killed
    before version 5, and the rerun with the same SCR_JOB_ID goes on from
    version 5 with the older versions readable; another job id starts afresh."""
    base = fresh_base("gvr")
    conf = os.path.join(root, "gvr.conf")
    with open(conf, "w") as f:
        f.write("SCR_CACHE_SIZE=4\n")
    env = {k: v for k, v in env_for(base, None).items() if not k.startswith("GDS_")}
    env.update({"SCR_CACHE_BASE": base, "SCR_JOB_ID": "gvr1", "SCR_CONF_FILE": conf, "SCR_COPY_TYPE": "LOCAL"})
    p = run("gvr: killed before version 5", ["8", "5", "0"], env, expect_ok=False, app=args.gvr_app,
            marker="gvr_app: ok")
    if p is not None and p.returncode == 0:
        failures.append("gvr: the job was not killed")
    run("gvr: rerun goes on from version 5", ["8", "0", "5"], env, app=args.gvr_app, marker="gvr_app: ok")
    run("gvr: another job id starts afresh", ["3", "0", "0"], dict(env, SCR_JOB_ID="gvr2"), app=args.gvr_app,
        marker="gvr_app: ok")


try:
    for suite in SUITES:
        t = time.monotonic()
        globals()[suite]()
        print(f"suite {suite}: {time.monotonic() - t:.1f} s", flush=True)
finally:
    shutil.rmtree(root, ignore_errors=True)
print(f"{runs} jobs at {NP} process(es), {len(failures)} failed")
for f in failures:
    print("  " + f)
sys.exit(1 if failures else 0)
