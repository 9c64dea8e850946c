// A typed grid, as Global Arrays' test generator has: put, get, acc and
// get_acc x 1-7 dimensions x every element type test_data.cpp lists x both
// orders x GDS_alloc and GDS_create, one value-parameterised case each.
//
// Every process puts, accumulates or reads boxes of its own (padded leading
// dimensions, several calls before one GDS_wait), drawn from one seed so that
// every process holds a sequential model of the whole array. Each result is
// checked right after the call that promises it: fetched values after
// GDS_wait, the array (and a GDS_create process's own buffer) after
// GDS_fence. Accumulates use the ops MPI defines for the type: MPI_SUM (or
// the type's first op) from every process over overlapping boxes, and one op
// per process (MPI_REPLACE, MPI_NO_OP and the rest in turn) over disjoint
// ones; get_acc boxes are disjoint, so the fetched content is known.
// GDS_create arrays deal runs of elements to processes with different
// shares (half the time one holds nothing), odd ranks storing theirs
// backwards.
//
// The seed is printed once; GDS_TEST_SEED=<n> replays it. The four cases of
// one array share it (each writes its own starting content first). Creating
// an array costs MPI some twenty collectives, 0.1-0.3 s at 3-4 processes on
// two cores, so there the grid keeps two of each type's 28 arrays, an alloc
// and a create one of opposite orders (over the types, every dimension count
// still meets every order and flavour): with MPICH's 61 types, 488 cases
// instead of 6832. GDS_TEST_GRID=full runs all of them at any process count.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>

#include "core/mpi_optional.hpp"  // MPI_INTEGER16 and the other optional types, NULL where absent
#include "support/gds_test.hpp"

using namespace gds::test;

