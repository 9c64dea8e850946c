#!/usr/bin/env python3
"""Benchmark of the mini-applications (examples/cg, md, heat): what resilience with GDS costs.

At --np processes (default 2), in one run:

1. Cost per version. Every resilient run has GDS_PRINT_COSTS=1: each process prints at GDS_finalize what
   resilience cost it (per kind of work: calls, seconds inside them, bytes); per kind the slowest process's
   seconds and bytes are taken (calls are the same everywhere). Per application and storage setting:
   versions, seconds and bytes per version (versions seconds / calls: the whole of each
   GDS_group_version_inc or GDS_version_inc, the application's check not included; the cache writes
   synchronously by default, so its work is inside these seconds) against the floor measured in the
   same run: right after each repeat's runs of that application and storage, bench/floor.c
   (gds_bench_floor, --floor-bin) at the same process count times a warm memcpy of the bytes per version
   (into memory touched before but not in the caches, as the versions' memory is in steady state: a ring
   as large as the retained versions), each copy as long after the last as the application's versions are
   apart (k plain steps, at most MAX_GAP_US; the program's work meanwhile: 64 MiB of other data read and
   written, sweeping the caches, then the copy's source read), then the agreement a version
   makes (an MPI_Allreduce of 32 values), and the same copies back to back,
   and, for the cache settings, writing the cache bytes per version (cache bytes / versions: every array's
   file) to a file under --shm + fsync, exchanging them with the partner and writing its copy + fsync; the
   floor is the memcpy plus that. Two readings:
     every 10  the mean over the run's versions, first versions (first touch of their memory) included;
               its seconds / the memcpy of its bytes is the whole-run ratio (the 3x target in memory)
     every 1   steady state: the mean over steps versions made back to back, where the first few (before
               the retention reuses memory) are a small share (the 2x target in memory, 1.3x in the cache)
   The ratio cost / floor is given as the median and range over the repeats, each run against its floor;
   beside it cost / (floor + agreement) and cost / (the floor with the copies back to back).
2. Overhead. From the steady per-version cost and one plain step (plain TIME / STEPS): the overhead at a
   version every 1, 10 and 100 steps, cost / (k x step), next to what the floor alone would give.
3. The check, apart: the resilient form with --every 0 --check 10 (checks, no versions; memory storage; md,
   which takes no --check and checks its energy every step, with --every 0), interleaved too: its TIME - the
   plain TIME of its repeat, median and range (a difference of two noisy run times), and per check
   (/ (STEPS / 10), md / STEPS).
4. Whole run (noise +-25% run to run): the loop TIME of the plain form and of the resilient form with no
   error (--inject none), a version every 1, 10 and 100 steps, under three storage settings:
     memory  no persistence variable (versions in memory only)
     cache   GDS_JOB_ID (fresh per run), GDS_CACHE_BASE (a fresh directory under --shm, removed
             after the run), GDS_COPY_TYPE=PARTNER, GDS_RANKS_PER_NODE=1
     prefix  the cache setting plus GDS_PREFIX (a fresh directory under --disk, removed after the
             run) and GDS_FLUSH=10 (every 10th version flushed to HDF5; the floor leaves the flushes out)
   The runs are interleaved (plain, then every configuration, and that --repeat times) so that
   drift hits all alike. Reported: medians and min-max of TIME, and the overhead
   resilient median / plain median - 1 (with the range of the per-repeat ratios, each resilient
   run against the plain run of its own repeat; and, less sensitive to one slow run, the median
   of those ratios and fastest / fastest - 1).
5. Lines: `diff <plain> <resilient>` of each application's sources: lines added (>) and removed
   (<); the added count is the figure (targets: 30 for CG and MD, 20 for heat), without the added
   lines tagged `[inject]` (the tests' fault injection, shown as a column of their own), with the
   number of added lines longer than 100 characters.
6. Recovery, at a version every 10 steps, memory storage: RECOVERY_TIME of --inject flip, latent
   and library as a multiple of one plain step (plain TIME / STEPS), median over the repeats, with
   the RECOVERED line (where the error was found, which version was taken: the steps redone).
   For kill (cache storage, every 10): the run is killed at step steps/2 and run again
   with the same job id; reported are the rerun's wall time minus the plain run's share of the
   remaining steps (its start-up, restart and versioning included), and the parts: the rerun's
   time outside its loop beyond a fresh resilient start (cache, every 10) and the steps lost
   (killed at `at`, resumed from the last version), all in steps.
7. A PNG (--plot): per application, the milliseconds per version of each storage setting (steady, and
   the every-10 mean with the first versions) next to the floor's, with the ratio cost / floor.
8. The Markdown tables, on stdout and in --md (and every run's figures in --json).

Before every run the script waits for the machine to be idle (other processes below --idle cores
over a second), and it runs a timed run again (--retries) when other processes used more than that
during it (from /proc/stat, less this script's children's CPU time); the tables say how many.
Every run is bounded by MPIEXEC_TIMEOUT and a timer of its own (--timeout). A run that fails,
prints no TIME or an ANSWER other than the plain form's, a resilient run without every process's
cost lines, and a floor run without its FLOOR lines are reported as failed, and the script exits 1
at the end. Progress goes to stderr. Python 3 standard library, and matplotlib (Debian's
python3-matplotlib) for the plot.

  nice -n 10 bench/apps.py                 # the full measurement (15-20 minutes at 2 processes)
  nice -n 10 bench/apps.py --quick         # tiny sizes, one repeat: a smoke test of the script
"""
import argparse
import json
import math
import os
import re
import resource
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name: executables (under --bin-dir), sources (under examples/), default and --quick sizes, line target, the
# interval of the checks timed alone (--check; None: the program checks every step and takes no --check)
APPS = {
    "cg": dict(plain="cg/cg", resilient="cg/cg_resilient", sources=("cg/cg.cpp", "cg/cg_resilient.cpp"),
               n=64, steps=300, quick_n=8, quick_steps=200, target=30, check=10),
    "md": dict(plain="md/md", resilient="md/md_resilient", sources=("md/md.cpp", "md/md_resilient.cpp"),
               n=8, steps=300, quick_n=3, quick_steps=200, target=30, check=None),
    "heat": dict(plain="heat/heat", resilient="heat/heat_resilient",
                 sources=("heat/heat.f90", "heat/heat_resilient.f90"),
                 n=1024, steps=1000, quick_n=32, quick_steps=200, target=20, check=10),
}
STORAGES = ("memory", "cache", "prefix")
INTERVALS = (1, 10, 100)
KINDS = ("flip", "latent", "library")
TARGETS = {"memory": 2.0, "cache": 3.0}  # overhead targets in percent, at a version every 10 steps
RECOVERY_EVERY = 10
COST_INTERVALS = (1, 10)  # the runs whose costs are set against the floor: steady state, and first versions in
# Targets of the cost per version against the floor: storage -> {interval: at most}. In memory the floor is the
# memcpy, so at every 10 the ratio is the whole run's: all versions' seconds / a memcpy of all their bytes.
RATIO_TARGETS = {"memory": {1: 2.0, 10: 3.0}, "cache": {1: 1.3}}
# GDS_PRINT_COSTS's records; not anchored to lines: the processes' stderr reaches mpiexec's in pieces, so
# one process's record may start in the middle of another's line.
COST_SINCE = re.compile(r"GDS costs, process (\d+): [0-9.]+ s since GDS_init")
COST_KIND = re.compile(r"GDS costs, process (\d+): (\w+)\s+(\d+) calls\s+([0-9.eE+-]+) s "
                       r"\(\s*[0-9.]+%\)\s+(\d+) bytes")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin-dir", default=os.path.join(REPO, "build/release/tests/examples"),
                   help="where the applications are built (<app>/<exe>); default build/release/tests/examples")
    p.add_argument("--np", type=int, default=2, help="processes (default 2)")
    p.add_argument("--repeat", type=int, default=None, help="repeats of every configuration (default 5; --quick 1)")
    p.add_argument("--quick", action="store_true", help="tiny sizes and one repeat: a smoke test of this script")
    p.add_argument("--apps", default=",".join(APPS), help="applications to run (default cg,md,heat)")
    for app in APPS:
        p.add_argument(f"--{app}-n", type=int, default=None, help=f"{app}: --n (default {APPS[app]['n']})")
        p.add_argument(f"--{app}-steps", type=int, default=None,
                       help=f"{app}: --steps (default {APPS[app]['steps']}; at least 200 so every 100 makes 2 versions)")
    p.add_argument("--floor-bin", default=None,
                   help="the floor program, bench/floor.c (default <bin-dir>/../../bench/gds_bench_floor, so "
                        "build/release/bench/gds_bench_floor; without it the tables have no floor)")
    p.add_argument("--no-recovery", action="store_true", help="skip the recovery part")
    p.add_argument("--mpiexec", default="mpiexec.mpich -bind-to core",
                   help="launcher, shell-split (default 'mpiexec.mpich -bind-to core', as bench/run.sh)")
    p.add_argument("--timeout", type=float, default=None, help="seconds per run (default 600; --quick 120)")
    p.add_argument("--idle", type=float, default=None,
                   help="before each run wait until other processes use fewer cores than this (sampled over 1 s), "
                        "and run a timed run again when they used more during it (default 0.25; --quick 0: off)")
    p.add_argument("--idle-wait", type=float, default=600.0, help="longest wait for idleness per run (s, default 600)")
    p.add_argument("--retries", type=int, default=2, help="runs again of a run others disturbed (default 2)")
    p.add_argument("--shm", default="/dev/shm", help="where the cache directories go (default /dev/shm)")
    p.add_argument("--disk", default=tempfile.gettempdir(),
                   help=f"where the prefix directories go, on disk (default {tempfile.gettempdir()})")
    p.add_argument("--env", action="append", default=[], metavar="K=V",
                   help="more environment for the resilient runs (repeatable), e.g. GDS_MAX_VERSIONS=8")
    p.add_argument("--plot", default=os.path.join(REPO, "build/bench/apps-overhead.png"),
                   help="the PNG to write (default build/bench/apps-overhead.png)")
    p.add_argument("--md", default=os.path.join(REPO, "build/bench/apps.md"),
                   help="the Markdown to write (default build/bench/apps.md)")
    p.add_argument("--json", default=os.path.join(REPO, "build/bench/apps.json"),
                   help="every run's figures (default build/bench/apps.json)")
    a = p.parse_args(argv)
    a.apps = [x.strip() for x in a.apps.split(",") if x.strip()]
    unknown = [x for x in a.apps if x not in APPS]
    if unknown or not a.apps:
        p.error(f"unknown application(s) {unknown}; known: {', '.join(APPS)}")
    if a.repeat is None:
        a.repeat = 1 if a.quick else 5
    if a.timeout is None:
        a.timeout = 120.0 if a.quick else 600.0
    if a.idle is None:
        a.idle = 0.0 if a.quick else 0.25
    if a.repeat < 1 or a.np < 1:
        p.error("--repeat and --np must be >= 1")
    a.sizes = {}
    for app in a.apps:
        n = getattr(a, f"{app}_n") or APPS[app]["quick_n" if a.quick else "n"]
        steps = getattr(a, f"{app}_steps") or APPS[app]["quick_steps" if a.quick else "steps"]
        if steps < 2 * max(INTERVALS):
            print(f"apps.py: warning: {app} --steps {steps} < {2 * max(INTERVALS)}: every {max(INTERVALS)} "
                  "makes fewer than 2 versions", file=sys.stderr)
        a.sizes[app] = (n, steps)
    a.extra_env = {}
    for item in a.env:
        if "=" not in item or item.startswith("="):
            p.error(f"--env wants K=V, got {item!r}")
        k, v = item.split("=", 1)
        a.extra_env[k] = v
    a.shm, a.disk = os.path.abspath(a.shm), os.path.abspath(a.disk)
    a.floor_given, a.missing_floor = a.floor_bin is not None, None
    if not a.floor_given:
        a.floor_bin = os.path.normpath(os.path.join(a.bin_dir, "..", "..", "bench", "gds_bench_floor"))
    return a


