// Element types an array may hold, and which MPI ops and atomics apply to them.
//
// Only predefined MPI datatypes are accepted: they are what MPI allows in
// accumulates, and a table lookup rejects any other handle before MPI sees it.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <span>

namespace gds::core {

// MPI's categories of predefined types (MPI 3.1, 5.9.2).
enum class TypeClass {
  c_integer,        // C integers and the multi-language types MPI_AINT/OFFSET/COUNT
  fortran_integer,
  floating,
  complex,
  logical,
  byte,
  character,        // MPI_CHAR, MPI_WCHAR, MPI_CHARACTER: no reductions
  pair,             // MPI_2INT, MPI_DOUBLE_INT, ...: MPI_MAXLOC / MPI_MINLOC
};

struct ElementType {
  MPI_Datatype mpi;
  const char *name;
  TypeClass cls;
  std::size_t extent;      // bytes per element in memory
  bool is_unsigned = false;  // an unsigned C integer
};

// Fills in extents; needs MPI initialized. Called by GDS_init().
void init_element_types();

// Every element type (entries MPI lacks have mpi == MPI_DATATYPE_NULL).
std::span<const ElementType> element_types();

// The table entry for `type`, or nullptr if it is not an element type.
const ElementType *find_element_type(MPI_Datatype type);

// Name of a predefined op ("MPI_SUM"), or nullptr if `op` is not one GDS accepts.
const char *op_name(MPI_Op op);

// Whether MPI defines `op` on elements of `type` in an accumulate.
bool op_applies(MPI_Op op, const ElementType &type);

// Whether MPI_Compare_and_swap accepts `type`.
bool cas_applies(const ElementType &type);

}  // namespace gds::core
