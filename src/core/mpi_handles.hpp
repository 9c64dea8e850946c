// Owners of the MPI handles core makes: a communicator, a group and an info object,
// each freed by its destructor (both frees are local in MPICH; GDS drops a
// communicator only on paths every process of it takes).
#pragma once

#include <mpi.h>

#include <utility>

namespace gds::core {

class Comm {
 public:
  Comm() = default;
  explicit Comm(MPI_Comm c) : comm_(c) {}
  Comm(Comm &&o) noexcept : comm_(std::exchange(o.comm_, MPI_COMM_NULL)) {}
  Comm &operator=(Comm &&o) noexcept {
    if (this != &o) {
      reset();
      comm_ = std::exchange(o.comm_, MPI_COMM_NULL);
    }
    return *this;
  }
  Comm(const Comm &) = delete;
  Comm &operator=(const Comm &) = delete;
  ~Comm() { reset(); }

  [[nodiscard]] MPI_Comm get() const { return comm_; }
  void reset() {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
    comm_ = MPI_COMM_NULL;
  }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

// The group of a communicator (MPI_Comm_group), freed with the object.
class MpiGroup {
 public:
  MpiGroup() = default;
  explicit MpiGroup(MPI_Comm comm) { MPI_Comm_group(comm, &group_); }
  MpiGroup(MpiGroup &&o) noexcept : group_(std::exchange(o.group_, MPI_GROUP_NULL)) {}
  MpiGroup &operator=(MpiGroup &&o) noexcept {
    if (this != &o) {
      if (group_ != MPI_GROUP_NULL) MPI_Group_free(&group_);
      group_ = std::exchange(o.group_, MPI_GROUP_NULL);
    }
    return *this;
  }
  MpiGroup(const MpiGroup &) = delete;
  MpiGroup &operator=(const MpiGroup &) = delete;
  ~MpiGroup() {
    if (group_ != MPI_GROUP_NULL) MPI_Group_free(&group_);
  }
  [[nodiscard]] MPI_Group get() const { return group_; }

 private:
  MPI_Group group_ = MPI_GROUP_NULL;
};

class InfoObject {
 public:
  InfoObject() { MPI_Info_create(&info_); }
  InfoObject(const InfoObject &) = delete;
  InfoObject &operator=(const InfoObject &) = delete;
  ~InfoObject() { MPI_Info_free(&info_); }
  void set(const char *key, const char *value) { MPI_Info_set(info_, key, value); }
  [[nodiscard]] MPI_Info get() const { return info_; }

 private:
  MPI_Info info_ = MPI_INFO_NULL;
};

}  // namespace gds::core
