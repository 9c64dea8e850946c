// Arrays: GDS_alloc/GDS_create over NumPy buffers, attributes, one-sided
// access, completion, and GDS_access as a NumPy view of GDS's own memory.
#include <vector>

#include "bridge.hpp"

namespace gds::python {

namespace {

using index_vector = std::vector<GDS_size_t>;

GDS_gds_t H(std::uintptr_t h) { return to_handle<GDS_gds_t>(h); }

std::size_t ndims_of(GDS_gds_t g) {
  GDS_size_t n = 0;
  int flag = 0;
  check(GDS_get_attr(g, GDS_NUMBER_DIMENSIONS, &n, &flag));
  return static_cast<std::size_t>(n);
}

// An MPI_Info with the keys Python passes (already "gds_"-prefixed), freed on scope exit.
class info_object {
 public:
  explicit info_object(const py::dict &keys) {
    MPI_Info_create(&info_);
    for (const auto &[k, v] : keys) MPI_Info_set(info_, py::str(k).cast<std::string>().c_str(), py::str(v).cast<std::string>().c_str());
  }
  ~info_object() { MPI_Info_free(&info_); }
  info_object(const info_object &) = delete;
  info_object &operator=(const info_object &) = delete;
  [[nodiscard]] MPI_Info get() const noexcept { return info_; }

