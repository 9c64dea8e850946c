"""The launcher the tests were configured with (--mpiexec, shell-split: it
may carry options), and how it gives one process of an MPMD job variables of
its own: Hydra (MPICH) says `-env K V`, Open MPI's mpiexec `-x K=V`."""
import functools
import shlex
import subprocess


def split(mpiexec):
    return shlex.split(mpiexec)


@functools.lru_cache(maxsize=None)
def family(launcher):
    try:
        out = subprocess.run([launcher, "--version"], capture_output=True, text=True, timeout=30)
        text = out.stdout + out.stderr
    except (OSError, subprocess.TimeoutExpired):
        text = ""
    return "openmpi" if any(k in text for k in ("Open MPI", "OpenRTE", "PRRTE")) else "mpich"


def env_args(mpiexec, variables):
    """The arguments giving one process of an MPMD job `variables` (a dict)."""
    if family(split(mpiexec)[0]) == "openmpi":
        return [x for k, v in sorted(variables.items()) for x in ("-x", f"{k}={v}")]
    return [x for k, v in sorted(variables.items()) for x in ("-env", k, v)]
