// Predicates: sets of terms over error attributes, and how well one fits a
// descriptor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/handles.hpp"
#include "errors/descriptor.hpp"
#include "gds_error.h"

namespace gds::errors {

struct Term {
  GDS_error_attr_key_t key = 0;
  GDS_error_match_expr_t expr = GDS_EMEXP_ANY;
  // VALUE: the value; RANGE: min then max. Float zeros are stored as +0, so
  // equal values have equal bytes.
  std::vector<std::byte> values;

  [[nodiscard]] bool holds(const Descriptor &d) const;
  bool operator==(const Term &) const = default;
};

// How specific a fitting predicate is; larger is better, compared in order.
struct Rank {
  std::size_t terms = 0, value_terms = 0, range_terms = 0;
  auto operator<=>(const Rank &) const = default;
};

struct Predicate {
  std::vector<Term> terms;  // sorted, so equal sets compare equal

  void add(const Term &t);
  [[nodiscard]] bool holds(const Descriptor &d) const;
  [[nodiscard]] Rank rank() const;
  [[nodiscard]] std::uint64_t signature() const;
  bool operator==(const Predicate &) const = default;
};

// Value bytes with float zeros made +0 (so -0.0 and 0.0 compare and hash alike).
std::vector<std::byte> canonical(GDS_error_attr_value_type_t type, const void *value, std::size_t len);

extern core::HandleTable<Predicate> g_predicates;
extern core::HandleTable<Term> g_terms;

// Looks a predicate or term handle up, reporting "<argname> has been freed" and the like.
GDS_status_t find_predicate(const char *func, GDS_error_pred_t h, Predicate **out, const char *argname = "pred");
GDS_status_t find_term(const char *func, GDS_error_pred_term_t h, Term **out, const char *argname = "term");

}  // namespace gds::errors
