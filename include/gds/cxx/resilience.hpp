/// \file resilience.hpp
/// \brief Open Resilience in C++: error descriptors, predicates, and handlers
///        and checks that are any callable, capturing lambdas included.
///
/// Values are converted by the key's type (GDS_get_error_attr_key_info):
/// an integer set on an INT key is stored as int64_t, on a FLOAT key as
/// double, on a BYTE key as one byte; strings and byte spans go to
/// BYTE_ARRAY keys, ranges of numbers to INT_ARRAY/FLOAT_ARRAY keys, MPI
/// handles to MPIOBJ keys. A value that does not fit its key throws
/// gds::error(GDS_STATUS_INVALID_ATTR_VALUE).
#ifndef GDS_CXX_RESILIENCE_HPP
#define GDS_CXX_RESILIENCE_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <ranges>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "../gds.h"
#include "error.hpp"

namespace gds {

/// An error attribute key (GDS_EATTR_* or from define_error_key()).
using error_key = GDS_error_attr_key_t;

/// Defines (or finds) an error attribute key. Collective over GDS_COMM_WORLD.
inline error_key define_error_key(std::string_view name, GDS_error_attr_value_type_t type) {
  error_key k = 0;
  detail::check(GDS_define_error_attr_key(name.data(), name.size(), type, &k));
  return k;
}

namespace detail {

inline GDS_error_attr_value_type_t key_type(error_key k) {
  GDS_error_attr_value_type_t t{};
  check(GDS_get_error_attr_key_info(k, &t, nullptr));
  return t;
}

template <class T>
struct is_vector : std::false_type {};
template <class E, class A>
struct is_vector<std::vector<E, A>> : std::true_type {};

[[noreturn]] inline void bad_value(error_key k, const char *why) {
  raise(GDS_STATUS_INVALID_ATTR_VALUE, "gds: error attribute key " + std::to_string(k) + ": " + why);
}

template <class T>
void append(std::vector<std::byte> &out, const T &v) {
  const auto *p = reinterpret_cast<const std::byte *>(&v);
  out.insert(out.end(), p, p + sizeof v);
}

template <class T>
void append_number(std::vector<std::byte> &out, GDS_error_attr_value_type_t t, error_key k, T v) {
  switch (t) {
    case GDS_EAVTYPE_INT:
    case GDS_EAVTYPE_INT_ARRAY: append(out, static_cast<std::int64_t>(v)); return;
    case GDS_EAVTYPE_FLOAT:
    case GDS_EAVTYPE_FLOAT_ARRAY: append(out, static_cast<double>(v)); return;
    case GDS_EAVTYPE_BYTE:
    case GDS_EAVTYPE_BYTE_ARRAY: append(out, static_cast<std::uint8_t>(v)); return;
    default: bad_value(k, "a number for a key of MPI handles");
  }
}

/// The bytes of `v` as a value of key `k`'s type.
template <class T>
std::vector<std::byte> encode(error_key k, const T &v) {
  const GDS_error_attr_value_type_t t = key_type(k);
  std::vector<std::byte> out;
  const bool array = t == GDS_EAVTYPE_BYTE_ARRAY || t == GDS_EAVTYPE_INT_ARRAY || t == GDS_EAVTYPE_FLOAT_ARRAY ||
                     t == GDS_EAVTYPE_MPIOBJ_ARRAY;
  if constexpr (std::is_convertible_v<const T &, std::string_view>) {
    if (t != GDS_EAVTYPE_BYTE_ARRAY) bad_value(k, "text needs a BYTE_ARRAY key");
    const std::string_view s(v);
    const auto *p = reinterpret_cast<const std::byte *>(s.data());
    out.assign(p, p + s.size());
  } else if constexpr (std::ranges::contiguous_range<T>) {
    using E = std::remove_cvref_t<std::ranges::range_value_t<T>>;
    if (!array) bad_value(k, "a range of values for a key of single values");
    for (const E &e : v) {
      if constexpr (std::is_arithmetic_v<E>) {
        if (t == GDS_EAVTYPE_MPIOBJ_ARRAY) append(out, e);
        else append_number(out, t, k, e);
      } else if constexpr (std::is_same_v<E, std::byte>) {
        append(out, e);
      } else {
        static_assert(std::is_trivially_copyable_v<E>, "error attribute values are numbers, bytes or MPI handles");
        append(out, e);
      }
    }
  } else if constexpr (std::is_arithmetic_v<T>) {
    if (array) bad_value(k, "a single value for a key of arrays");
    if (t == GDS_EAVTYPE_MPIOBJ) append(out, v);  // MPICH's MPI handles are ints
    else append_number(out, t, k, v);
  } else {
    static_assert(std::is_trivially_copyable_v<T>, "error attribute values are numbers, bytes or MPI handles");
    append(out, v);
  }
  return out;
}

}  // namespace detail

/// A read-only view of an error descriptor.
class error_view {
 public:
  /// A view of the descriptor `e`, which stays the caller's.
  explicit error_view(GDS_error_t e) noexcept : h_(e) {}

