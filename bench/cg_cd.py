#!/usr/bin/env python3
"""Benchmark of CG with containment domains (examples/cg/cg_cd.cpp): overhead and recovery.

At --np processes (default 2), --repeat times (default 7), the runs of every repeat interleaved (their
order rotated from one repeat to the next, so drift and position hit all alike):

  cg                                      the plain form: the reference ANSWER and one plain step
                                          (TIME / STEPS)
  cg_cd --copy-every k --inject none      overhead of the CDs with no error, for each k of --ks
                                          (default 1,10: x, r, p copied by every iteration's CD, or by
                                          the root every 10 iterations)
  cg_cd --copy-every k --inject flip      a sign flip in A p on the last rank at --at, found by the ABFT
                                          check, contained by that rank's matvec CD (re-executed alone)
  cg_cd --copy-every k --inject flip --times 2
                                          the re-execution fails too and escalates: k = 1 to the
                                          iteration's CD (every process redoes the iteration), k > 1 to
                                          the root (every process resumes from its point, the last
                                          multiple of k: --at mod k iterations redone)
  cg_resilient --every 10 --inject none   for comparison: GDS versions every 10 steps, no error
  cg_resilient --every 10 --inject flip   a sign flip in x at --at, found by the next check, global
                                          rollback to the last version (every process, steps redone)

Reported (Markdown on stdout, and in --md; every run in --json):
- the overhead: per repeat, TIME / the plain TIME of the same repeat - 1; median and min-max, and every
  repeat's value sorted (to see when the figures are bimodal); also the median TIME / the plain median
  TIME - 1 (steadier when the noise is per run rather than per repeat);
- the recovery: RECOVERY_TIME (cg_cd: from detection to the check passing again, after the matvec's
  re-execution, the iteration's redo or the root's restore and the first redone matvec; cg_resilient:
  from detection to the restored version checked) in seconds and in plain steps of the same repeat; the
  steps then redone (cg_cd's root: from its point to the iteration of the error; cg_resilient: from the
  version's iteration to the one where the error was found, the last multiple of 10 before it), and the
  whole recovery in plain steps: RECOVERY_TIME plus the steps redone (for cg_cd's root the first redone
  iteration's halo exchange and matvec are in both: an over-estimate by about half a step).
  (TIME(error) - TIME(none) of the same repeat is in the JSON; on a noisy machine it is the difference of
  two noisy times, too rough to report.)

--at defaults to steps/2 + 5 (55 for 100 steps): mid-way between two multiples of 10, so the root's
redone iterations (5) are the mean over a uniformly random error time (4.5); cg_resilient redoes 10 at any.

Every run must exit 0 with the plain form's ANSWER (and a RECOVERED line naming the expected CD when an
error was injected); the script exits 1 otherwise. Before each run it waits for the machine to be idle and
runs a timed run again when other processes were busy during it (bench/apps.py's helpers, same
options). Python 3 standard library only.

  nice -n 10 bench/cg_cd.py --bin-dir /tmp/cgcd-build      # examples built against the installed GDS
"""
import argparse
import json
import os
import re
import shutil
import shlex
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in bench/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import apps  # noqa: E402  (bench/apps.py: idle waiting, runs, retries)

EXES = {"plain": "cg/cg", "cd": "cg/cg_cd", "resilient": "cg/cg_resilient"}


def make_runs(ks):
    """label -> (executable form, extra arguments); cg_cd's labels are "cd<k> none|flip|escalated"."""
    runs = {"plain": ("plain", [])}
    for k in ks:
        ck = ["--copy-every", str(k)]
        runs[f"cd{k} none"] = ("cd", ck + ["--inject", "none"])
        runs[f"cd{k} flip"] = ("cd", ck + ["--inject", "flip"])
        runs[f"cd{k} escalated"] = ("cd", ck + ["--inject", "flip", "--times", "2"])
    runs["resilient none"] = ("resilient", ["--every", "10", "--inject", "none"])
    runs["resilient flip"] = ("resilient", ["--every", "10", "--inject", "flip"])
    return runs


