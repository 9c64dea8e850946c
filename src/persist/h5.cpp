#include "persist/h5.hpp"

#include <hdf5.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <limits>
#include <utility>

#include "core/log.hpp"

namespace gds::persist::h5 {

namespace {

// An HDF5 identifier and the call that closes it.
class Id {
 public:
  Id() = default;
  Id(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Id() { reset(); }
  Id(Id &&o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)), close_(o.close_) {}
  Id &operator=(Id &&o) noexcept {
    std::swap(id_, o.id_);
    std::swap(close_, o.close_);
    return *this;
  }
  Id(const Id &) = delete;
  Id &operator=(const Id &) = delete;
  [[nodiscard]] hid_t get() const { return id_; }
  [[nodiscard]] bool ok() const { return id_ >= 0; }
  // Closes now; false if HDF5 reports an error (a file's last writes).
  bool reset() {
    bool fine = true;
    if (id_ >= 0 && close_ != nullptr) fine = close_(id_) >= 0;
    id_ = H5I_INVALID_HID;
    return fine;
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
  herr_t (*close_)(hid_t) = nullptr;
};

// HDF5's automatic error printing is off while GDS calls it (GDS reports
// its own errors), and restored after.
class Quiet {
 public:
  Quiet() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~Quiet() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
  Quiet(const Quiet &) = delete;
  Quiet &operator=(const Quiet &) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void *data_ = nullptr;
};

Id type_copy(hid_t native) { return Id(H5Tcopy(native), H5Tclose); }

Id integer_type(std::size_t bytes, bool is_unsigned) {
  switch (bytes) {
    case 1: return type_copy(is_unsigned ? H5T_NATIVE_UINT8 : H5T_NATIVE_INT8);
    case 2: return type_copy(is_unsigned ? H5T_NATIVE_UINT16 : H5T_NATIVE_INT16);
    case 4: return type_copy(is_unsigned ? H5T_NATIVE_UINT32 : H5T_NATIVE_INT32);
    case 8: return type_copy(is_unsigned ? H5T_NATIVE_UINT64 : H5T_NATIVE_INT64);
    default: return {};
  }
}

Id float_type(std::size_t bytes) {
  if (bytes == sizeof(float)) return type_copy(H5T_NATIVE_FLOAT);
  if (bytes == sizeof(double)) return type_copy(H5T_NATIVE_DOUBLE);
  if (bytes == sizeof(long double)) return type_copy(H5T_NATIVE_LDOUBLE);
  return {};
}

// A compound of two members (complex: r, i as h5py reads them; pairs: value, index).
Id pair_type(std::size_t extent, const char *a, const Id &ta, const char *b, const Id &tb, std::size_t b_offset) {
  if (!ta.ok() || !tb.ok()) return {};
  Id t(H5Tcreate(H5T_COMPOUND, extent), H5Tclose);
  if (!t.ok() || H5Tinsert(t.get(), a, 0, ta.get()) < 0 || H5Tinsert(t.get(), b, b_offset, tb.get()) < 0) return {};
  return t;
}

template <class V, class I>
std::size_t second_offset() {
  struct P {
    V v;
    I i;
  };
  return offsetof(P, i);
}

// The file's element type: the native HDF5 type of the MPI type where
// there is one, else an opaque type of its size tagged with its name.
Id element_type(const core::ElementType &t) {
  using core::TypeClass;
  Id id;
  const std::string name = t.name;
  switch (t.cls) {
    case TypeClass::c_integer:
    case TypeClass::fortran_integer: id = integer_type(t.extent, t.is_unsigned); break;
    case TypeClass::floating: id = float_type(t.extent); break;
    case TypeClass::logical:
    case TypeClass::byte: id = integer_type(t.extent, true); break;
    case TypeClass::character:
      id = t.extent == 1 && name == "MPI_CHAR" ? type_copy(H5T_NATIVE_CHAR) : integer_type(t.extent, true);
      break;
    case TypeClass::complex: {
      const Id half = float_type(t.extent / 2);
      const Id other = float_type(t.extent / 2);
      id = pair_type(t.extent, "r", half, "i", other, t.extent / 2);
      break;
    }
    case TypeClass::pair: {
      const Id index = integer_type(sizeof(int), false);
      if (name == "MPI_2INT" || name == "MPI_2INTEGER")
        id = pair_type(t.extent, "value", integer_type(sizeof(int), false), "index", index, sizeof(int));
      else if (name == "MPI_SHORT_INT")
        id = pair_type(t.extent, "value", integer_type(sizeof(short), false), "index", index, second_offset<short, int>());
      else if (name == "MPI_LONG_INT")
        id = pair_type(t.extent, "value", integer_type(sizeof(long), false), "index", index, second_offset<long, int>());
      else if (name == "MPI_FLOAT_INT")
        id = pair_type(t.extent, "value", float_type(sizeof(float)), "index", index, second_offset<float, int>());
      else if (name == "MPI_DOUBLE_INT")
        id = pair_type(t.extent, "value", float_type(sizeof(double)), "index", index, second_offset<double, int>());
      else if (name == "MPI_LONG_DOUBLE_INT")
        id = pair_type(t.extent, "value", float_type(sizeof(long double)), "index", index,
                       second_offset<long double, int>());
      else if (name == "MPI_2REAL")
        id = pair_type(t.extent, "value", float_type(t.extent / 2), "index", float_type(t.extent / 2), t.extent / 2);
      else if (name == "MPI_2DOUBLE_PRECISION")
        id = pair_type(t.extent, "value", float_type(t.extent / 2), "index", float_type(t.extent / 2), t.extent / 2);
      break;
    }
  }
  if (id.ok() && H5Tget_size(id.get()) == t.extent) return id;
  Id opaque(H5Tcreate(H5T_OPAQUE, t.extent), H5Tclose);
  if (opaque.ok()) H5Tset_tag(opaque.get(), t.name);
  return opaque;
}

bool write_attr(hid_t obj, const char *name, hid_t type, hid_t space, const void *value) {
  Id a(H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  return a.ok() && H5Awrite(a.get(), type, value) >= 0;
}

bool write_u64s(hid_t obj, const char *name, const std::vector<std::uint64_t> &v) {
  const hsize_t n = v.size();
  Id space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  return space.ok() && write_attr(obj, name, H5T_NATIVE_UINT64, space.get(), v.data());
}

bool write_u64(hid_t obj, const char *name, std::uint64_t v) {
  Id space(H5Screate(H5S_SCALAR), H5Sclose);
  return space.ok() && write_attr(obj, name, H5T_NATIVE_UINT64, space.get(), &v);
}

// A string attribute: fixed length (at least 1), null-padded, so that
// labels of any bytes keep them; its length is the string's.
bool write_str(hid_t obj, const char *name, const std::string &s) {
  Id type(H5Tcopy(H5T_C_S1), H5Tclose);
  if (!type.ok() || H5Tset_size(type.get(), std::max<std::size_t>(1, s.size())) < 0 ||
      H5Tset_strpad(type.get(), H5T_STR_NULLPAD) < 0)
    return false;
  std::string padded = s;
  if (padded.empty()) padded.push_back('\0');
  Id space(H5Screate(H5S_SCALAR), H5Sclose);
  return space.ok() && write_attr(obj, name, type.get(), space.get(), padded.data());
}

// Attribute readers: false if missing or not of the expected kind and size.
bool read_u64s(hid_t obj, const char *name, std::vector<std::uint64_t> *out, hsize_t max) {
  if (H5Aexists(obj, name) <= 0) return false;
  Id a(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  if (!a.ok()) return false;
  Id type(H5Aget_type(a.get()), H5Tclose);
  Id space(H5Aget_space(a.get()), H5Sclose);
  if (!type.ok() || !space.ok() || H5Tget_class(type.get()) != H5T_INTEGER || H5Tget_size(type.get()) > 8) return false;
  const hssize_t n = H5Sget_simple_extent_npoints(space.get());
  if (n < 0 || static_cast<hsize_t>(n) > max) return false;
  out->assign(static_cast<std::size_t>(n), 0);
  return n == 0 || H5Aread(a.get(), H5T_NATIVE_UINT64, out->data()) >= 0;
}

bool read_u64(hid_t obj, const char *name, std::uint64_t *out) {
  std::vector<std::uint64_t> v;
  if (!read_u64s(obj, name, &v, 1) || v.size() != 1) return false;
  *out = v[0];
  return true;
}

bool read_str(hid_t obj, const char *name, std::string *out) {
  if (H5Aexists(obj, name) <= 0) return false;
  Id a(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  if (!a.ok()) return false;
  Id type(H5Aget_type(a.get()), H5Tclose);
  Id space(H5Aget_space(a.get()), H5Sclose);
  if (!type.ok() || !space.ok() || H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) != 0 ||
      H5Sget_simple_extent_npoints(space.get()) != 1)
    return false;
  const std::size_t size = H5Tget_size(type.get());
  if (size == 0 || size > (std::size_t{1} << 20)) return false;
  std::string s(size, '\0');
  if (H5Aread(a.get(), type.get(), s.data()) < 0) return false;
  *out = std::move(s);
  return true;
}

// Fixed-length strings lose their trailing zero bytes; the length attribute restores them.
bool read_bytes(hid_t obj, const char *name, std::string *out) {
  std::string s;
  std::uint64_t len = 0;
  if (!read_str(obj, name, &s) || !read_u64(obj, (std::string(name) + "_bytes").c_str(), &len) ||
      len > s.size())
    return false;
  s.resize(len);
  *out = std::move(s);
  return true;
}

bool write_bytes(hid_t obj, const char *name, const std::string &s) {
  return write_str(obj, name, s) && write_u64(obj, (std::string(name) + "_bytes").c_str(), s.size());
}

std::vector<std::uint64_t> storage_dims(const Meta &m) {
  std::vector<std::uint64_t> d = m.dims;
  if (m.column_major) std::reverse(d.begin(), d.end());
  return d;
}

Id file_access() {
  Id fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  // Object headers and the superblock of the 1.8 format on carry checksums.
  if (fapl.ok()) H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST);
  // No flock: the prefix's file system may not have it (Lustre, NFS), and
  // GDS names files so that no two writers share one.
  if (fapl.ok()) H5Pset_file_locking(fapl.get(), false, true);
  return fapl;
}

}  // namespace

std::uint64_t stripe_bytes_for(std::uint64_t bytes) {
  std::uint64_t s = std::uint64_t{1} << 20;
  while (s < (std::uint64_t{1} << 40) && stripes(bytes, s) > 4096) s <<= 1;
  return s;
}

std::uint64_t data_bytes(const Meta &m) {
  std::uint64_t n = m.element_bytes;
  for (const std::uint64_t d : m.dims) {
    if (d != 0 && n > std::numeric_limits<std::uint64_t>::max() / d) return 0;
    n *= d;
  }
  return n;
}

Result create(const std::string &path, const Meta &m, const core::ElementType &type, std::uint64_t *offset) {
  const Quiet quiet;
  const auto failed = [&](const char *what) {
    return Result::failure(GDS_STATUS_IO_ERROR, path + ": HDF5 cannot " + what);
  };
  const Id fapl = file_access();
  Id file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), H5Fclose);
  if (!file.ok()) return failed("create the file");
  const std::vector<std::uint64_t> sd = storage_dims(m);
  std::vector<hsize_t> dims(sd.begin(), sd.end());
  Id space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
  Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  const Id etype = element_type(type);
  if (!space.ok() || !dcpl.ok() || !etype.ok() || H5Pset_layout(dcpl.get(), H5D_CONTIGUOUS) < 0 ||
      H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_EARLY) < 0 || H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER) < 0)
    return failed("describe the dataset");
  Id data(H5Dcreate2(file.get(), "data", etype.get(), space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT), H5Dclose);
  if (!data.ok()) return failed("create the dataset /data");
  const haddr_t at = H5Dget_offset(data.get());
  if (at == HADDR_UNDEF && data_bytes(m) > 0) return failed("place the dataset's data");
  const hid_t d = data.get();
  const bool ok = write_str(d, "gds_array", m.array) && write_u64(d, "gds_version", m.version) &&
                  write_bytes(d, "gds_label", m.label) && write_u64(d, "gds_next", m.next) &&
                  write_bytes(d, "gds_next_label", m.next_label) && write_str(d, "gds_element_type", m.element_type) &&
                  write_u64(d, "gds_element_bytes", m.element_bytes) &&
                  write_str(d, "gds_order", m.column_major ? "column-major" : "row-major") &&
                  write_u64s(d, "gds_dims", m.dims) && write_str(d, "gds_flavor", m.flavor) &&
                  write_u64(d, "gds_block_bytes", m.block_bytes) && write_u64(d, "gds_format", m.format) &&
                  write_str(d, "gds_library", m.library) && write_u64(d, "gds_nprocs", m.nprocs) &&
                  write_u64(d, "gds_time", m.time);
  if (!ok) return failed("write the attributes");
  data.reset();
  if (!file.reset()) return failed("close the file");
  *offset = at == HADDR_UNDEF ? 0 : static_cast<std::uint64_t>(at);
  return {};
}

