/// \file array.hpp
/// \brief gds::array<T>: a typed, move-only handle to a distributed array.
#ifndef GDS_CXX_ARRAY_HPP
#define GDS_CXX_ARRAY_HPP

#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../gds.h"
#include "box.hpp"
#include "error.hpp"
#include "resilience.hpp"
#include "types.hpp"

namespace gds {

/// Storage order of a multi-dimensional array (GDS_ORDER_KEY).
enum class order { row_major, col_major };
/// Priority of an array, passed to GDS_alloc() and GDS_create().
enum class priority { high = GDS_PRIORITY_HIGH, medium = GDS_PRIORITY_MEDIUM, low = GDS_PRIORITY_LOW };
/// What GDS_access() returns: the array's own memory, a copy, or either.
enum class access_mode {
  direct = GDS_ACCESS_BUFFER_DIRECT,
  copy = GDS_ACCESS_BUFFER_COPY,
  any = GDS_ACCESS_BUFFER_ANY,
};

/// How to make an array: see GDS_alloc() and GDS_create().
struct options {
  std::vector<index_t> min_chunks{};  ///< GDS_alloc only; empty = no minimum
  /// Row- or column-major.
  order storage = order::row_major;
  /// The array's priority.
  priority resilience = priority::high;
  GDS_comm_t comm = MPI_COMM_NULL;  ///< MPI_COMM_NULL = GDS_COMM_WORLD
  /// More info keys and values, e.g. {GDS_NAME_KEY, "x"}, {GDS_PREFIX_KEY, "/scratch/run"}
  std::vector<std::pair<std::string, std::string>> info{};
};

/// Where an element lives.
struct location {
  /// The owner's rank in the array's communicator.
  int rank;
  index_t offset;  ///< in elements, in the owner's local buffer
};

namespace detail {

/// An MPI_Info carrying GDS_ORDER_KEY and the options' info keys, freed on scope exit.
class order_info {
 public:
  explicit order_info(const options &opt) {
    MPI_Info_create(&info_);
    MPI_Info_set(info_, GDS_ORDER_KEY, opt.storage == order::row_major ? GDS_ORDER_ROW_MAJOR : GDS_ORDER_COL_MAJOR);
    for (const auto &[key, value] : opt.info) MPI_Info_set(info_, key.c_str(), value.c_str());
  }
  ~order_info() { MPI_Info_free(&info_); }
  order_info(const order_info &) = delete;
  order_info &operator=(const order_info &) = delete;
  [[nodiscard]] MPI_Info get() const noexcept { return info_; }

 private:
  MPI_Info info_ = MPI_INFO_NULL;
};

/// A GDS_create mapping made of C++ callables; the array owns it.
struct mapping {
  std::function<location(std::span<const index_t>)> to_local;
  std::function<void(index_t, std::span<index_t>)> to_global;
  std::size_t ndims;

  static GDS_status_t g2l(const GDS_size_t global[], int *rank, GDS_size_t *offset, void *self) noexcept {
    try {
      auto *m = static_cast<mapping *>(self);
      const location where = m->to_local(std::span<const index_t>(global, m->ndims));
      *rank = where.rank;
      *offset = where.offset;
      return GDS_STATUS_OK;
    } catch (...) {
      return GDS_STATUS_INVALID_MAPPING;
    }
  }
  static GDS_status_t l2g(GDS_size_t offset, GDS_size_t global[], void *self) noexcept {
    try {
      auto *m = static_cast<mapping *>(self);
      m->to_global(offset, std::span<index_t>(global, m->ndims));
      return GDS_STATUS_OK;
    } catch (...) {
      return GDS_STATUS_INVALID_MAPPING;
    }
  }
};

}  // namespace detail

template <element T>
class local_access;

/// A distributed array of T. Move-only; destroying a valid array frees it,
/// which is collective over its communicator (as is every constructor) —
/// except for handles made by clone(), whose destruction is local.
template <element T>
class array {
 public:
  /// The element type.
  using value_type = T;

  /// An empty handle.
  array() noexcept = default;

