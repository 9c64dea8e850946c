// GDS_alloc, GDS_create, GDS_free, GDS_get_attr, GDS_get_comm and the layout queries.
#include "core/array.hpp"

#include <algorithm>
#include <cstring>

#include "core/check.hpp"
#include "core/collective.hpp"
#include "core/log.hpp"
#include "core/mpi_args.hpp"
#include "core/runtime.hpp"
#include "gds_array.h"
#include "errors/registry.hpp"
#include "versions/store.hpp"

namespace gds::core {

HandleTable<Cursor> g_arrays{HandleKind::array};
HandleTable<OpenAccess> g_accesses{HandleKind::access};

ArrayObject::ArrayObject() = default;
ArrayObject::~ArrayObject() = default;

namespace {

std::map<std::uint64_t, std::unique_ptr<ArrayObject>> g_registry;
std::uint64_t g_next_id = 1;

unsigned long long ull(Index v) { return static_cast<unsigned long long>(v); }

// Arguments common to GDS_alloc and GDS_create, checked on this process.
struct Shape {
  Dims count;
  const ElementType *type = nullptr;
  Order order = Order::row_major;
  unsigned block_shift = 14;  // versions: log2 of the block size
  versions::Retention retention;
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
  Hints hints;
  GDS_TRY(read_hints(func, info, &hints));
  shape->order = language_default;
  if (hints.order) {
    const std::string &v = *hints.order;
    if (v == GDS_ORDER_ROW_MAJOR) shape->order = Order::row_major;
    else if (v == GDS_ORDER_COL_MAJOR) shape->order = Order::col_major;
    else if (v != GDS_ORDER_DEFAULT)
      return fail(GDS_STATUS_INVALID_INFO, func, "info: %s=\"%s\" is not \"%s\", \"%s\" or \"%s\"",
                  GDS_ORDER_KEY, v.c_str(), GDS_ORDER_DEFAULT, GDS_ORDER_ROW_MAJOR,
                  GDS_ORDER_COL_MAJOR);
  }
  const Config &config = g_rt.config;
  const std::uint64_t block = hints.block_size.value_or(config.version_block_size);
  GDS_CHECK(valid_block_size(block), GDS_STATUS_INVALID_INFO,
            "info: %s=%llu is not a power of two from 64 to 67108864", GDS_VERSION_BLOCK_SIZE_KEY, ull(block));
  shape->block_shift = static_cast<unsigned>(__builtin_ctzll(block));
  shape->retention.max_versions = hints.max_versions.value_or(config.max_versions);
  shape->retention.max_bytes = hints.max_version_bytes.value_or(config.max_version_bytes);
  shape->count.assign(count, count + ndims);
  return GDS_STATUS_OK;
}

Signature shape_signature(const Shape &shape) {
  Signature sig;
  sig.add(shape.count.size());
  for (Index c : shape.count) sig.add(c);
  sig.add(shape.type->mpi).add(shape.order).add(shape.block_shift);
  sig.add(shape.retention.max_versions).add(shape.retention.max_bytes);
  return sig;
}

// Versions need every process's blocks numbered in 32 bits. `largest` is the
// largest part any process holds, the same on every process.
GDS_status_t check_blocks(const char *func, const Shape &shape, Index largest) {
  GDS_CHECK(((largest * shape.type->extent) >> shape.block_shift) < (Index{1} << 32), GDS_STATUS_INVALID_COUNT,
            "a process's part (%llu bytes) has 2^32 or more version blocks of %llu bytes; set a larger %s",
            ull(largest * shape.type->extent), ull(Index{1} << shape.block_shift), GDS_VERSION_BLOCK_SIZE_KEY);
  return GDS_STATUS_OK;
}

// Sets up versions for a built array: the store and the change tracker
// (GDS_create arrays are compared instead: the application writes their memory).
void attach_versions(ArrayObject *a, const Shape &shape) {
  a->store = std::make_unique<versions::Store>(a->comm, a->rank, shape.block_shift,
                                               a->local_count * a->type->extent, shape.retention);
  a->tracker.configure(shape.block_shift, a->blocks != nullptr);
}

// Takes ownership of a fully built array and returns its primary handle.
GDS_gds_t register_array(std::unique_ptr<ArrayObject> array) {
  ArrayObject *a = array.get();
  a->id = g_next_id++;
  a->primary = g_arrays.insert(std::make_unique<Cursor>(Cursor{a, true}));
  a->errors = errors::make_scope(a);
  g_registry.emplace(a->id, std::move(array));
  return to_handle<GDS_gds_t>(a->primary);
}

// Releases the MPI resources and the registry entry of an array and every handle on it.
GDS_status_t destroy(const char *func, ArrayObject *a) {
  for (std::uint64_t h : a->accesses) g_accesses.erase(h);
  for (std::uint64_t h : a->clones) g_arrays.erase(h);
  g_arrays.erase(a->primary);
  GDS_status_t s = a->store ? a->store->release(func) : GDS_STATUS_OK;
  const GDS_status_t w = a->window.free(func);
  if (s == GDS_STATUS_OK) s = w;
  MPI_Comm_free(&a->comm);
  g_registry.erase(a->id);
  return s;
}

// Duplicates `users` for the array's own traffic; errors return.
GDS_status_t make_comm(const char *func, MPI_Comm users, ArrayObject *a) {
  const int rc = MPI_Comm_dup(users, &a->comm);
  if (rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Comm_dup", rc);
  MPI_Comm_set_errhandler(a->comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(a->comm, &a->rank);
  MPI_Comm_size(a->comm, &a->nprocs);
  return GDS_STATUS_OK;
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
  GDS_status_t s = check_shape(func, ndims, count, element_type, priority, info, language_default, &shape);
  if (s == GDS_STATUS_OK && gds == nullptr) s = fail(GDS_STATUS_NULL_ARGUMENT, func, "gds is NULL");
  Signature sig;
  if (s == GDS_STATUS_OK) {
    sig = shape_signature(shape);
    for (std::size_t d = 0; d < ndims; ++d)
      sig.add(min_chunks != nullptr && min_chunks[d] > 1 ? min_chunks[d] : Index{0});
  }
  GDS_TRY(agree(func, users, s, sig.value()));

  auto a = std::make_unique<ArrayObject>();
  a->type = shape.type;
  a->priority = priority;
  GDS_TRY(make_comm(func, users, a.get()));
  Dims grid = BlockLayout::choose_grid(shape.count, min_chunks, a->nprocs, shape.order);
  auto layout = std::make_unique<BlockLayout>(shape.count, std::move(grid), shape.order);
  a->blocks = layout.get();
  a->local_lo.resize(ndims);
  a->local_ext.assign(ndims, 0);
  Dims hi(ndims);
  if (layout->owned_box(a->rank, a->local_lo.data(), hi.data()))
    for (std::size_t d = 0; d < ndims; ++d) a->local_ext[d] = hi[d] - a->local_lo[d] + 1;
  a->local_count = layout->local_volume(a->rank);
  // Block 0 (rank 0's) is the largest; every process reaches the same verdict.
  s = check_blocks(func, shape, layout->local_volume(0));
  if (s != GDS_STATUS_OK) {
    MPI_Comm_free(&a->comm);
    return s;
  }
  a->layout = std::move(layout);

  const MPI_Aint bytes = static_cast<MPI_Aint>(a->local_count * a->type->extent);
  s = a->window.allocate(func, a->comm, bytes, static_cast<int>(a->type->extent), &a->local_base);
  if (s != GDS_STATUS_OK) {
    MPI_Comm_free(&a->comm);
    return s;
  }
  if (bytes > 0) std::memset(a->local_base, 0, static_cast<std::size_t>(bytes));
  attach_versions(a.get(), shape);
  // Nobody may access the array before every process has zeroed its part.
  GDS_TRY(agree(func, a->comm, GDS_STATUS_OK));
  *gds = register_array(std::move(a));
  if (debug_level() >= 2)
    log(Level::debug, func, "allocated a %zu-dimensional array", static_cast<std::size_t>(ndims));
  return GDS_STATUS_OK;
}

GDS_status_t create_array(const char *func, GDS_size_t ndims, const GDS_size_t *count,
                         GDS_datatype_t element_type, const Mapping &mapping, void *local_buffer,
                         GDS_size_t local_buffer_count, GDS_priority_t priority, MPI_Comm users,
                         MPI_Info info, Order language_default, GDS_gds_t *gds) {
  GDS_TRY(check_comm(func, users, "users"));
  Shape shape;
  GDS_status_t s = check_shape(func, ndims, count, element_type, priority, info, language_default, &shape);
  const bool have_g2l = mapping.g2l != nullptr || mapping.g2l_ctx != nullptr;
  const bool have_l2g = mapping.l2g != nullptr || mapping.l2g_ctx != nullptr;
  if (s == GDS_STATUS_OK && !have_g2l)
    s = fail(GDS_STATUS_NULL_ARGUMENT, func, "global_to_local_func is NULL");
  if (s == GDS_STATUS_OK && !have_l2g)
    s = fail(GDS_STATUS_NULL_ARGUMENT, func, "local_to_global_func is NULL");
  if (s == GDS_STATUS_OK && local_buffer == nullptr && local_buffer_count != 0)
    s = fail(GDS_STATUS_NULL_ARGUMENT, func, "local_buffer is NULL but local_buffer_count=%llu",
             ull(local_buffer_count));
  Index bytes = 0;
  if (s == GDS_STATUS_OK &&
      (__builtin_mul_overflow(local_buffer_count, shape.type->extent, &bytes) ||
       bytes > static_cast<Index>(INT64_MAX)))
    s = fail(GDS_STATUS_INVALID_COUNT, func, "local_buffer_count=%llu overflows the address range",
             ull(local_buffer_count));
  if (s == GDS_STATUS_OK && gds == nullptr) s = fail(GDS_STATUS_NULL_ARGUMENT, func, "gds is NULL");
  GDS_TRY(agree(func, users, s, s == GDS_STATUS_OK ? shape_signature(shape).value() : 0));

  auto a = std::make_unique<ArrayObject>();
  a->type = shape.type;
  a->priority = priority;
  GDS_TRY(make_comm(func, users, a.get()));
  std::vector<Index> counts(static_cast<std::size_t>(a->nprocs));
  const Index mine = local_buffer_count;
  int rc = MPI_Allgather(&mine, 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, a->comm);
  if (rc != MPI_SUCCESS) {
    MPI_Comm_free(&a->comm);
    return mpi_fail(func, "MPI_Allgather", rc);
  }
  Index total = 0, volume = 1, largest = 0;
  for (Index c : counts) {
    total += c;
    largest = std::max(largest, c);
  }
  for (Index c : shape.count) volume *= c;
  // Every process computes the same verdict from the same counts.
  if (total < volume) {
    MPI_Comm_free(&a->comm);
    return fail(GDS_STATUS_INVALID_MAPPING, func,
                "the local buffers hold %llu elements in all, fewer than the array's %llu",
                ull(total), ull(volume));
  }
  if (const GDS_status_t b = check_blocks(func, shape, largest); b != GDS_STATUS_OK) {
    MPI_Comm_free(&a->comm);
    return b;
  }
  auto layout = std::make_unique<UserLayout>(shape.count, shape.order, mapping, std::move(counts));
  s = g_rt.config.sanity_check ? check_round_trip(func, *layout, a->rank, local_buffer_count)
                               : GDS_STATUS_OK;
  s = agree(func, a->comm, s);
  if (s != GDS_STATUS_OK) {
    MPI_Comm_free(&a->comm);
    return s;
  }
  a->user = layout.get();
  a->layout = std::move(layout);
  a->local_base = local_buffer;
  a->local_count = local_buffer_count;
  GDS_TRY(a->window.create(func, a->comm, local_buffer, static_cast<MPI_Aint>(bytes),
                           static_cast<int>(a->type->extent)));
  attach_versions(a.get(), shape);
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
              "gds is at version %llu; only the current version (%llu) can be written (GDS_move_to_newest)",
              ull(cursor.version), ull(cursor.array->current_version));
}

std::vector<ArrayObject *> arrays_in_creation_order() {
  std::vector<ArrayObject *> out;
  out.reserve(g_registry.size());
  for (auto &[id, a] : g_registry) out.push_back(a.get());
  return out;
}

GDS_status_t free_all_arrays(const char *func) {
  GDS_status_t status = GDS_STATUS_OK;
  for (ArrayObject *a : arrays_in_creation_order()) {
    if (g_rt.config.debug_level >= 1)
      log(Level::warning, func, "array #%llu was not freed; freeing it", ull(a->id));
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
                               GDS_comm_t users, GDS_info_t info, GDS_gds_t *gds) {
  GDS_ENTER();
  return alloc_array(__func__, ndims, count, min_chunks, element_type, resilience_priority, users, info,
                    Order::row_major, gds);
}

GDS_API GDS_status_t GDS_create(GDS_size_t ndims, const GDS_size_t count[], GDS_datatype_t element_type,
                                GDS_global_to_local_func_t global_to_local_func,
                                GDS_local_to_global_func_t local_to_global_func, void *local_buffer,
                                GDS_size_t local_buffer_count, GDS_priority_t resilience_priority,
                                GDS_comm_t users, GDS_info_t info, GDS_gds_t *gds) {
  GDS_ENTER();
  Mapping m;
  m.g2l = global_to_local_func;
  m.l2g = local_to_global_func;
  return create_array(__func__, ndims, count, element_type, m, local_buffer, local_buffer_count,
                     resilience_priority, users, info, Order::row_major, gds);
}

GDS_API GDS_status_t GDS_create_with_context(
    GDS_size_t ndims, const GDS_size_t count[], GDS_datatype_t element_type,
    GDS_global_to_local_ctx_func_t global_to_local_func,
    GDS_local_to_global_ctx_func_t local_to_global_func, void *context, void *local_buffer,
    GDS_size_t local_buffer_count, GDS_priority_t resilience_priority, GDS_comm_t users,
    GDS_info_t info, GDS_gds_t *gds) {
  GDS_ENTER();
  Mapping m;
  m.g2l_ctx = global_to_local_func;
  m.l2g_ctx = local_to_global_func;
  m.context = context;
  return create_array(__func__, ndims, count, element_type, m, local_buffer, local_buffer_count,
                     resilience_priority, users, info, Order::row_major, gds);
}

GDS_API GDS_status_t GDS_free(GDS_gds_t *gds) {
  GDS_ENTER();
  GDS_REQUIRE(gds != nullptr, GDS_STATUS_NULL_ARGUMENT, "gds is NULL");
  Cursor *cursor = nullptr;
  GDS_status_t s = GDS_STATUS_OK;
  GDS_TRY(resolve_collective(__func__, *gds, &cursor, &s));
  ArrayObject *a = cursor->array;
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
  GDS_REQUIRE(!gds::errors::handling(a), GDS_STATUS_INVALID,
              "an error raised on the array is being handled; free the array afterwards");
  if (s == GDS_STATUS_OK && !a->accesses.empty())
    s = fail(GDS_STATUS_ACCESS_CONFLICT, __func__,
             "%zu region(s) of the array are still open by GDS_access; call GDS_release first",
             a->accesses.size());
  // Complete everything first, so a failure is agreed on before the
  // collective MPI_Win_free, which must then be called by everyone.
  if (s == GDS_STATUS_OK) s = a->window.flush_all(__func__);
  GDS_TRY(agree(__func__, a->comm, s));
  GDS_TRY(destroy(__func__, a));
  *gds = GDS_NULL;
  return GDS_STATUS_OK;
}

GDS_API GDS_status_t GDS_get_attr(GDS_gds_t gds, GDS_attr_t attribute_key, void *attribute_value,
                                  int *flag) {
  GDS_ENTER();
  Cursor *cursor = nullptr;
  GDS_TRY(resolve(__func__, gds, &cursor));
  GDS_REQUIRE(attribute_value != nullptr, GDS_STATUS_NULL_ARGUMENT, "attribute_value is NULL");
  GDS_REQUIRE(flag != nullptr, GDS_STATUS_NULL_ARGUMENT, "flag is NULL");
  const ArrayObject &a = *cursor->array;
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
}

GDS_API GDS_status_t GDS_get_comm(GDS_gds_t gds, GDS_comm_t *comm) {
  GDS_ENTER();
  Cursor *cursor = nullptr;
  GDS_status_t delivered = GDS_STATUS_OK;
  GDS_TRY(resolve_collective(__func__, gds, &cursor, &delivered));
  GDS_REQUIRE(comm != nullptr, GDS_STATUS_NULL_ARGUMENT, "comm is NULL");
  GDS_MPI(MPI_Comm_dup(cursor->array->comm, comm));  // collective: even if a delivery failed
  if (delivered != GDS_STATUS_OK) MPI_Comm_free(comm);
  return delivered;
}

GDS_API GDS_status_t GDS_distribution(GDS_gds_t gds, int rank, GDS_size_t lo[], GDS_size_t hi[],
                                      int *owns) {
  GDS_ENTER();
  Cursor *cursor = nullptr;
  GDS_TRY(resolve(__func__, gds, &cursor));
  const ArrayObject &a = *cursor->array;
  GDS_REQUIRE(a.blocks != nullptr, GDS_STATUS_INVALID,
              "the array was made by GDS_create; its layout is the application's mapping");
  GDS_REQUIRE(rank >= 0 && rank < a.nprocs, GDS_STATUS_RANGE,
              "rank=%d is not in [0, %d), the array's communicator", rank, a.nprocs);
  GDS_REQUIRE(lo != nullptr, GDS_STATUS_NULL_ARGUMENT, "lo is NULL");
  GDS_REQUIRE(hi != nullptr, GDS_STATUS_NULL_ARGUMENT, "hi is NULL");
  GDS_REQUIRE(owns != nullptr, GDS_STATUS_NULL_ARGUMENT, "owns is NULL");
  *owns = a.blocks->owned_box(rank, lo, hi) ? 1 : 0;
  return GDS_STATUS_OK;
}

GDS_API GDS_status_t GDS_locate(GDS_gds_t gds, const GDS_size_t index[], int *rank,
                                GDS_size_t *local_offset) {
  GDS_ENTER();
  Cursor *cursor = nullptr;
  GDS_TRY(resolve(__func__, gds, &cursor));
  const Layout &layout = *cursor->array->layout;
  GDS_TRY(check_index(__func__, layout, index, "index"));
  GDS_REQUIRE(rank != nullptr, GDS_STATUS_NULL_ARGUMENT, "rank is NULL");
  GDS_REQUIRE(local_offset != nullptr, GDS_STATUS_NULL_ARGUMENT, "local_offset is NULL");
  return layout.locate(__func__, index, rank, local_offset);
}

}  // extern "C"
