#!/usr/bin/env python3
"""GDS under a real Slurm: a cluster of virtual nodes on this host (tests/slurm/cluster.py),
the job scripts of docs/launcher.md submitted with sbatch as they are written, nodes lost as
Slurm loses them, and every answer compared with an uninterrupted run's.

  slurm_test.py --app launcher_app --tools DIR [--gds-run tools/gds-run] [--docs docs/launcher.md]
                [--mpiexec mpiexec.mpich] [--seed S] [scenario ...]

Each scenario submits docs/launcher.md's job script (srun or mpiexec form) with sbatch on a
cluster of 4 nodes (5 for `two`): 3 for the job (one process each) and spares, the cache in
<root>/cache/{node} (a directory per virtual node, as node-local storage is), a prefix in
<root>/prefix. The job is tests/launcher_app (40 steps, a version every 5, its answer
independent of the process count).

Scenarios (default all):
  smoke    the cluster: srun --mpi=pmi2 over 4 nodes x 2, mpiexec inside salloc; the failure
           groups are the Slurm nodes (GDS_SHOW_INFO)
  node     a node in use killed (its slurmd, step daemon and processes; its cache deleted; marked
           down) once a version is cached there: gds-run learns it from Slurm, the spare takes its
           place, the job restarts from the cache with the lost files rebuilt, and ends with the
           answer; PARTNER and XOR, srun and mpiexec (the processes after the lost node move: their
           files follow them, `distribute`)
  two      two nodes of one set lost (5 nodes: 3 and 2 spares): XOR's cache cannot rebuild, the
           restart comes from the prefix; RS's (SCR_SET_FAILURES=2) rebuilds both from the third
           node; the answer is the same
  halt     `gds-run --halt` while the job runs: it leaves through GDS_should_exit right after a
           version on the cache and the prefix, status 0, no relaunch; a new allocation, every cache
           gone, resumes from the prefix at exactly that step
  end      the allocation's end (sbatch --time=1, GDS_HALT_SECONDS=50): gds-run reads the end from
           Slurm, the job halts right after a persisted version, status 0
  scavenge SCR_RUNS=1 and a node lost: no relaunch, so gds-run scavenges the nodes still up into
           the prefix (the newest cached version, newer than any flush); a new allocation with every
           cache gone fetches it, rebuilds the lost node's files and ends with the answer
The seed (which node is lost) is printed; --seed replays it. Exit 0 when every check passed.
"""
import argparse
import glob
import os
import random
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "slurm"))
from cluster import Cluster, missing_programs  # noqa: E402

ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("--app", required=True)
ap.add_argument("--tools", required=True, help="the directory of gds-index")
ap.add_argument("--gds-run", default=os.path.join(HERE, "..", "tools", "gds-run"))
ap.add_argument("--docs", default=os.path.join(HERE, "..", "docs", "launcher.md"))
ap.add_argument("--mpiexec", default="mpiexec.mpich")
ap.add_argument("--seed", type=int, default=None)
ap.add_argument("scenarios", nargs="*")
args = ap.parse_args()
args.app, args.tools, args.gds_run = (os.path.abspath(p) for p in (args.app, args.tools, args.gds_run))

SCENARIOS = ["smoke", "node", "two", "halt", "end", "scavenge"]
SEED = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
RNG = random.Random(SEED)
APP_ARGS = ["--steps", "40", "--every", "5", "--sleep-ms", "60"]
failures = []


def fail(what):
    failures.append(what)
    print(f"FAIL: {what}", flush=True)


def check(ok, what):
    if not ok:
        fail(what)
    return ok


def scripts():
    """docs/launcher.md's job scripts, by launch form, as written."""
    text = open(args.docs).read()
    out = {}
    for form in ("srun", "mpiexec"):
        m = re.search(r"<!-- slurm-test: " + form + r" [^>]*-->\s*```sh\n(.*?)```", text, re.S)
        if not m:
            sys.exit(f"slurm_test: no '<!-- slurm-test: {form} ...' job script in {args.docs}")
        out[form] = m.group(1)
    return out