 private:
  MPI_Info info_ = MPI_INFO_NULL;
};

// lo and hi of the array's rank, or InvalidNdimsError naming the function.
void check_box(GDS_gds_t g, const index_vector &lo, const index_vector &hi, const char *fn) {
  const std::size_t n = ndims_of(g);
  if (lo.size() != n || hi.size() != n)
    raise_status(GDS_STATUS_INVALID_NDIMS, std::string(fn) + ": the box has " + std::to_string(lo.size()) + " and " +
                                               std::to_string(hi.size()) + " indices, the array " + std::to_string(n) +
                                               " dimensions");
}

// A NumPy buffer fit for box [lo, hi] of the array: its element type, dense in
// the array's order, exactly the box's size. Returns its data pointer.
void *buffer_for(GDS_gds_t g, const py::array &buf, const index_vector &lo, const index_vector &hi, bool fortran,
                 bool writable, const char *fn) {
  GDS_datatype_t type = MPI_DATATYPE_NULL;
  int flag = 0;
  check(GDS_get_attr(g, GDS_TYPE, &type, &flag));
  if (datatype_of(buf.dtype()) != type)
    raise_status(GDS_STATUS_INVALID_TYPE, std::string(fn) + ": the buffer's dtype " +
                                              std::string(py::str(py::handle(buf.dtype()))) + " is not the array's element type");
  const int dense = fortran ? py::array::f_style : py::array::c_style;
  if (!(buf.flags() & dense))
    raise_status(GDS_STATUS_INVALID_LD, std::string(fn) + ": the buffer is not dense in the array's order");
  if (writable && !buf.writeable()) raise_status(GDS_STATUS_INVALID, std::string(fn) + ": the buffer is read-only");
  GDS_size_t elements = 1;
  for (std::size_t d = 0; d < lo.size(); ++d) elements *= hi[d] >= lo[d] ? hi[d] - lo[d] + 1 : 0;
  if (elements != 0 && static_cast<GDS_size_t>(buf.size()) != elements)
    raise_status(GDS_STATUS_INVALID_COUNT, std::string(fn) + ": the buffer holds " + std::to_string(buf.size()) +
                                               " elements, the box " + std::to_string(elements));
  return const_cast<void *>(buf.data());
}

index_vector sizes(GDS_gds_t g, GDS_attr_t key, bool &present) {
  index_vector v(ndims_of(g));
  int flag = 0;
  check(GDS_get_attr(g, key, v.data(), &flag));
  present = flag != 0;
  return v;
}

// Meets the other processes of a GDS_alloc that this process cannot make: GDS
// refuses zero dimensions on every process after agreeing (they get REMOTE_ERROR).
void fail_collectively(GDS_comm_t comm) {
  GDS_gds_t g = GDS_NULL;
  const GDS_size_t one = 1;
  static_cast<void>(GDS_alloc(0, &one, nullptr, MPI_DOUBLE, GDS_PRIORITY_HIGH, comm, MPI_INFO_NULL, &g));
}

void bind_making(py::module_ &m) {
  m.def("fail_collectively", [](py::handle comm) { fail_collectively(comm_of(comm)); });
  m.def("alloc", [](const index_vector &count, py::object min_chunks, const py::dtype &dt, int priority, py::handle comm,
                    const py::dict &info) {
    const GDS_comm_t c = comm_of(comm);
    info_object i(info);
    GDS_datatype_t type = MPI_DATATYPE_NULL;
    index_vector chunks;
    // An argument refused here still meets the other processes in GDS_alloc (with no
    // dimensions, which it refuses collectively), so they fail too instead of waiting.
    try {
      type = datatype_of(dt);
      chunks = min_chunks.is_none() ? index_vector{} : min_chunks.cast<index_vector>();
      if (!chunks.empty() && chunks.size() != count.size())
        raise_status(GDS_STATUS_INVALID_NDIMS, "GDS_alloc: min_chunks has " + std::to_string(chunks.size()) +
                                                   " values, shape " + std::to_string(count.size()));
    } catch (py::error_already_set &) {
      fail_collectively(c);
      throw;
    }
    GDS_gds_t g = GDS_NULL;
    check(GDS_alloc(count.size(), count.data(), chunks.empty() ? nullptr : chunks.data(), type,
                    static_cast<GDS_priority_t>(priority), c, i.get(), &g));
    return to_int(g);
  });
  // GDS_create with no mapping functions: `buffer` holds this process's block (GDS extension).
  m.def("create", [](const index_vector &count, const py::array &buffer, int priority, py::handle comm,
                     const py::dict &info) {
    const GDS_datatype_t type = datatype_of(buffer.dtype());
    const GDS_comm_t c = comm_of(comm);
    if (!(buffer.flags() & py::array::c_style) || !buffer.writeable())
      raise_status(GDS_STATUS_INVALID, "GDS_create: the buffer must be a writable, C-contiguous NumPy array");
    info_object i(info);
    GDS_gds_t g = GDS_NULL;
    void *data = buffer.size() > 0 ? const_cast<void *>(buffer.data()) : nullptr;
    check(GDS_create(count.size(), count.data(), type, nullptr, nullptr, data, static_cast<GDS_size_t>(buffer.size()),
                     static_cast<GDS_priority_t>(priority), c, i.get(), &g));
    return to_int(g);
  });
  m.def("free", [](std::uintptr_t h) {
    GDS_gds_t g = H(h);
    check(GDS_free(&g));
  });
}

void bind_attributes(py::module_ &m) {
  m.def("ndims", [](std::uintptr_t h) { return ndims_of(H(h)); });
  m.def("count", [](std::uintptr_t h) {
    bool present = false;
    return sizes(H(h), GDS_COUNT, present);
  });
  m.def("process_grid", [](std::uintptr_t h) -> py::object {
    bool present = false;
    index_vector v = sizes(H(h), GDS_GLOBAL_LAYOUT, present);
    return present ? py::cast(v) : py::none();
  });
  m.def("chunk_size", [](std::uintptr_t h) -> py::object {
    bool present = false;
    index_vector v = sizes(H(h), GDS_CHUNK_SIZE, present);
    return present ? py::cast(v) : py::none();
  });
  m.def("flavor", [](std::uintptr_t h) {
    int f = 0, flag = 0;
    check(GDS_get_attr(H(h), GDS_CREATE_FLAVOR, &f, &flag));
    return f;
  });
  m.def("comm", [](std::uintptr_t h) {
    GDS_comm_t c = MPI_COMM_NULL;
    check(GDS_get_comm(H(h), &c));
    return comm_object(c);
  });
  m.def("distribution", [](std::uintptr_t h, int rank) -> py::object {
    const std::size_t n = ndims_of(H(h));
    index_vector lo(n), hi(n);
    int owns = 0;
    check(GDS_distribution(H(h), rank, lo.data(), hi.data(), &owns));
    if (!owns) return py::none();
    return py::make_tuple(lo, hi);
  });
  m.def("locate", [](std::uintptr_t h, const index_vector &index) {
    if (index.size() != ndims_of(H(h))) raise_status(GDS_STATUS_INVALID_NDIMS, "GDS_locate: index has the wrong number of dimensions");
    int rank = 0;
    GDS_size_t offset = 0;
    check(GDS_locate(H(h), index.data(), &rank, &offset));
    return py::make_tuple(rank, offset);
  });
}

void bind_transfers(py::module_ &m) {
  m.def("put", [](std::uintptr_t h, const py::array &src, const index_vector &lo, const index_vector &hi, bool f) {
    check_box(H(h), lo, hi, "GDS_put");
    const void *p = buffer_for(H(h), src, lo, hi, f, false, "GDS_put");
    check(GDS_put(p, nullptr, lo.data(), hi.data(), H(h)));
  });
  m.def("get", [](std::uintptr_t h, const py::array &dst, const index_vector &lo, const index_vector &hi, bool f) {
    check_box(H(h), lo, hi, "GDS_get");
    void *p = buffer_for(H(h), dst, lo, hi, f, true, "GDS_get");
    check(GDS_get(p, nullptr, lo.data(), hi.data(), H(h)));
  });
  m.def("acc", [](std::uintptr_t h, const py::array &src, const index_vector &lo, const index_vector &hi,
                  py::handle op, bool f) {
    check_box(H(h), lo, hi, "GDS_acc");
    const GDS_op_t o = op_of(op);
    const void *p = buffer_for(H(h), src, lo, hi, f, false, "GDS_acc");
    check(GDS_acc(p, nullptr, lo.data(), hi.data(), o, H(h)));
  });
  m.def("get_acc", [](std::uintptr_t h, py::object src, const py::array &result, const index_vector &lo,
                      const index_vector &hi, py::handle op, bool f) {
    check_box(H(h), lo, hi, "GDS_get_acc");
    const GDS_op_t o = op_of(op);
    const void *s = src.is_none() ? nullptr : buffer_for(H(h), src.cast<py::array>(), lo, hi, f, false, "GDS_get_acc");
    void *r = buffer_for(H(h), result, lo, hi, f, true, "GDS_get_acc");
    check(GDS_get_acc(s, nullptr, r, nullptr, lo.data(), hi.data(), o, H(h)));
  });
  m.def("compare_and_swap", [](std::uintptr_t h, const py::array &compare, const py::array &swap,
                               const py::array &result, const index_vector &at) {
    check_box(H(h), at, at, "GDS_compare_and_swap");
    const void *c = buffer_for(H(h), compare, at, at, false, false, "GDS_compare_and_swap");
    const void *s = buffer_for(H(h), swap, at, at, false, false, "GDS_compare_and_swap");
    void *r = buffer_for(H(h), result, at, at, false, true, "GDS_compare_and_swap");
    check(GDS_compare_and_swap(c, s, r, at.data(), H(h)));
  });
  m.def("wait", [](std::uintptr_t h) { check(GDS_wait(H(h))); });
  m.def("wait_local", [](std::uintptr_t h) { check(GDS_wait_local(H(h))); });
  m.def("fence", [](std::uintptr_t h) { check(GDS_fence(H(h))); });
}

// GDS_access: (access handle, a NumPy view of the buffer whose base is `owner`, direct?).
void bind_access(py::module_ &m) {
  m.def("access", [](std::uintptr_t h, const index_vector &lo, const index_vector &hi, int mode, const py::dtype &dt,
                     bool f, py::object owner) {
    check_box(H(h), lo, hi, "GDS_access");
    void *buffer = nullptr;
    GDS_access_handle_t a = GDS_ACCESS_HANDLE_NULL;
    check(GDS_access(H(h), lo.data(), hi.data(), static_cast<GDS_access_buffer_t>(mode), &buffer, &a));
    const std::size_t n = lo.size();
    index_vector ld(n > 0 ? n - 1 : 0);
    GDS_access_buffer_t kind = GDS_ACCESS_BUFFER_COPY;
    GDS_status_t s = GDS_get_access_buffer_type(a, &kind);
    if (s == GDS_STATUS_OK) s = GDS_get_access_buffer_ld(a, ld.data());
    if (s != GDS_STATUS_OK) {
      const std::string message = GDS_last_error_message();
      static_cast<void>(GDS_release(&a));
      raise_status(s, message);
    }
    std::vector<py::ssize_t> shape(n), strides(n);
    py::ssize_t stride = dt.itemsize();
    for (std::size_t k = 0; k < n; ++k) {  // fastest dimension first
      const std::size_t d = f ? k : n - 1 - k;
      shape[d] = static_cast<py::ssize_t>(hi[d] - lo[d] + 1);
      strides[d] = stride;
      if (k + 1 < n) stride *= static_cast<py::ssize_t>(f ? ld[d] : ld[d - 1]);
    }
    py::array view(dt, shape, strides, buffer, owner);
    return py::make_tuple(to_int(a), view, kind == GDS_ACCESS_BUFFER_DIRECT);
  });
  m.def("release", [](std::uintptr_t a) {
    GDS_access_handle_t handle = to_handle<GDS_access_handle_t>(a);
    check(GDS_release(&handle));
  });
}

}  // namespace

void bind_array(py::module_ &m) {
  bind_making(m);
  bind_attributes(m);
  bind_transfers(m);
  bind_access(m);
}

}  // namespace gds::python
