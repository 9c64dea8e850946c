#include "core/mpi_library.hpp"

#include <mpi.h>

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "core/collective.hpp"
#include "core/log.hpp"

namespace gds::core {

MpiLibrary mpi_library() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MpiLibrary lib;
  if (MPI_Get_library_version(text, &len) != MPI_SUCCESS) return lib;
  if (const char *v = std::strstr(text, "MPICH Version:"); v != nullptr) {
    lib.family = MpiLibrary::Family::mpich;
    std::sscanf(v + std::strlen("MPICH Version:"), "%d.%d", &lib.major, &lib.minor);
  } else if (const char *o = std::strstr(text, "Open MPI v"); o != nullptr) {
    lib.family = MpiLibrary::Family::open_mpi;
    std::sscanf(o + std::strlen("Open MPI v"), "%d.%d", &lib.major, &lib.minor);
  }
  return lib;
}

namespace {
bool open_mpi_4() {
  const MpiLibrary lib = mpi_library();
  return lib.family == MpiLibrary::Family::open_mpi && lib.major == 4;
}
}  // namespace

namespace {

constexpr const char *kBackingVariables[] = {"OMPI_MCA_osc_sm_backing_directory",
                                             "OMPI_MCA_osc_rdma_backing_directory"};

bool env_set(const char *name) {
  const char *value = std::getenv(name);
  return value != nullptr && *value != '\0';
}

// What GDS_init learned about Open MPI 4's window files.
struct WindowFiles {
  bool checked = false;       // Open MPI 4, and some node has processes sharing a backing directory
  bool private_here = false;  // every process of this node has backing directories of its own
  int node_size = 0;          // processes of MPI_COMM_WORLD on this node
  std::string made_dir;       // the directory prepare_open_mpi made, if any
};
WindowFiles g_files;

// Removes the empty directories earlier processes of this user left in
// `base` (gds-osc-<pid>-*: killed before GDS_finalize) once <pid> is gone and
// the directory is older than 10 minutes. rmdir removes only empty ones; a
// live job's directory is empty between its window creations too, hence the
// age (its mtime changes with every window it makes).
void remove_stale_backing_dirs(const char *base) {
  DIR *dir = opendir(base);
  if (dir == nullptr) return;
  const std::time_t now = std::time(nullptr);
  while (const dirent *e = readdir(dir)) {
    long pid = 0;
    if (std::sscanf(e->d_name, "gds-osc-%ld-", &pid) != 1 || pid <= 0) continue;
    if (kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive (or not ours to ask)
    const std::string path = std::string(base) + "/" + e->d_name;
    struct stat st {};
    if (lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) continue;
    if (now - st.st_mtime < 600) continue;
    rmdir(path.c_str());
  }
  closedir(dir);
}

// A directory of this process's own for osc/sm and osc/rdma's backing files:
// in /dev/shm, else TMPDIR, else /tmp; named after the process, so that a
// later GDS_init can remove it if the process is killed.
std::string make_backing_dir() {
  const char *bases[] = {"/dev/shm", env_set("TMPDIR") ? std::getenv("TMPDIR") : "/tmp", "/tmp"};
  int error = 0;
  for (const char *base : bases) {
    remove_stale_backing_dirs(base);
    std::string path = std::string(base) + "/gds-osc-" + std::to_string(getpid()) + "-XXXXXX";
    if (mkdtemp(path.data()) != nullptr) return path;
    error = errno;
  }
  log(Level::warning, "GDS_init",
      "could not make a backing directory for Open MPI's window files in /dev/shm, TMPDIR or /tmp (%s); "
      "arrays over communicators holding only some of a node's processes will be refused",
      std::strerror(error));
  return {};
}

// FNV-1a of a backing directory variable; 0 where it is not set.
std::uint64_t dir_hash(const char *name) {
  if (!env_set(name)) return 0;
  std::uint64_t h = 14695981039346656037ULL;
  for (const char *c = std::getenv(name); *c != '\0'; ++c) h = (h ^ static_cast<unsigned char>(*c)) * 1099511628211ULL;
  return h == 0 ? 1 : h;
}

}  // namespace

void prepare_open_mpi() {
  if (!open_mpi_4()) return;
  // osc/rdma keeps every window it can make (its priority is the highest);
  // osc/pt2pt takes the one-process windows it cannot.
  if (!env_set("OMPI_MCA_osc")) setenv("OMPI_MCA_osc", "sm,rdma,pt2pt", 1);
  if (!env_set("OMPI_MCA_op")) setenv("OMPI_MCA_op", "^avx", 1);
  if (env_set(kBackingVariables[0]) && env_set(kBackingVariables[1])) return;
  g_files.made_dir = make_backing_dir();
  if (g_files.made_dir.empty()) return;
  for (const char *name : kBackingVariables)
    if (!env_set(name)) setenv(name, g_files.made_dir.c_str(), 1);
}

void learn_open_mpi_window_files(MPI_Comm world) {
  g_files.checked = false;
  g_files.private_here = false;
  if (!open_mpi_4()) return;
  MPI_Comm node = MPI_COMM_NULL;
  int unsafe = 1;
  // Unknown (the split failed): every window over more than one process is checked, and refused.
  g_files.node_size = std::numeric_limits<int>::max();
  if (MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
    int size = 0;
    MPI_Comm_size(node, &size);
    // osc/rdma's directory decides (osc/sm names its files apart). Every
    // process of the node takes part, set or not.
    const std::uint64_t mine = dir_hash(kBackingVariables[1]);
    std::vector<std::uint64_t> all(static_cast<std::size_t>(size));
    const bool gathered = allgather(&mine, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, node) == MPI_SUCCESS;
    MPI_Comm_free(&node);
    bool distinct = gathered;
    for (std::size_t i = 0; distinct && i < all.size(); ++i) {
      distinct = all[i] != 0;
      for (std::size_t j = 0; distinct && j < i; ++j) distinct = all[i] != all[j];
    }
    if (gathered) g_files.node_size = size;
    g_files.private_here = distinct;
    unsafe = size > 1 && !distinct ? 1 : 0;
  }
  // One answer for the whole job, so every process of any communicator checks (and agrees) alike.
  int any = unsafe;
  allreduce(&unsafe, &any, 1, MPI_INT, MPI_MAX, world);
  g_files.checked = any != 0;
}

bool open_mpi_window_files_checked() { return g_files.checked; }

GDS_status_t check_open_mpi_window_files(const char *func, MPI_Comm comm) {
  if (!g_files.checked) return GDS_STATUS_OK;
  int nprocs = 0;
  if (const int rc = MPI_Comm_size(comm, &nprocs); rc != MPI_SUCCESS) return mpi_fail(func, "MPI_Comm_size", rc);
  if (nprocs == 1) return GDS_STATUS_OK;  // osc/pt2pt's: no shared file
  MPI_Comm local = MPI_COMM_NULL;
  if (const int rc = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local); rc != MPI_SUCCESS)
    return mpi_fail(func, "MPI_Comm_split_type", rc);
  int here = 0;
  MPI_Comm_size(local, &here);
  MPI_Comm_free(&local);
  // Split on every process (collective) before the answer, which differs between nodes.
  if (g_files.private_here || here >= g_files.node_size) return GDS_STATUS_OK;  // no name this node can share
  return fail(GDS_STATUS_MPI_BUG, func,
              "Open MPI 4's osc/rdma names a window's shared-memory file by the communicator's id, which disjoint "
              "communicators share: windows made at the same time over them on one node fail, hang or write "
              "into each other (tests/mpi_bugs/win_shared_file_collision.c). This communicator holds %d of "
              "this node's %d processes, so GDS refuses its osc/rdma windows unless every process has a backing "
              "directory of its own: let GDS_init initialise MPI (it makes them), or set OMPI_MCA_osc_rdma_backing_directory "
              "to a different directory in each process before MPI_Init",
              here, g_files.node_size);
}

bool open_mpi_osc_sm_allowed() {
  if (!env_set("OMPI_MCA_osc")) return true;
  const char *v = std::getenv("OMPI_MCA_osc");
  const bool excluding = *v == '^';
  bool listed = false;
  for (std::string_view rest(excluding ? v + 1 : v); !rest.empty();) {
    const std::size_t comma = rest.find(',');
    listed = listed || rest.substr(0, comma) == "sm";
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
  return excluding ? !listed : listed;
}

std::uint64_t open_mpi_shared_window_room() {
  const char *dir = env_set(kBackingVariables[0]) ? std::getenv(kBackingVariables[0]) : "/dev/shm";
  struct statvfs fs {};
  if (statvfs(dir, &fs) != 0) return 0;
  return static_cast<std::uint64_t>(fs.f_bavail) * fs.f_frsize;
}

void finish_open_mpi_windows() {
  if (g_files.made_dir.empty()) return;
  rmdir(g_files.made_dir.c_str());  // empty: Open MPI unlinks each file once all have opened it
  g_files.made_dir.clear();
}

bool open_mpi_one_process_window_bug(int nprocs) { return nprocs == 1 && open_mpi_4(); }

}  // namespace gds::core