class Job:
    """One scenario's cluster, directories and environment."""

    def __init__(self, cluster, name, copy="PARTNER", extra=None):
        self.c = cluster
        self.name = name
        self.dir = os.path.join(cluster.root, name)
        os.makedirs(self.dir, exist_ok=True)
        tools = os.path.dirname(os.path.abspath(args.gds_run))
        self.env = dict(cluster.env, GDS_JOB_ID=name, GDS_COPY_TYPE=copy,
                        GDS_CACHE_BASE=os.path.join(self.dir, "cache", "{node}"),
                        GDS_PREFIX=os.path.join(self.dir, "prefix"), GDS_FLUSH="1000", MPIEXEC=args.mpiexec,
                        PATH=f"{tools}:{os.path.abspath(args.tools)}:{os.environ['PATH']}")
        self.env.update(extra or {})
        self.n = 0

    def cache(self, node):
        return os.path.join(self.dir, "cache", node)

    def submit(self, form, sbatch=(), app_args=APP_ARGS):
        self.n += 1
        script = os.path.join(self.dir, f"job-{form}.sh")
        with open(script, "w") as f:
            f.write(SCRIPTS[form])
        out = os.path.join(self.dir, f"run{self.n}.out")
        p = subprocess.run(["sbatch", "--parsable", "--ntasks-per-node=1", "-o", out, *sbatch, script, args.app,
                            *app_args], env=self.env, cwd=self.dir, capture_output=True, text=True, timeout=60)
        if p.returncode != 0:
            fail(f"{self.name}: sbatch: {p.stderr.strip()}")
            return None, out
        return p.stdout.strip().split(";")[0], out

    def running(self, jid):
        p = subprocess.run(["squeue", "-h", "-j", jid, "-o", "%T"], env=self.c.env, capture_output=True, text=True)
        return p.stdout.strip() not in ("", "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL")

    def wait(self, jid, out, timeout=180):
        end = time.monotonic() + timeout
        while jid and self.running(jid):
            if time.monotonic() > end:
                subprocess.run(["scancel", jid], env=self.c.env)
                fail(f"{self.name}: job {jid} still running after {timeout} s")
                break
            time.sleep(0.3)
        time.sleep(0.3)
        return open(out).read() if os.path.exists(out) else ""

    def cached(self, node, version):
        """Whether the node's cache holds version `version`'s commit record."""
        return bool(glob.glob(os.path.join(self.cache(node), f"gds.{self.name}", "node*", "state", "r*",
                                           f"v{version}.done")))

    def wait_for(self, jid, ok, what, timeout=60):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if ok():
                return True
            if not self.running(jid):
                break
            time.sleep(0.1)
        p = subprocess.run(["squeue", "-h", "-j", jid, "-o", "%T %R"], env=self.c.env, capture_output=True, text=True)
        fail(f"{self.name}: no {what} (after {timeout} s or the job's end; the job: {p.stdout.strip() or 'ended'})")
        subprocess.run(["scancel", jid], env=self.c.env)  # not left to hold the nodes of what comes next
        return False

    def lose(self, node):
        """A node lost: its storage and then the node itself."""
        shutil.rmtree(self.cache(node), ignore_errors=True)
        self.c.kill_node(node)


def reference():
    """The uninterrupted answer (launcher_app's does not depend on the process count)."""
    p = subprocess.run([args.mpiexec, "-n", "2", args.app, *APP_ARGS], capture_output=True, text=True, timeout=120,
                       env={k: v for k, v in os.environ.items() if not k.startswith(("GDS_", "SLURM"))})
    m = re.search(r"done: .*hash=\w+", p.stdout)
    if not m:
        sys.exit(f"slurm_test: the reference run failed:\n{p.stdout}{p.stderr}")
    return m.group(0)


def show(what, text):
    """The lines of a job's output that tell its story."""
    said = [l for l in text.splitlines() if l.startswith(("gds-run: node", "gds-run: spare", "gds-run: giving",
            "gds-run: scaveng", "scavenge:", "resuming", "halted", "gds-run: attempt", "gds-run: cancel")) or "NOTICE" in l]
    print(f"{what}:\n  " + "\n  ".join(said), flush=True)


def expect_answer(job, out, what):
    check(ANSWER in out, f"{job.name}: {what}: the answer is not the uninterrupted run's ({ANSWER}):\n{out}")


def smoke(c):
    env = dict(c.env, GDS_SHOW_INFO="1")
    p = subprocess.run(["srun", "--mpi=pmi2", "-N4", "-n8", args.app, "--steps", "5"], env=env, capture_output=True,
                       text=True, timeout=90)
    check(p.returncode == 0 and "done:" in p.stdout, f"smoke: srun over 4 nodes x 2: {p.stdout}{p.stderr}")
    check("failure groups (nodes): 4, from Slurm" in p.stderr,
          f"smoke: the failure groups are not the 4 Slurm nodes:\n{p.stderr}")
    p = subprocess.run(["salloc", "-N2", "-n4", args.mpiexec, "-n", "4", args.app, "--steps", "5"], env=env,
                       capture_output=True, text=True, timeout=90)
    check(p.returncode == 0 and "done:" in p.stdout, f"smoke: mpiexec inside salloc: {p.stdout}{p.stderr}")
    check("failure groups (nodes): 2, from Slurm" in p.stderr,
          f"smoke: mpiexec in salloc: the failure groups are not the 2 Slurm nodes:\n{p.stderr}")