namespace {

using Rng = std::mt19937_64;
using Bytes = std::vector<unsigned char>;

// ---------------------------------------------------------------------------
// Element types: values to combine with an op, MPI's result, equality.
//
// Values are chosen so that every result is exact and independent of the
// order in which processes' accumulates arrive: integers wrap (as MPI's
// do) and signed sums stay far from overflow; floating-point values are
// small multiples of powers of two.

template <class T>
struct Integer {  // C and Fortran integers
  static T random(Rng &r, MPI_Op op) {
    const auto bits = static_cast<T>(r());
    if (op == MPI_PROD) {
      const int factor[4] = {-2, -1, 1, 2};
      if constexpr (std::is_signed_v<T>) return static_cast<T>(factor[r() % 4]);
      else return static_cast<T>(factor[2 + r() % 2]);
    }
    if (op == MPI_SUM && std::is_signed_v<T>) return static_cast<T>(bits / 16);  // 16 of them sum without overflow
    if ((op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) && r() % 3 == 0) return 0;
    return bits;
  }
  static T combine(MPI_Op op, T a, T b) {
    using W = std::uint64_t;  // modular arithmetic, cut to T
    if (op == MPI_SUM) return static_cast<T>(static_cast<W>(a) + static_cast<W>(b));
    if (op == MPI_PROD) return static_cast<T>(static_cast<W>(a) * static_cast<W>(b));
    if (op == MPI_MAX) return std::max(a, b);
    if (op == MPI_MIN) return std::min(a, b);
    if (op == MPI_LAND) return static_cast<T>(a != 0 && b != 0);
    if (op == MPI_LOR) return static_cast<T>(a != 0 || b != 0);
    if (op == MPI_LXOR) return static_cast<T>((a != 0) != (b != 0));
    if (op == MPI_BAND) return static_cast<T>(a & b);
    if (op == MPI_BOR) return static_cast<T>(a | b);
    if (op == MPI_BXOR) return static_cast<T>(a ^ b);
    return op == MPI_REPLACE ? b : a;
  }
  static bool equal(T a, T b) { return a == b; }
  static std::string show(T v) { return std::to_string(+v); }
};

template <class T>
struct Floating {  // float, double, long double; MPI_REAL16 is IEEE quad precision
  static T random(Rng &r, MPI_Op op) {
    const auto k = [&](int n) { return static_cast<T>(static_cast<int>(r() % (2 * n + 1)) - n); };
    if (op == MPI_SUM) return k(4000) / 4;
    if (op == MPI_PROD) {
      const T m = (r() % 2 ? T(-1) : T(1)) * (r() % 2 ? T(1) : T(2));
      return r() % 3 == 0 ? m / 4 : m;
    }
    if (op == MPI_MAX || op == MPI_MIN) return k(1000) / 8;
    // Any value, with bits below a double's for the long types.
    const T hi = static_cast<T>(static_cast<double>(static_cast<std::int64_t>(r())) * 0x1p-40);
    return hi + static_cast<T>(static_cast<double>(r() % 4096)) * static_cast<T>(0x1p-70);
  }
  static T combine(MPI_Op op, T a, T b) {
    if (op == MPI_SUM) return a + b;
    if (op == MPI_PROD) return a * b;
    if (op == MPI_MAX) return a < b ? b : a;
    if (op == MPI_MIN) return b < a ? b : a;
    return op == MPI_REPLACE ? b : a;
  }
  static bool equal(T a, T b) { return a == b; }
  static std::string show(T v) {
    std::ostringstream s;
    s.precision(21);
    s << static_cast<long double>(v);
    return s.str();
  }
};

template <class R>
struct Cplx {
  R re, im;
};
template <class R>
struct Complex {
  using T = Cplx<R>;
  static T random(Rng &r, MPI_Op op) {
    if (op == MPI_PROD) {  // a unit or 1 +- i: products stay small and exact
      const R one[3] = {R(-1), R(0), R(1)};
      T v{one[r() % 3], one[r() % 3]};
      if (v.re == 0 && v.im == 0) v.re = 1;
      return v;
    }
    return {Floating<R>::random(r, op), Floating<R>::random(r, op)};
  }
  static T combine(MPI_Op op, T a, T b) {
    if (op == MPI_SUM) return {a.re + b.re, a.im + b.im};
    if (op == MPI_PROD) return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
    return op == MPI_REPLACE ? b : a;
  }
  static bool equal(T a, T b) { return a.re == b.re && a.im == b.im; }
  static std::string show(T v) { return "(" + Floating<R>::show(v.re) + "," + Floating<R>::show(v.im) + ")"; }
};

template <class T>
struct Logical {  // C and C++ bool, Fortran LOGICAL (0 and 1)
  static T random(Rng &r, MPI_Op) { return static_cast<T>(r() % 2); }
  static T combine(MPI_Op op, T a, T b) {
    if (op == MPI_LAND) return static_cast<T>(a && b);
    if (op == MPI_LOR) return static_cast<T>(a || b);
    if (op == MPI_LXOR) return static_cast<T>(!a != !b);
    return op == MPI_REPLACE ? b : a;
  }
  static bool equal(T a, T b) { return a == b; }
  static std::string show(T v) { return std::to_string(+v); }
};

template <class T>
struct Character {
  static T random(Rng &r, MPI_Op) { return static_cast<T>(32 + r() % (sizeof(T) == 1 ? 95 : 0xD000)); }
  static T combine(MPI_Op op, T a, T b) { return op == MPI_REPLACE ? b : a; }
  static bool equal(T a, T b) { return a == b; }
  static std::string show(T v) { return std::to_string(static_cast<long>(v)); }
};

template <class X>
std::string show_number(X x) {
  if constexpr (std::is_integral_v<X>) return std::to_string(x);
  else return Floating<X>::show(x);
}

template <class V, class I>
struct Loc {
  V value;
  I index;
};
template <class V, class I>
struct Pair {  // the MAXLOC/MINLOC types
  using T = Loc<V, I>;
  static T random(Rng &r, MPI_Op op) {
    const auto small = [&](int n) { return static_cast<int>(r() % (2 * n + 1)) - n; };
    if (op == MPI_MAXLOC || op == MPI_MINLOC) {  // ties are frequent: the smaller index wins them
      V v;
      if constexpr (std::is_integral_v<V>) v = static_cast<V>(small(5));
      else v = static_cast<V>(small(10)) / 2;
      return {v, static_cast<I>(r() % 20)};
    }
    return {static_cast<V>(static_cast<std::int32_t>(r())), static_cast<I>(static_cast<std::int32_t>(r()))};
  }
  static T combine(MPI_Op op, T a, T b) {
    if (op == MPI_MAXLOC || op == MPI_MINLOC) {
      if (a.value != b.value) return (a.value > b.value) == (op == MPI_MAXLOC) ? a : b;
      return {a.value, std::min(a.index, b.index)};
    }
    return op == MPI_REPLACE ? b : a;
  }
  static bool equal(T a, T b) { return a.value == b.value && a.index == b.index; }
  static std::string show(T v) {
    return "(" + show_number(v.value) + "," + show_number(v.index) + ")";
  }
};

enum class Class { character, byte, c_integer, fortran_integer, floating, complex, logical, pair };

// MPI's table of which predefined op applies to which type (MPI 4.0, 6.9.2).
std::vector<MPI_Op> ops_of(Class c) {
  switch (c) {
    case Class::character: return {MPI_REPLACE};
    case Class::byte: return {MPI_BAND, MPI_BOR, MPI_BXOR, MPI_REPLACE};
    case Class::c_integer:
      return {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_REPLACE};
    case Class::fortran_integer: return {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_REPLACE};
    case Class::floating: return {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_REPLACE};
    case Class::complex: return {MPI_SUM, MPI_PROD, MPI_REPLACE};
    case Class::logical: return {MPI_LAND, MPI_LOR, MPI_LXOR, MPI_REPLACE};
    case Class::pair: return {MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE};
  }
  return {};
}

const char *op_name(MPI_Op op) {
  const std::pair<MPI_Op, const char *> names[] = {
      {MPI_SUM, "SUM"},   {MPI_PROD, "PROD"},   {MPI_MAX, "MAX"},       {MPI_MIN, "MIN"},
      {MPI_LAND, "LAND"}, {MPI_LOR, "LOR"},     {MPI_LXOR, "LXOR"},     {MPI_BAND, "BAND"},
      {MPI_BOR, "BOR"},   {MPI_BXOR, "BXOR"},   {MPI_MAXLOC, "MAXLOC"}, {MPI_MINLOC, "MINLOC"},
      {MPI_REPLACE, "REPLACE"}, {MPI_NO_OP, "NO_OP"}};
  for (const auto &[o, n] : names)
    if (o == op) return n;
  return "?";
}

// One element type, its values handled as bytes.
struct Type {
  MPI_Datatype mpi;
  const char *name;  // without "MPI_"
  std::size_t size;  // sizeof the C type: MPI's extent
  bool is_unsigned;
  std::vector<MPI_Op> ops;  // MPI_REPLACE last
  void (*random)(Rng &, MPI_Op, unsigned char *);
  void (*combine)(MPI_Op, unsigned char *target, const unsigned char *operand);
  bool (*equal)(const unsigned char *, const unsigned char *);
  std::string (*show)(const unsigned char *);
};

template <class V, class T = decltype(V::random(std::declval<Rng &>(), MPI_OP_NULL))>
Type make_type(MPI_Datatype mpi, const char *name, Class c, std::vector<MPI_Op> ops = {}) {
  static_assert(std::is_trivially_copyable_v<T>);
  Type t{mpi, name + 4, sizeof(T), std::is_unsigned_v<T> && (c == Class::c_integer), ops.empty() ? ops_of(c) : ops,
         nullptr, nullptr, nullptr, nullptr};
  t.random = [](Rng &r, MPI_Op op, unsigned char *out) {
    const T v = V::random(r, op);
    std::memcpy(out, static_cast<const void *>(&v), sizeof v);
  };
  t.combine = [](MPI_Op op, unsigned char *target, const unsigned char *operand) {
    T a, b;
    std::memcpy(static_cast<void *>(&a), target, sizeof a);
    std::memcpy(static_cast<void *>(&b), operand, sizeof b);
    a = V::combine(op, a, b);
    std::memcpy(target, static_cast<const void *>(&a), sizeof a);
  };
  t.equal = [](const unsigned char *x, const unsigned char *y) {
    T a, b;
    std::memcpy(static_cast<void *>(&a), x, sizeof a);
    std::memcpy(static_cast<void *>(&b), y, sizeof b);
    return V::equal(a, b);
  };
  t.show = [](const unsigned char *x) {
    T a;
    std::memcpy(static_cast<void *>(&a), x, sizeof a);
    return V::show(a);
  };
  return t;
}

// The types of test_data.cpp's ElementTypes, those this MPI provides.
const std::vector<Type> &types() {
  using f128 = __float128;
#define TYPE(mpi, cls, ...) make_type<__VA_ARGS__>(mpi, #mpi, Class::cls)
  static const std::vector<Type> all = [] {
    std::vector<Type> v = {
        TYPE(MPI_CHAR, character, Character<char>),
        TYPE(MPI_SIGNED_CHAR, c_integer, Integer<signed char>),
        TYPE(MPI_UNSIGNED_CHAR, c_integer, Integer<unsigned char>),
        TYPE(MPI_BYTE, byte, Integer<unsigned char>),
        TYPE(MPI_WCHAR, character, Character<wchar_t>),
        TYPE(MPI_SHORT, c_integer, Integer<short>),
        TYPE(MPI_UNSIGNED_SHORT, c_integer, Integer<unsigned short>),
        TYPE(MPI_INT, c_integer, Integer<int>),
        TYPE(MPI_UNSIGNED, c_integer, Integer<unsigned>),
        TYPE(MPI_LONG, c_integer, Integer<long>),
        TYPE(MPI_UNSIGNED_LONG, c_integer, Integer<unsigned long>),
        TYPE(MPI_LONG_LONG, c_integer, Integer<long long>),
        TYPE(MPI_UNSIGNED_LONG_LONG, c_integer, Integer<unsigned long long>),
        TYPE(MPI_INT8_T, c_integer, Integer<std::int8_t>),
        TYPE(MPI_INT16_T, c_integer, Integer<std::int16_t>),
        TYPE(MPI_INT32_T, c_integer, Integer<std::int32_t>),
        TYPE(MPI_INT64_T, c_integer, Integer<std::int64_t>),
        TYPE(MPI_UINT8_T, c_integer, Integer<std::uint8_t>),
        TYPE(MPI_UINT16_T, c_integer, Integer<std::uint16_t>),
        TYPE(MPI_UINT32_T, c_integer, Integer<std::uint32_t>),
        TYPE(MPI_UINT64_T, c_integer, Integer<std::uint64_t>),
        TYPE(MPI_AINT, c_integer, Integer<MPI_Aint>),
        TYPE(MPI_OFFSET, c_integer, Integer<MPI_Offset>),
        TYPE(MPI_COUNT, c_integer, Integer<MPI_Count>),
        TYPE(MPI_FLOAT, floating, Floating<float>),
        TYPE(MPI_DOUBLE, floating, Floating<double>),
        TYPE(MPI_LONG_DOUBLE, floating, Floating<long double>),
        TYPE(MPI_C_BOOL, logical, Logical<bool>),
        TYPE(MPI_CXX_BOOL, logical, Logical<bool>),
        TYPE(MPI_C_FLOAT_COMPLEX, complex, Complex<float>),
        TYPE(MPI_C_DOUBLE_COMPLEX, complex, Complex<double>),
        TYPE(MPI_C_LONG_DOUBLE_COMPLEX, complex, Complex<long double>),
        TYPE(MPI_CXX_FLOAT_COMPLEX, complex, Complex<float>),
        TYPE(MPI_CXX_DOUBLE_COMPLEX, complex, Complex<double>),
        TYPE(MPI_CXX_LONG_DOUBLE_COMPLEX, complex, Complex<long double>),
        TYPE(MPI_2INT, pair, Pair<int, int>),
        TYPE(MPI_SHORT_INT, pair, Pair<short, int>),
        TYPE(MPI_LONG_INT, pair, Pair<long, int>),
        TYPE(MPI_FLOAT_INT, pair, Pair<float, int>),
        TYPE(MPI_DOUBLE_INT, pair, Pair<double, int>),
        TYPE(MPI_LONG_DOUBLE_INT, pair, Pair<long double, int>),
        TYPE(MPI_INTEGER, fortran_integer, Integer<std::int32_t>),
        TYPE(MPI_INTEGER1, fortran_integer, Integer<std::int8_t>),
        TYPE(MPI_INTEGER2, fortran_integer, Integer<std::int16_t>),
        TYPE(MPI_INTEGER4, fortran_integer, Integer<std::int32_t>),
        TYPE(MPI_INTEGER8, fortran_integer, Integer<std::int64_t>),
        TYPE(MPI_REAL, floating, Floating<float>),
        TYPE(MPI_DOUBLE_PRECISION, floating, Floating<double>),
        TYPE(MPI_REAL4, floating, Floating<float>),
        TYPE(MPI_REAL8, floating, Floating<double>),
        TYPE(MPI_REAL16, floating, Floating<f128>),
        TYPE(MPI_COMPLEX, complex, Complex<float>),
        TYPE(MPI_DOUBLE_COMPLEX, complex, Complex<double>),
        TYPE(MPI_COMPLEX8, complex, Complex<float>),
        TYPE(MPI_COMPLEX16, complex, Complex<double>),
        // MPICH never completes (or computes wrongly) MPI_SUM and MPI_PROD on
        // MPI_COMPLEX32: GDS refuses them there (refused() below).
        TYPE(MPI_COMPLEX32, complex, Complex<f128>),
        TYPE(MPI_LOGICAL, logical, Logical<std::int32_t>),
        TYPE(MPI_CHARACTER, character, Character<char>),
        TYPE(MPI_2INTEGER, pair, Pair<std::int32_t, std::int32_t>),
        TYPE(MPI_2REAL, pair, Pair<float, float>),
        TYPE(MPI_2DOUBLE_PRECISION, pair, Pair<double, double>),
    };
    std::erase_if(v, [](const Type &t) { return t.mpi == MPI_DATATYPE_NULL; });
    return v;
  }();
#undef TYPE
  return all;
}

// ---------------------------------------------------------------------------
// The cases.

enum class Operation { put, get, acc, get_acc };
const char *const kOperationNames[] = {"put", "get", "acc", "get_acc"};

struct Case {
  std::size_t type;  // index into types()
  std::size_t ndims;
  bool row;
  bool create;
  Operation op;
  // The array's identity: the cases that differ only in op share it.
  [[nodiscard]] bool same_array(const Case &o) const {
    return type == o.type && ndims == o.ndims && row == o.row && create == o.create;
  }
  // Position among the type's 28 arrays, to deal ops out in turn.
  [[nodiscard]] std::size_t turn() const { return (ndims - 1) + 7 * (row + 2 * create); }
};

bool full_grid() {
  const char *env = std::getenv("GDS_TEST_GRID");
  return world_size() <= 2 || (env != nullptr && std::string(env) == "full");
}

std::vector<Case> cases() {
  std::vector<Case> out;
  const bool full = full_grid();
  const std::size_t ntypes = types().size();
  for (std::size_t t = 0; t < ntypes; ++t)
    for (std::size_t n = 1; n <= 7; ++n)
      for (const bool row : {true, false})
        for (const bool create : {false, true}) {
          // The reduced grid: per type, an alloc array and a create array of
          // the opposite order; over the types, every (dimensions, order) pair.
          const bool kept =
              create ? n == 1 + (t + 3) % 7 && row == (t % 2 == 1) : n == 1 + t % 7 && row == (t % 2 == 0);
          if (!full && !kept) continue;
          for (const Operation op : {Operation::put, Operation::get, Operation::acc, Operation::get_acc})
            out.push_back(Case{t, n, row, create, op});
        }
  return out;
}

std::string case_name(const Case &c) {
  return std::string(types()[c.type].name) + "_" + std::to_string(c.ndims) + "d_" + (c.row ? "row" : "col") + "_" +
         (c.create ? "create" : "alloc") + "_" + kOperationNames[static_cast<int>(c.op)];
}

void PrintTo(const Case &c, std::ostream *os) { *os << case_name(c); }

// ---------------------------------------------------------------------------
// Shapes, boxes and the GDS_create mapping.

struct Shape {
  std::vector<Index> count;
  bool row = true;
  [[nodiscard]] std::size_t ndims() const { return count.size(); }
  [[nodiscard]] Index size() const { return volume(count); }
  // Position of a global index in the array's storage order (the model's index).
  [[nodiscard]] Index pos(const Index *idx) const { return linear(count, idx, row); }
  void index(Index p, Index *idx) const {
    const std::size_t n = ndims();
    for (std::size_t k = n; k-- > 0;) {
      const std::size_t d = row ? k : n - 1 - k;
      idx[d] = p % count[d];
      p /= count[d];
    }
  }
};

// Tiny extents: a few hundred elements at most, whatever the dimensions.
Shape random_shape(Rng &r, std::size_t n, bool row) {
  static const Index max_extent[8] = {0, 24, 9, 6, 4, 3, 3, 3};
  Shape s;
  s.row = row;
  for (std::size_t d = 0; d < n; ++d) s.count.push_back((n == 1 ? 5 : 2) + r() % (max_extent[n] - (n == 1 ? 4 : 1)));
  while (s.size() > 300) {
    std::size_t d = r() % n;
    while (s.count[d] == 2) d = (d + 1) % n;
    --s.count[d];
  }
  return s;
}

// A box and the layout of a buffer for it: leading dimensions padded at random.
struct Box {
  std::vector<Index> lo, hi, ld;
  bool row = true;
  [[nodiscard]] Index extent(std::size_t d) const { return hi[d] - lo[d] + 1; }
  // Offset, in elements, of global index idx in the buffer.
  [[nodiscard]] Index offset(const Index *idx) const {
    const std::size_t n = lo.size();
    std::vector<Index> dims(n), rel(n);
    for (std::size_t d = 0; d < n; ++d) {
      dims[d] = extent(d);
      rel[d] = idx[d] - lo[d];
    }
    for (std::size_t d = 0; d + 1 < n; ++d) dims[row ? d + 1 : d] = ld[d];
    return linear(dims, rel.data(), row);
  }
  [[nodiscard]] Index elements() const { return offset(hi.data()) + 1; }
  // The box without padding (what a NULL origin_ld means).
  static Box dense(std::vector<Index> lo, std::vector<Index> hi, bool row) {
    Box b{std::move(lo), std::move(hi), {}, row};
    for (std::size_t d = 0; d + 1 < b.lo.size(); ++d) b.ld.push_back(b.extent(row ? d + 1 : d));
    return b;
  }
  // The same box with another random padding.
  Box repadded(Rng &r) const {
    Box b = *this;
    for (std::size_t d = 0; d < ld.size(); ++d) b.ld[d] = extent(row ? d + 1 : d) + r() % 3;
    return b;
  }
  [[nodiscard]] bool meets(const Box &o) const {
    for (std::size_t d = 0; d < lo.size(); ++d)
      if (hi[d] < o.lo[d] || o.hi[d] < lo[d]) return false;
    return true;
  }
  template <class F>
  void for_each(F &&fn) const {  // fn(global index, buffer offset)
    std::vector<Index> idx(lo);
    do fn(idx.data(), offset(idx.data()));
    while (next_index(lo, hi, idx, row));
  }
};

// A random box inside [from, to] with a random buffer padding.
Box random_box(Rng &r, const Shape &s, const std::vector<Index> &from, const std::vector<Index> &to) {
  const std::size_t n = s.ndims();
  std::vector<Index> lo(n), hi(n);
  for (std::size_t d = 0; d < n; ++d) {
    lo[d] = from[d] + r() % (to[d] - from[d] + 1);
    hi[d] = lo[d] + r() % (to[d] - lo[d] + 1);
  }
  return Box::dense(std::move(lo), std::move(hi), s.row).repadded(r);
}

// A random box in [from, to] meeting none of `taken` (and added to it); false if none was found.
bool disjoint_box(Rng &r, const Shape &s, const std::vector<Index> &from, const std::vector<Index> &to,
                  std::vector<Box> &taken, Box &out) {
  for (int attempt = 0; attempt < 12; ++attempt) {
    out = random_box(r, s, from, to);
    if (std::none_of(taken.begin(), taken.end(), [&](const Box &t) { return t.meets(out); })) {
      taken.push_back(out);
      return true;
    }
  }
  return false;
}

// GDS_create's layout: the storage positions dealt in runs of 1-3, in a
// random order of runs, to processes with shares proportional to distinct
// weights (half the time one of several processes weighs 0: it holds
// nothing); odd ranks store theirs backwards.
struct Mapping {
  Shape shape;
  std::vector<int> owner;                       // by storage position
  std::vector<Index> offset;                    // by storage position
  std::vector<std::vector<Index>> positions;    // per rank, by local offset