  /// Whether the descriptor has attribute `k`.
  [[nodiscard]] bool has(error_key k) const {
    GDS_size_t len = 0;
    int flag = 0;
    detail::check(GDS_get_error_attr_len(h_, k, &len, &flag));
    return flag != 0;
  }
  /// The raw value bytes, if present.
  [[nodiscard]] std::optional<std::vector<std::byte>> bytes(error_key k) const {
    GDS_size_t len = 0;
    int flag = 0;
    detail::check(GDS_get_error_attr_len(h_, k, &len, &flag));
    if (!flag) return std::nullopt;
    std::vector<std::byte> v(len);
    detail::check(GDS_get_error_attr(h_, k, v.data(), &flag));
    return v;
  }
  /// The value as T: a trivially copyable scalar of the value's size
  /// (std::int64_t for INT, double for FLOAT, an MPI handle for MPIOBJ), or
  /// std::string / std::vector<E> for arrays.
  template <class T>
  [[nodiscard]] std::optional<T> get(error_key k) const {
    auto b = bytes(k);
    if (!b) return std::nullopt;
    if constexpr (std::is_same_v<T, std::string>) {
      return std::string(reinterpret_cast<const char *>(b->data()), b->size());
    } else if constexpr (detail::is_vector<T>::value) {
      using E = typename T::value_type;
      if (b->size() % sizeof(E) != 0) detail::bad_value(k, "value size is not a multiple of the element's");
      T v(b->size() / sizeof(E));
      if (!v.empty()) std::memcpy(v.data(), b->data(), b->size());
      return v;
    } else {
      static_assert(std::is_trivially_copyable_v<T>);
      if (b->size() != sizeof(T)) detail::bad_value(k, "value size differs from the type's");
      T v;
      std::memcpy(&v, b->data(), sizeof v);
      return v;
    }
  }
  /// The C handle of the descriptor.
  [[nodiscard]] GDS_error_t native_handle() const noexcept { return h_; }

 protected:
  /// The descriptor viewed.
  GDS_error_t h_;
};

/// An error descriptor the program fills and raises; owned until raised.
class error_descriptor {
 public:
  error_descriptor() { detail::check(GDS_create_error_descriptor(&h_)); }
  error_descriptor(const error_descriptor &) = delete;
  error_descriptor &operator=(const error_descriptor &) = delete;
  /// Takes over `o`'s descriptor; `o` becomes empty.
  error_descriptor(error_descriptor &&o) noexcept : h_(std::exchange(o.h_, GDS_ERROR_NULL)) {}
  error_descriptor &operator=(error_descriptor &&o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, GDS_ERROR_NULL);
    }
    return *this;
  }
  ~error_descriptor() { reset(); }

  /// Sets key k to v, converted to the key's type (see the file comment).
  /// On a temporary it returns the temporary, so a raise reads
  /// `gds::raise_local(a, gds::error_descriptor().set(k, v))`.
  template <class T>
  error_descriptor &set(error_key k, const T &v) & {
    const std::vector<std::byte> b = detail::encode(k, v);
    detail::check(GDS_add_error_attr(h_, k, b.size(), b.data()));
    return *this;
  }
  template <class T>
  /// Sets attribute `k` to `v` on a temporary descriptor (for building one in an expression).
  error_descriptor &&set(error_key k, const T &v) && {
    return std::move(set(k, v));
  }
  /// A read-only view of the descriptor.
  [[nodiscard]] error_view view() const noexcept { return error_view(h_); }
  /// The C handle of the descriptor.
  [[nodiscard]] GDS_error_t native_handle() const noexcept { return h_; }
  /// Gives the descriptor up (to GDS_raise_*).
  [[nodiscard]] GDS_error_t release() noexcept { return std::exchange(h_, GDS_ERROR_NULL); }

 private:
  void reset() noexcept {
    if (h_ != GDS_ERROR_NULL) static_cast<void>(GDS_free_error_descriptor(&h_));
  }
  GDS_error_t h_ = GDS_ERROR_NULL;
};