  /// GDS_alloc(): `count` elements along each dimension, block-distributed.
  [[nodiscard]] static array alloc(std::vector<index_t> count, const options &opt = {}) {
    detail::order_info info(opt);
    array a;
    a.order_ = opt.storage;
    detail::check(GDS_alloc(count.size(), count.data(), opt.min_chunks.empty() ? nullptr : opt.min_chunks.data(),
                            datatype_traits<T>::type(), static_cast<GDS_priority_t>(opt.resilience),
                            comm_of(opt), info.get(), &a.handle_));
    return a;
  }

  /// GDS_create(): the calling process's elements are `local`; `to_local`
  /// maps a global index to a location, `to_global` a local offset back.
  template <class ToLocal, class ToGlobal>
  [[nodiscard]] static array create(std::vector<index_t> count, std::span<T> local, ToLocal to_local,
                                    ToGlobal to_global, const options &opt = {}) {
    detail::order_info info(opt);
    array a;
    a.order_ = opt.storage;
    a.mapping_ = std::make_unique<detail::mapping>(
        detail::mapping{std::move(to_local), std::move(to_global), count.size()});
    detail::check(GDS_create_with_context(count.size(), count.data(), datatype_traits<T>::type(),
                                          &detail::mapping::g2l, &detail::mapping::l2g, a.mapping_.get(),
                                          local.empty() ? nullptr : local.data(), local.size(),
                                          static_cast<GDS_priority_t>(opt.resilience), comm_of(opt),
                                          info.get(), &a.handle_));
    return a;
  }

  /// GDS_create() without mapping functions: the array is laid out as alloc()
  /// lays it out (blocks over a process grid, in `opt.storage` order) and
  /// `local` is this process's block in that order: for a 1-D array of N
  /// elements per process, local[k] is global index rank * N + k. `local`
  /// holds at least the block (GDS_STATUS_INVALID_COUNT otherwise; a longer
  /// span's tail is not the array's) and stays the program's: GDS never
  /// frees it, and never reads or writes it once the last operation on the
  /// array completed, so it may be freed before the array's destructor runs
  /// (see free()). `opt.min_chunks` is not for create (GDS_STATUS_INVALID).
  [[nodiscard]] static array create(std::vector<index_t> count, std::span<T> local, const options &opt = {}) {
    if (!opt.min_chunks.empty())
      detail::raise(GDS_STATUS_INVALID, "gds::array::create: options::min_chunks is for alloc(); create() lays the "
                                        "array out as alloc() does without it");
    detail::order_info info(opt);
    array a;
    a.order_ = opt.storage;
    detail::check(GDS_create_with_context(count.size(), count.data(), datatype_traits<T>::type(), nullptr, nullptr,
                                          nullptr, local.empty() ? nullptr : local.data(), local.size(),
                                          static_cast<GDS_priority_t>(opt.resilience), comm_of(opt), info.get(),
                                          &a.handle_));
    return a;
  }

  array(const array &) = delete;
  array &operator=(const array &) = delete;
  /// Takes over `other`'s array; `other` becomes empty.
  array(array &&other) noexcept
      : handle_(std::exchange(other.handle_, GDS_NULL)), mapping_(std::move(other.mapping_)), order_(other.order_) {}
  /// Frees this array (collective) and takes over `other`'s.
  array &operator=(array &&other) noexcept {
    if (this != &other) {
      release_quietly();
      handle_ = std::exchange(other.handle_, GDS_NULL);
      mapping_ = std::move(other.mapping_);
      order_ = other.order_;
    }
    return *this;
  }
  /// Frees the array (collective). A failure is printed by GDS, not thrown.
  /// For a create() array the destructor never touches the program's buffer:
  /// a buffer freed first (a `delete[]` before the array's scope ends) is
  /// safe once no process accesses the array any more (after a fence() or
  /// another collective that follows the last put, get or access).
  ~array() { release_quietly(); }

  /// Frees the array now (collective), throwing on failure.
  void free() {
    if (handle_ != GDS_NULL) detail::check(GDS_free(&handle_));
    mapping_.reset();
  }

  /// The C handle, for calls the wrappers lack.
  [[nodiscard]] GDS_gds_t native_handle() const noexcept { return handle_; }
  /// Whether the handle holds an array.
  [[nodiscard]] explicit operator bool() const noexcept { return handle_ != GDS_NULL; }