def expected_recovered(label, at):
    """The RECOVERED line's tail a cg_cd run must print, and the iterations it then redoes."""
    k = int(label.split()[0][2:])
    if label.endswith("flip"):
        return f"step={at} from=matvec", 0
    if k == 1:
        return f"step={at} from=iteration", 0
    return f"step={at} from=root resumed={at // k * k}", at - at // k * k


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin-dir", default=os.path.join(apps.REPO, "build/release/tests/examples"),
                   help="where cg/cg, cg/cg_cd and cg/cg_resilient are (default build/release/tests/examples)")
    p.add_argument("--np", type=int, default=2, help="processes (default 2)")
    p.add_argument("--n", type=int, default=64, help="cg --n: edge of the grid per process (default 64)")
    p.add_argument("--steps", type=int, default=100, help="cg --steps (default 100)")
    p.add_argument("--at", type=int, default=None, help="iteration of the flip (default steps/2 + 5)")
    p.add_argument("--ks", default="1,10", help="cg_cd --copy-every values (comma-separated; default 1,10)")
    p.add_argument("--repeat", type=int, default=7, help="repeats (default 7)")
    p.add_argument("--mpiexec", default="mpiexec.mpich -bind-to core", help="launcher, shell-split")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds per run (default 300)")
    p.add_argument("--idle", type=float, default=0.25,
                   help="wait until other processes use fewer cores than this before each run, and run a "
                        "timed run again when they used more during it (default 0.25; 0: off)")
    p.add_argument("--idle-wait", type=float, default=600.0, help="longest wait for idleness per run (s)")
    p.add_argument("--retries", type=int, default=2, help="runs again of a run others disturbed (default 2)")
    p.add_argument("--md", default=None, help="also write the tables here")
    p.add_argument("--json", default=None, help="every run's figures")
    a = p.parse_args(argv)
    if a.repeat < 1 or a.np < 1 or a.steps < 1:
        p.error("--repeat, --np and --steps must be >= 1")
    try:
        a.ks = [int(k) for k in a.ks.split(",") if k.strip()]
    except ValueError:
        p.error("--ks: comma-separated integers")
    if not a.ks or min(a.ks) < 1:
        p.error("--ks: at least one value, each >= 1")
    if a.at is None:
        a.at = min(a.steps // 2 + 5, a.steps - 1)
    a.extra_env = {}
    return a


class CgBench(apps.Bench):
    def exe(self, app, form):
        return os.path.join(self.args.bin_dir, EXES[form])


def med(xs):
    return apps.median([x for x in xs if x is not None])


def rng(xs, fmt):
    xs = [x for x in xs if x is not None]
    return f"{fmt(min(xs))} - {fmt(max(xs))}" if xs else "-"


def pct(x):
    return "-" if x is None else f"{100 * x:+.1f}%"


def main(argv):
    args = parse_args(argv)
    for form in EXES:
        exe = os.path.join(args.bin_dir, EXES[form])
        if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
            print(f"cg_cd.py: {exe}: not an executable file (build cg, cg_cd and cg_resilient first)", file=sys.stderr)
            return 2
    if shutil.which(shlex.split(args.mpiexec)[0]) is None:
        print(f"cg_cd.py: launcher {args.mpiexec} not found", file=sys.stderr)
        return 2
    RUNS = make_runs(args.ks)
    b = CgBench(args)
    common = ["--n", str(args.n), "--steps", str(args.steps), "--at", str(args.at)]
    print(f"cg_cd.py: {args.np} processes, --n {args.n} --steps {args.steps} --at {args.at}, --copy-every "
          f"{','.join(map(str, args.ks))}, {args.repeat} repeats", file=sys.stderr)
    started, load_before = time.time(), os.getloadavg()
    runs = {label: [] for label in RUNS}  # label -> one Run (or None) per repeat
    labels = list(RUNS)
    for rep in range(args.repeat):
        order = labels[rep % len(labels):] + labels[:rep % len(labels)]
        # The plain run gives the reference, so it goes first in the first repeat.
        if rep == 0:
            order = labels
        for label in order:
            reference = runs["plain"][0].answer if runs["plain"] and runs["plain"][0] else None
            form, extra = RUNS[label]
            r = b.timed(f"{label} #{rep + 1}", "cg", form, common + extra, {},
                        reference if label != "plain" else None)
            if r is not None and label == "plain" and reference is not None and r.answer != reference:
                b.fail(r, f"ANSWER {r.answer} differs from the first plain run's {reference}")
                r = None
            if r is not None and not label.endswith("none") and label != "plain":
                rec = r.values("RECOVERED")
                if not rec or r.recovery_time is None:
                    b.fail(r, "no RECOVERED / RECOVERY_TIME line: the flip was not found")
                    r = None
                elif label.startswith("cd") and not rec[-1].endswith(expected_recovered(label, args.at)[0]):
                    b.fail(r, f"RECOVERED {rec[-1]}: expected ... {expected_recovered(label, args.at)[0]}")
                    r = None
            if r is not None and label.endswith("none") and r.values("RECOVERED"):
                b.fail(r, "a RECOVERED line without an injected error")
                r = None
            runs[label].append(r)

    def per_repeat(f):
        out = []
        for i in range(args.repeat):
            try:
                out.append(f(i))
            except (TypeError, ZeroDivisionError, AttributeError):
                out.append(None)
        return out

    def t(label, i):
        return runs[label][i].time

    step = per_repeat(lambda i: t("plain", i) / args.steps)
    nones = [lab for lab in RUNS if lab.endswith("none")]
    errs = [lab for lab in RUNS if lab != "plain" and not lab.endswith("none")]
    ovh = {lab: per_repeat(lambda i, lab=lab: t(lab, i) / t("plain", i) - 1) for lab in nones}
    rec = {lab: per_repeat(lambda i, lab=lab: runs[lab][i].recovery_time) for lab in errs}
    rec_steps = {lab: per_repeat(lambda i, lab=lab: rec[lab][i] / step[i]) for lab in errs}
    cost_steps = {lab: per_repeat(lambda i, lab=lab: (t(lab, i) - t(lab.split()[0] + " none", i)) / step[i])
                  for lab in errs}
    recovered = {lab: next((r.values("RECOVERED")[-1] for r in runs[lab] if r is not None), "-") for lab in errs}
    redone = {lab: expected_recovered(lab, args.at)[1] for lab in errs if lab.startswith("cd")}
    redone["resilient flip"] = None
    m = re.search(r"step=(\d+)", recovered["resilient flip"])
    if m:  # the check runs before the version at every 10th step: the newest version is the previous one
        found = int(m.group(1))
        redone["resilient flip"] = found - (found - 1) // 10 * 10
    total = {lab: per_repeat(lambda i, lab=lab: rec_steps[lab][i] + redone[lab]) for lab in errs}

    def name(lab):
        if lab.startswith("resilient"):
            return "cg_resilient --every 10" + ("" if lab.endswith("none") else ": global rollback")
        k, what = lab.split()
        k = k[2:]
        return f"cg_cd --copy-every {k}" + {"none": "", "flip": ": matvec CD",
                                             "escalated": ": --times 2, " + ("iteration CD" if k == "1" else "root CD")}[what]

    ms = lambda x: f"{1e3 * x:.3f}"  # noqa: E731
    s3 = lambda x: f"{x:.3f}"  # noqa: E731
    st = lambda x: f"{x:.2f}"  # noqa: E731
    fx = lambda x, f: "-" if x is None else f(x)  # noqa: E731
    lines = []
    lines.append(f"CG `--n {args.n} --steps {args.steps}` at {args.np} processes, {args.repeat} interleaved repeats; "
                 f"one plain step {ms(med(step))} ms (median; {rng(step, ms)}).")
    lines.append("")
    lines.append("| form (no error) | loop TIME, s: median (min - max) | overhead: median of per-repeat ratios "
                 "(min - max) | ratio of the median TIMEs | every repeat, sorted |")
    lines.append("| --- | --- | --- | --- | --- |")
    lines.append(f"| cg (plain) | {s3(med(runs_time(runs, 'plain')))} ({rng(runs_time(runs, 'plain'), s3)}) | - | - | - |")
    for lab in nones:
        mm = fx(med(runs_time(runs, lab)), lambda x: pct(x / med(runs_time(runs, "plain")) - 1))
        lines.append(f"| {name(lab)} | {s3(med(runs_time(runs, lab)))} ({rng(runs_time(runs, lab), s3)}) | "
                     f"**{pct(med(ovh[lab]))}** ({rng(ovh[lab], pct)}) | {mm} | "
                     f"{' '.join(pct(x) for x in sorted(x for x in ovh[lab] if x is not None))} |")
    lines.append("")
    lines.append(f"| error at step {args.at} | RECOVERED | RECOVERY_TIME, ms: median (min - max) | in plain steps | "
                 "steps redone | whole recovery, plain steps |")
    lines.append("| --- | --- | --- | --- | --- | --- |")
    for lab in errs:
        lines.append(f"| {name(lab)} | {recovered[lab]} | {fx(med(rec[lab]), ms)} ({rng(rec[lab], ms)}) | "
                     f"{fx(med(rec_steps[lab]), st)} ({rng(rec_steps[lab], st)}) | {fx(redone[lab], str)} | "
                     f"**{fx(med(total[lab]), st)}** ({rng(total[lab], st)}) |")
    lines.append("")
    lines.append(f"Runs done again because other processes were busy: {b.contended}. "
                 f"Load average before {load_before[0]:.2f}, after {os.getloadavg()[0]:.2f}; "
                 f"{time.time() - started:.0f} s in all.")
    text = "\n".join(lines)
    print(text)
    if args.md:
        os.makedirs(os.path.dirname(os.path.abspath(args.md)), exist_ok=True)
        with open(args.md, "w") as f:
            f.write(text + "\n")
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(dict(args={k: v for k, v in vars(args).items()}, runs=b.records,
                           overhead=ovh, recovery=rec, recovery_steps=rec_steps, redone=redone,
                           whole_recovery_steps=total, error_minus_none_steps=cost_steps,
                           plain_step=step), f, indent=1)
    if b.failures:
        print(f"cg_cd.py: {len(b.failures)} run(s) failed:", file=sys.stderr)
        for f in b.failures:
            print(f"  {f}", file=sys.stderr)
        return 1
    return 0


def runs_time(runs, label):
    return [r.time if r is not None else None for r in runs[label]]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
