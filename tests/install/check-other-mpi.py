#!/usr/bin/env python3
"""One MPI per build (issue 45): configuring GDS against a parallel HDF5 built for
another MPI than the build's must fail, naming the library, the MPI it needs and
what to install, rather than link two MPI libraries into every program.

  check-other-mpi.py BUILD_DIR CMAKE SOURCE_DIR -- cmake options (this build's MPI, the other MPI's HDF5)
"""
import shutil
import subprocess
import sys

build, cmake, source = sys.argv[1:4]
options = sys.argv[sys.argv.index("--") + 1:]
shutil.rmtree(build, ignore_errors=True)
p = subprocess.run([cmake, "-S", source, "-B", build, "-DGDS_BUILD_TESTS=OFF", "-DGDS_BUILD_BENCH=OFF",
                    "-DGDS_BUILD_PYTHON=OFF", "-DGDS_BUILD_FORTRAN=OFF", *options],
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=240)
out = " ".join(p.stdout.split())  # CMake folds its messages
print(p.stdout[-3000:])
shutil.rmtree(build, ignore_errors=True)
wanted = ["is built for another MPI", "needs libmpi", "Install a serial HDF5", "libhdf5-dev"]
missing = [w for w in wanted if w not in out]
if p.returncode == 0 or missing:
    sys.exit(f"check-other-mpi: configure {'succeeded' if p.returncode == 0 else 'failed'} "
             f"without saying {missing}: two MPI libraries would be linked")
print("check-other-mpi: refused, as it must be")
