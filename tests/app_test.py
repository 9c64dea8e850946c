#!/usr/bin/env python3
"""Generic driver for the GDS mini-applications (plain form vs resilient form).

Runs the plain form once to get the reference ANSWER, then the resilient form
once per injection kind, and checks that every run ends with the same ANSWER:

  none, flip, latent, library   one run with --inject <kind>; exit 0 and the
                                reference ANSWER (and, except for none, a
                                RECOVERED line: the fault was found and handled)
  kill                          a run with --inject kill under a fresh GDS_JOB_ID
                                and cache; it must die (nonzero exit, no ANSWER);
                                then the same command without --inject, which
                                must print RESTARTED (GDS_restart_query found the
                                persisted state) and the reference ANSWER

--storage prefix (or cache,prefix for both) also sets GDS_PREFIX for the kill
runs and deletes the cache directory before the rerun, so the restart comes
from the prefix.

The applications follow the protocol of the apps brief: rank 0 prints
`ANSWER <value>` as its last line, `RECOVERED <kind> step=<s> from=<v>` on a
recovery and `RESTARTED from=<v>` when it resumed from persisted versions.

Usage:
  app_test.py --np N --plain <exe> --resilient <exe> [--args="..."]
              [--kinds none,flip,latent,library,kill] [--storage cache|prefix|cache,prefix]
              [--env K=V ...] [--mpiexec mpiexec.mpich] [--timeout s] [--tmpdir dir] [--keep]

Every run is bounded by --timeout seconds (default 120), through MPIEXEC_TIMEOUT
and a timer of its own. Exit status 0 if every run matched, 1 otherwise
(a message names each mismatch), 2 for bad usage. Python 3 standard library only.
"""
import argparse
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

KINDS = ("none", "flip", "latent", "library", "kill")
# Variables that would make a run restart from, or write to, state this driver did not set up.
INHERITED_PERSISTENCE = ("GDS_JOB_ID", "SCR_JOB_ID", "GDS_RESTART", "GDS_PREFIX", "SCR_PREFIX")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--np", type=int, required=True, help="number of MPI processes")
    p.add_argument("--plain", required=True, help="the plain form's executable")
    p.add_argument("--resilient", required=True, help="the resilient form's executable")
    p.add_argument("--args", default="", help="arguments for both forms (one string, shell-split)")
    p.add_argument("--kinds", default=",".join(KINDS), help="injection kinds to run (comma-separated)")
    p.add_argument("--storage", default="cache", help="kill runs restart from: cache, prefix, or cache,prefix")
    p.add_argument("--env", action="append", nargs="+", default=[], metavar="K=V",
                   help="environment for the resilient runs (repeatable)")
    p.add_argument("--mpiexec", default="mpiexec.mpich", help="launcher (shell-split: may carry options)")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per run (default 120)")
    p.add_argument("--tmpdir", default=None, help="where the temporary cache and prefix directories go")
    p.add_argument("--keep", action="store_true", help="keep the temporary directories")
    a = p.parse_args(argv)
    a.kinds = [k.strip() for k in a.kinds.split(",") if k.strip()]
    a.storage = [s.strip() for s in a.storage.split(",") if s.strip()]
    bad = [k for k in a.kinds if k not in KINDS]
    if bad:
        p.error(f"unknown kind(s) {bad}; known: {', '.join(KINDS)}")
    if [s for s in a.storage if s not in ("cache", "prefix")] or not a.storage:
        p.error("--storage takes cache, prefix or cache,prefix")
    if a.np < 1:
        p.error("--np must be >= 1")
    env = {}
    for item in (x for group in a.env for x in group):
        if "=" not in item or item.startswith("="):
            p.error(f"--env wants K=V, got {item!r}")
        k, v = item.split("=", 1)
        env[k] = v
    a.env = env
    return a


class Run:
    def __init__(self, rc, out, err, seconds, timed_out):
        self.rc, self.out, self.err, self.seconds, self.timed_out = rc, out, err, seconds, timed_out

    def lines(self, word):
        return [l for l in self.out.splitlines() if l.startswith(word + " ") or l == word]

    def answer(self):
        found = self.lines("ANSWER")
        return found[-1].split(None, 1)[1].strip() if found and len(found[-1].split(None, 1)) > 1 else None


def run(args, exe, app_args, env_extra, label):
    """Runs one job, printing the command; returns a Run."""
    cmd = shlex.split(args.mpiexec) + ["-n", str(args.np), exe] + app_args
    env = {k: v for k, v in os.environ.items() if k not in INHERITED_PERSISTENCE}
    env.update(env_extra)
    env["MPIEXEC_TIMEOUT"] = str(max(1, int(args.timeout)))
    shown = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(env_extra.items()))
    print(f"[{label}] $ {shown + ' ' if shown else ''}MPIEXEC_TIMEOUT={env['MPIEXEC_TIMEOUT']} "
          f"{' '.join(shlex.quote(c) for c in cmd)}", flush=True)
    start = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    timed_out = False
    try:
        out, err = proc.communicate(timeout=args.timeout + 15)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the launcher we started and its processes
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
    seconds = time.monotonic() - start
    # MPIEXEC_TIMEOUT ends the job with a nonzero status once the time is up.
    r = Run(proc.returncode, out or "", err or "", seconds,
            timed_out or (proc.returncode != 0 and seconds >= args.timeout))
    summary = [l for l in r.out.splitlines() if re.match(r"(ANSWER|RECOVERED|RESTARTED|RECOVERY_TIME|TIME|STEPS) ", l)]
    print(f"[{label}]   exit {r.rc} after {seconds:.1f} s" + ("  (TIMED OUT)" if r.timed_out else "")
          + "".join(f"\n[{label}]   {l}" for l in summary), flush=True)
    return r