  Mapping() = default;
  Mapping(Rng &r, const Shape &s, int nprocs) : shape(s) {
    std::vector<Index> weight(static_cast<std::size_t>(nprocs));
    const Index lightest = nprocs == 1 ? 1 : r() % 2;
    for (int p = 0; p < nprocs; ++p) weight[p] = lightest + static_cast<Index>(p);
    std::shuffle(weight.begin(), weight.end(), r);
    const Index total = std::accumulate(weight.begin(), weight.end(), Index{0}), n = s.size();
    std::vector<Index> share(weight.size());
    for (std::size_t p = 0; p < share.size(); ++p) share[p] = n * weight[p] / total;
    share[std::max_element(weight.begin(), weight.end()) - weight.begin()] +=
        n - std::accumulate(share.begin(), share.end(), Index{0});
    std::vector<std::pair<int, Index>> runs;  // (rank, length)
    for (std::size_t p = 0; p < share.size(); ++p)
      for (Index left = share[p]; left > 0;) {
        const Index len = std::min<Index>(left, 1 + r() % 3);
        runs.emplace_back(static_cast<int>(p), len);
        left -= len;
      }
    std::shuffle(runs.begin(), runs.end(), r);
    positions.assign(share.size(), {});
    for (const auto &[p, len] : runs)
      for (Index k = 0; k < len; ++k) {
        owner.push_back(p);
        positions[static_cast<std::size_t>(p)].push_back(owner.size() - 1);
      }
    offset.resize(n);
    for (std::size_t p = 0; p < positions.size(); ++p) {
      if (p % 2 == 1) std::reverse(positions[p].begin(), positions[p].end());
      for (Index k = 0; k < positions[p].size(); ++k) offset[positions[p][k]] = k;
    }
  }
};

// The mapping functions of GDS_create take no context: they read the one array's.
const Mapping *g_mapping = nullptr;

GDS_status_t grid_g2l(const GDS_size_t global[], int *rank, GDS_size_t *offset) {
  const Index p = g_mapping->shape.pos(global);
  *rank = g_mapping->owner[p];
  *offset = g_mapping->offset[p];
  return GDS_STATUS_OK;
}
GDS_status_t grid_l2g(GDS_size_t offset, GDS_size_t global[]) {
  g_mapping->shape.index(g_mapping->positions[static_cast<std::size_t>(world_rank())][offset], global);
  return GDS_STATUS_OK;
}

// ---------------------------------------------------------------------------

std::uint64_t g_seed = 0;
bool g_unsigned_refused = false;  // GDS refuses MPI_MAX/MPI_MIN on unsigned types (see test_data.cpp)
bool g_logical_refused = false;   // GDS refuses MPI_LAND/LOR/LXOR where MPI ignores them (Open MPI 4.1)
bool g_gap_pairs_refused = false; // GDS refuses every accumulate of pairs with a gap (Open MPI 4)
// Open MPI 4 (tests/mpi_bugs/acc_wrong_types.c): GDS refuses arithmetic on MPI_REAL16 and
// MPI_COMPLEX32, and MPI_MAX/MPI_MIN on MPI_OFFSET (its single-complex sums it sends as floats).
bool g_open_mpi_4 = false;
// GDS refuses MPI_SUM/MPI_PROD on MPI_COMPLEX32 with MPICH (tests/mpi_bugs/complex32_sum_prod.c).
bool g_mpich = false;

// The array the cases of one (type, dimensions, order, flavour) share; freed
// when the next array is made, after a failed case and at the end.
struct Shared {
  bool live = false;
  Case id{};
  GDS_gds_t g = GDS_NULL;
  Mapping mapping;
  Bytes local;  // this process's GDS_create buffer
};
Shared g_shared;

class Grid : public MpiTest, public ::testing::WithParamInterface<Case> {
 public:
  static void SetUpTestSuite() {
    const char *env = std::getenv("GDS_TEST_SEED");
    unsigned long long seed = env != nullptr && *env != '\0' ? std::strtoull(env, nullptr, 10) : 0;
    if (seed == 0) seed = static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count());
    MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    g_seed = seed;
    g_unsigned_refused = unsigned_min_max_refused();
    g_logical_refused = logical_ops_refused();
    g_gap_pairs_refused = gap_pairs_refused();
    g_open_mpi_4 = mpi_is_open_mpi_4();
    g_mpich = mpi_is_mpich();
    if (world_rank() == 0) {
      std::printf("[ seed     ] %llu (GDS_TEST_SEED=%llu replays it)\n", seed, seed);
      if (!full_grid())
        std::printf("[ note     ] %d processes: the reduced grid, %zu cases (GDS_TEST_GRID=full runs all)\n",
                    world_size(), cases().size());
      if (g_unsigned_refused) std::printf("[ note     ] expecting GDS_STATUS_MPI_BUG for unsigned MAX/MIN\n");
      std::fflush(stdout);
    }
  }
  static void TearDownTestSuite() { drop_shared(); }