  /// Number of dimensions (local).
  [[nodiscard]] std::size_t ndims() const {
    GDS_size_t n = 0;
    int flag = 0;
    detail::check(GDS_get_attr(handle_, GDS_NUMBER_DIMENSIONS, &n, &flag));
    return static_cast<std::size_t>(n);
  }
  /// Extent of every dimension (local).
  [[nodiscard]] std::vector<index_t> count() const { return sizes(GDS_COUNT).value(); }
  /// GDS_alloc arrays: the process grid (GDS_GLOBAL_LAYOUT); empty for GDS_create arrays.
  [[nodiscard]] std::vector<index_t> process_grid() const { return sizes(GDS_GLOBAL_LAYOUT).value_or(std::vector<index_t>{}); }
  /// GDS_alloc arrays: the largest block extents (GDS_CHUNK_SIZE); empty for GDS_create arrays.
  [[nodiscard]] std::vector<index_t> chunk_size() const { return sizes(GDS_CHUNK_SIZE).value_or(std::vector<index_t>{}); }
  /// GDS_alloc arrays: the box `rank` owns, if any.
  [[nodiscard]] std::optional<box> distribution(int rank) const {
    const std::size_t n = ndims();
    box b{std::vector<index_t>(n), std::vector<index_t>(n)};
    int owns = 0;
    detail::check(GDS_distribution(handle_, rank, b.lo.data(), b.hi.data(), &owns));
    if (!owns) return std::nullopt;
    return b;
  }
  /// Where an element lives: its owner and offset (GDS_locate(), local).
  [[nodiscard]] location locate(std::span<const index_t> index) const {
    check_dims(index.size(), "index");
    location where{};
    detail::check(GDS_locate(handle_, index.data(), &where.rank, &where.offset));
    return where;
  }

  /// Writes box `b` from `src` (laid out in the array's order, leading
  /// dimensions `ld` as in gds_access.h; empty = dense). Nonblocking: keep
  /// `src` unchanged until wait().
  void put(std::span<const T> src, const box &b, std::span<const index_t> ld = {}) {
    check_buffer(src.size(), b, ld, "put: source");
    detail::check(GDS_put(src.data(), ld_ptr(ld), b.lo.data(), b.hi.data(), handle_));
  }
  /// Reads box `b` into `dst`. Nonblocking: valid after wait().
  void get(std::span<T> dst, const box &b, std::span<const index_t> ld = {}) const {
    check_buffer(dst.size(), b, ld, "get: destination");
    detail::check(GDS_get(dst.data(), ld_ptr(ld), b.lo.data(), b.hi.data(), handle_));
  }
  /// Combines `src` into box `b` with `op` (MPI_SUM, ...). Nonblocking.
  void acc(std::span<const T> src, const box &b, GDS_op_t op = MPI_SUM, std::span<const index_t> ld = {}) {
    check_buffer(src.size(), b, ld, "acc: source");
    detail::check(GDS_acc(src.data(), ld_ptr(ld), b.lo.data(), b.hi.data(), op, handle_));
  }
  /// Accumulates `src` and returns the previous content in `result`. Nonblocking.
  void get_acc(std::span<const T> src, std::span<T> result, const box &b, GDS_op_t op = MPI_SUM,
               std::span<const index_t> src_ld = {}, std::span<const index_t> result_ld = {}) {
    if (op != MPI_NO_OP) check_buffer(src.size(), b, src_ld, "get_acc: source");
    check_buffer(result.size(), b, result_ld, "get_acc: result");
    detail::check(GDS_get_acc(src.empty() ? nullptr : src.data(), ld_ptr(src_ld), result.data(),
                              ld_ptr(result_ld), b.lo.data(), b.hi.data(), op, handle_));
  }
  /// Compare-and-swap of the element at `at`; the previous value goes to `result`. Nonblocking:
  /// the three objects must be distinct and stay alive until wait() or fence().
  void compare_and_swap(const T &compare, const T &swap, T &result, std::span<const index_t> at) {
    check_dims(at.size(), "index");
    detail::check(GDS_compare_and_swap(&compare, &swap, &result, at.data(), handle_));
  }
  /// Blocking fetch-and-op on one element: returns its value before `op`.
  [[nodiscard]] T fetch_and_op(std::span<const index_t> at, const T &operand, GDS_op_t op = MPI_SUM) {
    check_dims(at.size(), "index");
    T old{};
    detail::check(GDS_get_acc(&operand, nullptr, &old, nullptr, at.data(), at.data(), op, handle_));
    wait();
    return old;
  }

