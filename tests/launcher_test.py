#!/usr/bin/env python3
"""gds-run (tools/gds-run) and GDS_should_exit, with tests/launcher_app on one host acting as nodes.

  launcher_test.py --gds-run tools/gds-run --app launcher_app --np N [--seed S] [--kill-seconds S]
                   [--mpiexec mpiexec.mpich] [--tmpdir D] [suite ...]

Every job runs under gds-run with `mpiexec -n {tasks} launcher_node.py launcher_app ...`: each
process is a node of gds-run's (GDS_RUN_NODES), with its own cache directory (launcher_node.py).
The answer of every job is compared with an uninterrupted run's ("done: ... hash=...").

Suites (default all but shrink):
  normal   a job that ends normally is run once
  failing  a job killed on every attempt stops after --attempts runs, non-zero, "giving up"
  kill     seeded rounds for --kill-seconds: kill -9 at GDS kill points (GDS_TEST_KILL) of a random
           process on attempts 1 and 2, or an external kill -9 of a random process after a random
           delay; gds-run relaunches and the job ends with the reference answer
  halt     a halt file created by `gds-run --halt FILE` while the job runs: it stops right after a
           version on every configured level (cache every 2nd, prefix every 3rd version), status 0,
           one run; gds-run refuses to start while the file exists; without it, a relaunch (the
           cache deleted) resumes at exactly that step from the prefix and ends with the answer
  time     --time-limit with --halt-seconds: the job stops on its own before the "allocation" ends,
           right after a cached version; the relaunch resumes there
  clear    a finished job rerun under its id resumes at its end, says so in one restart line, and
           `gds-run --clear` removes it (cache base and prefix), after which it starts afresh; a
           killed job is refused unless --force; bad ids and unknown jobs are messages
  shrink   N nodes (N >= 3), one process each, XOR and PARTNER plus a prefix: once a flush exists
           the test marks a node down for --node-check, deletes its cache directory and kill -9s its
           process; gds-run leaves it out and relaunches on N-1 nodes, which restart and end with
           the answer. With `-n {tasks}` (N-1 processes: from the prefix, the cache serves only the
           same count) and with `-n N` fixed and the last node lost (its process joins the last
           node left: PARTNER must rebuild from the cache; XOR's sets change with the groups, so it
           restarts from the prefix)
The seed is printed; --seed replays it. Exit 0 when every check passed.
"""
import argparse
import glob
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("--gds-run", required=True)
ap.add_argument("--app", required=True)
ap.add_argument("--np", type=int, required=True)
ap.add_argument("--mpiexec", default="mpiexec.mpich")
ap.add_argument("--seed", type=int, default=None)
ap.add_argument("--kill-seconds", type=float, default=20)
ap.add_argument("--tmpdir", default=None)
ap.add_argument("--timeout", type=int, default=120, help="seconds per job run (MPIEXEC_TIMEOUT)")
ap.add_argument("suites", nargs="*")
args = ap.parse_args()
NP = args.np
SEED = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
rng = random.Random(SEED)
print(f"launcher_test: seed {SEED} (--seed {SEED} replays it), {NP} process(es)", flush=True)
SUITES = args.suites or ["normal", "failing", "kill", "halt", "time", "clear"]
APP_ARGS = ["--steps", "60", "--every", "5", "--size", "4096"]
CLEAN = ("GDS_", "SCR_", "SLURM_", "FLUSH_to_SCR", "LAUNCHER_")
failures = []


def fail(msg):
    print(f"launcher_test: FAIL: {msg}", flush=True)
    failures.append(msg)


def base_env(root):
    env = {k: v for k, v in os.environ.items() if not k.startswith(CLEAN)}
    env.update(MPIEXEC_TIMEOUT=str(args.timeout), LAUNCHER_ROOT=root)
    return env


def reference():
    env = base_env(tempfile.mkdtemp(prefix="launcher-ref-", dir=args.tmpdir))
    p = subprocess.run(shlex.split(args.mpiexec) + ["-n", str(NP), args.app] + APP_ARGS, env=env, text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=args.timeout + 30)
    shutil.rmtree(env["LAUNCHER_ROOT"], ignore_errors=True)
    done = [l for l in p.stdout.splitlines() if l.startswith("done:")]
    if p.returncode != 0 or len(done) != 1:
        print(p.stdout, p.stderr)
        sys.exit("launcher_test: the reference run did not end with one 'done:' line")
    print(f"[reference] {done[0]}", flush=True)
    return done[0]