 protected:
  static void drop_shared() {
    if (g_shared.g != GDS_NULL) EXPECT_GDS_OK(GDS_free(&g_shared.g));
    g_shared = Shared{};
  }
  void TearDown() override {
    MpiTest::TearDown();
    if (HasFailure()) drop_shared();  // the same on every process: MpiTest shares the verdicts
  }

  const Case &c = GetParam();
  const Type &t = types()[c.type];
  Shape shape;
  Rng rng;                       // the case's: the same sequence on every process
  Bytes model;                   // by storage position

  unsigned char *at(Index p) { return model.data() + p * t.size; }
  Bytes random_value(MPI_Op op) {
    Bytes v(t.size);
    t.random(rng, op, v.data());
    return v;
  }
  // `accumulate`: by GDS_acc/GDS_get_acc (false: GDS_put's MPI_REPLACE).
  [[nodiscard]] bool refused(MPI_Op op, bool accumulate = true) const {
    int bytes = 0;
    MPI_Type_size(t.mpi, &bytes);
    const bool gap = static_cast<std::size_t>(bytes) != t.size;
    return (g_unsigned_refused && t.is_unsigned && (op == MPI_MAX || op == MPI_MIN)) ||
           (g_logical_refused && (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)) ||
           (g_gap_pairs_refused && gap && accumulate) ||
           (g_open_mpi_4 && (t.mpi == MPI_REAL16 || t.mpi == MPI_COMPLEX32) &&
            (op == MPI_SUM || op == MPI_PROD || op == MPI_MAX || op == MPI_MIN)) ||
           (g_open_mpi_4 && t.mpi == MPI_OFFSET && (op == MPI_MAX || op == MPI_MIN)) ||
           (g_mpich && t.mpi == MPI_COMPLEX32 && (op == MPI_SUM || op == MPI_PROD));
  }

