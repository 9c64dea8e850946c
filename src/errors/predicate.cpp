#include "errors/predicate.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/array.hpp"
#include "core/check.hpp"
#include "core/memory.hpp"
#include "core/collective.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"
#include "errors/keys.hpp"

using namespace gds::core;

namespace gds::errors {

core::HandleTable<Predicate> g_predicates{HandleKind::error_pred};
core::HandleTable<Term> g_terms{HandleKind::error_term};

std::vector<std::byte> canonical(GDS_error_attr_value_type_t type, const void *value, std::size_t len) {
  const auto *p = static_cast<const std::byte *>(value);
  std::vector<std::byte> out(p, p + len);
  if (is_float(type))
    for (std::size_t i = 0; i + sizeof(double) <= len; i += sizeof(double)) {
      double x;
      std::memcpy(&x, out.data() + i, sizeof x);
      if (x == 0.0) x = 0.0;
      std::memcpy(out.data() + i, &x, sizeof x);
    }
  return out;
}

namespace {

// Element i of a value of type t, as a comparable number.
template <class T>
T element(const std::vector<std::byte> &v, std::size_t offset) {
  T x;
  std::memcpy(&x, v.data() + offset, sizeof x);
  return x;
}

// lo <= v <= hi element-wise; the three have the same length.
bool within(GDS_error_attr_value_type_t type, const std::vector<std::byte> &v, const std::vector<std::byte> &bounds) {
  const std::size_t n = bounds.size() / 2, e = element_size(type);
  if (v.size() != n) return false;
  for (std::size_t i = 0; i < n; i += e) {
    bool ok;
    if (is_float(type)) {
      const double x = element<double>(v, i), lo = element<double>(bounds, i), hi = element<double>(bounds, n + i);
      ok = lo <= x && x <= hi;  // NaN is in no range
    } else if (e == sizeof(std::int64_t)) {
      const auto x = element<std::int64_t>(v, i), lo = element<std::int64_t>(bounds, i),
                 hi = element<std::int64_t>(bounds, n + i);
      ok = lo <= x && x <= hi;
    } else {
      const auto x = element<std::uint8_t>(v, i), lo = element<std::uint8_t>(bounds, i),
                 hi = element<std::uint8_t>(bounds, n + i);
      ok = lo <= x && x <= hi;
    }
    if (!ok) return false;
  }
  return true;
}

bool equal(GDS_error_attr_value_type_t type, const std::vector<std::byte> &v, const std::vector<std::byte> &want) {
  if (v.size() != want.size()) return false;
  if (!is_float(type)) return v == want;
  for (std::size_t i = 0; i < v.size(); i += sizeof(double))
    if (element<double>(v, i) != element<double>(want, i)) return false;  // -0 == 0, NaN != NaN
  return true;
}

}  // namespace

bool Term::holds(const Descriptor &d) const {
  const Attribute *a = d.find(key);
  switch (expr) {
    case GDS_EMEXP_ANY: return a != nullptr;
    case GDS_EMEXP_NOT: return a == nullptr;
    case GDS_EMEXP_VALUE: return a != nullptr && equal(find_key(key)->type, a->value, values);
    case GDS_EMEXP_RANGE: return a != nullptr && within(find_key(key)->type, a->value, values);
  }
  return false;
}

void Predicate::add(const Term &t) {
  const auto less = [](const Term &a, const Term &b) {
    return std::tie(a.key, a.expr, a.values) < std::tie(b.key, b.expr, b.values);
  };
  terms.insert(std::upper_bound(terms.begin(), terms.end(), t, less), t);
}

bool Predicate::holds(const Descriptor &d) const {
  return std::all_of(terms.begin(), terms.end(), [&](const Term &t) { return t.holds(d); });
}

Rank Predicate::rank() const {
  Rank r;
  r.terms = terms.size();
  for (const Term &t : terms) {
    r.value_terms += t.expr == GDS_EMEXP_VALUE;
    r.range_terms += t.expr == GDS_EMEXP_RANGE;
  }
  return r;
}

std::uint64_t Predicate::signature() const {
  Signature s;
  for (const Term &t : terms) s.add(t.key).add(t.expr).add(t.values.size()).add(t.values.data(), t.values.size());
  return s.value();
}

namespace {

template <class T, class H>
GDS_status_t find_in(const char *func, const core::HandleTable<T> &table, H h, T **out, const char *argname) {
  const GDS_status_t s = table.find(handle_value(h), out);
  if (s == GDS_STATUS_OK) [[likely]] return s;
  return fail(s, func, "%s %s", argname, handle_problem(s));
}

}  // namespace

GDS_status_t find_predicate(const char *func, GDS_error_pred_t h, Predicate **out, const char *argname) {
  return find_in(func, g_predicates, h, out, argname);
}

GDS_status_t find_term(const char *func, GDS_error_pred_term_t h, Term **out, const char *argname) {
  return find_in(func, g_terms, h, out, argname);
}

}  // namespace gds::errors

