#!/usr/bin/env bash
# Installs a GDS build tree into a scratch prefix and builds outside programs
# against it, the three ways a user would: CMake find_package(GDS) (the
# examples), pkg-config with the plain C and C++ compilers, and pkg-config
# (gdsf90) with the Fortran wrapper of the MPI GDS was built with (gdsf90.pc
# names it; when GDS was built with its Fortran module). Also checks the
# license is installed and declared. GDS_MPIEXEC: the launcher, with its options (default mpiexec.mpich).
#   check-install.sh <build tree> <scratch dir> [extra compiler flags...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$1
scratch=$2
shift 2
flags=("$@")
read -r -a mpiexec <<< "${GDS_MPIEXEC:-mpiexec.mpich}"
rm -rf "$scratch"
mkdir -p "$scratch"
prefix="$scratch/prefix"
cmake --install "$build" --prefix "$prefix" > "$scratch/install.log"

test -f "$prefix/include/gds/gds.h"
test -f "$prefix/include/gds/gds.hpp"
test -f "$prefix/lib/cmake/GDS/GDSConfig.cmake"
test -f "$prefix/lib/pkgconfig/gds.pc"
grep -qx 'License: BSD-3-Clause' "$prefix/lib/pkgconfig/gds.pc"
# The MPI it was built with is named (an empty name once said "built with ()").
grep -Eq "^# The MPI GDS was built with \((Open MPI|MPICH|openmpi|mpich)[^)]" "$prefix/lib/pkgconfig/gds.pc"
grep -q 'BSD 3-Clause License' "$prefix/share/doc/GDS/LICENSE"
ls "$prefix"/lib/libgds.so* > /dev/null
test -x "$prefix/bin/gds-run"
"$prefix/bin/gds-run" --help > /dev/null
GDS_JOB_ID=install-check "$prefix/bin/gds-run" --attempts 2 --halt-file "$scratch/halt" -- true 2> "$scratch/gds-run.log"
if ls "$prefix"/include/gds | grep -qE '^(core|rma)$'; then
  echo "internal headers were installed" >&2
  exit 1
fi

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
read -r -a pc <<< "$(pkg-config --cflags --libs gds)"
cc -std=c11 "${flags[@]}" "$here/consumer.c" "${pc[@]}" -o "$scratch/consumer_c"
c++ -std=c++20 "${flags[@]}" "$here/consumer.cpp" "${pc[@]}" -o "$scratch/consumer_cpp"
"${mpiexec[@]}" -n 2 "$scratch/consumer_c"
"${mpiexec[@]}" -n 2 "$scratch/consumer_cpp"
if [ -f "$prefix/lib/pkgconfig/gdsf90.pc" ]; then
  "$(pkg-config --variable=mpifort gdsf90)" "${flags[@]}" "$here/consumer.f90" $(pkg-config --cflags --libs gdsf90) -o "$scratch/consumer_f90"
  test -f "$prefix/include/gds/gds.mod"
  "${mpiexec[@]}" -n 2 "$scratch/consumer_f90"
elif ls "$prefix"/include/gds/*.mod "$prefix"/lib/libgdsf90.so* > /dev/null 2>&1; then
  echo "parts of the Fortran module were installed without gdsf90.pc" >&2
  exit 1
fi

# The Containment Domains document's use cases, with its CD calls unchanged
# (its "commit" spelling is opt-in: -DCD_COMMIT_ALIAS).
test -f "$prefix/include/gds/cd.h"
cc -std=c11 -DCD_COMMIT_ALIAS "${flags[@]}" "$here/cd_seed_examples.c" "${pc[@]}" -o "$scratch/cd_seed_examples"
c++ -std=c++20 "${flags[@]}" "$here/cd_seed_braced.cpp" "${pc[@]}" -o "$scratch/cd_seed_braced"
"${mpiexec[@]}" -n 2 "$scratch/cd_seed_examples"
"${mpiexec[@]}" -n 2 "$scratch/cd_seed_braced"

CFLAGS="${flags[*]}" LDFLAGS="${flags[*]}" "$here/../../examples/run-installed.sh" "$prefix" "$scratch/examples"