  // Makes or reuses the array and gives it the model's content, `init_op(p)`
  // choosing the kind of value position p starts with.
  template <class F>
  void start(F &&init_op) {
    model.assign(shape.size() * t.size, 0);
    for (Index p = 0; p < shape.size(); ++p) t.random(rng, init_op(p), at(p));
    if (g_shared.live && g_shared.id.same_array(c)) {
      fill_by_puts();
      return;
    }
    drop_shared();
    MPI_Aint lb = 0, extent = 0;
    MPI_Type_get_extent(t.mpi, &lb, &extent);
    ASSERT_ALL(static_cast<std::size_t>(extent) == t.size);  // the model's element is MPI's
    g_shared.id = c;
    OrderInfo info(c.row);
    if (c.create) {
      Rng layout(g_seed ^ (0x9e3779b97f4a7c15ULL * (c.turn() + 28 * c.type + 1)));
      g_shared.mapping = Mapping(layout, shape, nprocs);
      g_mapping = &g_shared.mapping;
      const std::vector<Index> &mine = g_shared.mapping.positions[static_cast<std::size_t>(rank)];
      g_shared.local.assign(mine.size() * t.size, 0);
      for (Index k = 0; k < mine.size(); ++k) std::memcpy(&g_shared.local[k * t.size], at(mine[k]), t.size);
      ASSERT_ALL_GDS_OK(GDS_create(shape.ndims(), shape.count.data(), t.mpi, grid_g2l, grid_l2g,
                                   mine.empty() ? nullptr : g_shared.local.data(), mine.size(), GDS_PRIORITY_HIGH,
                                   GDS_COMM_WORLD, info.get(), &g_shared.g));
      g_shared.live = true;  // the buffers held the content: ready on return
      return;
    }
    ASSERT_ALL_GDS_OK(GDS_alloc(shape.ndims(), shape.count.data(), nullptr, t.mpi, GDS_PRIORITY_HIGH, GDS_COMM_WORLD,
                                info.get(), &g_shared.g));
    g_shared.live = true;
    fill_by_puts();
  }

