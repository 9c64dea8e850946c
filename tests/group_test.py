#!/usr/bin/env python3
"""Kills a version group's program at every phase of a group version and
checks the restart: every member comes back at the same step, the one
GDS_restart_query reported (group_app checks the content of all of them).

  group_test.py --mpiexec M --app group_app --steps list_steps --np N [--seed S] [--rounds R] [--tool gds-index]

Per round: a kill point (the phases and points of GDS_version_inc and of
the cache, as tests/list_steps lists them; the group's commit record is
written between "cache.record" and "cache.recorded"), the n-th time, on a
random process; the job dies; the rerun restarts from the cache (PARTNER across
one-process nodes, SINGLE at 1 process, XOR at 3 or more every other
round). Then the same from the prefix with the cache removed (flushes of
the members published at different times). Some cache rounds with
redundancy lose the victim's node directory, or flip a byte in one of its
group files, before the rerun: the rerun restarts as without the loss (the
group's files are rebuilt from the PARTNER copies or the XOR parity). After
every rerun from the cache, a group version is one file per process
(v<n>.gdsg in the group's directory, beside its record and redundancy), and
the members' directories hold no version files. Some rounds leave a member
unnamed: the group names it g.1 and restarts it at GDS_group_create; after
the restart, gds-index (--tool) must show it so, in the group's view too.
Prints the seed."""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

import gds_steps  # tests/gds_steps.py
import mpilaunch  # tests/mpilaunch.py

ap = argparse.ArgumentParser()
ap.add_argument("--mpiexec", required=True)
ap.add_argument("--app", required=True)
ap.add_argument("--steps", required=True, help="tests/list_steps")
ap.add_argument("--np", type=int, required=True)
ap.add_argument("--seed", type=int, default=int(os.environ.get("GDS_TEST_SEED", time.time_ns() % 1000000)))
ap.add_argument("--rounds", type=int, default=6)
ap.add_argument("--tool", help="gds-index: checks its list and groups views after each restart")
args = ap.parse_args()
rng = random.Random(args.seed)
print(f"group_test: seed {args.seed} (GDS_TEST_SEED={args.seed} repeats it), {args.np} process(es)", flush=True)

POINTS = [s.name for s in gds_steps.version_and_cache(gds_steps.load(args.steps))]
STEPS = 8
failures = []
tmp = tempfile.mkdtemp(prefix="gds_group_test.")


def run(what, env, kill=None, victim=0, expect_ok=True, unnamed=False):
    cmd = mpilaunch.split(args.mpiexec)
    for r in range(args.np):
        own = {"GDS_TEST_KILL": kill} if kill and r == victim else {}
        cmd += ["-n", "1"] + mpilaunch.env_args(args.mpiexec, own) + [args.app, str(STEPS)] + (["unnamed"] if unnamed else [])
        if r + 1 < args.np:
            cmd.append(":")
    env = dict(os.environ, MPIEXEC_TIMEOUT="100", **env)
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=110)
    except subprocess.TimeoutExpired:
        failures.append(f"{what}: timed out")
        print(f"FAIL {what}: timeout\n  cmd: {' '.join(cmd)}", flush=True)
        return None
    ok = p.returncode == 0 and "group_app: ok" in p.stdout
    if expect_ok and not ok:
        failures.append(what)
        print(f"FAIL {what}: exit {p.returncode}\n  cmd: {' '.join(cmd)}\n{p.stdout}{p.stderr}", flush=True)
    return p


def settings(job, copy, sync, prefix=None):
    env = {"GDS_JOB_ID": job, "GDS_CACHE_BASE": os.path.join(tmp, "cache"), "GDS_COPY_TYPE": copy,
           "GDS_DEBUG_LEVEL": "0", "GDS_CACHE_SYNC": sync}
    if args.np > 1:
        env["GDS_RANKS_PER_NODE"] = "1"
    if prefix:
        env.update({"GDS_PREFIX": prefix, "GDS_FLUSH": "1"})
    return env


def check_index(what, directory, job, unnamed):
    """gds-index names the members as the group does and shows the group with its versions."""
    member = "g.1" if unnamed else "b"
    listed = subprocess.run([args.tool, "list", directory, "--job", job], capture_output=True, text=True, timeout=60)
    grouped = subprocess.run([args.tool, "groups", directory, "--job", job], capture_output=True, text=True,
                             timeout=60)
    rows = [l.split() for l in grouped.stdout.splitlines()[1:]]
    ok = (listed.returncode == 0 and grouped.returncode == 0
          and any(r[2:3] == [member] for r in (l.split() for l in listed.stdout.splitlines()[1:]))
          and not any(r[2].startswith("array") for r in (l.split() for l in listed.stdout.splitlines()[1:]))
          and rows and all(r[2] == "g" and f"a,{member},c" in r for r in rows)
          and any("complete" in " ".join(r) for r in rows))
    if not ok:
        failures.append(f"{what}: gds-index does not show member {member} and group g")
        print(f"FAIL {what}: gds-index\n{listed.stdout}{listed.stderr}{grouped.stdout}{grouped.stderr}", flush=True)


