// MPI's optional Fortran datatypes (MPI-3.1 section 3.2.2), made names that
// always exist. MPICH defines every one, as MPI_DATATYPE_NULL where its
// Fortran compiler lacks the kind; Open MPI leaves the name out instead
// (MPI_INTEGER16 with gfortran). Either way the type never matches an array's.
#pragma once

#include <mpi.h>

#ifndef MPI_INTEGER1
#define MPI_INTEGER1 MPI_DATATYPE_NULL
#endif
#ifndef MPI_INTEGER2
#define MPI_INTEGER2 MPI_DATATYPE_NULL
#endif
#ifndef MPI_INTEGER4
#define MPI_INTEGER4 MPI_DATATYPE_NULL
#endif
#ifndef MPI_INTEGER8
#define MPI_INTEGER8 MPI_DATATYPE_NULL
#endif
#ifndef MPI_INTEGER16
#define MPI_INTEGER16 MPI_DATATYPE_NULL
#endif
#ifndef MPI_REAL4
#define MPI_REAL4 MPI_DATATYPE_NULL
#endif
#ifndef MPI_REAL8
#define MPI_REAL8 MPI_DATATYPE_NULL
#endif
#ifndef MPI_REAL16
#define MPI_REAL16 MPI_DATATYPE_NULL
#endif
#ifndef MPI_COMPLEX8
#define MPI_COMPLEX8 MPI_DATATYPE_NULL
#endif
#ifndef MPI_COMPLEX16
#define MPI_COMPLEX16 MPI_DATATYPE_NULL
#endif
#ifndef MPI_COMPLEX32
#define MPI_COMPLEX32 MPI_DATATYPE_NULL
#endif
