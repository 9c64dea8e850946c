// Which handler an error goes to: every term kind on every value type, each
// tie-break rule, remaining ties, array before GDS_ROOT, and a random model
// of the rules against the library's indexed matcher. One process: matching
// is local.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "support/gds_test.hpp"

using namespace gds::test;

namespace {

using Bytes = std::vector<unsigned char>;

template <class T>
Bytes bytes_of(const std::vector<T> &v) {
  Bytes b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}
template <class T>
Bytes bytes_of(T v) {
  return bytes_of(std::vector<T>{v});
}
Bytes text(const std::string &s) { return Bytes(s.begin(), s.end()); }
Bytes concat(Bytes a, const Bytes &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

struct TermSpec {
  GDS_error_attr_key_t key;
  GDS_error_match_expr_t expr;
  Bytes values;
  bool operator==(const TermSpec &) const = default;
};
TermSpec any(GDS_error_attr_key_t k) { return {k, GDS_EMEXP_ANY, {}}; }
TermSpec absent(GDS_error_attr_key_t k) { return {k, GDS_EMEXP_NOT, {}}; }
TermSpec value(GDS_error_attr_key_t k, Bytes v) { return {k, GDS_EMEXP_VALUE, std::move(v)}; }
TermSpec range(GDS_error_attr_key_t k, const Bytes &lo, const Bytes &hi) { return {k, GDS_EMEXP_RANGE, concat(lo, hi)}; }

using Pred = std::vector<TermSpec>;
struct AttrSpec {
  GDS_error_attr_key_t key;
  Bytes value;
};
using Desc = std::vector<AttrSpec>;

constexpr int kNone = -1, kTie = -2;

std::vector<int> g_called;

GDS_status_t record(GDS_gds_t gds, GDS_error_t e, void *id) {
  g_called.push_back(*static_cast<int *>(id));
  return GDS_resume_local(gds, e);
}

class Matching : public MpiTest {
 protected:
  static void SetUpTestSuite() {
    ASSERT_GDS_OK(GDS_define_error_attr_key("byte", 4, GDS_EAVTYPE_BYTE, &kByte));
    ASSERT_GDS_OK(GDS_define_error_attr_key("int", 3, GDS_EAVTYPE_INT, &kInt));
    ASSERT_GDS_OK(GDS_define_error_attr_key("float", 5, GDS_EAVTYPE_FLOAT, &kFloat));
    ASSERT_GDS_OK(GDS_define_error_attr_key("bytes", 5, GDS_EAVTYPE_BYTE_ARRAY, &kBytes));
    ASSERT_GDS_OK(GDS_define_error_attr_key("ints", 4, GDS_EAVTYPE_INT_ARRAY, &kInts));
    ASSERT_GDS_OK(GDS_define_error_attr_key("floats", 6, GDS_EAVTYPE_FLOAT_ARRAY, &kFloats));
    ASSERT_GDS_OK(GDS_define_error_attr_key("comm", 4, GDS_EAVTYPE_MPIOBJ, &kComm));
    ASSERT_GDS_OK(GDS_define_error_attr_key("comms", 5, GDS_EAVTYPE_MPIOBJ_ARRAY, &kComms));
  }
  void SetUp() override { g = fresh(); }
  void TearDown() override {
    EXPECT_GDS_OK(GDS_free(&g));
    MpiTest::TearDown();
  }
  static GDS_gds_t fresh() {
    const Index n = 8;
    GDS_gds_t a = GDS_NULL;
    EXPECT_GDS_OK(GDS_alloc(1, &n, nullptr, MPI_INT, GDS_PRIORITY_HIGH, MPI_COMM_SELF, MPI_INFO_NULL, &a));
    return a;
  }
  static GDS_error_pred_t make_pred(const Pred &p) {
    GDS_error_pred_t pred = GDS_ERROR_PRED_NULL;
    EXPECT_GDS_OK(GDS_create_error_pred(&pred));
    for (const TermSpec &t : p) {
      GDS_error_pred_term_t term = GDS_ERROR_PRED_TERM_NULL;
      EXPECT_GDS_OK(GDS_create_error_pred_term(t.key, t.expr, t.values.size(), t.values.data(), &term));
      EXPECT_GDS_OK(GDS_add_error_pred_term(pred, term));
      EXPECT_GDS_OK(GDS_free_error_pred_term(&term));
    }
    return pred;
  }
  // Registers handler `id` with predicate p on `where`; returns the status.
  GDS_status_t add(GDS_gds_t where, int id, const Pred &p) {
    GDS_error_pred_t pred = make_pred(p);
    const GDS_status_t s = GDS_register_local_error_handler_with_context(
        where, pred, record, new int(id), [](void *c) { delete static_cast<int *>(c); });
    EXPECT_GDS_OK(GDS_free_error_pred(&pred));
    return s;
  }
  static GDS_error_t make_desc(const Desc &d) {
    GDS_error_t e = GDS_ERROR_NULL;
    EXPECT_GDS_OK(GDS_create_error_descriptor(&e));
    for (const AttrSpec &a : d) EXPECT_GDS_OK(GDS_add_error_attr(e, a.key, a.value.size(), a.value.data()));
    return e;
  }
  // Raises d on g and delivers it: the id of the handler that ran, kNone or kTie.
  int deliver(const Desc &d, std::string *message = nullptr) {
    g_called.clear();
    EXPECT_GDS_OK(GDS_raise_local_error(g, make_desc(d)));
    const GDS_status_t s = GDS_invoke_local_error_handler(g);
    if (message != nullptr) *message = GDS_last_error_message();
    if (s == GDS_STATUS_UNHANDLED_ERROR) {
      EXPECT_TRUE(g_called.empty());
      return kNone;
    }
    if (s == GDS_STATUS_AMBIGUOUS_HANDLER) {
      EXPECT_TRUE(g_called.empty()) << "a handler ran despite the tie";
      return kTie;
    }
    EXPECT_GDS_OK(s);
    EXPECT_EQ(g_called.size(), 1u);
    return g_called.empty() ? kNone : g_called[0];
  }
  // One handler with predicate p: whether it matches d.
  bool holds(const Pred &p, const Desc &d) {
    GDS_gds_t a = fresh();
    std::swap(a, g);
    EXPECT_GDS_OK(add(g, 1, p));
    const int r = deliver(d);
    std::swap(a, g);
    EXPECT_GDS_OK(GDS_free(&a));
    return r == 1;
  }

  static inline GDS_error_attr_key_t kByte, kInt, kFloat, kBytes, kInts, kFloats, kComm, kComms;
  GDS_gds_t g = GDS_NULL;
};

}  // namespace

TEST_F(Matching, AnyAndNot) {
  const Desc d = {{kInt, bytes_of<std::int64_t>(3)}};
  EXPECT_TRUE(holds({any(kInt)}, d));
  EXPECT_FALSE(holds({any(kFloat)}, d));
  EXPECT_TRUE(holds({absent(kFloat)}, d));
  EXPECT_FALSE(holds({absent(kInt)}, d));
  EXPECT_TRUE(holds({any(kInt), absent(kFloat)}, d));
  EXPECT_TRUE(holds({}, d));   // no terms: every error
  EXPECT_TRUE(holds({}, {}));  // even one without attributes
  EXPECT_TRUE(holds({absent(kInt)}, {}));
}

TEST_F(Matching, ValueOnEveryType) {
  EXPECT_TRUE(holds({value(kByte, bytes_of<std::uint8_t>(200))}, {{kByte, bytes_of<std::uint8_t>(200)}}));
  EXPECT_FALSE(holds({value(kByte, bytes_of<std::uint8_t>(200))}, {{kByte, bytes_of<std::uint8_t>(201)}}));
  EXPECT_TRUE(holds({value(kInt, bytes_of<std::int64_t>(-7))}, {{kInt, bytes_of<std::int64_t>(-7)}}));
  EXPECT_FALSE(holds({value(kInt, bytes_of<std::int64_t>(-7))}, {{kInt, bytes_of<std::int64_t>(7)}}));
  EXPECT_FALSE(holds({value(kInt, bytes_of<std::int64_t>(-7))}, {}));
  // Floats compare as numbers: -0 equals 0.
  EXPECT_TRUE(holds({value(kFloat, bytes_of(0.0))}, {{kFloat, bytes_of(-0.0)}}));
  EXPECT_TRUE(holds({value(kFloat, bytes_of(2.5))}, {{kFloat, bytes_of(2.5)}}));
  EXPECT_FALSE(holds({value(kFloat, bytes_of(2.5))}, {{kFloat, bytes_of(std::nan(""))}}));
  EXPECT_TRUE(holds({value(kBytes, text("disk"))}, {{kBytes, text("disk")}}));
  EXPECT_FALSE(holds({value(kBytes, text("disk"))}, {{kBytes, text("disks")}}));
  EXPECT_TRUE(holds({value(kBytes, text(""))}, {{kBytes, text("")}}));
  EXPECT_TRUE(holds({value(kInts, bytes_of<std::int64_t>({1, 2, 3}))}, {{kInts, bytes_of<std::int64_t>({1, 2, 3})}}));
  EXPECT_FALSE(holds({value(kInts, bytes_of<std::int64_t>({1, 2, 3}))}, {{kInts, bytes_of<std::int64_t>({1, 2})}}));
  EXPECT_TRUE(holds({value(kFloats, bytes_of<double>({0.0, 1.5}))}, {{kFloats, bytes_of<double>({-0.0, 1.5})}}));
  EXPECT_TRUE(holds({value(kComm, bytes_of(MPI_COMM_WORLD))}, {{kComm, bytes_of(MPI_COMM_WORLD)}}));
  EXPECT_FALSE(holds({value(kComm, bytes_of(MPI_COMM_WORLD))}, {{kComm, bytes_of(MPI_COMM_SELF)}}));
  EXPECT_TRUE(holds({value(kComms, bytes_of<MPI_Comm>({MPI_COMM_SELF, MPI_COMM_WORLD}))},
                    {{kComms, bytes_of<MPI_Comm>({MPI_COMM_SELF, MPI_COMM_WORLD})}}));
}

TEST_F(Matching, RangeOnScalarsIncludesItsBounds) {
  const Pred ints = {range(kInt, bytes_of<std::int64_t>(-5), bytes_of<std::int64_t>(10))};
  for (std::int64_t v : {-5, 0, 10}) EXPECT_TRUE(holds(ints, {{kInt, bytes_of(v)}})) << v;
  for (std::int64_t v : {std::int64_t{-6}, std::int64_t{11}, std::numeric_limits<std::int64_t>::min()}) EXPECT_FALSE(holds(ints, {{kInt, bytes_of(v)}})) << v;
  const Pred floats = {range(kFloat, bytes_of(-1.0), bytes_of(1.0))};
  EXPECT_TRUE(holds(floats, {{kFloat, bytes_of(1.0)}}));
  EXPECT_TRUE(holds(floats, {{kFloat, bytes_of(-0.0)}}));
  EXPECT_FALSE(holds(floats, {{kFloat, bytes_of(1.0000001)}}));
  EXPECT_FALSE(holds(floats, {{kFloat, bytes_of(std::nan(""))}}));
  EXPECT_FALSE(holds(floats, {{kFloat, bytes_of(-std::numeric_limits<double>::infinity())}}));
  // Bytes are unsigned.
  const Pred high = {range(kByte, bytes_of<std::uint8_t>(128), bytes_of<std::uint8_t>(255))};
  EXPECT_TRUE(holds(high, {{kByte, bytes_of<std::uint8_t>(200)}}));
  EXPECT_FALSE(holds(high, {{kByte, bytes_of<std::uint8_t>(127)}}));
  EXPECT_FALSE(holds(ints, {}));
}

TEST_F(Matching, RangeOnArraysIsElementWise) {
  const Pred box = {range(kInts, bytes_of<std::int64_t>({0, 10}), bytes_of<std::int64_t>({5, 20}))};
  EXPECT_TRUE(holds(box, {{kInts, bytes_of<std::int64_t>({0, 20})}}));
  EXPECT_TRUE(holds(box, {{kInts, bytes_of<std::int64_t>({5, 10})}}));
  EXPECT_FALSE(holds(box, {{kInts, bytes_of<std::int64_t>({6, 15})}}));
  EXPECT_FALSE(holds(box, {{kInts, bytes_of<std::int64_t>({3, 21})}}));
  EXPECT_FALSE(holds(box, {{kInts, bytes_of<std::int64_t>({3})}}));         // fewer elements
  EXPECT_FALSE(holds(box, {{kInts, bytes_of<std::int64_t>({3, 15, 0})}}));  // more
  const Pred fbox = {range(kFloats, bytes_of<double>({0.0, -1.0}), bytes_of<double>({1.0, 1.0}))};
  EXPECT_TRUE(holds(fbox, {{kFloats, bytes_of<double>({0.5, -1.0})}}));
  EXPECT_FALSE(holds(fbox, {{kFloats, bytes_of<double>({0.5, std::nan("")})}}));
  const Pred bbox = {range(kBytes, Bytes{'a', 'a'}, Bytes{'m', 'z'})};
  EXPECT_TRUE(holds(bbox, {{kBytes, text("kz")}}));
  EXPECT_FALSE(holds(bbox, {{kBytes, text("nz")}}));
}

// Rule 1: most terms; rule 2: then most VALUE terms; rule 3: then most RANGE terms.
TEST_F(Matching, TieBreakRules) {
  const Desc d = {{kInt, bytes_of<std::int64_t>(4)}, {kFloat, bytes_of(0.5)}, {kBytes, text("x")}};
  // More terms wins, whatever their kinds.
  EXPECT_GDS_OK(add(g, 1, {value(kInt, bytes_of<std::int64_t>(4))}));
  EXPECT_GDS_OK(add(g, 2, {any(kInt), any(kFloat)}));
  EXPECT_EQ(deliver(d), 2);
  // Same count: more VALUE terms wins over more RANGE terms.
  EXPECT_GDS_OK(add(g, 3, {value(kInt, bytes_of<std::int64_t>(4)), any(kFloat), any(kBytes)}));
  EXPECT_GDS_OK(add(g, 4, {range(kInt, bytes_of<std::int64_t>(0), bytes_of<std::int64_t>(9)),
                           range(kFloat, bytes_of(0.0), bytes_of(1.0)), any(kBytes)}));
  EXPECT_EQ(deliver(d), 3);
  // Same count and VALUE terms: more RANGE terms wins.
  EXPECT_GDS_OK(add(g, 5, {value(kInt, bytes_of<std::int64_t>(4)), range(kFloat, bytes_of(0.0), bytes_of(1.0)),
                           any(kBytes)}));
  EXPECT_EQ(deliver(d), 5);
  // A handler that does not hold never competes, however specific.
  EXPECT_GDS_OK(add(g, 6, {value(kInt, bytes_of<std::int64_t>(4)), value(kFloat, bytes_of(0.5)),
                           value(kBytes, text("x")), absent(kInt)}));
  EXPECT_EQ(deliver(d), 5);
  // A catch-all loses to all of them, and wins alone.
  EXPECT_GDS_OK(add(g, 7, {}));
  EXPECT_EQ(deliver(d), 5);
  EXPECT_EQ(deliver({{kComm, bytes_of(MPI_COMM_SELF)}}), 7);
}

TEST_F(Matching, RemainingTiesAreErrorsNamingTheHandlers) {
  const Desc both = {{kInt, bytes_of<std::int64_t>(1)}, {kFloat, bytes_of(1.0)}};
  EXPECT_GDS_OK(add(g, 1, {any(kInt)}));
  EXPECT_GDS_OK(add(g, 2, {any(kFloat)}));
  std::string message;
  EXPECT_EQ(deliver(both, &message), kTie);
  EXPECT_NE(message.find("#1"), std::string::npos) << message;
  EXPECT_NE(message.find("#2"), std::string::npos) << message;
  // Errors only one of them fits are fine.
  EXPECT_EQ(deliver({{kInt, bytes_of<std::int64_t>(1)}}), 1);
  // A more specific third handler settles it.
  EXPECT_GDS_OK(add(g, 3, {any(kInt), any(kFloat)}));
  EXPECT_EQ(deliver(both), 3);
  // VALUE against VALUE on different keys is still a tie.
  EXPECT_GDS_OK(add(g, 4, {value(kInt, bytes_of<std::int64_t>(1)), any(kBytes)}));
  EXPECT_GDS_OK(add(g, 5, {value(kFloat, bytes_of(1.0)), any(kBytes)}));
  EXPECT_EQ(deliver({{kInt, bytes_of<std::int64_t>(1)}, {kFloat, bytes_of(1.0)}, {kBytes, text("")}}), kTie);
}

TEST_F(Matching, EqualPredicatesAreRefusedAtRegistration) {
  EXPECT_GDS_OK(add(g, 1, {any(kInt), value(kFloat, bytes_of(0.0))}));
  // Same terms in another order, and -0 for 0: the same predicate.
  EXPECT_EQ(add(g, 2, {value(kFloat, bytes_of(-0.0)), any(kInt)}), GDS_STATUS_AMBIGUOUS_HANDLER);
  EXPECT_TRUE(message_names("GDS_register_local_error_handler_with_context", "handler #1"));
  EXPECT_GDS_OK(add(g, 3, {any(kInt), value(kFloat, bytes_of(1.0))}));
  EXPECT_EQ(deliver({{kInt, bytes_of<std::int64_t>(0)}, {kFloat, bytes_of(0.0)}}), 1);
}

TEST_F(Matching, ArrayHandlersComeBeforeRootHandlers) {
  const Desc d = {{kInt, bytes_of<std::int64_t>(1)}, {kFloat, bytes_of(1.0)}};
  EXPECT_GDS_OK(add(GDS_ROOT, 10, {any(kInt), any(kFloat)}));
  EXPECT_EQ(deliver(d), 10);  // no array handler: GDS_ROOT's
  EXPECT_GDS_OK(add(g, 1, {any(kInt)}));
  EXPECT_EQ(deliver(d), 1);  // the array's, though less specific
  EXPECT_EQ(deliver({{kFloat, bytes_of(1.0)}}), kNone);  // no array handler fits, none of GDS_ROOT's either
  EXPECT_GDS_OK(add(GDS_ROOT, 11, {}));
  EXPECT_EQ(deliver({{kFloat, bytes_of(1.0)}}), 11);
  // Errors raised on GDS_ROOT go to GDS_ROOT's handlers, whenever any call delivers.
  g_called.clear();
  EXPECT_GDS_OK(GDS_raise_local_error(GDS_ROOT, make_desc(d)));
  EXPECT_GDS_OK(GDS_invoke_local_error_handler(GDS_ROOT));
  EXPECT_EQ(g_called, std::vector<int>{10});
  // GDS_ROOT's handlers live until GDS_finalize: ctest runs this test in a process of its own.
}

TEST_F(Matching, UnhandledErrorsFailTheDeliveringCallWithAMessage) {
  std::string message;
  EXPECT_GDS_OK(add(g, 1, {any(kComm)}));
  EXPECT_GDS_OK(GDS_raise_local_error(g, make_desc({{kInt, bytes_of<std::int64_t>(1)}})));
  // The next call on the array delivers it, fails, and does not do its work.
  int x = 5;
  const Index i = 0;
  g_called.clear();
  EXPECT_EQ(GDS_put(&x, nullptr, &i, &i, g), GDS_STATUS_UNHANDLED_ERROR);
  EXPECT_TRUE(message_names("GDS_put", "no local error handler"));
  EXPECT_GDS_OK(GDS_fence(g));
  int y = -1;
  EXPECT_GDS_OK(GDS_get(&y, nullptr, &i, &i, g));
  EXPECT_GDS_OK(GDS_wait(g));
  EXPECT_EQ(y, 0);
  EXPECT_TRUE(g_called.empty());
}

// The rules, written plainly, against the library's indexed matcher: many
// random handlers, many random errors.
TEST_F(Matching, RandomHandlersAgainstAModelOfTheRules) {
  std::mt19937 rng(2024);
  const GDS_error_attr_key_t keys[3] = {kInt, kFloat, kBytes};
  const auto random_value = [&](int k) -> Bytes {
    const int v = static_cast<int>(rng() % 4);
    if (k == 0) return bytes_of<std::int64_t>(v);
    if (k == 1) return bytes_of(v * 0.5);
    return text(std::string(static_cast<std::size_t>(v), 'a'));
  };
  struct Model {
    Pred pred;
    int id;
  };
  const auto term_holds = [](const TermSpec &t, const Desc &d) {
    const AttrSpec *a = nullptr;
    for (const AttrSpec &x : d)
      if (x.key == t.key) a = &x;
    switch (t.expr) {
      case GDS_EMEXP_ANY: return a != nullptr;
      case GDS_EMEXP_NOT: return a == nullptr;
      case GDS_EMEXP_VALUE: return a != nullptr && a->value == t.values;
      default: {
        if (a == nullptr) return false;
        const std::size_t half = t.values.size() / 2;
        const Bytes lo(t.values.begin(), t.values.begin() + half), hi(t.values.begin() + half, t.values.end());
        if (t.key == kInt) {
          std::int64_t v, l, h;
          std::memcpy(&v, a->value.data(), 8), std::memcpy(&l, lo.data(), 8), std::memcpy(&h, hi.data(), 8);
          return l <= v && v <= h;
        }
        double v, l, h;
        std::memcpy(&v, a->value.data(), 8), std::memcpy(&l, lo.data(), 8), std::memcpy(&h, hi.data(), 8);
        return l <= v && v <= h;
      }
    }
  };
  const auto rank_of = [](const Pred &p) {
    std::size_t v = 0, r = 0;
    for (const TermSpec &t : p) v += t.expr == GDS_EMEXP_VALUE, r += t.expr == GDS_EMEXP_RANGE;
    return std::make_tuple(p.size(), v, r);
  };
  const auto sorted = [](Pred p) {
    std::sort(p.begin(), p.end(), [](const TermSpec &a, const TermSpec &b) {
      return std::tie(a.key, a.expr, a.values) < std::tie(b.key, b.expr, b.values);
    });
    return p;
  };
  std::vector<Model> models;
  for (int id = 1; id <= 400; ++id) {
    Pred p;
    const int nterms = static_cast<int>(rng() % 4);
    for (int t = 0; t < nterms; ++t) {
      const int k = static_cast<int>(rng() % 3);
      const int e = static_cast<int>(rng() % 4);
      if (e == 0) p.push_back(any(keys[k]));
      else if (e == 1) p.push_back(absent(keys[k]));
      else if (e == 2 || k == 2) p.push_back(value(keys[k], random_value(k)));
      else {
        Bytes lo = random_value(k), hi = random_value(k);
        std::int64_t a, b;
        if (k == 0) std::memcpy(&a, lo.data(), 8), std::memcpy(&b, hi.data(), 8);
        else {
          double x, y;
          std::memcpy(&x, lo.data(), 8), std::memcpy(&y, hi.data(), 8);
          a = x < y ? 0 : 1, b = 1 - a;
        }
        if (a > b) std::swap(lo, hi);
        p.push_back(range(keys[k], lo, hi));
      }
    }
    bool duplicate = false;
    for (const Model &m : models) duplicate = duplicate || sorted(m.pred) == sorted(p);
    const GDS_status_t s = add(g, id, p);
    if (duplicate) {
      EXPECT_EQ(s, GDS_STATUS_AMBIGUOUS_HANDLER) << "handler " << id;
    } else {
      EXPECT_GDS_OK(s);
      models.push_back({p, id});
    }
  }
  int ties = 0, nones = 0, ones = 0;
  for (int trial = 0; trial < 600; ++trial) {
    Desc d;
    for (int k = 0; k < 3; ++k)
      if (rng() % 3 != 0) d.push_back({keys[k], random_value(k)});
    // The best rank among the handlers that hold, then how many hold at it.
    const auto fits = [&](const Model &m) {
      return std::all_of(m.pred.begin(), m.pred.end(), [&](const TermSpec &t) { return term_holds(t, d); });
    };
    std::tuple<std::size_t, std::size_t, std::size_t> best{};
    bool any_fits = false;
    for (const Model &m : models)
      if (fits(m) && (!any_fits || rank_of(m.pred) > best)) best = rank_of(m.pred), any_fits = true;
    int winner = kNone, at_best = 0;
    for (const Model &m : models)
      if (fits(m) && rank_of(m.pred) == best) ++at_best, winner = m.id;
    const int expect = at_best == 0 ? kNone : at_best == 1 ? winner : kTie;
    const int got = deliver(d);
    ASSERT_EQ(got, expect) << "trial " << trial;
    ties += expect == kTie, nones += expect == kNone, ones += expect > 0;
  }
  EXPECT_GT(ones, 100);  // the cases are not degenerate
  EXPECT_GT(ties, 10);
}