  /// Local completion of this process's operations (GDS_wait).
  void wait() { detail::check(GDS_wait(handle_)); }
  /// Completion of this process's operations on its own part (GDS_wait_local).
  void wait_local() { detail::check(GDS_wait_local(handle_)); }
  /// Collective synchronization (GDS_fence).
  void fence() { detail::check(GDS_fence(handle_)); }

  // ---- versions ----------------------------------------------------------------------

  /// Whether to make a version now (GDS_need_version()): call once per
  /// step, version when true; the same answer on every process.
  [[nodiscard]] bool need_version() {
    int flag = 0;
    detail::check(GDS_need_version(handle_, &flag));
    return flag != 0;
  }
  /// Freezes the current content as a version and advances the current
  /// number by `increment`; `label` goes to the new current version (collective).
  void version_inc(std::string_view label = {}, index_t increment = 1) {
    detail::check(GDS_version_inc(handle_, increment, label.data(), label.size()));
  }
  /// The version this handle points at.
  [[nodiscard]] index_t version() const {
    GDS_size_t v = 0;
    detail::check(GDS_get_version_number(handle_, &v));
    return v;
  }
  /// The label of the version this handle points at.
  [[nodiscard]] std::string version_label() const {
    char *text = nullptr;
    size_t size = 0;
    detail::check(GDS_get_version_label(handle_, &text, &size));
    return std::string(text, size);
  }
  /// What the version this handle points at holds: its successor's label (GDS_get_version_holds()).
  [[nodiscard]] std::string version_holds() const {
    char *text = nullptr;
    size_t size = 0;
    detail::check(GDS_get_version_holds(handle_, &text, &size));
    return std::string(text, size);
  }
  /// Moves the handle to the newest version (local; GDS_move_to_newest()).
  void move_to_newest() { detail::check(GDS_move_to_newest(handle_)); }
  /// Moves the handle to the next newer version (local; GDS_move_to_next()).
  void move_to_next() { detail::check(GDS_move_to_next(handle_)); }
  /// Moves the handle to the next older version (local; GDS_move_to_prev()).
  void move_to_prev() { detail::check(GDS_move_to_prev(handle_)); }
  /// Moves the handle `dec` version numbers back.
  void version_dec(index_t dec) { detail::check(GDS_version_dec(handle_, dec)); }
  /// Another handle on this array at this version, moving on its own; freeing
  /// it (its destructor) is local.
  [[nodiscard]] array clone() const {
    array c;
    detail::check(GDS_descriptor_clone(handle_, &c.handle_));
    c.order_ = order_;
    return c;
  }
  /// Rolls the current content back to retained version `v` (collective).
  void restore(index_t v) { detail::check(GDS_version_restore(handle_, v)); }
  /// Checks retained version `v` against the checksums taken when it was
  /// made, all of it (collective). A damaged block is raised through Open
  /// Resilience on its owner; every process then throws gds::error with
  /// GDS_STATUS_CORRUPT.
  void verify(index_t v) { detail::check(GDS_version_verify(handle_, v, nullptr, nullptr)); }
  /// As verify(v), for the blocks holding box `b` only.
  void verify(index_t v, const box &b) {
    check_dims(b.ndims(), "box");
    detail::check(GDS_version_verify(handle_, v, b.lo.data(), b.hi.data()));
  }
  /// What the array's creation found of its persisted versions: whether it
  /// restarted, from which version, and what was rebuilt.
  [[nodiscard]] GDS_restart_info_t restart_info() const {
    GDS_restart_info_t info{};
    detail::check(GDS_get_restart_info(handle_, &info));
    return info;
  }
  /// Waits for the array's flushes to the prefix (collective); throws the
  /// status of the first that failed since the last call.
  void flush_wait() { detail::check(GDS_flush_wait(handle_)); }
  /// Completes the array's cached versions written in the background
  /// (collective); throws if one failed since the last call.
  void cache_wait() { detail::check(GDS_cache_wait(handle_)); }
  /// What the versions hold on this process.
  [[nodiscard]] GDS_version_stats_t version_stats() const {
    GDS_version_stats_t s{};
    detail::check(GDS_get_version_stats(handle_, &s));
    return s;
  }

