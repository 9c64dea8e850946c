# gds_add_mpi_test(<name> TARGET <target> [ARGS ...] [RANKS n ...] [TIMEOUT s] [ENV VAR=value ...] [SLOW])
#
# Registers <name>.np<n> for every rank count (default 1 2 3 4), run with
# mpiexec.mpich. Hydra itself ends a job at MPIEXEC_TIMEOUT, a little before
# ctest's TIMEOUT, so a hung test never leaves spinning processes behind.
# Labels: mpi, np<n>, and quick at 1-2 processes unless SLOW (the tier
# `scripts/gds check` runs).
function(gds_add_mpi_test name)
  cmake_parse_arguments(T "SLOW" "TARGET;TIMEOUT" "ARGS;RANKS;ENV" ${ARGN})
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
    add_test(NAME ${test}
             COMMAND ${MPIEXEC_EXECUTABLE} -n ${n} $<TARGET_FILE:${T_TARGET}> ${T_ARGS})
    set_tests_properties(${test} PROPERTIES
      TIMEOUT ${T_TIMEOUT}
      PROCESSORS ${n}
      LABELS "${labels}"
      ENVIRONMENT "${env}")
  endforeach()
endfunction()