  // Each process puts a slab of the model (some of them none), then a fence.
  void fill_by_puts() {
    const std::size_t d = c.row ? 0 : shape.ndims() - 1;  // the slowest dimension: dense slabs
    const Index n = shape.count[d], first = n * rank / nprocs, last = n * (rank + 1) / nprocs;
    if (first < last) {
      std::vector<Index> lo = lowest(), hi = highest();
      lo[d] = first;
      hi[d] = last - 1;
      const Box b = Box::dense(lo, hi, c.row);
      Bytes src(b.elements() * t.size);
      b.for_each([&](const Index *idx, Index off) { std::memcpy(&src[off * t.size], at(shape.pos(idx)), t.size); });
      EXPECT_GDS_OK(GDS_put(src.data(), nullptr, b.lo.data(), b.hi.data(), g_shared.g));
      EXPECT_GDS_OK(GDS_wait(g_shared.g));
    }
    EXPECT_GDS_OK(GDS_fence(g_shared.g));
  }

  // Checks a buffer a get or get_acc filled: the box against `expect`, the
  // padding and one element past the end still `fill`.
  void check_buffer(const char *what, const Box &b, const Bytes &buf, const Bytes &expect, const Bytes &fill) {
    int wrong = 0;
    std::vector<bool> inside(b.elements() + 1, false);
    b.for_each([&](const Index *idx, Index off) {
      inside[off] = true;
      const unsigned char *want = &expect[shape.pos(idx) * t.size];
      if (!t.equal(&buf[off * t.size], want) && wrong++ < 3)
        ADD_FAILURE() << what << ": element " << index_string(idx) << " is " << t.show(&buf[off * t.size])
                      << ", expected " << t.show(want);
    });
    for (Index i = 0; i < inside.size(); ++i)
      if (!inside[i] && !t.equal(&buf[i * t.size], fill.data()) && wrong++ < 3)
        ADD_FAILURE() << what << ": " << (i + 1 == inside.size() ? "written past the buffer" : "padding written")
                      << " at element " << i;
  }

