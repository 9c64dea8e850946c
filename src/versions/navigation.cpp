// Moving handles between versions, cloning them, and the version queries.
#include "core/array.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"
#include "core/util.hpp"
#include "gds_version.h"
#include "versions/state.hpp"

using namespace gds::core;
using gds::versions::number;
using gds::versions::state;
using gds::versions::Store;
using gds::versions::Version;

namespace {

using gds::core::ull;

}  // namespace

extern "C" {

GDS_API GDS_status_t GDS_get_version_number(GDS_gds_t gds, GDS_size_t *version_number) try {
  GDS_ENTER();
  Cursor *c = nullptr;
  GDS_TRY(resolve(__func__, gds, &c));
  GDS_REQUIRE(version_number != nullptr, GDS_STATUS_NULL_ARGUMENT, "version_number is NULL");
  *version_number = number(*c);
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_get_version_label(GDS_gds_t gds, char **label, size_t *label_size) try {
  GDS_ENTER();
  Cursor *c = nullptr;
  GDS_TRY(resolve(__func__, gds, &c));
  GDS_REQUIRE(label != nullptr, GDS_STATUS_NULL_ARGUMENT, "label is NULL");
  GDS_REQUIRE(label_size != nullptr, GDS_STATUS_NULL_ARGUMENT, "label_size is NULL");
  const gds::versions::ArrayState &vs = state(*c->array);
  const std::string *text = &vs.label;
  if (!c->at_current) {
    const Version *v = vs.store->find(c->version);
    GDS_REQUIRE(v != nullptr, GDS_STATUS_VERSION_DROPPED, "version %llu was dropped by retention", ull(c->version));
    text = &v->label;
  }
  *label = const_cast<char *>(text->c_str());
  *label_size = text->size();
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_get_version_holds(GDS_gds_t gds, char **label, size_t *label_size) try {
  GDS_ENTER();
  Cursor *c = nullptr;
  GDS_TRY(resolve(__func__, gds, &c));
  GDS_REQUIRE(label != nullptr, GDS_STATUS_NULL_ARGUMENT, "label is NULL");
  GDS_REQUIRE(label_size != nullptr, GDS_STATUS_NULL_ARGUMENT, "label_size is NULL");
  GDS_REQUIRE(!c->at_current, GDS_STATUS_NO_VERSION,
              "gds is at the current version (%llu): it holds what is being written (its own label describes "
              "where that started)", ull(state(*c->array).current));
  GDS_REQUIRE(state(*c->array).store->find(c->version) != nullptr, GDS_STATUS_VERSION_DROPPED,
              "version %llu was dropped by retention", ull(c->version));
  const std::string &text = gds::versions::content_label(*c->array, c->version);
  *label = const_cast<char *>(text.c_str());
  *label_size = text.size();
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_move_to_newest(GDS_gds_t gds) try {
  GDS_ENTER();
  Cursor *c = nullptr;
  GDS_TRY(resolve(__func__, gds, &c));
  c->at_current = true;
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_move_to_next(GDS_gds_t gds) try {
  GDS_ENTER();
  Cursor *c = nullptr;
  GDS_TRY(resolve(__func__, gds, &c));
  GDS_REQUIRE(!c->at_current, GDS_STATUS_NO_VERSION, "gds is at the current version (%llu), the newest",
              ull(state(*c->array).current));
  for (const Version &v : state(*c->array).store->versions())
    if (v.number > c->version) {
      c->version = v.number;
      return GDS_STATUS_OK;
    }
  c->at_current = true;
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_move_to_prev(GDS_gds_t gds) try {
  GDS_ENTER();
  Cursor *c = nullptr;
  GDS_TRY(resolve(__func__, gds, &c));
  const std::uint64_t from = number(*c);
  const auto &versions = state(*c->array).store->versions();
  for (auto it = versions.rbegin(); it != versions.rend(); ++it)
    if (it->number < from) {
      c->at_current = false;
      c->version = it->number;
      return GDS_STATUS_OK;
    }
  return fail(GDS_STATUS_NO_VERSION, __func__, "no version older than %llu is retained", ull(from));
} GDS_API_CATCH

GDS_API GDS_status_t GDS_version_dec(GDS_gds_t gds, GDS_size_t dec) try {
  GDS_ENTER();
  Cursor *c = nullptr;
  GDS_TRY(resolve(__func__, gds, &c));
  if (dec == 0) return GDS_STATUS_OK;
  const std::uint64_t from = number(*c);
  GDS_REQUIRE(dec <= from, GDS_STATUS_NO_VERSION, "version %llu - dec=%llu is below version 0", ull(from), ull(dec));
  const std::uint64_t target = from - dec;
  const Store &store = *state(*c->array).store;
  if (store.find(target) == nullptr)
    return fail(store.dropped(target) ? GDS_STATUS_VERSION_DROPPED : GDS_STATUS_NO_VERSION, __func__,
                "version %llu %s", ull(target),
                store.dropped(target) ? "was dropped by retention" : "does not exist (skipped by an increment)");
  c->at_current = false;
  c->version = target;
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_descriptor_clone(GDS_gds_t in_gds, GDS_gds_t *clone_gds) try {
  GDS_ENTER();
  Cursor *c = nullptr;
  GDS_TRY(resolve(__func__, in_gds, &c, "in_gds"));
  GDS_REQUIRE(clone_gds != nullptr, GDS_STATUS_NULL_ARGUMENT, "clone_gds is NULL");
  auto clone = std::make_unique<Cursor>(*c);
  clone->primary = false;
  Array &a = *c->array;
  const std::uint64_t h = g_arrays.insert(std::move(clone));
  a.clones.push_back(h);
  *clone_gds = to_handle<GDS_gds_t>(h);
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_version_wait(GDS_gds_t gds) try {
  GDS_ENTER();
  Cursor *c = nullptr;
  GDS_TRY(resolve(__func__, gds, &c));
  state(*c->array).store->wait_background();
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_get_version_stats(GDS_gds_t gds, GDS_version_stats_t *stats) try {
  GDS_ENTER();
  Cursor *c = nullptr;
  GDS_TRY(resolve(__func__, gds, &c));
  GDS_REQUIRE(stats != nullptr, GDS_STATUS_NULL_ARGUMENT, "stats is NULL");
  const gds::versions::ArrayState &vs = state(*c->array);
  *stats = vs.store->stats(vs.current);
  return GDS_STATUS_OK;
} GDS_API_CATCH

}  // extern "C"
