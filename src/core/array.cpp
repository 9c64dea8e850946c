// GDS_alloc, GDS_create, GDS_free, GDS_get_attr, GDS_get_comm and the layout queries.
#include "core/array.hpp"

#include <atomic>
#include <algorithm>
#include <cstring>
#include <map>

#include "core/check.hpp"
#include "core/collective.hpp"
#include "core/log.hpp"
#include "core/mpi_args.hpp"
#include "core/runtime.hpp"
#include "core/util.hpp"
#include "gds_array.h"

namespace gds::core {

HandleTable<Cursor> g_arrays{HandleKind::array};

std::uint64_t next_event() {
  static std::atomic<std::uint64_t> events{0};
  return events.fetch_add(1, std::memory_order_relaxed) + 1;
}

Array::Array() = default;
Array::~Array() {
  // Highest layer first: a module's state may refer to the ones below it.
  for (std::size_t i = kLayers; i-- > 0;) states[i].reset();
}

namespace {

std::map<std::uint64_t, std::unique_ptr<Array>> g_registry;
std::uint64_t g_next_id = 1;

using gds::core::ull;

// Arguments common to GDS_alloc and GDS_create, checked on this process.
struct Shape {
  Dims count;
  const ElementType *type = nullptr;
  Order order = Order::row_major;
};

GDS_status_t check_shape(const char *func, GDS_size_t ndims, const GDS_size_t *count,
                         GDS_datatype_t element_type, GDS_priority_t priority, MPI_Info info,
                         Order language_default, Shape *shape) {
  GDS_CHECK(ndims >= 1 && ndims <= kMaxDims, GDS_STATUS_INVALID_NDIMS,
              "ndims=%llu is not in [1, %zu]", ull(ndims), kMaxDims);
  GDS_CHECK(count != nullptr, GDS_STATUS_NULL_ARGUMENT, "count is NULL");
  shape->type = find_element_type(element_type);
  GDS_CHECK(shape->type != nullptr, GDS_STATUS_INVALID_TYPE,
              "element_type is not a predefined MPI datatype GDS supports");
  Index volume = 1;
  for (std::size_t d = 0; d < ndims; ++d) {
    GDS_CHECK(count[d] >= 1, GDS_STATUS_INVALID_COUNT, "count[%zu]=0", d);
    GDS_CHECK(!__builtin_mul_overflow(volume, count[d], &volume), GDS_STATUS_INVALID_COUNT,
                "the number of elements overflows 64 bits");
  }
  Index bytes = 0;
  GDS_CHECK(!__builtin_mul_overflow(volume, shape->type->extent, &bytes) &&
                  bytes <= static_cast<Index>(INT64_MAX),
              GDS_STATUS_INVALID_COUNT, "%llu elements of %zu bytes overflow the address range",
              ull(volume), shape->type->extent);
  GDS_CHECK(priority >= GDS_PRIORITY_HIGH && priority <= GDS_PRIORITY_LOW, GDS_STATUS_INVALID,
              "resilience_priority=%d is not a GDS_PRIORITY_* value", static_cast<int>(priority));
  GDS_TRY(check_info(func, info));
  shape->order = language_default;
  if (const std::optional<std::string> v = info_value(info, GDS_ORDER_KEY)) {
    if (*v == GDS_ORDER_ROW_MAJOR) shape->order = Order::row_major;
    else if (*v == GDS_ORDER_COL_MAJOR) shape->order = Order::col_major;
    else if (*v != GDS_ORDER_DEFAULT)
      return fail(GDS_STATUS_INVALID_INFO, func, "info: %s=\"%s\" is not \"%s\", \"%s\" or \"%s\"",
                  GDS_ORDER_KEY, v->c_str(), GDS_ORDER_DEFAULT, GDS_ORDER_ROW_MAJOR, GDS_ORDER_COL_MAJOR);
  }
  shape->count.assign(count, count + ndims);
  return GDS_STATUS_OK;
}

using States = std::array<std::unique_ptr<ArrayState>, kLayers>;

// Core's shape, then every module's arguments, checked on this process; the
// signature covers what every process must pass alike.
GDS_status_t check_arguments(const char *func, GDS_flavor_t flavor, GDS_size_t ndims, const GDS_size_t *count,
                             GDS_datatype_t element_type, GDS_priority_t priority, MPI_Info info,
                             Order language_default, Shape *shape, States *states, Signature *sig) {
  GDS_TRY(check_shape(func, ndims, count, element_type, priority, info, language_default, shape));
  sig->add(shape->count.size());
  for (Index c : shape->count) sig->add(c);
  // The type by its name: a handle's value is the same on every process with
  // MPICH (an integer) but not with Open MPI (an address).
  sig->add(shape->type->name, std::strlen(shape->type->name)).add(shape->order);
  const ArraySpec spec{flavor, &shape->count, shape->type, shape->order};
  for (Module *m : modules())
    GDS_TRY(m->prepare(func, spec, info, *sig, &(*states)[m->layer()]));
  return GDS_STATUS_OK;
}

// Makes the array's communicator, a duplicate of `users`.
GDS_status_t make_comm(const char *func, MPI_Comm users, Array *a) {
  MPI_Comm dup = MPI_COMM_NULL;
  const int rc = MPI_Comm_dup(users, &dup);
  if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Comm_dup", rc);
  a->comm = Comm(dup);
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  MPI_Comm_rank(dup, &a->rank);
  MPI_Comm_size(dup, &a->nprocs);
  return GDS_STATUS_OK;
}

// Collective: releases what the first `count` modules attached, highest first.
GDS_status_t detach_modules(const char *func, Array &a, std::size_t count) {
  GDS_status_t first = GDS_STATUS_OK;
  const std::span<Module *const> all = modules();
  for (std::size_t i = count; i-- > 0;) {
    const GDS_status_t s = all[i]->detach(func, a);
    if (first == GDS_STATUS_OK) first = s;
  }
  return first;
}

// Collective: attaches the modules lowest first, agreeing after each; after
// a failure, those attached are detached again (on every process), the one
// that failed too: what it attached before failing (or on the processes
// where it did not fail) is released, and a detach of nothing does nothing.
GDS_status_t attach_modules(const char *func, Array &a) {
  const std::span<Module *const> all = modules();
  for (std::size_t i = 0; i < all.size(); ++i) {
    const GDS_status_t s = agree(func, a.communicator(), all[i]->attach(func, a));
    if (s != GDS_STATUS_OK) {
      (void)detach_modules(func, a, i + 1);
      return s;
    }
  }
  return GDS_STATUS_OK;
}

// Takes ownership of a fully built array and returns its primary handle.
GDS_gds_t register_array(std::unique_ptr<Array> array) {
  Array *a = array.get();
  a->primary = g_arrays.insert(std::make_unique<Cursor>(Cursor{a, true}));
  g_registry.emplace(a->id, std::move(array));
  return to_handle<GDS_gds_t>(a->primary);
}

// A new array: its id, communicator and the modules' states (not yet attached).
GDS_status_t make_array(const char *func, MPI_Comm users, const Shape &shape, GDS_priority_t priority,
                        States states, std::unique_ptr<Array> *out) {
  auto a = std::make_unique<Array>();
  a->type = shape.type;
  a->priority = priority;
  a->states = std::move(states);
  GDS_TRY(make_comm(func, users, a.get()));
  a->id = g_next_id++;
  *out = std::move(a);
  return GDS_STATUS_OK;
}

// Collective: releases the modules' resources and every handle on the array, and destroys it.
GDS_status_t destroy(const char *func, Array *a) {
  const GDS_status_t s = detach_modules(func, *a, modules().size());
  for (std::uint64_t h : a->clones) g_arrays.erase(h);
  g_arrays.erase(a->primary);
  g_registry.erase(a->id);
  return s;
}

// Sanity check of a GDS_create mapping: every local offset maps to a global
// index that maps back to this process and offset.
GDS_status_t check_round_trip(const char *func, const UserLayout &layout, int rank, Index local_count) {
  Dims global(layout.ndims());
  for (Index off = 0; off < local_count; ++off) {
    GDS_TRY(layout.to_global(func, off, global.data()));
    int r = -1;
    Index back = 0;
    GDS_TRY(layout.locate(func, global.data(), &r, &back));
    if (r != rank || back != off)
      return fail(GDS_STATUS_INVALID_MAPPING, func,
                  "local offset %llu maps to a global index that global_to_local sends to rank %d "
                  "offset %llu",
                  ull(off), r, ull(back));
  }
  return GDS_STATUS_OK;
}

}  // namespace

GDS_status_t alloc_array(const char *func, GDS_size_t ndims, const GDS_size_t *count, const GDS_size_t *min_chunks,
                         GDS_datatype_t element_type, GDS_priority_t priority, MPI_Comm users, MPI_Info info,
                         Order language_default, GDS_gds_t *gds) {
  // An invalid communicator cannot carry the agreement, so it is reported at once.
  GDS_TRY(check_comm(func, users, "users"));
  Shape shape;
  States states;
  Signature sig;
  GDS_status_t s = check_arguments(func, GDS_FLAVOR_ALLOC, ndims, count, element_type, priority, info,
                                   language_default, &shape, &states, &sig);
  if (s == GDS_STATUS_OK && gds == nullptr) s = fail(GDS_STATUS_NULL_ARGUMENT, func, "gds is NULL");
  if (s == GDS_STATUS_OK)
    for (std::size_t d = 0; d < ndims; ++d)
      sig.add(min_chunks != nullptr && min_chunks[d] > 1 ? min_chunks[d] : Index{0});
  GDS_TRY(agree(func, users, s, s == GDS_STATUS_OK ? sig.value() : 0));

  std::unique_ptr<Array> a;
  GDS_TRY(make_array(func, users, shape, priority, std::move(states), &a));
  Dims grid = BlockLayout::choose_grid(shape.count, min_chunks, a->nprocs, shape.order);
  auto layout = std::make_unique<BlockLayout>(shape.count, std::move(grid), shape.order);
  a->blocks = layout.get();
  a->local_lo.resize(ndims);
  a->local_ext.assign(ndims, 0);
  Dims hi(ndims);
  if (layout->owned_box(a->rank, a->local_lo.data(), hi.data()))
    for (std::size_t d = 0; d < ndims; ++d) a->local_ext[d] = hi[d] - a->local_lo[d] + 1;
  a->local_count = layout->local_volume(a->rank);
  a->layout = std::move(layout);
  GDS_TRY(attach_modules(func, *a));
  *gds = register_array(std::move(a));
  if (debug_level() >= 2)
    log(Level::debug, func, "allocated a %zu-dimensional array", static_cast<std::size_t>(ndims));
  return GDS_STATUS_OK;
}

namespace {

// GDS_create with no mapping functions (GDS extension): GDS_alloc's block
// layout over the program's buffers; each buffer holds its process's block
// in the array's order.
struct ImpliedBlocks {
  std::unique_ptr<BlockLayout> layout;
  Dims lo, ext;  // this process's block (ext 0: none)
};

GDS_status_t implied_to_local(const GDS_size_t global[], int *rank, GDS_size_t *offset, void *context) {
  return static_cast<const ImpliedBlocks *>(context)->layout->locate(nullptr, global, rank, offset);
}

GDS_status_t implied_to_global(GDS_size_t offset, GDS_size_t global[], void *context) {
  const auto &b = *static_cast<const ImpliedBlocks *>(context);
  for (std::size_t k = b.lo.size(); k-- > 0;) {  // the storage order's last dimension varies fastest
    const std::size_t d = b.layout->storage_dim(k);
    if (b.ext[d] == 0) return GDS_STATUS_INVALID;
    global[d] = b.lo[d] + offset % b.ext[d];
    offset /= b.ext[d];
  }
  return offset == 0 ? GDS_STATUS_OK : GDS_STATUS_INVALID;
}

}  // namespace

GDS_status_t create_array(const char *func, GDS_size_t ndims, const GDS_size_t *count,
                         GDS_datatype_t element_type, const Mapping &mapping, void *local_buffer,
                         GDS_size_t local_buffer_count, GDS_priority_t priority, MPI_Comm users,
                         MPI_Info info, Order language_default, GDS_gds_t *gds) {
  GDS_TRY(check_comm(func, users, "users"));
  Shape shape;
  States states;
  Signature sig;
  GDS_status_t s = check_arguments(func, GDS_FLAVOR_CREATE, ndims, count, element_type, priority, info,
                                   language_default, &shape, &states, &sig);
  const bool have_g2l = mapping.g2l != nullptr || mapping.g2l_ctx != nullptr;
  const bool have_l2g = mapping.l2g != nullptr || mapping.l2g_ctx != nullptr;
  const bool implied = !have_g2l && !have_l2g;  // both NULL: GDS_alloc's block layout
  if (s == GDS_STATUS_OK && !have_g2l && have_l2g)
    s = fail(GDS_STATUS_NULL_ARGUMENT, func,
             "global_to_local_func is NULL but local_to_global_func is not (both NULL: the block layout)");
  if (s == GDS_STATUS_OK && have_g2l && !have_l2g)
    s = fail(GDS_STATUS_NULL_ARGUMENT, func,
             "local_to_global_func is NULL but global_to_local_func is not (both NULL: the block layout)");
  if (s == GDS_STATUS_OK && local_buffer == nullptr && local_buffer_count != 0)
    s = fail(GDS_STATUS_NULL_ARGUMENT, func, "local_buffer is NULL but local_buffer_count=%llu",
             ull(local_buffer_count));
  Index bytes = 0;
  if (s == GDS_STATUS_OK && (__builtin_mul_overflow(local_buffer_count, shape.type->extent, &bytes) ||
                             !fits_address_space(local_buffer, bytes)))
    s = fail(GDS_STATUS_INVALID_COUNT, func,
             "local_buffer_count=%llu elements from local_buffer would run past the end of the address space",
             ull(local_buffer_count));
  if (s == GDS_STATUS_OK && gds == nullptr) s = fail(GDS_STATUS_NULL_ARGUMENT, func, "gds is NULL");
  GDS_TRY(agree(func, users, s, s == GDS_STATUS_OK ? sig.value() : 0));

  std::unique_ptr<Array> a;
  GDS_TRY(make_array(func, users, shape, priority, std::move(states), &a));
  Mapping used = mapping;
  Index local_count = local_buffer_count;  // implied: the block (a longer buffer's tail is not the array's)
  if (implied) {
    auto b = std::make_shared<ImpliedBlocks>();
    b->layout = std::make_unique<BlockLayout>(
        shape.count, BlockLayout::choose_grid(shape.count, nullptr, a->nprocs, shape.order), shape.order);
    b->lo.assign(ndims, 0);
    b->ext.assign(ndims, 0);
    Dims hi(ndims);
    if (b->layout->owned_box(a->rank, b->lo.data(), hi.data()))
      for (std::size_t d = 0; d < ndims; ++d) b->ext[d] = hi[d] - b->lo[d] + 1;
    const Index block = b->layout->local_volume(a->rank);
    s = local_buffer_count >= block
            ? GDS_STATUS_OK
            : fail(GDS_STATUS_INVALID_COUNT, func,
                   "local_buffer_count=%llu is less than this process's block of the block layout (%llu elements; "
                   "GDS_create without mapping functions lays the array out as GDS_alloc does)",
                   ull(local_buffer_count), ull(block));
    GDS_TRY(agree(func, a->communicator(), s));
    used = Mapping{};
    used.g2l_ctx = implied_to_local;
    used.l2g_ctx = implied_to_global;
    used.context = b.get();
    a->implied = std::move(b);
    local_count = block;
  }
  std::vector<Index> counts(static_cast<std::size_t>(a->nprocs));
  const Index mine = local_count;
  const int rc = allgather(&mine, 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, a->communicator());
  if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Allgather", rc);
  Index total = 0, volume = 1;
  bool overflow = false;
  for (Index c : counts) overflow = overflow || __builtin_add_overflow(total, c, &total);
  for (Index c : shape.count) volume *= c;
  // Every process computes the same verdict from the same counts.
  if (!overflow && total < volume)
    return fail(GDS_STATUS_INVALID_MAPPING, func,
                "the local buffers hold %llu elements in all, fewer than the array's %llu", ull(total), ull(volume));
  auto layout = std::make_unique<UserLayout>(shape.count, shape.order, used, std::move(counts));
  s = g_rt.config.sanity_check ? check_round_trip(func, *layout, a->rank, local_count) : GDS_STATUS_OK;
  GDS_TRY(agree(func, a->communicator(), s));
  a->user = layout.get();
  a->layout = std::move(layout);
  a->user_buffer = local_buffer;
  a->local_count = local_count;
  GDS_TRY(attach_modules(func, *a));
  *gds = register_array(std::move(a));
  return GDS_STATUS_OK;
}

GDS_status_t resolve_failed(const char *func, GDS_gds_t gds, GDS_status_t s, const char *argname) {
  if (is_root(gds))
    return fail(GDS_STATUS_INVALID_HANDLE, func,
                "%s is GDS_ROOT, which only synchronization and error functions accept", argname);
  return fail(s, func, "%s %s", argname, handle_problem(s));
}

GDS_status_t not_current(const char *func, const Cursor &cursor) {
  return fail(GDS_STATUS_NOT_CURRENT, func,
              "gds is at version %llu, an old one; only the current version can be written (GDS_move_to_newest)",
              ull(cursor.version));
}

std::vector<Array *> arrays_in_creation_order() {
  std::vector<Array *> out;
  out.reserve(g_registry.size());
  for (auto &[id, a] : g_registry) out.push_back(a.get());
  return out;
}

GDS_status_t free_all_arrays(const char *func) {
  GDS_status_t status = GDS_STATUS_OK;
  for (Array *a : arrays_in_creation_order()) {
    if (debug_level() >= 1) log(Level::warning, func, "array #%llu was not freed; freeing it", ull(a->id));
    const GDS_status_t s = destroy(func, a);
    if (status == GDS_STATUS_OK) status = s;
  }
  return status;
}

}  // namespace gds::core