  // ---- Open Resilience (see resilience.hpp; the C API for GDS_ROOT) -------------------

  /// Handles local errors `p` fits with f(gds::raised_error&). Local.
  template <class F>
  void on_local_error(const predicate &p, F &&f) {
    gds::on_local_error(handle_, p, std::forward<F>(f));
  }
  /// Handles global errors `p` fits with f(gds::raised_error&). Collective.
  template <class F>
  void on_global_error(const predicate &p, F &&f) {
    gds::on_global_error(handle_, p, std::forward<F>(f));
  }
  /// A local check f(GDS_gds_t, GDS_priority_t). Local.
  template <class F>
  void add_local_check(F &&f, GDS_priority_t p = GDS_PRIORITY_HIGH) {
    gds::add_local_check(handle_, std::forward<F>(f), p);
  }
  /// A global check f(GDS_gds_t, GDS_priority_t). Collective.
  template <class F>
  void add_global_check(F &&f, GDS_priority_t p = GDS_PRIORITY_HIGH) {
    gds::add_global_check(handle_, std::forward<F>(f), p);
  }
  /// Raises a local error on this array (GDS_raise_local_error()); delivered at this process's next call on it.
  void raise_local(error_descriptor &&e) { gds::raise_local(handle_, std::move(e)); }
  /// Raises a global error on this array (GDS_raise_global_error()); delivered at the next stable point.
  void raise_global(error_descriptor &&e) { gds::raise_global(handle_, std::move(e)); }
  /// Runs every check and delivers what they find (collective).
  void check_all_errors() { gds::check_all_errors(handle_); }
  /// Whether the local checks find an error at this handle's version (nothing is queued).
  [[nodiscard]] bool local_error_found() const { return gds::local_error_found(handle_); }
  /// Whether the global checks do (collective).
  [[nodiscard]] bool global_error_found() const { return gds::global_error_found(handle_); }
  /// Delivers this process's pending local errors now (GDS_invoke_local_error_handler()).
  void invoke_local_error_handler() { gds::invoke_local_error_handler(handle_); }
  /// A stable point: completes every operation and delivers global errors (collective).
  void invoke_global_error_handler() { gds::invoke_global_error_handler(handle_); }

  /// Opens box `b` for loads and stores (GDS_access); released when the result is destroyed.
  [[nodiscard]] local_access<T> access(const box &b, access_mode mode = access_mode::any) {
    check_dims(b.ndims(), "box");
    return local_access<T>(*this, b, mode);
  }

 private:
  static GDS_comm_t comm_of(const options &opt) { return opt.comm == MPI_COMM_NULL ? GDS_COMM_WORLD : opt.comm; }
  static const index_t *ld_ptr(std::span<const index_t> ld) { return ld.empty() ? nullptr : ld.data(); }

  void release_quietly() noexcept {
    if (handle_ != GDS_NULL) static_cast<void>(GDS_free(&handle_));
    handle_ = GDS_NULL;
    mapping_.reset();
  }

  [[nodiscard]] std::optional<std::vector<index_t>> sizes(GDS_attr_t key) const {
    std::vector<index_t> v(ndims());
    int flag = 0;
    detail::check(GDS_get_attr(handle_, key, v.data(), &flag));
    if (!flag) return std::nullopt;
    return v;
  }

  void check_dims(std::size_t n, const char *what) const {
    if (n != ndims())
      detail::raise(GDS_STATUS_INVALID_NDIMS, "gds::array: " + std::string(what) + " has " + std::to_string(n) +
                                                  " dimensions, the array " + std::to_string(ndims()));
  }