/// A matching predicate, built term by term:
/// `gds::predicate().any(k1).value(k2, 3).range(k3, 0.0, 1.0).absent(k4)`.
class predicate {
 public:
  predicate() { detail::check(GDS_create_error_pred(&h_)); }
  predicate(const predicate &) = delete;
  predicate &operator=(const predicate &) = delete;
  /// Takes over `o`'s predicate; `o` becomes empty.
  predicate(predicate &&o) noexcept : h_(std::exchange(o.h_, GDS_ERROR_PRED_NULL)) {}
  predicate &operator=(predicate &&o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, GDS_ERROR_PRED_NULL);
    }
    return *this;
  }
  ~predicate() { reset(); }

  /// Adds the term "key `k` is present, any value" (GDS_EMEXP_ANY).
  predicate &any(error_key k) & { return term(k, GDS_EMEXP_ANY, {}); }
  /// Adds the term "key `k` is absent" (GDS_EMEXP_NOT).
  predicate &absent(error_key k) & { return term(k, GDS_EMEXP_NOT, {}); }
  template <class T>
  /// Adds the term "key `k` has the value `v`" (GDS_EMEXP_VALUE).
  predicate &value(error_key k, const T &v) & {
    return term(k, GDS_EMEXP_VALUE, detail::encode(k, v));
  }
  template <class T>
  /// Adds the term "`lo` <= key `k`'s value <= `hi`" (GDS_EMEXP_RANGE).
  predicate &range(error_key k, const T &lo, const T &hi) & {
    std::vector<std::byte> b = detail::encode(k, lo), h = detail::encode(k, hi);
    b.insert(b.end(), h.begin(), h.end());
    return term(k, GDS_EMEXP_RANGE, b);
  }
  /// any() on a temporary predicate.
  predicate &&any(error_key k) && { return std::move(any(k)); }
  /// absent() on a temporary predicate.
  predicate &&absent(error_key k) && { return std::move(absent(k)); }
  template <class T>
  /// value() on a temporary predicate.
  predicate &&value(error_key k, const T &v) && {
    return std::move(value(k, v));
  }
  template <class T>
  /// range() on a temporary predicate.
  predicate &&range(error_key k, const T &lo, const T &hi) && {
    return std::move(range(k, lo, hi));
  }

  /// The C handle of the predicate.
  [[nodiscard]] GDS_error_pred_t native_handle() const noexcept { return h_; }

 private:
  predicate &term(error_key k, GDS_error_match_expr_t e, const std::vector<std::byte> &values) {
    GDS_error_pred_term_t t = GDS_ERROR_PRED_TERM_NULL;
    detail::check(GDS_create_error_pred_term(k, e, values.size(), values.data(), &t));
    const GDS_status_t s = GDS_add_error_pred_term(h_, t);
    static_cast<void>(GDS_free_error_pred_term(&t));
    detail::check(s);
    return *this;
  }
  void reset() noexcept {
    if (h_ != GDS_ERROR_PRED_NULL) static_cast<void>(GDS_free_error_pred(&h_));
  }
  GDS_error_pred_t h_ = GDS_ERROR_PRED_NULL;
};

/// What a handler gets: the error, the handle it concerns, and resume().
class raised_error : public error_view {
 public:
  /// The error `e` delivered on array `gds`, local or global.
  raised_error(GDS_gds_t gds, GDS_error_t e, bool global) noexcept : error_view(e), gds_(gds), global_(global) {}
  /// The array's primary handle, or GDS_ROOT.
  [[nodiscard]] GDS_gds_t handle() const noexcept { return gds_; }
  /// Whether the error is global.
  [[nodiscard]] bool global() const noexcept { return global_; }
  /// Ends the recovery (GDS_resume_local or GDS_resume_global); frees the descriptor.
  void resume() { detail::check(global_ ? GDS_resume_global(gds_, h_) : GDS_resume_local(gds_, h_)); }

 private:
  GDS_gds_t gds_;
  bool global_;
};

