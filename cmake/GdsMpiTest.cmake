# gds_add_mpi_test(<name> TARGET <target> [ARGS ...] [RANKS n ...] [TIMEOUT s] [ENV VAR=value ...] [SLOW] [PERSIST])
#
# Registers <name>.np<n> for every rank count (default 1 2 3 4), run with
# MPIEXEC_EXECUTABLE and GDS_MPIEXEC_PREFLAGS. The launcher itself (MPICH's
# Hydra and Open MPI's mpiexec both read MPIEXEC_TIMEOUT) ends a job a little
# before ctest's TIMEOUT, so a hung test never leaves spinning processes behind.
# Labels: mpi, np<n>, and quick at 1-2 processes unless SLOW (the tier
# `scripts/gds check` runs); openmpi (the part `scripts/gds test-openmpi`
# runs) unless SLOW, and for a PERSIST test at 1-2 processes only.
function(gds_add_mpi_test name)
  cmake_parse_arguments(T "SLOW;PERSIST" "TARGET;TIMEOUT" "ARGS;RANKS;ENV" ${ARGN})
  if(NOT T_RANKS)
    set(T_RANKS 1 2 3 4)
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  math(EXPR hydra_timeout "${T_TIMEOUT} - 10")
  set(env "MPIEXEC_TIMEOUT=${hydra_timeout}" ${GDS_SANITIZER_ENV} ${T_ENV})
  foreach(n IN LISTS T_RANKS)
    set(test "${name}.np${n}")
    set(labels mpi np${n})
    if(n LESS_EQUAL 2 AND NOT T_SLOW)
      list(APPEND labels quick)
    endif()
    if(NOT T_SLOW AND (n LESS_EQUAL 2 OR NOT T_PERSIST))
      list(APPEND labels openmpi)
    endif()
    add_test(NAME ${test}
             COMMAND ${MPIEXEC_EXECUTABLE} ${GDS_MPIEXEC_PREFLAGS_LIST} -n ${n} $<TARGET_FILE:${T_TARGET}> ${T_ARGS})
    set_tests_properties(${test} PROPERTIES
      TIMEOUT ${T_TIMEOUT}
      PROCESSORS ${n}
      LABELS "${labels}"
      ENVIRONMENT "${env}")
  endforeach()
endfunction()

# The launcher with its options as one string, for the Python drivers
# (--mpiexec, shell-split by tests/mpilaunch.py), and as a list for COMMAND.
separate_arguments(GDS_MPIEXEC_PREFLAGS_LIST UNIX_COMMAND "${GDS_MPIEXEC_PREFLAGS}")
string(JOIN " " GDS_TEST_MPIEXEC "${MPIEXEC_EXECUTABLE}" ${GDS_MPIEXEC_PREFLAGS_LIST})

# Every test's environment: the sanitizers' options and GDS_TEST_ENV (a list
# of VAR=value the build chose, e.g. Open MPI's OMPI_MCA_osc).
set(GDS_TEST_ENV "" CACHE STRING "VAR=value;... every test runs with")
list(APPEND GDS_SANITIZER_ENV ${GDS_TEST_ENV})
# And the oversubscription shim (tests/support/yield_progress.c): a process
# waiting in MPI yields its core, so 3-4 processes on 2 cores take a
# collective in 0.1 ms instead of 5 ms. GDS_TEST_YIELD=OFF runs the tests
# with MPI's own busy polling.
option(GDS_TEST_YIELD "Tests preload tests/support/yield_progress.c" ON)
if(GDS_TEST_YIELD)
  list(APPEND GDS_SANITIZER_ENV "LD_PRELOAD=$<TARGET_FILE:gds_test_yield>")
endif()