def busy_seconds():
    """CPU seconds the whole machine has spent busy (user, nice, system, irq, softirq, steal), from /proc/stat."""
    try:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / os.sysconf("SC_CLK_TCK")


def children_seconds():
    """CPU seconds of this script's finished children (mpiexec, and the processes it waited for)."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def wait_idle(threshold, longest):
    """Waits (up to `longest` seconds) for a second in which the other processes use less than `threshold`
    cores; returns the seconds waited and the last share seen."""
    waited, share = 0.0, None
    while True:
        b0, t0 = busy_seconds(), time.monotonic()
        if b0 is None:
            return waited, None
        time.sleep(1.0)
        dt = time.monotonic() - t0
        share = (busy_seconds() - b0) / dt
        waited += dt
        if share < threshold or waited >= longest:
            return waited, share


class Run:
    """One job: its status, wall time and what rank 0 printed."""

    def __init__(self, label, cmd, env_shown, rc, out, err, wall, timed_out, foreign=None):
        self.label, self.cmd, self.env_shown = label, cmd, env_shown
        self.rc, self.out, self.err, self.wall, self.timed_out = rc, out, err, wall, timed_out
        self.foreign = foreign  # cores the rest of the machine kept busy meanwhile (on average)

    def values(self, word):
        return [l.split(None, 1)[1].strip() for l in self.out.splitlines()
                if l.startswith(word + " ") and len(l.split(None, 1)) > 1]

    def number(self, word, pick=lambda xs: xs[-1]):
        xs = []
        for v in self.values(word):
            try:
                xs.append(float(v.split()[0]))
            except ValueError:
                pass
        return pick(xs) if xs else None

    @property
    def time(self):
        return self.number("TIME")

    @property
    def steps(self):
        return self.number("STEPS")

    def costs(self):
        """GDS_PRINT_COSTS's lines: the processes that printed, and per kind of work the calls, and the
        slowest process's seconds and bytes."""
        processes = {int(m.group(1)) for m in COST_SINCE.finditer(self.err)}
        kinds = {}
        for m in COST_KIND.finditer(self.err):
            k = kinds.setdefault(m.group(2), dict(calls=0, seconds=0.0, bytes=0))
            k["calls"] = max(k["calls"], int(m.group(3)))
            k["seconds"] = max(k["seconds"], float(m.group(4)))
            k["bytes"] = max(k["bytes"], int(m.group(5)))
        return dict(processes=len(processes), kinds=kinds)

    def floor(self):
        """gds_bench_floor's lines: measure -> seconds."""
        found = {}
        for v in self.values("FLOOR"):
            parts = v.split()
            try:
                found[parts[0]] = float(parts[1])
            except (IndexError, ValueError):
                pass
        return found

    @property
    def answer(self):
        found = self.values("ANSWER")
        return found[-1] if found else None

    @property
    def recovery_time(self):  # the slowest repairing process (heat prints one line per process that repairs)
        return self.number("RECOVERY_TIME", max)

    def restarted_from(self):
        for v in self.values("RESTARTED"):
            m = re.search(r"from=(\d+)", v)
            if m:
                return int(m.group(1))
        return None

    def record(self):
        return dict(label=self.label, cmd=self.cmd, env=self.env_shown, rc=self.rc, wall=self.wall,
                    timed_out=self.timed_out, foreign_cores=self.foreign, time=self.time, steps=self.steps,
                    answer=self.answer, recovery_time=self.recovery_time, recovered=self.values("RECOVERED"),
                    restarted=self.values("RESTARTED"), costs=self.costs(), floor=self.floor())


