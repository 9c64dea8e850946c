/// \file types.hpp
/// \brief datatype_traits<T>: the GDS element type of a C++ type.
#ifndef GDS_CXX_TYPES_HPP
#define GDS_CXX_TYPES_HPP

#include <complex>
#include <concepts>
#include <cstddef>

#include "../gds.h"

namespace gds {

/// A value and an index, laid out as MPI's pair types, for MPI_MAXLOC and MPI_MINLOC.
template <class V>
struct value_index {
  V value;   ///< the value compared
  int index; ///< the index carried with it
  /// Equal when both members are.
  friend bool operator==(const value_index &, const value_index &) = default;
};

/// datatype_traits<T>::type() is the GDS_datatype_t of T; only the types
/// specialized here can be array elements: char, signed and unsigned char,
/// std::byte, short, int, long, long long and their unsigned twins, float,
/// double, long double, bool, std::complex of the three floating types, and
/// value_index of short, int, long, float, double and long double (MPI's pair
/// types).
template <class T>
struct datatype_traits;

/// \cond
#define GDS_CXX_DATATYPE(T, mpi) \
  template <>                    \
  struct datatype_traits<T> {    \
    static GDS_datatype_t type() noexcept { return mpi; } \
  }
GDS_CXX_DATATYPE(char, MPI_CHAR);
GDS_CXX_DATATYPE(signed char, MPI_SIGNED_CHAR);
GDS_CXX_DATATYPE(unsigned char, MPI_UNSIGNED_CHAR);
GDS_CXX_DATATYPE(std::byte, MPI_BYTE);
GDS_CXX_DATATYPE(short, MPI_SHORT);
GDS_CXX_DATATYPE(unsigned short, MPI_UNSIGNED_SHORT);
GDS_CXX_DATATYPE(int, MPI_INT);
GDS_CXX_DATATYPE(unsigned, MPI_UNSIGNED);
GDS_CXX_DATATYPE(long, MPI_LONG);
GDS_CXX_DATATYPE(unsigned long, MPI_UNSIGNED_LONG);
GDS_CXX_DATATYPE(long long, MPI_LONG_LONG);
GDS_CXX_DATATYPE(unsigned long long, MPI_UNSIGNED_LONG_LONG);
GDS_CXX_DATATYPE(float, MPI_FLOAT);
GDS_CXX_DATATYPE(double, MPI_DOUBLE);
GDS_CXX_DATATYPE(long double, MPI_LONG_DOUBLE);
GDS_CXX_DATATYPE(bool, MPI_CXX_BOOL);
GDS_CXX_DATATYPE(std::complex<float>, MPI_CXX_FLOAT_COMPLEX);
GDS_CXX_DATATYPE(std::complex<double>, MPI_CXX_DOUBLE_COMPLEX);
GDS_CXX_DATATYPE(std::complex<long double>, MPI_CXX_LONG_DOUBLE_COMPLEX);
GDS_CXX_DATATYPE(value_index<short>, MPI_SHORT_INT);
GDS_CXX_DATATYPE(value_index<int>, MPI_2INT);
GDS_CXX_DATATYPE(value_index<long>, MPI_LONG_INT);
GDS_CXX_DATATYPE(value_index<float>, MPI_FLOAT_INT);
GDS_CXX_DATATYPE(value_index<double>, MPI_DOUBLE_INT);
GDS_CXX_DATATYPE(value_index<long double>, MPI_LONG_DOUBLE_INT);
#undef GDS_CXX_DATATYPE
/// \endcond

/// Whether T can be an element of gds::array<T>.
template <class T>
concept element = requires { { datatype_traits<T>::type() } -> std::same_as<GDS_datatype_t>; };

}  // namespace gds

#endif  // GDS_CXX_TYPES_HPP