def node(c):
    for copy, form in (("PARTNER", "srun"), ("XOR", "srun"), ("PARTNER", "mpiexec"), ("XOR", "mpiexec")):
        job = Job(c, f"node-{copy.lower()}-{form}", copy)
        victim = RNG.choice(["n2", "n3"])  # n1 runs the batch script (and gds-run): losing it loses the job
        jid, out = job.submit(form)
        if jid is None:
            continue
        if job.wait_for(jid, lambda: job.cached(victim, 2), f"version 2 cached on {victim}"):
            job.lose(victim)
        text = job.wait(jid, out)
        c.revive_node(victim)
        what = f"{copy}, {form}, {victim} lost"
        show(f"node: {what}", text)
        check(f"node {victim} is down" in text, f"{job.name}: gds-run did not find {victim} down:\n{text}")
        check(re.search(r"spare node n4 takes the place of " + victim, text) is not None,
              f"{job.name}: the spare did not take {victim}'s place:\n{text}")
        check(re.search(r"restarted array state from the cache: .*rebuilt \d+ file", text) is not None,
              f"{job.name}: {what}: not restarted from the cache with the lost files rebuilt:\n{text}")
        if form == "mpiexec" and victim != "n3":
            check("moved sent from the nodes that held them" in text,
                  f"{job.name}: {what}: the processes that moved did not get their files:\n{text}")
        expect_answer(job, text, what)


def two(c):
    # 5 nodes: 3 run the job (one set of 3), 2 spares; two of the set lost once a flush exists:
    # the relaunch has the same processes on the spares. XOR cannot rebuild two (the restart
    # comes from the prefix); RS with SCR_SET_FAILURES=2 rebuilds both from the third node.
    two_lost(c, "XOR")
    two_lost(c, "RS")


def two_lost(c, copy):
    waited = c.settle()  # 5 nodes: every one free, the job before's too
    if waited:
        print(f"  (the cluster was not idle before two, {copy}; its jobs cancelled: {waited})", flush=True)
    extra = {"GDS_SET_SIZE": "3", "GDS_FLUSH": "2", "GDS_SPARES": "2"}
    if copy == "RS":
        extra["SCR_SET_FAILURES"] = "2"
    job = Job(c, f"two-{copy.lower()}", copy, extra)
    jid, out = job.submit("srun", ["--nodes=5"])
    prefix = os.path.join(job.dir, "prefix", f"gds.{job.name}", "state")
    if jid and job.wait_for(jid, lambda: job.cached("n1", 3) and glob.glob(os.path.join(prefix, "*.h5")), "a flush"):
        lost = ["n2", "n3"]  # (n1 runs the batch script)
        for n in lost:
            job.lose(n)
        text = job.wait(jid, out)
        for n in lost:
            c.revive_node(n)
        show(f"two: {copy}, nodes {lost} lost", text)
        if copy == "RS":
            check(re.search(r"restarted array state from the cache: .*rebuilt \d+ file", text) is not None,
                  f"two: nodes {lost} of one RS set (k = 2) lost: not restarted from the cache, rebuilt:\n{text}")
        else:
            check(re.search(r"restarted array state from the prefix", text) is not None and "this run has" not in text,
                  f"two: nodes {lost} of one XOR set lost: not restarted from the prefix at the same count:\n{text}")
            check("the cache could not restore it: files lost beyond what copy type XOR rebuilds" in text,
                  f"two: the restart does not say why the cache could not serve:\n{text}")
        expect_answer(job, text, f"{copy}, nodes {lost} lost")


def halt(c):
    job = Job(c, "halt", "PARTNER", {"GDS_CACHE_EVERY": "1", "GDS_FLUSH": "2"})
    jid, out = job.submit("srun", app_args=["--steps", "200", "--every", "5", "--sleep-ms", "60"])
    if jid is None or not job.wait_for(jid, lambda: job.cached("n1", 1), "version 1 cached"):
        return
    p = subprocess.run([args.gds_run, "--halt"], env=job.env, cwd=job.dir, capture_output=True, text=True)
    check(p.returncode == 0, f"halt: gds-run --halt: {p.stderr}")
    text = job.wait(jid, out)
    show("halt: gds-run --halt", text)
    m = re.search(r"halted at step (\d+)", text)
    check(m is not None and "(the halt file exists: the job stopped as asked)" in text and "attempt 2" not in text,
          f"halt: the job did not stop as asked, once:\n{text}")
    if not m:
        return
    step = int(m.group(1))
    v = step // 5 - 1  # the version made at that step (version 0 at step 5)
    check(os.path.exists(os.path.join(job.dir, "prefix", f"gds.{job.name}", "state", f"v{v}.h5")),
          f"halt: halted at step {step} but version {v} is not on the prefix:\n{text}")
    # A new allocation, every cache gone, the halt file removed: from the prefix at exactly that step.
    shutil.rmtree(os.path.join(job.dir, "cache"), ignore_errors=True)
    os.remove(os.path.join(job.dir, f"gds.{job.name}.halt"))
    jid, out = job.submit("srun", app_args=["--steps", "200", "--every", "5", "--sleep-ms", "0"])
    text = job.wait(jid, out)
    show("halt: a new allocation", text)
    check(f"resuming at step {step} " in text and "level 2" in text,
          f"halt: the new allocation did not resume from the prefix at step {step}:\n{text}")
    check("done: steps=200" in text, f"halt: the resumed job did not finish:\n{text}")