class Bench:
    def __init__(self, args):
        self.args = args
        self.failures = []
        self.records = []
        self.counter = 0
        self.contended = 0    # runs done again because other processes were busy
        self.timed_runs = []  # the runs the tables use
        self.base_env = {k: v for k, v in os.environ.items() if not k.startswith(("GDS_", "SCR_"))}

    def exe(self, app, form):
        """The executable of an application's form, or (form "floor") the floor program."""
        return self.args.floor_bin if form == "floor" else os.path.join(self.args.bin_dir, APPS[app][form])

    def storage(self, kind, tag):
        """The environment of a storage setting, and the fresh directories it made (to remove after)."""
        env, dirs = {}, []
        if kind in ("cache", "prefix"):
            self.counter += 1
            cache = tempfile.mkdtemp(prefix=f"gds-bench-cache-{tag}-", dir=self.args.shm)
            dirs.append(cache)
            env.update(GDS_JOB_ID=f"bench-{os.getpid()}-{self.counter}-{tag}", GDS_CACHE_BASE=cache,
                       GDS_COPY_TYPE="PARTNER", GDS_RANKS_PER_NODE="1")
        if kind == "prefix":
            prefix = tempfile.mkdtemp(prefix=f"gds-bench-prefix-{tag}-", dir=self.args.disk)
            dirs.append(prefix)
            env.update(GDS_PREFIX=prefix, GDS_FLUSH="10")
        return env, dirs

    def run(self, label, app, form, app_args, env_extra, retry=False):
        """Runs one job. Before it, waits for the machine to be idle (--idle); with `retry`, runs it again
        (up to --retries times) when other processes kept more than --idle cores busy during it."""
        args = self.args
        for attempt in range(1 + (args.retries if retry else 0)):
            if args.idle > 0:
                waited, share = wait_idle(args.idle, args.idle_wait)
                if waited > 1.5:
                    print(f"[{label}] waited {waited:.0f} s for the machine to be idle (others: {share:.2f} cores)",
                          file=sys.stderr, flush=True)
            env = dict(env_extra)
            if attempt and "GDS_JOB_ID" in env:  # a run done again is a new job, not a restart of the one it repeats
                env["GDS_JOB_ID"] += f"-again{attempt}"
            r = self.run_once(label + (f" (again, {attempt})" if attempt else ""), app, form, app_args, env)
            if r.foreign is None or r.foreign <= args.idle or args.idle <= 0:
                break
            self.contended += 1
        return r

    def run_once(self, label, app, form, app_args, env_extra):
        args = self.args
        cmd = shlex.split(args.mpiexec) + ["-n", str(args.np), self.exe(app, form)] + [str(x) for x in app_args]
        env = dict(self.base_env)
        if form == "resilient":
            env["GDS_PRINT_COSTS"] = "1"
            env.update(args.extra_env)
        env.update(env_extra)
        env["MPIEXEC_TIMEOUT"] = str(max(1, int(args.timeout)))
        shown = {k: v for k, v in env.items() if k.startswith(("GDS_", "SCR_"))}
        busy0, own0 = busy_seconds(), children_seconds()
        start = time.monotonic()
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        timed_out = False
        try:
            out, err = proc.communicate(timeout=args.timeout + 15)
        except subprocess.TimeoutExpired:
            timed_out = True
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # the launcher this script started, and its processes
            except ProcessLookupError:
                pass
            out, err = proc.communicate()
        wall = time.monotonic() - start
        foreign = None
        if busy0 is not None:
            foreign = max(0.0, (busy_seconds() - busy0) - (children_seconds() - own0)) / max(wall, 1e-3)
        r = Run(label, " ".join(shlex.quote(c) for c in cmd), shown, proc.returncode, out or "", err or "",
                wall, timed_out or (proc.returncode != 0 and wall >= args.timeout), foreign)
        self.records.append(r.record())
        line = f"[{label}] exit {r.rc}, wall {wall:.2f} s"
        if r.time is not None:
            line += f", TIME {r.time:.3f} s"
        if r.recovery_time is not None:
            line += f", RECOVERY_TIME {r.recovery_time:.4f} s"
        for measure, seconds in r.floor().items():
            line += f", floor {measure} {seconds * 1e3:.4g} ms"
        if foreign is not None:
            line += f", others {foreign:.2f} cores"
        if r.timed_out:
            line += " (TIMED OUT)"
        print(line, file=sys.stderr, flush=True)
        return r

    def fail(self, r, why):
        self.failures.append(f"{r.label}: {why}")
        print(f"[{r.label}] FAILED: {why}\n[{r.label}] $ "
              + " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(r.env_shown.items())) + f" {r.cmd}",
              file=sys.stderr)
        for name, text in (("stdout", r.out), ("stderr", r.err)):
            tail = text.splitlines()[-25:]
            if tail:
                print(f"[{r.label}] ---- {name} (last {len(tail)} lines)", file=sys.stderr)
                for l in tail:
                    print(f"[{r.label}] | {l}", file=sys.stderr)
        sys.stderr.flush()

    def timed(self, label, app, form, app_args, env, reference=None):
        """A run that must succeed with a TIME (and the reference ANSWER, if given); None if it did not."""
        r = self.run(label, app, form, app_args, env, retry=True)
        self.timed_runs.append(r)
        why = []
        if r.timed_out:
            why.append("timed out")
        if r.rc != 0:
            why.append(f"exit status {r.rc}")
        if r.time is None:
            why.append("no TIME line")
        if reference is not None and r.answer != reference:
            why.append(f"ANSWER {r.answer} != the plain form's {reference}")
        if why:
            self.fail(r, "; ".join(why))
            return None
        return r

    def version_costs(self, r):
        """A resilient run's costs (Run.costs), or None (a failure) when not every process printed them."""
        c = r.costs()
        if c["processes"] != self.args.np:
            self.fail(r, f"GDS costs lines from {c['processes']} of {self.args.np} processes (GDS_PRINT_COSTS=1)")
            return None
        return c["kinds"]

    def floor(self, label, app, nbytes, file_bytes, gap_us):
        """gds_bench_floor at --np processes: the warm memcpy of `nbytes` every `gap_us` microseconds (the
        application's time between versions) and the agreement after it, and, if `file_bytes`, the cache's
        writes and exchange of that many bytes (files in a fresh directory under --shm); {measure: seconds}
        or None (a failure, or no floor program)."""
        if self.args.floor_bin is None:
            return None
        cmd = ["--bytes", nbytes, "--gap-us", gap_us]
        workdir = None
        if file_bytes:
            workdir = tempfile.mkdtemp(prefix=f"gds-bench-floor-{app}-", dir=self.args.shm)
            cmd += ["--file-bytes", file_bytes, "--dir", workdir, "--scheme", "partner"]
        try:
            r = self.run(label, app, "floor", cmd, {}, retry=True)
        finally:
            if workdir:
                shutil.rmtree(workdir, ignore_errors=True)
        found = r.floor()
        wanted = ("memcpy", "agreement", "memcpy_back") + (("cache",) if file_bytes else ())
        if r.rc != 0 or r.timed_out or any(m not in found for m in wanted):
            self.fail(r, f"exit status {r.rc}, FLOOR lines {sorted(found)}, wanted {list(wanted)}")
            return None
        return found