def check_layout(what, cache, job):
    """One file per process per group version: v<n>.gdsg beside its record; no member version files."""
    jd = os.path.join(cache, f"gds.{job}")
    own, group_files, records = [], 0, 0
    for root, _, names in os.walk(jd):
        for n in names:
            if "@group" in root:
                group_files += n.startswith("v") and n.endswith(".gdsg")
                records += n.startswith("v") and n.endswith(".done")
            elif n.endswith(".gdsv"):
                own.append(os.path.join(root, n))
    if own or group_files == 0 or group_files != records:
        failures.append(f"{what}: layout: {len(own)} member version file(s), {group_files} group file(s), "
                        f"{records} record(s)")
        print(f"FAIL {what}: layout {own[:3]} group files {group_files} records {records}", flush=True)


def lose(what, cache, job, victim, how):
    """The victim's node directory removed, or one byte of one of its group files flipped."""
    node = os.path.join(cache, f"gds.{job}", f"node{victim}")
    if how == "lose":
        shutil.rmtree(node, ignore_errors=True)
        return
    files = sorted(os.path.join(r, n) for r, _, ns in os.walk(node) for n in ns
                   if n.startswith("v") and n.endswith(".gdsg"))
    if files:
        path = rng.choice(files)
        size = os.path.getsize(path)
        at = rng.randrange(size)
        with open(path, "r+b") as f:
            f.seek(at)
            b = f.read(1)
            f.seek(at)
            f.write(bytes([b[0] ^ 0x10]))
        print(f"  flipped byte {at} of {path}", flush=True)


# A group's members with PARTNER on one node (one failure group): PARTNER is
# SINGLE there, and rank 0 says so once for the run, not once per member.
one_node = dict(settings("one-node", "PARTNER", "1"), GDS_RANKS_PER_NODE=str(args.np))
p = run("PARTNER on one node", one_node)
if p is not None:
    said = (p.stdout + p.stderr).count("copy type PARTNER needs processes in 2 or more failure groups")
    print(f"PARTNER on one node: {said} warning(s) for the group's 3 members", flush=True)
    if said != 1:
        failures.append(f"PARTNER on one node: {said} warnings where one is due:\n{p.stderr}")

killed = restarts = 0
for rnd in range(args.rounds):
    sync = "0" if rnd % 4 >= 2 else "1"  # cache writes synchronous (the default), or asynchronous
    point = POINTS[rng.randrange(len(POINTS))]
    # Every step is reached about once per group version (9 versions a run; asynchronous
    # writes may reach the cache's phases again while another process is behind).
    nth = rng.randint(2, STEPS + 1)
    victim = rng.randrange(args.np)
    copy = "SINGLE" if args.np == 1 else ("XOR" if args.np >= 3 and rnd % 2 else "PARTNER")
    from_prefix = rnd % 3 == 2
    unnamed = rnd % 4 in (1, 2)
    job = f"g{rnd}"
    prefix = os.path.join(tmp, "prefix") if from_prefix else None
    env = settings(job, copy, sync, prefix)
    what = f"round {rnd}: kill {point}:{nth} on rank {victim}, {copy} {'sync' if sync == '1' else 'async'}{', restart from the prefix' if from_prefix else ''}{', b unnamed' if unnamed else ''}"
    print(what, flush=True)
    p = run(what + " (first run)", env, kill=f"{point}:{nth}", victim=victim, expect_ok=False, unnamed=unnamed)
    if p is None:
        continue
    if p.returncode == 0:
        failures.append(f"{what}: the job was not killed")
        print(f"FAIL {what}: not killed\n{p.stdout}{p.stderr}", flush=True)
        continue
    killed += 1
    if from_prefix:
        shutil.rmtree(os.path.join(tmp, "cache"), ignore_errors=True)
    elif copy != "SINGLE" and rnd % 4 in (0, 3):
        how = rng.choice(["lose", "flip"])
        print(f"  then {how} on rank {victim}", flush=True)
        lose(what, os.path.join(tmp, "cache"), job, victim, how)
        what += f", then {how} on rank {victim}"
    p = run(what + " (restart)", env, unnamed=unnamed)
    if p is not None and p.returncode == 0:
        line = [l for l in p.stdout.splitlines() if l.startswith("group_app: ok")][0]
        print("  " + line, flush=True)
        # A kill before the first group version was recorded leaves nothing
        # to restart from (group_app checks that the query agrees).
        restarts += "restarted=1" in line
        if "restarted=1" in line and from_prefix and "level=2" not in line:
            failures.append(f"{what}: did not restart from the prefix")
            print(f"FAIL {what}: not from the prefix", flush=True)
        if args.tool:
            check_index(what, os.path.join(tmp, "prefix") if from_prefix else os.path.join(tmp, "cache"), job, unnamed)
        if not from_prefix:
            check_layout(what, os.path.join(tmp, "cache"), job)
shutil.rmtree(tmp, ignore_errors=True)
if killed == 0 or restarts == 0:
    failures.append(f"{killed} job(s) killed, {restarts} restarted: the test proved nothing")
if failures:
    print(f"group_test: {len(failures)} failure(s) (seed {args.seed}):\n  " + "\n  ".join(failures))
    sys.exit(1)
print(f"group_test: ok, {killed} kill(s), {restarts} restart(s) from persisted versions at {args.np} process(es) (seed {args.seed})")