  // After a fence: the whole array as every process reads it, and a
  // GDS_create process's own buffer, against the model.
  void check_array(const char *when) {
    const Box whole = Box::dense(lowest(), highest(), c.row);
    const Bytes fill = random_value(MPI_REPLACE);
    Bytes all = filled(shape.size() + 1, fill);
    EXPECT_GDS_OK(GDS_get(all.data(), nullptr, whole.lo.data(), whole.hi.data(), g_shared.g));
    EXPECT_GDS_OK(GDS_wait(g_shared.g));
    check_buffer((std::string("the array ") + when).c_str(), whole, all, model, fill);
    if (!c.create) return;
    const std::vector<Index> &mine = g_shared.mapping.positions[static_cast<std::size_t>(rank)];
    int wrong = 0;
    for (Index k = 0; k < mine.size(); ++k)
      if (!t.equal(&g_shared.local[k * t.size], at(mine[k])) && wrong++ < 3)
        ADD_FAILURE() << "own buffer " << when << ": offset " << k << " is " << t.show(&g_shared.local[k * t.size])
                      << ", expected " << t.show(at(mine[k]));
  }

  std::string index_string(const Index *idx) const {
    std::string s = "(";
    for (std::size_t d = 0; d < shape.ndims(); ++d) s += (d ? "," : "") + std::to_string(idx[d]);
    return s + ")";
  }

  // A call of one process: its box and op, the layout of its result buffer
  // (a padding of its own) and its buffers.
  struct Call {
    int rank;
    MPI_Op op;
    Box box, result_box;
    Bytes origin, result;
  };
  void overwrite(Bytes &b, const Bytes &fill) const {
    for (std::size_t i = 0; i < b.size(); i += t.size) std::memcpy(&b[i], fill.data(), t.size);
  }
  Bytes filled(Index elements, const Bytes &fill) const {
    Bytes b(elements * t.size);
    overwrite(b, fill);
    return b;
  }
  // Origin values for `call` (`fill` in the padding).
  void make_origin(Call &call, const Bytes &fill) {
    call.origin = filled(call.box.elements(), fill);
    call.box.for_each([&](const Index *, Index off) { t.random(rng, call.op, &call.origin[off * t.size]); });
  }
  void apply(const Call &call, bool accumulate = true) {
    if (refused(call.op, accumulate)) return;
    call.box.for_each(
        [&](const Index *idx, Index off) { t.combine(call.op, at(shape.pos(idx)), &call.origin[off * t.size]); });
  }
  void expect_status(GDS_status_t s, const Call &call, const char *func) {
    if (refused(call.op)) {
      EXPECT_EQ(s, GDS_STATUS_MPI_BUG) << func << " with MPI_" << op_name(call.op);
    } else {
      EXPECT_EQ(s, GDS_STATUS_OK) << func << " with MPI_" << op_name(call.op) << ": " << GDS_last_error_message();
    }
  }

  std::vector<Index> lowest() const { return std::vector<Index>(shape.ndims(), 0); }
  std::vector<Index> highest() const {
    std::vector<Index> l(shape.count);
    for (Index &x : l) --x;
    return l;
  }

  // put: each process 1-2 boxes, disjoint from everyone's.
  void run_put() {
    start([](Index) { return MPI_REPLACE; });
    if (HasFatalFailure()) return;
    const Bytes fill = random_value(MPI_REPLACE);
    std::vector<Box> taken;
    std::vector<Call> calls;
    for (int r = 0; r < nprocs; ++r)
      for (int k = 0, n = 1 + static_cast<int>(rng() % 2); k < n; ++k) {
        Call call{r, MPI_REPLACE, {}, {}, {}, {}};
        if (!disjoint_box(rng, shape, lowest(), highest(), taken, call.box)) continue;
        make_origin(call, fill);
        apply(call, false);
        calls.push_back(std::move(call));
      }
    for (Call &call : calls)
      if (call.rank == rank)
        EXPECT_GDS_OK(GDS_put(call.origin.data(), call.box.ld.data(), call.box.lo.data(), call.box.hi.data(),
                              g_shared.g));
    EXPECT_GDS_OK(GDS_wait(g_shared.g));
    for (Call &call : calls)  // the buffers are free once GDS_wait returns
      if (call.rank == rank) overwrite(call.origin, fill);
    EXPECT_GDS_OK(GDS_fence(g_shared.g));
    check_array("after the puts' fence");
  }

  // get: each process 1-3 boxes, overlapping, read before one GDS_wait.
  void run_get() {
    start([](Index) { return MPI_REPLACE; });
    if (HasFatalFailure()) return;
    const Bytes fill = random_value(MPI_REPLACE);
    std::vector<Call> mine;
    for (int r = 0; r < nprocs; ++r)
      for (int k = 0, n = 1 + static_cast<int>(rng() % 3); k < n; ++k) {
        Box box = random_box(rng, shape, lowest(), highest());
        if (r == rank) mine.push_back(Call{r, MPI_NO_OP, box, box, {}, filled(box.elements() + 1, fill)});
      }
    for (Call &call : mine)
      EXPECT_GDS_OK(GDS_get(call.result.data(), call.box.ld.data(), call.box.lo.data(), call.box.hi.data(),
                            g_shared.g));
    EXPECT_GDS_OK(GDS_wait(g_shared.g));
    for (const Call &call : mine) check_buffer("get after GDS_wait", call.box, call.result, model, fill);
  }