def show_output(label, r):
    for name, text in (("stdout", r.out), ("stderr", r.err)):
        print(f"[{label}] ---- {name} (last 60 lines) ----")
        for l in text.splitlines()[-60:]:
            print(f"[{label}] | {l}")
    print(f"[{label}] ----------------", flush=True)


def main(argv):
    args = parse_args(argv)
    app_args = shlex.split(args.args)
    if any(a == "--inject" for a in app_args):
        print("app_test: --args must not contain --inject (the driver adds it)", file=sys.stderr)
        return 2
    for exe in (args.plain, args.resilient):
        if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
            print(f"app_test: {exe}: not an executable file", file=sys.stderr)
            return 2
    launcher = shlex.split(args.mpiexec)[0]
    if shutil.which(launcher) is None:
        print(f"app_test: launcher {launcher} not found", file=sys.stderr)
        return 2

    print("app_test: parameters:")
    for k in ("np", "plain", "resilient", "args", "kinds", "storage", "env", "mpiexec", "timeout"):
        print(f"  {k} = {getattr(args, k)!r}")
    sys.stdout.flush()

    failures = []
    tmp = tempfile.mkdtemp(prefix="gds-app-test-", dir=args.tmpdir)
    print(f"app_test: temporary directory {tmp}", flush=True)
    try:
        ref = run(args, args.plain, app_args, {}, "plain")
        reference = ref.answer()
        if ref.rc != 0 or reference is None:
            show_output("plain", ref)
            print(f"app_test: FAIL: the plain form gave no reference (exit {ref.rc}"
                  f"{', timed out' if ref.timed_out else ''}, ANSWER {reference})")
            return 1
        print(f"app_test: reference ANSWER {reference}", flush=True)

        for kind in args.kinds:
            if kind != "kill":
                label = f"resilient {kind}"
                r = run(args, args.resilient, app_args + ["--inject", kind], dict(args.env), label)
                why = []
                if r.timed_out:
                    why.append("timed out")
                if r.rc != 0:
                    why.append(f"exit status {r.rc}")
                if r.answer() != reference:
                    why.append(f"ANSWER {r.answer()} != reference {reference}")
                if kind != "none" and not r.lines("RECOVERED"):
                    why.append("no RECOVERED line: the injected fault was not found and handled")
                if kind == "none" and r.lines("RECOVERED"):
                    why.append("a RECOVERED line without any injection")
                if why:
                    show_output(label, r)
                    failures.append(f"{label}: " + "; ".join(why))
                else:
                    print(f"[{label}] ok", flush=True)
                continue

            for storage in args.storage:
                label = f"resilient kill/{storage}"
                job = f"apptest-{os.getpid()}-{int(time.time() * 1000)}-{storage}"
                cache = os.path.join(tmp, f"cache-{storage}")
                env = dict(args.env)
                env.setdefault("GDS_COPY_TYPE", "PARTNER")
                if args.np >= 2 and "GDS_NODE_ID" not in env:
                    env.setdefault("GDS_RANKS_PER_NODE", "1")
                env["GDS_JOB_ID"] = job
                env["GDS_CACHE_BASE"] = cache
                if storage == "prefix":
                    env["GDS_PREFIX"] = os.path.join(tmp, f"prefix-{storage}")
                killed = run(args, args.resilient, app_args + ["--inject", "kill"], env, label + " (run)")
                why = []
                if killed.timed_out:
                    why.append("the killed run timed out")
                elif killed.rc == 0:
                    why.append("the killed run exited 0")
                if killed.answer() is not None:
                    why.append("the killed run printed an ANSWER: the kill did not happen")
                if why:
                    show_output(label + " (run)", killed)
                    failures.append(f"{label}: " + "; ".join(why))
                    continue
                if storage == "prefix":
                    print(f"[{label}] removing the cache {cache}: the restart must come from the prefix", flush=True)
                    shutil.rmtree(cache, ignore_errors=True)
                again = run(args, args.resilient, app_args, env, label + " (rerun)")
                if again.timed_out:
                    why.append("the rerun timed out")
                if again.rc != 0:
                    why.append(f"the rerun's exit status {again.rc}")
                if not again.lines("RESTARTED"):
                    why.append("the rerun printed no RESTARTED line: it did not resume from persisted state")
                if again.answer() != reference:
                    why.append(f"ANSWER {again.answer()} != reference {reference}")
                if storage == "prefix" and "of the cache" in again.err:
                    why.append("the rerun restarted from the cache, not the prefix")
                if why:
                    show_output(label + " (rerun)", again)
                    failures.append(f"{label}: " + "; ".join(why))
                else:
                    print(f"[{label}] ok", flush=True)
    finally:
        if args.keep:
            print(f"app_test: kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)

    if failures:
        print(f"app_test: FAIL ({len(failures)}):")
        for f in failures:
            print(f"  {f}")
        return 1
    print(f"app_test: PASS: {', '.join(args.kinds)} at {args.np} process(es) all gave ANSWER {reference}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