def end(c):
    job = Job(c, "end", "XOR", {"GDS_HALT_SECONDS": "50", "GDS_FLUSH": "2"})
    jid, out = job.submit("srun", ["--time=1"], app_args=["--steps", "100000", "--every", "5", "--sleep-ms", "20"])
    text = job.wait(jid, out, timeout=90)
    show("end: sbatch --time=1, GDS_HALT_SECONDS=50", text)
    check(re.search(r"gds-run: job id end .*; ends at ", text) is not None,
          f"end: gds-run did not learn the allocation's end from Slurm:\n{text}")
    m = re.search(r"halted at step (\d+)", text)
    check(m is not None and "exit status 0" in text,
          f"end: the job did not leave through GDS_should_exit before the allocation's end:\n{text}")
    if m:  # right after a version every level holds: the flush of that version
        v = int(m.group(1)) // 5 - 1
        check(os.path.exists(os.path.join(job.dir, "prefix", f"gds.{job.name}", "state", f"v{v}.h5")),
              f"end: halted at step {m.group(1)} but version {v} is not on the prefix")


def scavenge(c):
    job = Job(c, "scavenge", "XOR", {"SCR_RUNS": "1"})
    victim = RNG.choice(["n2", "n3"])  # n1 runs the batch script (and gds-run): losing it loses the job
    jid, out = job.submit("srun")
    if jid and job.wait_for(jid, lambda: job.cached(victim, 3), f"version 3 cached on {victim}"):
        job.lose(victim)
    text = job.wait(jid, out)
    c.revive_node(victim)
    show(f"scavenge: SCR_RUNS=1, {victim} lost", text)
    check("giving up: 1 run(s) failed" in text and re.search(r"scavenge: node n\d: copied", text) is not None,
          f"scavenge: the job was given up without a scavenge:\n{text}")
    # A new allocation: every node's cache gone.
    shutil.rmtree(os.path.join(job.dir, "cache"), ignore_errors=True)
    jid, out = job.submit("srun")
    text = job.wait(jid, out)
    show("scavenge: a new allocation, every cache gone", text)
    check("fetched from the prefix's scavenged copy" in text and re.search(r"rebuilt \d+ file", text) is not None,
          f"scavenge: the new allocation did not restart from the scavenged copy:\n{text}")
    m = re.search(r"resuming at step (\d+)", text)
    check(m is not None and int(m.group(1)) >= 20, f"scavenge: resumed before the scavenged version (step 20):\n{text}")
    expect_answer(job, text, "after the scavenge")


if __name__ == "__main__":
    missing = missing_programs()
    if missing:  # ctest reports the test skipped (77); ./scripts/gds test installs Slurm
        print(f"slurm_test: Slurm is not installed (missing {', '.join(missing)}): "
              "apt-get install slurmctld slurmd slurm-client munge", flush=True)
        sys.exit(77)
    SCRIPTS = scripts()
    ANSWER = reference()
    wanted = args.scenarios or SCENARIOS
    print(f"slurm_test: seed {SEED} (--seed {SEED} replays it); scenarios {' '.join(wanted)}; answer {ANSWER}",
          flush=True)
    t0 = time.monotonic()
    with Cluster(nodes=5) as cluster:
        for name in wanted:
            t = time.monotonic()
            print(f"--- {name}", flush=True)
            try:
                waited = cluster.settle()
                if waited:
                    print(f"  (the cluster was not idle before {name}; its jobs cancelled: {waited})", flush=True)
                globals()[name](cluster)
            except Exception as e:  # a scenario that breaks fails, the others run
                fail(f"{name}: {type(e).__name__}: {e}")
            print(f"--- {name}: {time.monotonic() - t:.1f} s", flush=True)
    print(f"slurm_test: {len(wanted)} scenario(s) in {time.monotonic() - t0:.1f} s, {len(failures)} failure(s)"
          f" (seed {SEED})", flush=True)
    sys.exit(1 if failures else 0)