using namespace gds::core;

extern "C" {

GDS_API GDS_status_t GDS_alloc(GDS_size_t ndims, const GDS_size_t count[], const GDS_size_t min_chunks[],
                               GDS_datatype_t element_type, GDS_priority_t resilience_priority,
                               GDS_comm_t users, GDS_info_t info, GDS_gds_t *gds) try {
  GDS_ENTER();
  return alloc_array(__func__, ndims, count, min_chunks, element_type, resilience_priority, users, info,
                    Order::row_major, gds);
} GDS_API_CATCH

GDS_API GDS_status_t GDS_create(GDS_size_t ndims, const GDS_size_t count[], GDS_datatype_t element_type,
                                GDS_global_to_local_func_t global_to_local_func,
                                GDS_local_to_global_func_t local_to_global_func, void *local_buffer,
                                GDS_size_t local_buffer_count, GDS_priority_t resilience_priority,
                                GDS_comm_t users, GDS_info_t info, GDS_gds_t *gds) try {
  GDS_ENTER();
  Mapping m;
  m.g2l = global_to_local_func;
  m.l2g = local_to_global_func;
  return create_array(__func__, ndims, count, element_type, m, local_buffer, local_buffer_count,
                     resilience_priority, users, info, Order::row_major, gds);
} GDS_API_CATCH

GDS_API GDS_status_t GDS_create_with_context(
    GDS_size_t ndims, const GDS_size_t count[], GDS_datatype_t element_type,
    GDS_global_to_local_ctx_func_t global_to_local_func,
    GDS_local_to_global_ctx_func_t local_to_global_func, void *context, void *local_buffer,
    GDS_size_t local_buffer_count, GDS_priority_t resilience_priority, GDS_comm_t users,
    GDS_info_t info, GDS_gds_t *gds) try {
  GDS_ENTER();
  Mapping m;
  m.g2l_ctx = global_to_local_func;
  m.l2g_ctx = local_to_global_func;
  m.context = context;
  return create_array(__func__, ndims, count, element_type, m, local_buffer, local_buffer_count,
                     resilience_priority, users, info, Order::row_major, gds);
} GDS_API_CATCH

GDS_API GDS_status_t GDS_free(GDS_gds_t *gds) try {
  GDS_ENTER();
  GDS_REQUIRE(gds != nullptr, GDS_STATUS_NULL_ARGUMENT, "gds is NULL");
  Cursor *cursor = nullptr;
  GDS_status_t s = GDS_STATUS_OK;
  GDS_TRY(resolve_collective(__func__, *gds, &cursor, &s));
  Array *a = cursor->array;
  if (!cursor->primary) {
    GDS_TRY(s);
    const std::uint64_t h = handle_value(*gds);
    std::erase(a->clones, h);
    g_arrays.erase(h);
    *gds = GDS_NULL;
    return GDS_STATUS_OK;
  }
  // Inside a handler of the array's error: refused at once, without the
  // collective (a local handler runs on one process only).
  const Resilience *r = resilience();
  GDS_REQUIRE(r == nullptr || !r->handling(*a), GDS_STATUS_INVALID,
              "an error raised on the array is being handled; free the array afterwards");
  // Every module says on this process whether the array may go, so that a
  // refusal is agreed on before the collective teardown, which everyone must then join.
  for (const Module *m : modules())
    if (s == GDS_STATUS_OK) s = m->prepare_free(__func__, *a);
  GDS_TRY(agree(__func__, a->communicator(), s));
  GDS_TRY(destroy(__func__, a));
  *gds = GDS_NULL;
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_get_attr(GDS_gds_t gds, GDS_attr_t attribute_key, void *attribute_value,
                                  int *flag) try {
  GDS_ENTER();
  Cursor *cursor = nullptr;
  GDS_TRY(resolve(__func__, gds, &cursor));
  GDS_REQUIRE(attribute_value != nullptr, GDS_STATUS_NULL_ARGUMENT, "attribute_value is NULL");
  GDS_REQUIRE(flag != nullptr, GDS_STATUS_NULL_ARGUMENT, "flag is NULL");
  const Array &a = *cursor->array;
  const Layout &layout = *a.layout;
  auto *sizes = static_cast<GDS_size_t *>(attribute_value);
  *flag = 1;
  switch (attribute_key) {
    case GDS_TYPE:
      *static_cast<GDS_datatype_t *>(attribute_value) = a.type->mpi;
      return GDS_STATUS_OK;
    case GDS_CREATE_FLAVOR:
      *static_cast<GDS_flavor_t *>(attribute_value) = layout.flavor();
      return GDS_STATUS_OK;
    case GDS_NUMBER_DIMENSIONS:
      *sizes = layout.ndims();
      return GDS_STATUS_OK;
    case GDS_COUNT:
      std::copy(layout.count().begin(), layout.count().end(), sizes);
      return GDS_STATUS_OK;
    case GDS_CHUNK_SIZE:
      if (a.blocks == nullptr) *flag = 0;
      else
        for (std::size_t d = 0; d < layout.ndims(); ++d) sizes[d] = a.blocks->chunk(d);
      return GDS_STATUS_OK;
    case GDS_GLOBAL_LAYOUT:
      if (a.blocks == nullptr) *flag = 0;
      else std::copy(a.blocks->grid().begin(), a.blocks->grid().end(), sizes);
      return GDS_STATUS_OK;
  }
  *flag = 0;
  return fail(GDS_STATUS_INVALID_ATTR, __func__, "attribute_key=%d is not a GDS_attr_t key",
              static_cast<int>(attribute_key));
} GDS_API_CATCH

GDS_API GDS_status_t GDS_get_comm(GDS_gds_t gds, GDS_comm_t *comm) try {
  GDS_ENTER();
  Cursor *cursor = nullptr;
  GDS_status_t delivered = GDS_STATUS_OK;
  GDS_TRY(resolve_collective(__func__, gds, &cursor, &delivered));
  // A NULL comm on one process is agreed on (as GDS_alloc's NULL gds), not a
  // return before the collective the others are in.
  const GDS_status_t s = comm == nullptr ? fail(GDS_STATUS_NULL_ARGUMENT, __func__, "comm is NULL") : GDS_STATUS_OK;
  GDS_TRY(agree(__func__, cursor->array->communicator(), s));
  GDS_MPI(MPI_Comm_dup(cursor->array->communicator(), comm));  // collective: even if a delivery failed
  if (delivered != GDS_STATUS_OK) MPI_Comm_free(comm);
  return delivered;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_distribution(GDS_gds_t gds, int rank, GDS_size_t lo[], GDS_size_t hi[],
                                      int *owns) try {
  GDS_ENTER();
  Cursor *cursor = nullptr;
  GDS_TRY(resolve(__func__, gds, &cursor));
  const Array &a = *cursor->array;
  GDS_REQUIRE(a.blocks != nullptr, GDS_STATUS_INVALID,
              "the array was made by GDS_create; its layout is the application's mapping");
  GDS_REQUIRE(rank >= 0 && rank < a.nprocs, GDS_STATUS_RANGE,
              "rank=%d is not in [0, %d), the array's communicator", rank, a.nprocs);
  GDS_REQUIRE(lo != nullptr, GDS_STATUS_NULL_ARGUMENT, "lo is NULL");
  GDS_REQUIRE(hi != nullptr, GDS_STATUS_NULL_ARGUMENT, "hi is NULL");
  GDS_REQUIRE(owns != nullptr, GDS_STATUS_NULL_ARGUMENT, "owns is NULL");
  *owns = a.blocks->owned_box(rank, lo, hi) ? 1 : 0;
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_locate(GDS_gds_t gds, const GDS_size_t index[], int *rank,
                                GDS_size_t *local_offset) try {
  GDS_ENTER();
  Cursor *cursor = nullptr;
  GDS_TRY(resolve(__func__, gds, &cursor));
  const Layout &layout = *cursor->array->layout;
  GDS_TRY(check_index(__func__, layout, index, "index"));
  GDS_REQUIRE(rank != nullptr, GDS_STATUS_NULL_ARGUMENT, "rank is NULL");
  GDS_REQUIRE(local_offset != nullptr, GDS_STATUS_NULL_ARGUMENT, "local_offset is NULL");
  return layout.locate(__func__, index, rank, local_offset);
} GDS_API_CATCH

}  // extern "C"