def per_version(kinds, floor):
    """One run's figures per version (seconds, bytes, the cache's bytes) from its costs, against the floor
    measured after it (memcpy of the bytes, plus the cache's writes and exchange; None: no floor): ratio =
    seconds / floor. None without versions."""
    v = kinds.get("versions")
    if not v or v["calls"] == 0:
        return None
    calls = v["calls"]
    f = dict(calls=calls, seconds=v["seconds"] / calls, bytes=v["bytes"] / calls,
             cache_bytes=kinds.get("cache", {}).get("bytes", 0) / calls)
    if floor is not None:
        f.update(memcpy=floor["memcpy"], cache_floor=floor.get("cache", 0.0), agreement=floor["agreement"],
                 memcpy_back=floor["memcpy_back"])
        f["floor"] = f["memcpy"] + f["cache_floor"]
        f["ratio"] = f["seconds"] / f["floor"] if f["floor"] > 0 else None
        # Against the copy made back to back (no time away), and against the copy and the agreement.
        back = f["memcpy_back"] + f["cache_floor"]
        f["ratio_back"] = f["seconds"] / back if back > 0 else None
        f["ratio_agreed"] = f["seconds"] / (f["floor"] + f["agreement"]) if f["floor"] + f["agreement"] > 0 else None
    return f


def summarize(figures):
    """Per-version figures over the repeats: the median of each, and the lists of the ratios."""
    out = dict(repeats=len(figures))
    for key in ("calls", "seconds", "bytes", "cache_bytes", "memcpy", "cache_floor", "floor", "ratio", "agreement",
                "memcpy_back", "ratio_back", "ratio_agreed"):
        xs = [f[key] for f in figures if f.get(key) is not None]
        out[key] = median(xs)
        out[key + "_all"] = xs
    return out


# The longest time away before each of the floor's copies (gds_bench_floor --gap-us), so that a floor run
# stays short: 21 repetitions.
MAX_GAP_US = 50000


def measure_floor(b, label, app, storage, runs, figures, plain):
    """After one repeat's runs of an application and storage: the floor of the runs in COST_INTERVALS (one
    gds_bench_floor run per distinct size and interval: its copies as far apart as the application's
    versions, k plain steps, from the repeat's `plain` run), and their per-version figures appended to
    `figures`."""
    floors = {}
    step = plain.time / plain.steps if plain is not None and plain.time and plain.steps else None
    for k in COST_INTERVALS:
        r = runs.get(k)
        kinds = b.version_costs(r) if r is not None else None
        if kinds is None:
            continue
        f = per_version(kinds, None)
        if f is None:
            b.fail(r, "no versions in its GDS costs")
            continue
        gap = min(MAX_GAP_US, round(step * k * 1e6)) if step else 0
        size = (round(f["bytes"]), round(f["cache_bytes"]) if storage != "memory" else 0, gap)
        if size not in floors:
            floors[size] = b.floor(f"{label} floor of every {k}", app, *size)
        figures.setdefault((app, storage, k), []).append(per_version(kinds, floors[size]))