Result finish(const std::string &path, std::uint64_t stripe_bytes, const std::vector<std::uint32_t> &crcs) {
  const Quiet quiet;
  const auto failed = [&](const char *what) {
    return Result::failure(GDS_STATUS_IO_ERROR, path + ": HDF5 cannot " + what);
  };
  const Id fapl = file_access();
  Id file(H5Fopen(path.c_str(), H5F_ACC_RDWR, fapl.get()), H5Fclose);
  if (!file.ok()) return failed("open the file to finish it");
  Id data(H5Dopen2(file.get(), "data", H5P_DEFAULT), H5Dclose);
  if (!data.ok()) return failed("open /data");
  const hsize_t n = crcs.size();
  Id space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  if (!space.ok() || !write_u64(data.get(), "gds_stripe_bytes", stripe_bytes) ||
      !write_attr(data.get(), "gds_crc32c", H5T_NATIVE_UINT32, space.get(), crcs.data()))
    return failed("write the checksums");
  data.reset();
  if (!file.reset()) return failed("close the file");
  return {};
}

// (Longer than most functions: one flat sequence of attribute reads, each
// checked where it is read; split, the checks would be further from them.)
Result read_meta(const std::string &path, Meta *out) {
  const Quiet quiet;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Result::io(path, "cannot be read", errno);
  if (!S_ISREG(st.st_mode)) return Result::corrupt(path + " is not a regular file");
  if (H5Fis_hdf5(path.c_str()) <= 0) return Result::corrupt(path + " is not an HDF5 file");
  const Id fapl = file_access();
  Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get()), H5Fclose);
  if (!file.ok()) return Result::corrupt(path + " HDF5 cannot open it (damaged metadata)");
  if (H5Lexists(file.get(), "data", H5P_DEFAULT) <= 0) return Result::corrupt(path + " has no dataset /data");
  H5L_info_t link{};
  if (H5Lget_info(file.get(), "data", &link, H5P_DEFAULT) < 0 || link.type != H5L_TYPE_HARD)
    return Result::corrupt(path + " has /data as a link to elsewhere, not a dataset of its own");
  Id data(H5Dopen2(file.get(), "data", H5P_DEFAULT), H5Dclose);
  if (!data.ok()) return Result::corrupt(path + " HDF5 cannot open /data (damaged metadata)");
  Meta m;
  const hid_t d = data.get();
  std::string order;
  std::uint64_t format = 0;
  std::vector<std::uint64_t> crcs;
  if (!read_u64(d, "gds_format", &format)) return Result::corrupt(path + " is not a GDS flush (no gds_format attribute)");
  if (format != kFormat) return Result::corrupt(path + " has GDS format " + std::to_string(format) + "; this GDS reads format 1");
  if (!read_str(d, "gds_array", &m.array) || !read_u64(d, "gds_version", &m.version) ||
      !read_bytes(d, "gds_label", &m.label) || !read_u64(d, "gds_next", &m.next) ||
      !read_bytes(d, "gds_next_label", &m.next_label) || !read_str(d, "gds_element_type", &m.element_type) ||
      !read_u64(d, "gds_element_bytes", &m.element_bytes) || !read_str(d, "gds_order", &order) ||
      !read_u64s(d, "gds_dims", &m.dims, 64) || !read_str(d, "gds_flavor", &m.flavor) ||
      !read_u64(d, "gds_block_bytes", &m.block_bytes) || !read_str(d, "gds_library", &m.library) ||
      !read_u64(d, "gds_nprocs", &m.nprocs) || !read_u64(d, "gds_time", &m.time))
    return Result::corrupt(path + " misses GDS attributes or has them damaged");
  if (!read_u64(d, "gds_stripe_bytes", &m.stripe_bytes) || !read_u64s(d, "gds_crc32c", &crcs, 1u << 20))
    return Result::corrupt(path + " has no checksums (an unfinished flush)");
  m.format = static_cast<std::uint32_t>(format);
  m.array.resize(std::strlen(m.array.c_str()));
  m.element_type.resize(std::strlen(m.element_type.c_str()));
  m.flavor.resize(std::strlen(m.flavor.c_str()));
  m.library.resize(std::strlen(m.library.c_str()));
  order.resize(std::strlen(order.c_str()));
  if (order != "row-major" && order != "column-major") return Result::corrupt(path + " has an unknown order \"" + order + "\"");
  m.column_major = order == "column-major";
  if (m.dims.empty()) return Result::corrupt(path + " has no dimensions");
  m.data_bytes = data_bytes(m);
  bool empty = false;
  for (const std::uint64_t x : m.dims) empty = empty || x == 0;
  if (m.element_bytes == 0 || (m.data_bytes == 0 && !empty)) return Result::corrupt(path + " has an impossible size");
  // The dataset itself must be what the attributes say.
  Id space(H5Dget_space(d), H5Sclose);
  Id type(H5Dget_type(d), H5Tclose);
  Id dcpl(H5Dget_create_plist(d), H5Pclose);
  if (!space.ok() || !type.ok() || !dcpl.ok()) return Result::corrupt(path + " HDF5 cannot describe /data");
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank != static_cast<int>(m.dims.size())) return Result::corrupt(path + " has a dataset of another rank than gds_dims");
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  const std::vector<std::uint64_t> sd = storage_dims(m);
  for (std::size_t k = 0; k < dims.size(); ++k)
    if (dims[k] != sd[k]) return Result::corrupt(path + " has a dataset of another shape than gds_dims");
  if (H5Tget_size(type.get()) != m.element_bytes) return Result::corrupt(path + " has elements of another size than gds_element_bytes");
  if (H5Pget_layout(dcpl.get()) != H5D_CONTIGUOUS) return Result::corrupt(path + " has a dataset that is not contiguous");
  const haddr_t at = H5Dget_offset(d);
  if (m.data_bytes > 0) {
    if (at == HADDR_UNDEF) return Result::corrupt(path + " has no space allocated for its data");
    m.data_offset = static_cast<std::uint64_t>(at);
  }
  m.file_bytes = static_cast<std::uint64_t>(st.st_size);
  if (m.data_offset > m.file_bytes || m.data_bytes > m.file_bytes - m.data_offset)
    return Result::corrupt(path + " is shorter than its data (truncated)");
  if (m.stripe_bytes < 4096 || m.stripe_bytes > (std::uint64_t{1} << 40) || (m.stripe_bytes & (m.stripe_bytes - 1)) != 0)
    return Result::corrupt(path + " has an impossible stripe size");
  if (crcs.size() != std::max<std::uint64_t>(1, stripes(m.data_bytes, m.stripe_bytes)))
    return Result::corrupt(path + " has not as many checksums as its data has stripes");
  m.crcs.assign(crcs.begin(), crcs.end());
  for (std::size_t i = 0; i < crcs.size(); ++i)
    if (crcs[i] > 0xffffffffu) return Result::corrupt(path + " has a damaged checksum list");
  *out = std::move(m);
  return {};
}

}  // namespace gds::persist::h5