  // acc: the array cut in two along one dimension. In the first part every
  // process accumulates one box with MPI_SUM (or the type's first op;
  // disjoint boxes if that is MPI_REPLACE); in the second each process one
  // box, disjoint from the others', with an op of its own in turn.
  void run_acc() {
    const std::size_t d = rng() % shape.ndims();
    const Index cut = 1 + rng() % (shape.count[d] - 1);
    const MPI_Op common = t.ops.front();
    std::vector<MPI_Op> others;
    for (MPI_Op op : t.ops)
      if (op != common) others.push_back(op);
    others.push_back(MPI_NO_OP);
    std::vector<Index> a_highest = highest(), b_lowest = lowest();
    a_highest[d] = cut - 1;
    b_lowest[d] = cut;
    std::vector<Box> taken_a, taken_b;
    std::vector<Call> calls;
    for (int r = 0; r < nprocs; ++r) {
      Call a{r, common, {}, {}, {}, {}};
      Call b{r, others[(c.turn() + static_cast<std::size_t>(r)) % others.size()], {}, {}, {}, {}};
      bool has_a = true;
      if (common == MPI_REPLACE) has_a = disjoint_box(rng, shape, lowest(), a_highest, taken_a, a.box);
      else a.box = random_box(rng, shape, lowest(), a_highest);
      const bool has_b = disjoint_box(rng, shape, b_lowest, highest(), taken_b, b.box);
      const bool b_first = rng() % 2 == 0;
      if (has_b && b_first) calls.push_back(b);
      if (has_a) calls.push_back(a);
      if (has_b && !b_first) calls.push_back(b);
    }
    // Each position starts with a value for the op that reaches it.
    std::vector<MPI_Op> first_op(shape.size(), MPI_REPLACE);
    std::vector<Index> idx(shape.ndims());
    for (Index p = 0; p < shape.size(); ++p) {
      shape.index(p, idx.data());
      if (idx[d] < cut) first_op[p] = common;
    }
    for (const Call &call : calls)
      if (call.op != common) call.box.for_each([&](const Index *i, Index) { first_op[shape.pos(i)] = call.op; });
    start([&](Index p) { return first_op[p]; });
    if (HasFatalFailure()) return;
    const Bytes fill = random_value(MPI_REPLACE);
    for (Call &call : calls) {
      make_origin(call, fill);
      apply(call);
    }
    for (Call &call : calls)
      if (call.rank == rank)
        expect_status(GDS_acc(call.origin.data(), call.box.ld.data(), call.box.lo.data(), call.box.hi.data(),
                              call.op, g_shared.g),
                      call, "GDS_acc");
    EXPECT_GDS_OK(GDS_wait(g_shared.g));
    for (Call &call : calls)
      if (call.rank == rank) overwrite(call.origin, fill);
    EXPECT_GDS_OK(GDS_fence(g_shared.g));
    check_array("after the accumulates' fence");
  }

  // get_acc: each process 1-2 boxes, disjoint from everyone's, each with an
  // op in turn (MPI_NO_OP without operands); what each fetches is the
  // model's content before them.
  void run_get_acc() {
    std::vector<MPI_Op> ops = t.ops;
    ops.push_back(MPI_NO_OP);
    std::vector<Box> taken;
    std::vector<Call> calls;
    std::size_t turn = c.turn();
    for (int r = 0; r < nprocs; ++r)
      for (int k = 0, n = 1 + static_cast<int>(rng() % 2); k < n; ++k) {
        Call call{r, ops[turn++ % ops.size()], {}, {}, {}, {}};
        if (!disjoint_box(rng, shape, lowest(), highest(), taken, call.box)) continue;
        call.result_box = call.box.repadded(rng);
        calls.push_back(std::move(call));
      }
    std::vector<MPI_Op> first_op(shape.size(), MPI_REPLACE);
    for (const Call &call : calls) call.box.for_each([&](const Index *i, Index) { first_op[shape.pos(i)] = call.op; });
    start([&](Index p) { return first_op[p]; });
    if (HasFatalFailure()) return;
    const Bytes fill = random_value(MPI_REPLACE), before = model;
    for (Call &call : calls) {
      make_origin(call, fill);
      apply(call);
      call.result = filled(call.result_box.elements() + 1, fill);
    }
    for (Call &call : calls)
      if (call.rank == rank) {
        const bool no_op = call.op == MPI_NO_OP;
        expect_status(GDS_get_acc(no_op ? nullptr : call.origin.data(), no_op ? nullptr : call.box.ld.data(),
                                  call.result.data(), call.result_box.ld.data(), call.box.lo.data(),
                                  call.box.hi.data(), call.op, g_shared.g),
                      call, "GDS_get_acc");
      }
    EXPECT_GDS_OK(GDS_wait(g_shared.g));
    for (const Call &call : calls)
      if (call.rank == rank && !refused(call.op)) {
        const std::string what = std::string("get_acc(MPI_") + op_name(call.op) + ") fetched after GDS_wait";
        check_buffer(what.c_str(), call.result_box, call.result, before, fill);
      }
    EXPECT_GDS_OK(GDS_fence(g_shared.g));
    check_array("after the get_accs' fence");
  }
};

}  // namespace

TEST_P(Grid, MatchesTheModel) {
  Rng shape_rng(g_seed ^ (0xd1b54a32d192ed03ULL * (c.turn() + 28 * c.type + 1)));
  shape = random_shape(shape_rng, c.ndims, c.row);
  rng.seed(g_seed ^ (0x9fb21c651e98df25ULL * ((c.turn() + 28 * c.type) * 4 + static_cast<std::size_t>(c.op) + 1)));
  switch (c.op) {
    case Operation::put: run_put(); break;
    case Operation::get: run_get(); break;
    case Operation::acc: run_acc(); break;
    case Operation::get_acc: run_get_acc(); break;
  }
  if (HasFatalFailure()) return;
  EXPECT_GDS_OK(GDS_fence(g_shared.g));  // nobody writes (the next case) until every process has looked
}

INSTANTIATE_TEST_SUITE_P(Cases, Grid, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case> &i) { return case_name(i.param); });