using namespace gds::errors;

namespace {

const char *expr_name(GDS_error_match_expr_t e) {
  switch (e) {
    case GDS_EMEXP_ANY: return "ANY";
    case GDS_EMEXP_VALUE: return "VALUE";
    case GDS_EMEXP_RANGE: return "RANGE";
    case GDS_EMEXP_NOT: return "NOT";
  }
  return "?";
}

// Checks the values of a VALUE or RANGE term.
GDS_status_t check_term_values(const char *func, GDS_error_attr_key_t key, const KeyInfo &info,
                               GDS_error_match_expr_t expr, GDS_size_t len, const void *values) {
  GDS_CHECK(values != nullptr || len == 0, GDS_STATUS_NULL_ARGUMENT, "values is NULL (value_len=%llu)",
            static_cast<unsigned long long>(len));
  GDS_CHECK(len == 0 || gds::core::fits_address_space(values, len), GDS_STATUS_INVALID_ATTR_VALUE,
            "value_len=%llu bytes from values would run past the end of the address space",
            static_cast<unsigned long long>(len));
  const std::size_t e = element_size(info.type);
  if (expr == GDS_EMEXP_VALUE) GDS_TRY(check_value_size(func, key, info, len, "value_len"));
  else {
    GDS_CHECK(is_numeric(info.type), GDS_STATUS_INVALID, "RANGE needs a numeric key; key %d (%s) is %s", key,
              info.name.c_str(), type_name(info.type));
    GDS_CHECK(len % 2 == 0, GDS_STATUS_INVALID_ATTR_VALUE, "value_len=%llu: RANGE takes a minimum and a maximum",
              static_cast<unsigned long long>(len));
    GDS_TRY(check_value_size(func, key, info, len / 2, "value_len/2"));
    GDS_CHECK(len > 0, GDS_STATUS_INVALID_ATTR_VALUE, "value_len=0: RANGE takes a minimum and a maximum");
  }
  GDS_CHECK(gds::core::allocatable(len), GDS_STATUS_NOMEM, "no memory for %llu bytes of values",
            static_cast<unsigned long long>(len));
  if (is_float(info.type)) {
    const auto *p = static_cast<const unsigned char *>(values);
    for (std::size_t i = 0; i < len; i += e) {
      double x;
      std::memcpy(&x, p + i, sizeof x);
      GDS_CHECK(!std::isnan(x), GDS_STATUS_INVALID_ATTR_VALUE, "values[%zu] is NaN, which nothing equals",
                i / e);
    }
  }
  if (expr == GDS_EMEXP_RANGE) {
    const auto bytes = canonical(info.type, values, len);
    const std::size_t n = bytes.size() / 2;
    for (std::size_t i = 0; i < n; i += e) {
      bool ordered;
      if (is_float(info.type)) {
        double lo, hi;
        std::memcpy(&lo, bytes.data() + i, sizeof lo);
        std::memcpy(&hi, bytes.data() + n + i, sizeof hi);
        ordered = lo <= hi;
      } else if (e == sizeof(std::int64_t)) {
        std::int64_t lo, hi;
        std::memcpy(&lo, bytes.data() + i, sizeof lo);
        std::memcpy(&hi, bytes.data() + n + i, sizeof hi);
        ordered = lo <= hi;
      } else {
        ordered = std::to_integer<unsigned>(bytes[i]) <= std::to_integer<unsigned>(bytes[n + i]);
      }
      GDS_CHECK(ordered, GDS_STATUS_INVALID_ATTR_VALUE, "RANGE element %zu: minimum > maximum", i / e);
    }
  }
  return GDS_STATUS_OK;
}

}  // namespace