def cost_tables(args, costs, step_time):
    """The Markdown of the cost per version against the floor, and of the overhead that follows from it."""
    md = ["## Cost per version against the floor\n",
          "GDS's own accounts (GDS_PRINT_COSTS=1; per kind the slowest process): seconds per version = versions "
          "seconds / calls, the whole of each version call (the check not included; the cache writes synchronously "
          "by default, inside it). The floor is measured after each repeat's runs of that application "
          "and storage (gds_bench_floor, same processes): a warm memcpy of the bytes per version (into a ring as "
          "large as the retained versions: touched, not in the caches), each copy as long after the last as the "
          "application's versions are apart (k plain steps, at most "
          f"{MAX_GAP_US / 1000:g} ms; every process doing the program's work meanwhile: 64 MiB of other data "
          "read and written, which sweeps the caches, then the copy's source read; on this VM a copy, and "
          "everything a version does, costs several times more after a few ms away than back to back), plus, "
          "for the "
          "cache settings, writing the cache bytes per version (every array's file) to a file in "
          f"{args.shm} + fsync, the exchange with the partner and its copy written + fsync (the prefix's "
          "flushes are not in it). Every 10: the mean over the run's versions, first versions (first touch of "
          "their memory) included; in memory, where the floor is the memcpy, its cost / floor is the whole-run "
          "ratio (all versions' seconds / a memcpy of all their bytes). Every 1: steady state, the mean over "
          "versions made back to back, the first few a small share. Cost / floor: median and range over the "
          "repeats, each run against its own floor. Targets: memory every 1 (steady) <= 2, every 10 (whole "
          "run) <= 3; cache every 1 <= 1.3. Beside it: the agreement, an MPI_Allreduce of a version's 32 "
          "values timed right after each gapped copy (what a version made everywhere or nowhere cannot leave "
          "out), the cost against the floor and the agreement together, and the cost against the same copies "
          "made back to back (no time away), the floor the earlier tables used.\n"]
    if args.missing_floor:
        md.append(f"**No floor**: {args.missing_floor} is missing (build gds_bench_floor, bench/floor.c).\n")
    md += ["| app | storage | every | versions | ms / version | MiB / version | cache MiB / version "
           "| floor ms (memcpy + cache) | cost / floor: median | min-max | target "
           "| agreement ms | cost / (floor + agreement) | cost / floor back to back |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |"]
    for app in args.apps:
        for storage in STORAGES:
            for k in COST_INTERVALS:
                c = costs.get((app, storage, k))
                if c is None:
                    md.append(f"| {app} | {storage} | {k} | failed | | | | | | | | | | |")
                    continue
                floor = num(ms(c["floor"]))
                if storage != "memory" and c["floor"] is not None:
                    floor += f" ({num(ms(c['memcpy']))} + {num(ms(c['cache_floor']))})"
                md.append(f"| {app} | {storage} | {k} | {fmt(c['calls'], 0)} | {num(ms(c['seconds']))} | "
                          f"{num(mib(c['bytes']))} | {num(mib(c['cache_bytes'])) if storage != 'memory' else '-'} | "
                          f"{floor} | "
                          f"{num(c['ratio'])} | {num_range(c['ratio_all'])} | {target_cell(storage, k, c)} | "
                          f"{num(ms(c['agreement']))} | {num(c['ratio_agreed'])} ({num_range(c['ratio_agreed_all'])}) | "
                          f"{num(c['ratio_back'])} ({num_range(c['ratio_back_all'])}) |")
    md.append("")
    md += ["## Steady-state overhead from the per-version cost\n",
           "cost / (k x step) at a version every k steps, step = plain TIME / STEPS (median), cost = the "
           "steady-state seconds per version (every-1 runs, median over the repeats), next to the same with the "
           "floor per version: what versioning adds to the loop however fast the library is (the check comes "
           "on top: next section). Last column: the same at every 10 from the every-10 runs' mean (first "
           "versions included).\n",
           "| app | storage | step (ms) | ms / version | floor (ms) | "
           + " | ".join(f"every {k}: GDS | floor" for k in INTERVALS) + " | every 10, first versions in |",
           "| --- | --- | ---: | ---: | ---: | " + " | ".join("---: | ---:" for _ in INTERVALS) + " | ---: |"]
    for app in args.apps:
        st = step_time.get(app)
        for storage in STORAGES:
            c, c10 = costs.get((app, storage, 1)), costs.get((app, storage, 10))
            cells = []
            for k in INTERVALS:
                cells.append(f"{share(per_step(c and c['seconds'], k, st))} | "
                             f"{share(per_step(c and c['floor'], k, st))}")
            md.append(f"| {app} | {storage} | {num(ms(st))} | {num(ms(c and c['seconds']))} | "
                      f"{num(ms(c and c['floor']))} | " + " | ".join(cells)
                      + f" | {share(per_step(c10 and c10['seconds'], 10, st))} |")
    md.append("")
    return md


def target_cell(storage, k, c):
    """Whether a row meets its target (RATIO_TARGETS), "-" for rows without one."""
    most = RATIO_TARGETS.get(storage, {}).get(k)
    if most is None:
        return "-"
    if c["ratio"] is None:
        return f"<= {most:g}: no floor"
    return f"<= {most:g}: {'met' if c['ratio'] <= most else 'missed'}"


def check_table(args, checks, step_time):
    """The Markdown of the application's check alone: the resilient form with --every 0 (--check c) against the
    plain run of its repeat."""
    md = ["## The check, apart (noisy: a difference of two run times)\n",
          "The resilient form with `--every 0 --check c` (checks, no versions, memory storage; md takes no "
          "--check: it checks the energy every step): its TIME - the plain TIME of its repeat (GDS's set-up "
          "in the loop included, if any), median and range over the repeats; per check = that / (STEPS / c); "
          "and as a share of the loop at a check every k steps (the check runs before every version, so this "
          "comes on top of the versions' overhead).\n",
          "| app | checks every | TIME (s): median | min-max | checks - plain (s): median | min-max | ms / check | "
          + " | ".join(f"a check every {k}" for k in INTERVALS) + " |",
          "| --- | ---: | ---: | ---: | ---: | ---: | ---: | " + " | ".join("---:" for _ in INTERVALS) + " |"]
    for app in args.apps:
        every = APPS[app]["check"] or 1
        runs = [(r, p) for r, p in checks.get(app, []) if p is not None]
        diffs = [r.time - p.time for r, p in runs]
        per_check = median([(r.time - p.time) / (r.steps / every) for r, p in runs if r.steps])
        st = step_time.get(app)
        cells = [share(per_step(per_check, k, st)) for k in INTERVALS]
        times = [r.time for r, _ in runs]
        md.append(f"| {app} | {every} | {fmt(median(times))} | {fmt_range(times)} | {fmt(median(diffs), 4)} | "
                  f"{fmt_range(diffs, 4)} | {num(ms(per_check))} | " + " | ".join(cells) + " |")
    md.append("")
    return md


def ms(x):
    return None if x is None else 1e3 * x


def mib(x):
    return None if x is None else x / 1048576


def per_step(seconds, k, step):
    """Seconds spent once every k steps as a share of the steps' time (None if either is unknown)."""
    return None if seconds is None or not step else seconds / (k * step)


def num(x):
    """A number with three significant digits, without an exponent ("-" for None)."""
    if x is None:
        return "-"
    digits = 2 - math.floor(math.log10(abs(x))) if x else 2
    return f"{x:.{max(0, digits)}f}"