namespace detail {

// A gds::error thrown by a handler or check becomes its status; anything else a failure.
template <class F, class... Args>
GDS_status_t invoke_status(F &f, Args &&...args) noexcept {
  try {
    if constexpr (std::is_void_v<std::invoke_result_t<F &, Args...>>) {
      f(std::forward<Args>(args)...);
      return GDS_STATUS_OK;
    } else {
      return static_cast<GDS_status_t>(f(std::forward<Args>(args)...));
    }
  } catch (const gds::error &e) {
    return e.status();
  } catch (...) {
    return GDS_STATUS_RECOVERY_FAILED;
  }
}

template <class F>
void destroy(void *p) {
  delete static_cast<F *>(p);
}

template <class F, bool Global>
GDS_status_t handler_trampoline(GDS_gds_t gds, GDS_error_t e, void *context) {
  raised_error ev(gds, e, Global);
  return invoke_status(*static_cast<F *>(context), ev);
}

template <class F>
GDS_status_t check_trampoline(GDS_gds_t gds, GDS_priority_t p, void *context) {
  return invoke_status(*static_cast<F *>(context), gds, p);
}

}  // namespace detail

/// Registers f(gds::raised_error&) -> void or GDS_status_t for local errors
/// on `where` (an array's handle or GDS_ROOT) that `p` fits. Local.
template <class F>
void on_local_error(GDS_gds_t where, const predicate &p, F &&f) {
  using Fn = std::decay_t<F>;
  detail::check(GDS_register_local_error_handler_with_context(where, p.native_handle(),
                                                              &detail::handler_trampoline<Fn, false>,
                                                              new Fn(std::forward<F>(f)), &detail::destroy<Fn>));
}
/// As on_local_error, for global errors. Collective.
template <class F>
void on_global_error(GDS_gds_t where, const predicate &p, F &&f) {
  using Fn = std::decay_t<F>;
  detail::check(GDS_register_global_error_handler_with_context(where, p.native_handle(),
                                                               &detail::handler_trampoline<Fn, true>,
                                                               new Fn(std::forward<F>(f)), &detail::destroy<Fn>));
}
/// Registers f(GDS_gds_t, GDS_priority_t) -> void or GDS_status_t as a local check. Local.
template <class F>
void add_local_check(GDS_gds_t where, F &&f, GDS_priority_t priority = GDS_PRIORITY_HIGH) {
  using Fn = std::decay_t<F>;
  detail::check(GDS_register_local_error_check_with_context(where, &detail::check_trampoline<Fn>, priority,
                                                            new Fn(std::forward<F>(f)), &detail::destroy<Fn>));
}
/// As add_local_check, a global check. Collective.
template <class F>
void add_global_check(GDS_gds_t where, F &&f, GDS_priority_t priority = GDS_PRIORITY_HIGH) {
  using Fn = std::decay_t<F>;
  detail::check(GDS_register_global_error_check_with_context(where, &detail::check_trampoline<Fn>, priority,
                                                             new Fn(std::forward<F>(f)), &detail::destroy<Fn>));
}

/// Raises a local error on `where` (an array or GDS_ROOT), taking the descriptor over.
inline void raise_local(GDS_gds_t where, error_descriptor &&e) {
  detail::check(GDS_raise_local_error(where, e.native_handle()));
  static_cast<void>(e.release());
}
/// Raises a global error on `where` (an array or GDS_ROOT), taking the descriptor over.
inline void raise_global(GDS_gds_t where, error_descriptor &&e) {
  detail::check(GDS_raise_global_error(where, e.native_handle()));
  static_cast<void>(e.release());
}
/// Runs every check and delivers what they find (collective).
inline void check_all_errors(GDS_gds_t where) { detail::check(GDS_check_all_errors(where)); }
/// Whether the local checks find an error in the version `where` points at (nothing is queued).
[[nodiscard]] inline bool local_error_found(GDS_gds_t where) {
  const GDS_status_t s = GDS_check_local_error(where);
  if (s == GDS_STATUS_ERROR_FOUND) return true;
  detail::check(s);
  return false;
}
/// As local_error_found, with the global checks (collective).
[[nodiscard]] inline bool global_error_found(GDS_gds_t where) {
  const GDS_status_t s = GDS_check_global_error(where);
  if (s == GDS_STATUS_ERROR_FOUND) return true;
  detail::check(s);
  return false;
}
/// Delivers this process's pending local errors on `where` now.
inline void invoke_local_error_handler(GDS_gds_t where) { detail::check(GDS_invoke_local_error_handler(where)); }
/// A stable point on `where`: delivers the global errors (collective).
inline void invoke_global_error_handler(GDS_gds_t where) { detail::check(GDS_invoke_global_error_handler(where)); }

}  // namespace gds

#endif  // GDS_CXX_RESILIENCE_HPP