extern "C" {

GDS_API GDS_status_t GDS_create_error_pred(GDS_error_pred_t *pred) try {
  GDS_ENTER();
  GDS_REQUIRE(pred != nullptr, GDS_STATUS_NULL_ARGUMENT, "pred is NULL");
  *pred = to_handle<GDS_error_pred_t>(g_predicates.insert(std::make_unique<Predicate>()));
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_free_error_pred(GDS_error_pred_t *pred) try {
  GDS_ENTER();
  GDS_REQUIRE(pred != nullptr, GDS_STATUS_NULL_ARGUMENT, "pred is NULL");
  Predicate *p = nullptr;
  GDS_TRY(find_predicate(__func__, *pred, &p));
  g_predicates.erase(handle_value(*pred));
  *pred = GDS_ERROR_PRED_NULL;
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_create_error_pred_term(GDS_error_attr_key_t attr_key, GDS_error_match_expr_t match_expr,
                                                GDS_size_t value_len, const void *values,
                                                GDS_error_pred_term_t *term) try {
  GDS_ENTER();
  GDS_REQUIRE(term != nullptr, GDS_STATUS_NULL_ARGUMENT, "term is NULL");
  const KeyInfo *info = nullptr;
  GDS_TRY(check_key(__func__, attr_key, "attr_key", &info));
  GDS_REQUIRE(match_expr >= GDS_EMEXP_ANY && match_expr <= GDS_EMEXP_NOT, GDS_STATUS_INVALID,
              "match_expr=%d is not a GDS_error_match_expr_t", static_cast<int>(match_expr));
  auto t = std::make_unique<Term>();
  t->key = attr_key;
  t->expr = match_expr;
  if (match_expr == GDS_EMEXP_VALUE || match_expr == GDS_EMEXP_RANGE) {
    GDS_TRY(check_term_values(__func__, attr_key, *info, match_expr, value_len, values));
    t->values = canonical(info->type, values, value_len);
  }
  GDS_DEBUG("term <%s:%s> with %zu value bytes", info->name.c_str(), expr_name(match_expr), t->values.size());
  *term = to_handle<GDS_error_pred_term_t>(g_terms.insert(std::move(t)));
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_free_error_pred_term(GDS_error_pred_term_t *term) try {
  GDS_ENTER();
  GDS_REQUIRE(term != nullptr, GDS_STATUS_NULL_ARGUMENT, "term is NULL");
  Term *t = nullptr;
  GDS_TRY(find_term(__func__, *term, &t));
  g_terms.erase(handle_value(*term));
  *term = GDS_ERROR_PRED_TERM_NULL;
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_add_error_pred_term(GDS_error_pred_t pred, GDS_error_pred_term_t term) try {
  GDS_ENTER();
  Predicate *p = nullptr;
  Term *t = nullptr;
  GDS_TRY(find_predicate(__func__, pred, &p));
  GDS_TRY(find_term(__func__, term, &t));
  p->add(*t);
  return GDS_STATUS_OK;
} GDS_API_CATCH

}  // extern "C"