def num_range(xs):
    return "-" if not xs else f"{num(min(xs))} to {num(max(xs))}"


def share(x):
    """A fraction as a percentage with three significant digits."""
    return "-" if x is None else num(100 * x) + "%"


def median(xs):
    return statistics.median(xs) if xs else None


def fmt(x, digits=3):
    return "-" if x is None else f"{x:.{digits}f}"


def fmt_range(xs, digits=3):
    return "-" if not xs else f"{min(xs):.{digits}f}{' to ' if min(xs) < 0 else '-'}{max(xs):.{digits}f}"


def pct(x):
    return "-" if x is None else f"{100 * x:+.1f}%"


def pct_range(xs):
    return "-" if not xs else f"{100 * min(xs):+.1f}% to {100 * max(xs):+.1f}%"


# Added lines carrying this tag (a trailing comment, `// [inject]` or `! [inject]`) are the fault injection
# the tests drive through command-line options (kill, flip, latent, library): counted apart, not in `added`.
INJECT_TAG = "[inject]"


def line_counts(app):
    plain, resilient = (os.path.join(REPO, "examples", s) for s in APPS[app]["sources"])
    out = subprocess.run(["diff", plain, resilient], capture_output=True, text=True).stdout.splitlines()
    added = [l[2:] for l in out if l.startswith(">")]
    removed = [l[2:] for l in out if l.startswith("<")]
    inject = [l for l in added if INJECT_TAG in l]  # the tests' fault injection, not resilience
    with open(plain) as f:
        plain_lines = len(f.read().splitlines())
    with open(resilient) as f:
        resilient_lines = len(f.read().splitlines())
    return dict(added=len(added) - len(inject), inject=len(inject), removed=len(removed),
                long=sum(1 for l in added if len(l) > 100), longest=max((len(l) for l in added), default=0),
                plain=plain_lines, resilient=resilient_lines, target=APPS[app]["target"],
                files=APPS[app]["sources"])


