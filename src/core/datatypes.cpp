#include "core/datatypes.hpp"
#include "core/mpi_optional.hpp"

#include <array>

namespace gds::core {
namespace {

using enum TypeClass;

// MPI_DATATYPE_NULL entries (types this MPI lacks, e.g. MPI_INTEGER16) never match.
ElementType g_types[] = {
    {MPI_CHAR, "MPI_CHAR", character, 0},
    {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", c_integer, 0},
    {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", c_integer, 0},
    {MPI_BYTE, "MPI_BYTE", byte, 0},
    {MPI_WCHAR, "MPI_WCHAR", character, 0},
    {MPI_SHORT, "MPI_SHORT", c_integer, 0},
    {MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", c_integer, 0},
    {MPI_INT, "MPI_INT", c_integer, 0},
    {MPI_UNSIGNED, "MPI_UNSIGNED", c_integer, 0},
    {MPI_LONG, "MPI_LONG", c_integer, 0},
    {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", c_integer, 0},
    {MPI_LONG_LONG_INT, "MPI_LONG_LONG", c_integer, 0},
    {MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", c_integer, 0},
    {MPI_INT8_T, "MPI_INT8_T", c_integer, 0},
    {MPI_INT16_T, "MPI_INT16_T", c_integer, 0},
    {MPI_INT32_T, "MPI_INT32_T", c_integer, 0},
    {MPI_INT64_T, "MPI_INT64_T", c_integer, 0},
    {MPI_UINT8_T, "MPI_UINT8_T", c_integer, 0},
    {MPI_UINT16_T, "MPI_UINT16_T", c_integer, 0},
    {MPI_UINT32_T, "MPI_UINT32_T", c_integer, 0},
    {MPI_UINT64_T, "MPI_UINT64_T", c_integer, 0},
    {MPI_AINT, "MPI_AINT", c_integer, 0},
    {MPI_OFFSET, "MPI_OFFSET", c_integer, 0},
    {MPI_COUNT, "MPI_COUNT", c_integer, 0},
    {MPI_FLOAT, "MPI_FLOAT", floating, 0},
    {MPI_DOUBLE, "MPI_DOUBLE", floating, 0},
    {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", floating, 0},
    {MPI_C_BOOL, "MPI_C_BOOL", logical, 0},
    {MPI_CXX_BOOL, "MPI_CXX_BOOL", logical, 0},
    {MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX", complex, 0},
    {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", complex, 0},
    {MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", complex, 0},
    {MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", complex, 0},
    {MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", complex, 0},
    {MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX", complex, 0},
    {MPI_2INT, "MPI_2INT", pair, 0},
    {MPI_SHORT_INT, "MPI_SHORT_INT", pair, 0},
    {MPI_LONG_INT, "MPI_LONG_INT", pair, 0},
    {MPI_FLOAT_INT, "MPI_FLOAT_INT", pair, 0},
    {MPI_DOUBLE_INT, "MPI_DOUBLE_INT", pair, 0},
    {MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", pair, 0},
    // Fortran
    {MPI_INTEGER, "MPI_INTEGER", fortran_integer, 0},
    {MPI_INTEGER1, "MPI_INTEGER1", fortran_integer, 0},
    {MPI_INTEGER2, "MPI_INTEGER2", fortran_integer, 0},
    {MPI_INTEGER4, "MPI_INTEGER4", fortran_integer, 0},
    {MPI_INTEGER8, "MPI_INTEGER8", fortran_integer, 0},
    {MPI_INTEGER16, "MPI_INTEGER16", fortran_integer, 0},
    {MPI_REAL, "MPI_REAL", floating, 0},
    {MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", floating, 0},
    {MPI_REAL4, "MPI_REAL4", floating, 0},
    {MPI_REAL8, "MPI_REAL8", floating, 0},
    {MPI_REAL16, "MPI_REAL16", floating, 0},
    {MPI_COMPLEX, "MPI_COMPLEX", complex, 0},
    {MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", complex, 0},
    {MPI_COMPLEX8, "MPI_COMPLEX8", complex, 0},
    {MPI_COMPLEX16, "MPI_COMPLEX16", complex, 0},
    {MPI_COMPLEX32, "MPI_COMPLEX32", complex, 0},
    {MPI_LOGICAL, "MPI_LOGICAL", logical, 0},
    {MPI_CHARACTER, "MPI_CHARACTER", character, 0},
    {MPI_2INTEGER, "MPI_2INTEGER", pair, 0},
    {MPI_2REAL, "MPI_2REAL", pair, 0},
    {MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", pair, 0},
};

struct OpName {
  MPI_Op op;
  const char *name;
};
constexpr std::array<OpName, 14> kOps = {{
    {MPI_MAX, "MPI_MAX"}, {MPI_MIN, "MPI_MIN"}, {MPI_SUM, "MPI_SUM"}, {MPI_PROD, "MPI_PROD"},
    {MPI_LAND, "MPI_LAND"}, {MPI_LOR, "MPI_LOR"}, {MPI_LXOR, "MPI_LXOR"},
    {MPI_BAND, "MPI_BAND"}, {MPI_BOR, "MPI_BOR"}, {MPI_BXOR, "MPI_BXOR"},
    {MPI_MAXLOC, "MPI_MAXLOC"}, {MPI_MINLOC, "MPI_MINLOC"},
    {MPI_REPLACE, "MPI_REPLACE"}, {MPI_NO_OP, "MPI_NO_OP"},
}};

}  // namespace

void init_element_types() {
  const MPI_Datatype unsigned_types[] = {MPI_UNSIGNED_CHAR, MPI_UNSIGNED_SHORT, MPI_UNSIGNED, MPI_UNSIGNED_LONG,
                                         MPI_UNSIGNED_LONG_LONG, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T,
                                         MPI_UINT64_T};
  for (ElementType &t : g_types) {
    if (t.mpi == MPI_DATATYPE_NULL) continue;
    MPI_Aint lb = 0, extent = 0;
    MPI_Type_get_extent(t.mpi, &lb, &extent);
    t.extent = static_cast<std::size_t>(extent);
    for (MPI_Datatype u : unsigned_types) t.is_unsigned = t.is_unsigned || t.mpi == u;
  }
}

std::span<const ElementType> element_types() { return g_types; }

const ElementType *find_element_type(MPI_Datatype type) {
  if (type == MPI_DATATYPE_NULL) return nullptr;
  for (const ElementType &t : g_types)
    if (t.mpi == type) return &t;
  return nullptr;
}

const char *op_name(MPI_Op op) {
  for (const OpName &o : kOps)
    if (o.op == op) return o.name;
  return nullptr;
}

bool op_applies(MPI_Op op, const ElementType &type) {
  const TypeClass c = type.cls;
  if (op == MPI_REPLACE || op == MPI_NO_OP) return true;
  if (op == MPI_MAX || op == MPI_MIN) return c == c_integer || c == fortran_integer || c == floating;
  if (op == MPI_SUM || op == MPI_PROD)
    return c == c_integer || c == fortran_integer || c == floating || c == complex;
  if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) return c == c_integer || c == logical;
  if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR)
    return c == c_integer || c == fortran_integer || c == byte;
  if (op == MPI_MAXLOC || op == MPI_MINLOC) return c == pair;
  return false;
}

bool cas_applies(const ElementType &type) {
  const TypeClass c = type.cls;
  return c == c_integer || c == fortran_integer || c == logical || c == byte;
}

}  // namespace gds::core