REF = None


class Job:
    """gds-run over the app, in a directory of its own (caches, prefix, pids, halt file)."""

    def __init__(self, name, nodes=None, env=None, sleep_ms=10):
        self.name = name
        self.root = tempfile.mkdtemp(prefix=f"launcher-{name}-", dir=args.tmpdir)
        self.nodes = nodes or [f"n{i}" for i in range(NP)]
        self.env = base_env(self.root)
        self.env.update(GDS_JOB_ID=f"{name}-{os.getpid()}-{rng.randrange(1 << 30)}",
                        GDS_COPY_TYPE="SINGLE" if len(self.nodes) == 1 else "PARTNER", GDS_CACHE_SYNC="0")
        self.env.update(env or {})
        self.halt = os.path.join(self.root, "halt")
        self.sleep_ms = sleep_ms
        self.tasks = "{tasks}"  # the launch command's process count

    def argv(self, options):
        return ([sys.executable, args.gds_run, "--nodes", ",".join(self.nodes), "--tasks-per-node", "1",
                 "--halt-file", self.halt] + options + ["--"] + shlex.split(args.mpiexec)
                + ["-n", self.tasks, sys.executable, os.path.join(HERE, "launcher_node.py"), args.app] + APP_ARGS
                + ["--sleep-ms", str(self.sleep_ms)])

    def start(self, options=(), extra_env=None):
        env = dict(self.env, **(extra_env or {}))
        cmd = self.argv(list(options))
        shown = " ".join(f"{k}={v}" for k, v in sorted(env.items()) if k.startswith(("GDS_", "LAUNCHER_KILL")))
        print(f"[{self.name}] $ {shown} {shlex.join(cmd)}", flush=True)
        self.t0 = time.monotonic()
        return subprocess.Popen(cmd, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def finish(self, p, attempts_expected=None):
        out, err = p.communicate(timeout=4 * (args.timeout + 30))
        launches = len([l for l in err.splitlines() if re.match(r"gds-run: attempt \d+ of \d+: \S*(mpiexec|srun)", l)])
        print(f"[{self.name}]   gds-run exit {p.returncode} after {time.monotonic() - self.t0:.1f} s, "
              f"{launches} launch(es)", flush=True)
        for line in err.splitlines():
            if line.startswith("gds-run:"):
                print(f"[{self.name}]   {line}", flush=True)
        for line in out.splitlines():  # the app's lines (not Hydra's banners)
            if re.match(r"(starting|resuming|halted|done)", line):
                print(f"[{self.name}]   | {line}", flush=True)
        return p.returncode, out, err, launches

    def run(self, options=(), extra_env=None):
        return self.finish(self.start(options, extra_env))

    def pids(self):
        found = {}
        for path in glob.glob(os.path.join(self.root, "pids", "*.r*")):
            try:
                with open(path) as f:
                    found[os.path.basename(path)] = int(f.read())
            except (OSError, ValueError):
                pass
        return found

    def kill_process(self, key):
        """kill -9 of the process that wrote pids/<key> (still the app: exec kept its pid)."""
        pid = self.pids().get(key)
        if pid is None:
            return False
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if f"LAUNCHER_ROOT={self.root}".encode() not in f.read().split(b"\0"):
                    return False  # not ours any more
            os.kill(pid, signal.SIGKILL)
            return True
        except (OSError, ProcessLookupError):
            return False

    def cleanup(self):
        shutil.rmtree(self.root, ignore_errors=True)


def expect_answer(job, rc, out, what, once=True):
    """The job ended with status 0 and the reference answer. once=False: a run
    killed after printing its answer (before every process had exited) is
    relaunched and prints it again; every answer printed must be the reference."""
    done = [l for l in out.splitlines() if l.startswith("done:")]
    right = done == [REF] if once else bool(done) and all(d == REF for d in done)
    if rc != 0 or not right:
        fail(f"{job.name}: {what}: gds-run exit {rc}, answer {done}, expected [{REF!r}]")
        return False
    return True


def suite_normal():
    job = Job("normal")
    rc, out, err, launches = job.run(["--attempts", "3"])
    expect_answer(job, rc, out, "a job that ends normally")
    if launches != 1:
        fail(f"normal: launched {launches} times, expected once")
    if "starting on" not in out:
        fail("normal: the job did not start afresh")
    job.cleanup()


def suite_failing():
    job = Job("failing")
    point = rng.choice(["commit", "cache.prepare", "cache.durable"])
    n, rank, attempts = rng.randint(1, 4), rng.randrange(NP), rng.randint(2, 3)
    rc, out, err, launches = job.run(["--attempts", str(attempts)], {"LAUNCHER_KILL": f"*:{rank}:{point}:{n}"})
    if rc == 0 or launches != attempts or "giving up" not in err or "done:" in out:
        fail(f"failing: expected {attempts} launches, 'giving up' and a non-zero exit; got exit {rc}, {launches}")
    job.cleanup()


def suite_kill():
    end = time.monotonic() + args.kill_seconds
    rounds = 0
    while rounds < 2 or time.monotonic() < end:
        rounds += 1
        copy = "SINGLE" if NP == 1 else rng.choice(["PARTNER", "XOR"] if NP >= 3 else ["PARTNER"])
        env = {"GDS_COPY_TYPE": copy}
        if rng.random() < 0.5:
            env["GDS_PREFIX"] = ""  # set below, inside the job's directory
        job = Job(f"kill{rounds}", env=env, sleep_ms=rng.choice([0, 10, 20]))
        if "GDS_PREFIX" in env:
            job.env["GDS_PREFIX"] = os.path.join(job.root, "prefix")
        external = rng.random() < 0.35
        if external:
            p = job.start(["--attempts", "4"])
            delay = rng.uniform(0.3, 1.5)
            victim = f"n{rng.randrange(NP)}.r"
            time.sleep(delay)
            keys = [k for k in job.pids() if k.startswith(victim)]
            killed = bool(keys) and job.kill_process(keys[0])
            print(f"[{job.name}]   external kill -9 of {keys[:1]} after {delay:.2f} s: "
                  f"{'done' if killed else 'missed (not running)'}", flush=True)
            rc, out, err, launches = job.finish(p)
            if killed and launches < 2 and "done:" in out and "attempt 1 of 4: exit status 0" not in err:
                fail(f"{job.name}: a killed job was not relaunched")
        else:
            kills = [(a, rng.randrange(NP), rng.choice(["commit", "cache.prepare", "cache.durable"]), rng.randint(1, 5))
                     for a in (1, 2)[: rng.randint(1, 2)]]
            spec = ";".join(f"{a}:{r}:{pt}:{n}" for a, r, pt, n in kills)
            rc, out, err, launches = job.run(["--attempts", "4"], {"LAUNCHER_KILL": spec})
            if launches < 2:
                fail(f"{job.name}: the first run, killed at its kill point, was not relaunched ({launches})")
            if launches > len(kills) + 1:
                fail(f"{job.name}: {launches} launches for {len(kills)} kill(s)")
        expect_answer(job, rc, out, "killed and relaunched", once=not external)
        job.cleanup()
    print(f"kill suite: {rounds} round(s)", flush=True)


def halted_step(job, out):
    m = re.search(r"halted at step (\d+)", out)
    return int(m.group(1)) if m else None


def resumed_step(out):
    m = re.search(r"resuming at step (\d+)", out)
    return int(m.group(1)) if m else None


def suite_halt():
    # Cached every 2nd version and flushed every 3rd: it may stop only at a version on both
    # (steps 30 and 60 here; at 60 it ends anyway).
    job = Job("halt", env={"GDS_CACHE_EVERY": "2", "GDS_FLUSH": "3"}, sleep_ms=40)
    job.env["GDS_PREFIX"] = os.path.join(job.root, "prefix")
    p = job.start(["--attempts", "3"])
    delay = rng.uniform(0.2, 0.8)
    time.sleep(delay)
    h = subprocess.run([sys.executable, args.gds_run, "--halt", job.halt], text=True, stderr=subprocess.PIPE)
    print(f"[halt]   gds-run --halt after {delay:.2f} s: exit {h.returncode}: {h.stderr.strip()}", flush=True)
    rc, out, err, launches = job.finish(p)
    s = halted_step(job, out)
    if rc != 0 or launches != 1 or s is None or s % 30 != 0 or s >= 60 or "done:" in out:
        fail(f"halt: expected one run that stops at step 30 with status 0; exit {rc}, {launches} run(s), step {s}")
        job.cleanup()
        return
    finished = os.path.join(job.root, "cache", "n0", f"gds.{job.env['GDS_JOB_ID']}", "finished@job")
    if os.path.exists(finished):
        fail("halt: a halted job is recorded as finished (gds-run --clear would take what it resumes from)")
    rc, out, err, launches = job.run(["--attempts", "3"])
    if rc != 3 or launches != 0 or "halt file" not in err:
        fail(f"halt: gds-run started although the halt file exists (exit {rc}, {launches} run(s))")
    os.remove(job.halt)
    shutil.rmtree(os.path.join(job.root, "cache"))  # the nodes' storage is gone: the prefix has the version
    rc, out, err, launches = job.run(["--attempts", "3"])
    if resumed_step(out) != s:
        fail(f"halt: the relaunch resumed at {resumed_step(out)}, not at the halted step {s}")
    expect_answer(job, rc, out, "relaunch after a halt")
    job.cleanup()


def suite_time():
    job = Job("time", sleep_ms=40)
    limit = 1000
    left = rng.uniform(1.0, 1.8)  # seconds before the "allocation's" end the program halts
    rc, out, err, launches = job.run(["--attempts", "3", "--time-limit", f"{limit + left:.1f}", "--halt-seconds",
                                      str(limit)])
    s = halted_step(job, out)
    if rc != 0 or launches != 1 or s is None or s % 5 != 0 or "done:" in out:
        fail(f"time: expected one run that halts at a version with status 0; exit {rc}, {launches}, step {s}")
        job.cleanup()
        return
    if not re.search(r"ends at \S+ \(no relaunch with less than 1000 s left\)", err):
        fail("time: gds-run did not report the end time it exported")
    rc, out, err, launches = job.run(["--attempts", "3"])
    if resumed_step(out) != s:
        fail(f"time: the relaunch resumed at {resumed_step(out)}, not at the halted step {s}")
    expect_answer(job, rc, out, "relaunch after running out of time")
    job.cleanup()


def clear(job, *options, node="n0"):
    """gds-run --clear <job's id> with the job's cache base (one node's) and prefix."""
    env = dict(job.env, GDS_CACHE_BASE=os.path.join(job.root, "cache", node))
    q = subprocess.run([sys.executable, args.gds_run, "--clear", *options], env=env, text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    print(f"[{job.name}]   gds-run --clear {' '.join(options)}: exit {q.returncode}: {q.stderr.strip()}", flush=True)
    return q


def suite_clear():
    job = Job("clear")
    job.env["GDS_PREFIX"] = os.path.join(job.root, "prefix")
    jid = job.env["GDS_JOB_ID"]
    cache0, prefix = [os.path.join(job.root, *d, f"gds.{jid}") for d in (("cache", "n0"), ("prefix",))]
    rc, out, err, launches = job.run(["--attempts", "1"])
    expect_answer(job, rc, out, "a job that ends normally")
    for d in (cache0, prefix):
        if not os.path.exists(os.path.join(d, "finished@job")):
            fail(f"clear: no finished record in {d} after the job finished")
    # Rerun under the same id: it resumes at its end, and its one restart line says why.
    rc, out, err, launches = job.run(["--attempts", "1"])
    said = [l for l in err.splitlines() if "NOTICE" in l and "restarted" in l]
    if len(said) != 1 or "last run had finished" not in said[0] or f"gds-run --clear {jid}" not in said[0]:
        fail(f"clear: the rerun of a finished job did not say so in one restart line: {said}")
    for bad, code in ((["bad/id"], 2), (["no-such-job"], 1), (["--force"], 2)):
        q = clear(job, *bad)
        if q.returncode != code or "Traceback" in q.stderr:
            fail(f"clear: gds-run --clear {' '.join(bad)} exited {q.returncode}, not {code}: {q.stderr}")
    for node in job.nodes:  # each node's cache is cleared there (the prefix with the first)
        q = clear(job, jid, node=node)
        if q.returncode != 0 or os.path.exists(os.path.join(job.root, "cache", node, f"gds.{jid}")):
            fail(f"clear: a finished job was not cleared on {node}: exit {q.returncode}")
    if os.path.exists(prefix):
        fail("clear: the prefix still holds the finished job")
    rc, out, err, launches = job.run(["--attempts", "1"])
    if "starting on" not in out:
        fail("clear: the job did not start afresh after --clear")
    expect_answer(job, rc, out, "after --clear")
    job.cleanup()
    # A job killed on its only attempt has not finished: refused, then forced.
    job = Job("clear-killed")
    jid = job.env["GDS_JOB_ID"]
    cache0 = os.path.join(job.root, "cache", "n0", f"gds.{jid}")
    rc, out, err, launches = job.run(["--attempts", "1"], {"LAUNCHER_KILL": "*:0:commit:3"})
    if rc == 0:
        fail("clear: the job to kill ended normally")
    q = clear(job, jid)
    if q.returncode != 1 or "has not finished" not in q.stderr or not os.path.isdir(cache0):
        fail(f"clear: a killed job was not refused (exit {q.returncode})")
    q = clear(job, jid, "--force")
    if q.returncode != 0 or os.path.exists(cache0):
        fail(f"clear: --force did not clear a killed job (exit {q.returncode})")
    job.cleanup()


def suite_shrink():
    if NP < 3:
        print("shrink: needs 3 or more processes; skipped", flush=True)
        return
    # fewer: `-n {tasks}`, one process per node left, so the relaunch has one process fewer and
    #        restarts from the prefix (the cache serves only the same process count);
    # same:  `-n NP` fixed and the last node lost: its process joins the last node left, the others
    #        keep their nodes and failure groups; PARTNER rebuilds the lost files from the copies
    #        (restart from the cache), XOR's sets change with the groups (restart from the prefix).
    for mode in ("fewer", "same"):
        for copy in ("XOR", "PARTNER"):
            job = Job(f"shrink-{mode}-{copy.lower()}", env={"GDS_COPY_TYPE": copy}, sleep_ms=30)
            job.env["GDS_PREFIX"] = os.path.join(job.root, "prefix")
            lost = rng.choice(job.nodes) if mode == "fewer" else job.nodes[-1]
            procs = NP - 1 if mode == "fewer" else NP
            if mode == "same":
                job.tasks = str(NP)
            check = f"test ! -e {shlex.quote(job.root)}/down.{{node}}"
            p = job.start(["--attempts", "3", "--min-nodes", str(NP - 1), "--node-check", check])
            flushes = os.path.join(job.env["GDS_PREFIX"], f"gds.{job.env['GDS_JOB_ID']}", "state", "v*.h5")
            deadline = time.monotonic() + 60
            while not glob.glob(flushes) and time.monotonic() < deadline and p.poll() is None:
                time.sleep(0.05)
            time.sleep(rng.uniform(0, 0.3))
            open(os.path.join(job.root, f"down.{lost}"), "w").close()
            shutil.rmtree(os.path.join(job.root, "cache", lost), ignore_errors=True)
            keys = [k for k in job.pids() if k.startswith(lost + ".")]
            killed = bool(keys) and job.kill_process(keys[0])
            print(f"[{job.name}]   node {lost} lost (marked down, cache deleted, process killed: {killed})",
                  flush=True)
            rc, out, err, launches = job.finish(p)
            m = re.search(r"resuming at step \d+ \(version \d+, level (\d)\) on (\d+) processes", out)
            if not killed:
                fail(f"{job.name}: the job ended before its node could be lost")
            elif launches != 2 or f"node {lost} is down" not in err or m is None or int(m.group(2)) != procs:
                fail(f"{job.name}: expected a relaunch on {NP - 1} nodes ({procs} processes) without {lost} "
                     f"that restarts; {launches} run(s)")
            else:
                level = {"1": "the cache", "2": "the prefix"}.get(m.group(1), m.group(1))
                print(f"[{job.name}]   the relaunch restarted from {level}", flush=True)
                if mode == "same" and copy == "PARTNER" and m.group(1) != "1":
                    fail(f"{job.name}: PARTNER did not rebuild the lost node's files from the cache")
            expect_answer(job, rc, out, f"relaunch on {NP - 1} nodes after losing {lost}")
            job.cleanup()


REF = reference()
for suite in SUITES:
    t0 = time.monotonic()
    print(f"== {suite}", flush=True)
    globals()[f"suite_{suite}"]()
    print(f"== {suite}: {time.monotonic() - t0:.1f} s", flush=True)
print(f"launcher_test: {'FAILED' if failures else 'passed'} (seed {SEED})", flush=True)
sys.exit(1 if failures else 0)