def plot(args, costs):
    """Per application, the milliseconds per version of each storage setting (steady, every 1; the mean at
    every 10, first versions in) next to the floor's (the memcpy, and the cache's writes and exchange on top),
    the steady ratio cost / floor above its bar."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bars = (("GDS, steady (every 1)", 1, "seconds", "tab:blue"),
            ("GDS, every 10 (first versions in)", 10, "seconds", "tab:cyan"),
            ("floor: + cache write, exchange", 1, "floor", "0.8"),
            ("floor: memcpy", 1, "memcpy", "0.45"))
    width = 0.27
    fig, axes = plt.subplots(1, len(args.apps), figsize=(max(6.5, 5 * len(args.apps)), 4.4), squeeze=False)
    for ax, app in zip(axes[0], args.apps):
        for i, storage in enumerate(STORAGES):
            for label, k, key, colour in bars:
                c = costs.get((app, storage, k))
                if c is None or c[key] is None:
                    continue
                x = i + {"seconds": (-1 if k == 1 else 0), "floor": 1, "memcpy": 1}[key] * width
                err = None
                if key == "seconds" and c["seconds_all"]:
                    xs = c["seconds_all"]
                    err = [[1e3 * (c["seconds"] - min(xs))], [1e3 * (max(xs) - c["seconds"])]]
                ax.bar(x, 1e3 * c[key], width, yerr=err, capsize=3, color=colour, label=label if i == 0 else None)
                if key == "seconds" and k == 1 and c["ratio"] is not None:
                    ax.annotate(f"{num(c['ratio'])}x", (x, 1e3 * max(c["seconds_all"])), textcoords="offset points",
                                xytext=(0, 3), ha="center", fontsize=7)
        ax.set_xticks(range(len(STORAGES)))
        ax.set_xticklabels(STORAGES)
        ax.set_yscale("log")
        ax.set_ylabel("ms per version")
        n, steps = args.sizes[app]
        ax.set_title(f"{app} (--n {n}, {steps} steps, {args.np} processes)")
        ax.grid(True, axis="y", which="both", alpha=0.3)
    handles = {label: h for ax in axes[0] for h, label in zip(*ax.get_legend_handles_labels())}
    fig.legend(handles.values(), handles.keys(), loc="lower center", ncol=len(bars), fontsize=8)
    fig.suptitle(f"cost per version inside GDS against its floor measured in the same run, {args.repeat} repeat(s): "
                 "medians, bars the range; above, steady cost / floor", fontsize=9)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    os.makedirs(os.path.dirname(os.path.abspath(args.plot)), exist_ok=True)
    fig.savefig(args.plot, dpi=110)
    plt.close(fig)


def matplotlib_python(argv):
    """Re-executes this script with Debian's /usr/bin/python3 when this Python lacks matplotlib and that one has
    it (python3-matplotlib installs for the system Python, not for another python3 found first on PATH)."""
    try:
        import matplotlib  # noqa: F401
        return
    except ImportError:
        pass
    system = "/usr/bin/python3"
    if os.path.realpath(sys.executable) != os.path.realpath(system) and os.access(system, os.X_OK) and \
            subprocess.run([system, "-c", "import matplotlib"], capture_output=True).returncode == 0:
        print(f"apps.py: {sys.executable} has no matplotlib; running with {system}", file=sys.stderr, flush=True)
        os.execv(system, [system, os.path.abspath(__file__)] + argv)


def main(argv):
    args = parse_args(argv)
    matplotlib_python(argv)
    for app in args.apps:
        for form in ("plain", "resilient"):
            exe = os.path.join(args.bin_dir, APPS[app][form])
            if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
                print(f"apps.py: {exe}: not an executable file (build the examples first)", file=sys.stderr)
                return 2
    if not (os.path.isfile(args.floor_bin) and os.access(args.floor_bin, os.X_OK)):
        print(f"apps.py: {args.floor_bin}: not an executable file (build gds_bench_floor, bench/floor.c)"
              + ("" if args.floor_given else ": the tables will have no floor"), file=sys.stderr)
        if args.floor_given:
            return 2
        args.missing_floor, args.floor_bin = args.floor_bin, None
    if shutil.which(shlex.split(args.mpiexec)[0]) is None:
        print(f"apps.py: launcher {args.mpiexec} not found", file=sys.stderr)
        return 2
    for d in (args.shm, args.disk):
        if not os.path.isdir(d):
            print(f"apps.py: {d}: not a directory", file=sys.stderr)
            return 2
    b = Bench(args)
    started = time.time()
    load_before = os.getloadavg()
    print(f"apps.py: {args.np} processes, {args.repeat} repeat(s), sizes "
          + ", ".join(f"{app} --n {n} --steps {s}" for app, (n, s) in args.sizes.items()), file=sys.stderr)

    # Plain, then every configuration, the floor after each storage setting's runs, and the checks alone;
    # R times.
    plain = {app: [] for app in args.apps}            # runs
    res = {}                                          # (app, storage, k) -> [(run, plain run of the repeat)]
    figures = {}                                      # (app, storage, k in COST_INTERVALS) -> [per_version()]
    checks = {app: [] for app in args.apps}           # [(run with checks only, plain run of the repeat)]
    for rep in range(args.repeat):
        for app in args.apps:
            n, steps = args.sizes[app]
            size = ["--n", n, "--steps", steps]
            tag = f"{rep + 1}/{args.repeat} {app}"
            p = b.timed(f"{tag} plain", app, "plain", size, {})
            if p is not None:
                plain[app].append(p)
            reference = p.answer if p is not None else (plain[app][0].answer if plain[app] else None)
            for storage in STORAGES:
                runs = {}
                for k in INTERVALS:
                    env, dirs = b.storage(storage, app)
                    try:
                        r = b.timed(f"{tag} {storage} every {k}", app, "resilient",
                                    size + ["--every", k, "--inject", "none"], env, reference)
                    finally:
                        for d in dirs:
                            shutil.rmtree(d, ignore_errors=True)
                    if r is not None:
                        res.setdefault((app, storage, k), []).append((r, p))
                        runs[k] = r
                measure_floor(b, f"{tag} {storage}", app, storage, runs, figures, p)
            every = APPS[app]["check"]
            r = b.timed(f"{tag} checks every {every or 1}, no versions", app, "resilient",
                        size + ["--every", 0] + (["--check", every] if every else []) + ["--inject", "none"], {},
                        reference)
            if r is not None:
                checks[app].append((r, p))

    overhead = {}
    for app in args.apps:
        pm = median([p.time for p in plain[app]])
        for storage in STORAGES:
            for k in INTERVALS:
                runs = res.get((app, storage, k), [])
                times = [r.time for r, _ in runs]
                paired = [r.time / p.time - 1 for r, p in runs if p is not None and p.time > 0]
                pmin = min([p.time for p in plain[app]], default=None)
                overhead[(app, storage, k)] = dict(
                    times=times, median=median(times), paired=paired,
                    overhead=(median(times) / pm - 1) if times and pm else None,
                    min_min=(min(times) / pmin - 1) if times and pmin else None)
    costs = {key: summarize(fs) for key, fs in figures.items()}

    # 3. Recovery, interleaved too.
    recovery = {}   # (app, kind) -> [run]
    kills = {}      # app -> [(killed run, rerun)]
    if not args.no_recovery:
        for rep in range(args.repeat):
            for app in args.apps:
                n, steps = args.sizes[app]
                size = ["--n", n, "--steps", steps, "--every", RECOVERY_EVERY]
                reference = plain[app][0].answer if plain[app] else None
                for kind in KINDS:
                    r = b.timed(f"{rep + 1}/{args.repeat} {app} recovery {kind}", app, "resilient",
                                size + ["--inject", kind], {}, reference)
                    if r is None:
                        continue
                    if r.recovery_time is None or not r.values("RECOVERED"):
                        b.fail(r, "no RECOVERED/RECOVERY_TIME line: the error was not found and handled")
                        continue
                    recovery.setdefault((app, kind), []).append(r)
                env, dirs = b.storage("cache", f"{app}-kill")
                try:
                    killed = b.run(f"{rep + 1}/{args.repeat} {app} kill (run)", app, "resilient",
                                   size + ["--inject", "kill"], env)
                    if killed.timed_out or killed.rc == 0 or killed.answer is not None:
                        b.fail(killed, "the killed run did not die (exit 0, an ANSWER or a timeout)")
                        continue
                    again = b.timed(f"{rep + 1}/{args.repeat} {app} kill (rerun)", app, "resilient", size, env,
                                    reference)
                    if again is None:
                        continue
                    if again.restarted_from() is None:
                        b.fail(again, "no RESTARTED from=<v> line: the rerun did not restart")
                        continue
                    kills.setdefault(app, []).append((killed, again))
                finally:
                    for d in dirs:
                        shutil.rmtree(d, ignore_errors=True)

    # The tables.
    md = []
    md.append(f"# Mini-applications: the cost of resilience ({args.np} processes)\n")
    md.append(f"{time.strftime('%Y-%m-%d %H:%M', time.localtime(started))}, {args.repeat} repeat(s), "
              f"launcher `{args.mpiexec}`, load average before {load_before[0]:.2f}, after "
              f"{os.getloadavg()[0]:.2f}, {(time.time() - started) / 60:.1f} min"
              + (f", extra environment {args.extra_env}" if args.extra_env else "")
              + (f"; runs waited for under {args.idle:g} cores of other activity and were done again (up to "
                 f"{args.retries} times) when others used more during them: {b.contended} done again, "
                 f"{sum(1 for r in b.timed_runs if r.foreign is not None and r.foreign > args.idle)} of "
                 f"{len(b.timed_runs)} timed runs kept with more (median of others' use "
                 f"{fmt(median([r.foreign for r in b.timed_runs if r.foreign is not None]), 3)} cores)"
                 if args.idle > 0 else "")
              + (" (--quick: not a measurement)" if args.quick else "") + ".\n")
    md.append("## Sizes and plain runs\n")
    md.append("| app | options | plain TIME median (s) | min-max (s) | one step (ms) |")
    md.append("| --- | --- | ---: | ---: | ---: |")
    step_time = {}
    for app in args.apps:
        n, steps = args.sizes[app]
        times = [p.time for p in plain[app]]
        pm = median(times)
        st = median([p.time / p.steps for p in plain[app] if p.steps])
        step_time[app] = st
        md.append(f"| {app} | `--n {n} --steps {steps}` | {fmt(pm)} | {fmt_range(times)} | {fmt(st and st * 1e3)} |")
    md.append("")
    md += cost_tables(args, costs, step_time)
    md += check_table(args, checks, step_time)
    md.append("## Whole run (noise ±25% run to run): overhead of the resilient form, no error\n")
    md.append("Overhead = resilient median / plain median - 1; in parentheses the range over the repeats of "
              "each resilient run against the plain run of its own repeat. Versions are checked before they "
              "are made (--check defaults to --every).\n")
    md.append("| app | storage | " + " | ".join(f"every {k}" for k in INTERVALS) + " |")
    md.append("| --- | --- | " + " | ".join("---:" for _ in INTERVALS) + " |")
    for app in args.apps:
        for storage in STORAGES:
            cells = []
            for k in INTERVALS:
                o = overhead[(app, storage, k)]
                cells.append(f"{pct(o['overhead'])} ({pct_range(o['paired'])})" if o["overhead"] is not None else "failed")
            md.append(f"| {app} | {storage} | " + " | ".join(cells) + " |")
    md.append("")
    md.append("Whole run (noise ±25% run to run), other estimates of the same, less sensitive to one slow run: "
              "the median of the per-repeat ratios, "
              "and fastest resilient / fastest plain - 1.\n")
    md.append("| app | storage | " + " | ".join(f"every {k}: paired median | min/min" for k in INTERVALS) + " |")
    md.append("| --- | --- | " + " | ".join("---: | ---:" for _ in INTERVALS) + " |")
    for app in args.apps:
        for storage in STORAGES:
            cells = []
            for k in INTERVALS:
                o = overhead[(app, storage, k)]
                cells.append(f"{pct(median(o['paired']))} | {pct(o['min_min'])}")
            md.append(f"| {app} | {storage} | " + " | ".join(cells) + " |")
    md.append("")
    md.append("Whole run (noise ±25% run to run): loop TIME of the resilient form (s):\n")
    md.append("| app | storage | every k | median | min-max |")
    md.append("| --- | --- | ---: | ---: | ---: |")
    for app in args.apps:
        for storage in STORAGES:
            for k in INTERVALS:
                o = overhead[(app, storage, k)]
                md.append(f"| {app} | {storage} | {k} | {fmt(o['median'])} | {fmt_range(o['times'])} |")
    md.append("")
    md.append("## Lines: `diff plain resilient`\n")
    md.append(f"Added (>) counts the lines the resilient form adds, restart included, except those tagged "
              f"`{INJECT_TAG}`: the fault injection the tests drive by command-line options (kill, flip, latent, "
              f"library), which a user's program would not have. They are excluded from the count and the "
              f"target, and shown apart. The long-line count and the longest line cover every added line.\n")
    md.append("| app | files | added (>) | injection (`[inject]`, excluded) | removed (<) | +A/-R | target (added) "
              "| added lines > 100 chars | longest added | lines plain / resilient |")
    md.append("| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |")
    lines = {}
    for app in args.apps:
        c = line_counts(app)
        lines[app] = c
        md.append(f"| {app} | `{c['files'][0]}` `{c['files'][1]}` | {c['added']} | {c['inject']} | {c['removed']} | "
                  f"+{c['added']}/-{c['removed']} | {c['target']} ({'met' if c['added'] <= c['target'] else 'missed'}) "
                  f"| {c['long']} | {c['longest']} | {c['plain']} / {c['resilient']} |")
    md.append("")
    if not args.no_recovery:
        md.append(f"## Recovery (a version every {RECOVERY_EVERY} steps, memory)\n")
        md.append("RECOVERY_TIME (what the program reports: from finding the error to the state restored, "
                  "the slowest process's for heat, where each process repairs its own columns) in plain steps "
                  "(plain TIME / STEPS). After it the run redoes the steps since the version it restored: "
                  "the RECOVERED line of the first repeat says where it was found (step=; md prints the step "
                  "it went back to) and which version it took (from=; version v holds step 10 v).\n")
        md.append("| app | error | RECOVERY_TIME (steps): median | min-max | RECOVERY_TIME (ms): median | "
                  "RECOVERED (first repeat) |")
        md.append("| --- | --- | ---: | ---: | ---: | --- |")
        for app in args.apps:
            st = step_time.get(app)
            for kind in KINDS:
                runs = recovery.get((app, kind), [])
                mult = [r.recovery_time / st for r in runs] if st else []
                said = runs[0].values("RECOVERED")[0] if runs else "-"
                md.append(f"| {app} | {kind} | {fmt(median(mult), 1)} | {fmt_range(mult, 1)} | "
                          f"{fmt(median([r.recovery_time * 1e3 for r in runs]), 2)} | `{said}` |")
        md.append("")
        md.append("Kill (cache, PARTNER, every 10; killed at step steps/2, rerun with the same job id). In "
                  "plain steps: A = rerun wall time - the plain run's share of the steps left "
                  "((steps - resumed) x one step), so start-up, restart and the rest's versioning; "
                  "B = the rerun's time outside its loop - a fresh resilient start's (cache, every 10: "
                  "wall - TIME); C = steps lost (killed at steps/2, resumed at the last version, "
                  "version v holds step 10 v). Wall times include mpiexec.\n")
        md.append("| app | resumed at step | A: rerun - remaining share: median | min-max | "
                  "B: restart beyond a fresh start: median | min-max | C: steps lost | rerun wall (s) "
                  "| plain wall (s) |")
        md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for app in args.apps:
            st = step_time.get(app)
            n, steps = args.sizes[app]
            pairs = kills.get(app, [])
            fresh = [r.wall - r.time for r, _ in res.get((app, "cache", RECOVERY_EVERY), [])]
            fresh_m = median(fresh)
            a_vals, b_vals, resumed, lost = [], [], [], []
            for _, again in pairs:
                s0 = again.restarted_from() * RECOVERY_EVERY
                resumed.append(s0)
                lost.append(steps // 2 - s0)
                if st:
                    a_vals.append((again.wall - (steps - s0) * st) / st)
                    if fresh_m is not None:
                        b_vals.append(((again.wall - again.time) - fresh_m) / st)
            md.append(f"| {app} | {fmt(median(resumed), 0)} | {fmt(median(a_vals), 1)} | {fmt_range(a_vals, 1)} | "
                      f"{fmt(median(b_vals), 1)} | {fmt_range(b_vals, 1)} | {fmt(median(lost), 0)} | "
                      f"{fmt(median([a.wall for _, a in pairs]), 2)} | {fmt(median([p.wall for p in plain[app]]), 2)} |")
        md.append("")
    if b.failures:
        md.append(f"## Failed runs ({len(b.failures)})\n")
        for f in b.failures:
            md.append(f"- {f}")
        md.append("")
    text = "\n".join(md)

    print(text)
    for path in (args.md, args.json):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(args.md, "w") as f:
        f.write(text)
    with open(args.json, "w") as f:
        json.dump(dict(np=args.np, repeat=args.repeat, sizes=args.sizes, mpiexec=args.mpiexec,
                       extra_env=args.extra_env, lines=lines, failures=b.failures,
                       per_version={f"{app} {storage} every {k}": c for (app, storage, k), c in costs.items()},
                       runs=b.records), f, indent=1)
    try:
        plot(args, costs)
        print(f"apps.py: wrote {args.md}, {args.json} and {args.plot}", file=sys.stderr)
    except ImportError as e:
        b.failures.append(f"plot: {e} (apt-get install python3-matplotlib)")
        print(f"apps.py: no plot: {e}", file=sys.stderr)
    if b.failures:
        print(f"apps.py: FAIL: {len(b.failures)} run(s) failed:", file=sys.stderr)
        for f in b.failures:
            print(f"  {f}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