  // The buffer must reach the box's last element at the given leading dimensions.
  void check_buffer(std::size_t elements, const box &b, std::span<const index_t> ld, const char *what) const {
    const std::size_t n = b.ndims();
    check_dims(n, "box");
    if (!ld.empty() && ld.size() + 1 != n)
      detail::raise(GDS_STATUS_INVALID_LD, "gds::array: ld needs " + std::to_string(n - 1) + " values");
    for (std::size_t d = 0; d < n; ++d)
      if (b.lo[d] > b.hi[d]) return;  // GDS reports the box itself
    std::vector<index_t> lds(n > 0 ? n - 1 : 0);
    const bool row = order_ == order::row_major;
    for (std::size_t d = 0; d + 1 < n; ++d) {
      const index_t ext = b.extent(row ? d + 1 : d);
      lds[d] = ld.empty() || ld[d] == 0 ? ext : ld[d];
    }
    // Last element's offset: sum over dimensions of (extent - 1) * stride.
    index_t last = 0, stride = 1;
    for (std::size_t k = n; k-- > 0;) {
      const std::size_t d = row ? k : n - 1 - k;
      last += (b.extent(d) - 1) * stride;
      if (k > 0) stride *= lds[row ? d - 1 : d];
    }
    if (elements < last + 1)
      detail::raise(GDS_STATUS_INVALID, "gds::array::" + std::string(what) + " holds " + std::to_string(elements) +
                                            " elements; the box needs " + std::to_string(last + 1));
  }

  GDS_gds_t handle_ = GDS_NULL;
  std::unique_ptr<detail::mapping> mapping_;  // GDS_create arrays: the callables GDS calls
  order order_ = order::row_major;            // as constructed; it shapes every buffer

  friend class local_access<T>;
};

/// An open region of an array (GDS_access), released on destruction.
template <element T>
class local_access {
 public:
  local_access(const local_access &) = delete;
  local_access &operator=(const local_access &) = delete;
  /// Takes over `other`'s open region; `other` releases nothing.
  local_access(local_access &&other) noexcept
      : handle_(std::exchange(other.handle_, GDS_ACCESS_HANDLE_NULL)), data_(other.data_), ld_(std::move(other.ld_)),
        direct_(other.direct_) {}
  local_access &operator=(local_access &&) = delete;
  /// Releases the region; a failure is printed by GDS, not thrown.
  ~local_access() {
    if (handle_ != GDS_ACCESS_HANDLE_NULL) static_cast<void>(GDS_release(&handle_));
  }

  /// Releases now, throwing on failure (COPY: writes the copy back).
  void release() {
    if (handle_ != GDS_ACCESS_HANDLE_NULL) detail::check(GDS_release(&handle_));
  }

  /// The buffer: element lo of the box, then on with the leading dimensions ld().
  [[nodiscard]] T *data() const noexcept { return data_; }
  /// Leading dimensions of data() (ndims-1 values, as for put and get).
  [[nodiscard]] const std::vector<index_t> &ld() const noexcept { return ld_; }
  /// Whether data() is the array's own memory (else a copy).
  [[nodiscard]] bool direct() const noexcept { return direct_; }

 private:
  friend class array<T>;
  local_access(array<T> &a, const box &b, access_mode mode) {
    void *buffer = nullptr;
    detail::check(GDS_access(a.handle_, b.lo.data(), b.hi.data(), static_cast<GDS_access_buffer_t>(mode), &buffer,
                             &handle_));
    data_ = static_cast<T *>(buffer);
    ld_.resize(b.ndims() > 0 ? b.ndims() - 1 : 0);
    GDS_access_buffer_t kind = GDS_ACCESS_BUFFER_COPY;
    detail::check(GDS_get_access_buffer_type(handle_, &kind));
    detail::check(GDS_get_access_buffer_ld(handle_, ld_.data()));
    direct_ = kind == GDS_ACCESS_BUFFER_DIRECT;
  }

  GDS_access_handle_t handle_ = GDS_ACCESS_HANDLE_NULL;
  T *data_ = nullptr;
  std::vector<index_t> ld_;
  bool direct_ = false;
};

}  // namespace gds

#endif  // GDS_CXX_ARRAY_HPP
