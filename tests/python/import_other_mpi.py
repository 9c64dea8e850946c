#!/usr/bin/env python3
"""One MPI per process (issue 45): importing gds next to an mpi4py of another MPI
family than the one gds was built for fails at once, in one line naming both,
instead of loading two MPI libraries (whose first call into the other aborts
the job). The other mpi4py is a stand-in whose MPI module reports the other
family's library, put first on the path; the real one imports gds cleanly.

  import_other_mpi.py PYTHON   (PYTHONPATH holds the built package)
"""
import os
import subprocess
import sys
import tempfile

python = sys.argv[1]
env = dict(os.environ)
ok = subprocess.run([python, "-c", "import gds, gds._build as b; print(b.MPI_FAMILY)"], env=env,
                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
if ok.returncode != 0:
    sys.exit(f"import_other_mpi: gds does not import with the real mpi4py:\n{ok.stdout}")
other = "MPICH Version:      4.0.2" if "Open MPI" in ok.stdout else "Open MPI v4.1.4, package: Debian OpenMPI"
if "MPICH" not in ok.stdout and "Open MPI" not in ok.stdout:
    sys.exit(f"import_other_mpi: gds._build.MPI_FAMILY is not a known family: {ok.stdout}")
with tempfile.TemporaryDirectory() as d:
    os.makedirs(os.path.join(d, "mpi4py"))
    with open(os.path.join(d, "mpi4py", "__init__.py"), "w") as f:
        f.write("class _Rc:\n    initialize = True\nrc = _Rc()\n")
    with open(os.path.join(d, "mpi4py", "MPI.py"), "w") as f:
        f.write(f"def Get_library_version():\n    return {other!r} + '\\n'\n")
    env["PYTHONPATH"] = d + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.run([python, "-c", "import gds"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=60)
last = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
print(last)
family = "MPICH" if "MPICH" in other else "Open MPI"
if p.returncode == 0 or not last.startswith("ImportError: gds: this module was built for") or family not in last:
    sys.exit(f"import_other_mpi: gds imported next to an mpi4py of {family}, or said it otherwise:\n{p.stdout}")
print("import_other_mpi: refused in one line, as it must be")
