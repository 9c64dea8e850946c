// Message logging for containment domains: GDS_cd_send / GDS_cd_recv.
//
// A CD with logging enabled records its sends (a header, no data) and its
// receives (a header and the packed data) in its log, the same log the
// document's interposition-layer calls use. A restore rewinds the log; the
// re-execution then takes the log's entries in order: a logged send is not
// sent again, a logged receive is served from the log. The log that serves a
// re-execution is the nearest CD, from the current one up, that is replaying
// (a restored CD's children are new; their parent's log holds the messages).
#include <cstdlib>
#include <cstring>

#include "cd/domain.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"

using namespace gds::cd;

namespace {

constexpr std::uint32_t kMagic = 0x4344'4d53;  // "CDMS"
enum class Kind : std::uint32_t { send = 1, recv = 2 };

struct Header {
  std::uint32_t magic;
  Kind kind;
  int source;
  int tag;
  int count;            // elements received (MPI_Get_count)
  std::uint64_t bytes;  // packed bytes that follow
};

// The CD whose log serves the next call: replaying, from the current CD up.
Domain *replayer(Domain *d) {
  for (Domain *r = d; r != nullptr; r = r->parent)
    if (r->replaying) return r;
  return nullptr;
}

// The next entry of a replaying log, which must be of kind `k`.
GDS_status_t next_entry(const char *func, Domain &r, Kind k, const Header **out) {
  const LogEntry &e = r.log[r.log_cursor];
  const auto *h = static_cast<const Header *>(e.data);
  GDS_CHECK(e.length >= static_cast<int>(sizeof(Header)) && h->magic == kMagic, GDS_STATUS_CD_STATE,
            "entry %zu of the log of %s was not made by GDS_cd_send/GDS_cd_recv", r.log_cursor, r.describe().c_str());
  GDS_CHECK(h->kind == k, GDS_STATUS_CD_STATE,
            "the re-execution of %s diverged from its log: a %s where the log has a %s (entry %zu)",
            r.describe().c_str(), k == Kind::send ? "send" : "receive", h->kind == Kind::send ? "send" : "receive",
            r.log_cursor);
  *out = h;
  return GDS_STATUS_OK;
}

void consumed(Domain &r) {
  if (++r.log_cursor == r.log.size()) r.replaying = false;  // live again
}

void append(Domain &d, const Header &h, const void *data) {
  void *p = std::malloc(sizeof(Header) + h.bytes);
  if (p == nullptr) throw std::bad_alloc();
  std::memcpy(p, &h, sizeof h);
  if (h.bytes > 0) std::memcpy(static_cast<char *>(p) + sizeof h, data, h.bytes);
  d.log.push_back(LogEntry{p, static_cast<int>(sizeof(Header) + h.bytes)});
}

}  // namespace

extern "C" {

GDS_API GDS_status_t GDS_cd_send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                                 MPI_Comm comm) try {
  GDS_ENTER();
  std::unique_lock lock(g_mutex);
  Domain *d = gds::cd::current();
  if (d == nullptr || !d->logging) {
    lock.unlock();
    GDS_MPI(MPI_Send(buf, count, datatype, dest, tag, comm));
    return GDS_STATUS_OK;
  }
  if (Domain *r = replayer(d)) {
    const Header *h = nullptr;
    GDS_TRY(next_entry(__func__, *r, Kind::send, &h));
    consumed(*r);
    return GDS_STATUS_OK;  // delivered in the first execution
  }
  lock.unlock();  // a blocking call does not hold the CDs of other threads
  GDS_MPI(MPI_Send(buf, count, datatype, dest, tag, comm));
  lock.lock();
  if (Domain *now = gds::cd::current(); now != nullptr && now->logging)
    append(*now, Header{kMagic, Kind::send, dest, tag, count, 0}, nullptr);
  return GDS_STATUS_OK;
} GDS_API_CATCH

GDS_API GDS_status_t GDS_cd_recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                                 MPI_Status *status) try {
  GDS_ENTER();
  std::unique_lock lock(g_mutex);
  Domain *d = gds::cd::current();
  if (d == nullptr || !d->logging) {
    lock.unlock();
    GDS_MPI(MPI_Recv(buf, count, datatype, source, tag, comm, status));
    return GDS_STATUS_OK;
  }
  int room = 0;
  GDS_MPI(MPI_Pack_size(count, datatype, comm, &room));
  if (Domain *r = replayer(d)) {
    const Header *h = nullptr;
    GDS_TRY(next_entry(__func__, *r, Kind::recv, &h));
    GDS_REQUIRE(h->count <= count, GDS_STATUS_CD_STATE,
                "the re-execution of %s diverged from its log: %d elements logged, room for %d", r->describe().c_str(),
                h->count, count);
    int position = 0;
    GDS_MPI(MPI_Unpack(reinterpret_cast<const char *>(h + 1), static_cast<int>(h->bytes), &position, buf, h->count,
                       datatype, comm));
    if (status != MPI_STATUS_IGNORE) {
      status->MPI_SOURCE = h->source;
      status->MPI_TAG = h->tag;
      status->MPI_ERROR = MPI_SUCCESS;
    }
    consumed(*r);
    return GDS_STATUS_OK;
  }
  MPI_Status st;
  lock.unlock();
  GDS_MPI(MPI_Recv(buf, count, datatype, source, tag, comm, &st));
  lock.lock();
  int got = 0;
  GDS_MPI(MPI_Get_count(&st, datatype, &got));
  std::vector<char> packed(static_cast<std::size_t>(room));
  int position = 0;
  GDS_MPI(MPI_Pack(buf, got, datatype, packed.data(), room, &position, comm));
  if (Domain *now = gds::cd::current(); now != nullptr && now->logging)
    append(*now, Header{kMagic, Kind::recv, st.MPI_SOURCE, st.MPI_TAG, got, static_cast<std::uint64_t>(position)},
           packed.data());
  if (status != MPI_STATUS_IGNORE) *status = st;
  return GDS_STATUS_OK;
} GDS_API_CATCH

}  // extern "C"
