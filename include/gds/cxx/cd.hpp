/// \file cd.hpp
/// \brief gds::cd: a containment domain (gds_cd.h) with RAII and re-execution.
#ifndef GDS_CXX_CD_HPP
#define GDS_CXX_CD_HPP

#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "../gds_cd.h"
#include "box.hpp"
#include "error.hpp"
#include "resilience.hpp"

namespace gds {

/// A containment domain. Move-only. Destroying a live CD commits it (which
/// is collective for a CD over several processes); commit() reports failures.
///
///     gds::cd root("solver");
///     root.preserve(x);                        // via copy
///     root.run([&](gds::cd &c) { step(); });   // re-executed after a restore
class cd {
 public:
  /// An empty handle.
  cd() noexcept = default;
  /// A root CD over `comm` (MPI_COMM_SELF: per-process), current on this thread.
  explicit cd(std::string_view name, MPI_Comm comm = MPI_COMM_SELF,
              GDS_cd_logging_t logging = GDS_CD_LOGGING_DISABLED, std::string_view storage_info = {}) {
    const std::string n(name), s(storage_info);
    detail::check(GDS_cd_create(GDS_CD_NULL, comm, n.empty() ? nullptr : n.c_str(), s.empty() ? nullptr : s.c_str(),
                                logging, &h_));
  }
  /// A child of `parent` over `comm`, current on this thread.
  cd(cd &parent, MPI_Comm comm = MPI_COMM_SELF, GDS_cd_logging_t logging = GDS_CD_LOGGING_INHERIT) {
    detail::check(GDS_cd_create(parent.h_, comm, nullptr, nullptr, logging, &h_));
  }
  /// Takes over `o`'s CD; `o` becomes empty.
  cd(cd &&o) noexcept : h_(std::exchange(o.h_, GDS_CD_NULL)) {}
  /// Takes over `o`'s CD.
  cd &operator=(cd &&o) noexcept {
    if (this != &o) {
      release_quietly();
      h_ = std::exchange(o.h_, GDS_CD_NULL);
    }
    return *this;
  }
  cd(const cd &) = delete;
  cd &operator=(const cd &) = delete;
  ~cd() { release_quietly(); }

  /// The C handle (GDS_cd_t), for calls the wrappers lack.
  [[nodiscard]] GDS_cd_t native_handle() const noexcept { return h_; }
  /// Whether the object holds a CD.
  [[nodiscard]] bool valid() const noexcept { return h_ != GDS_CD_NULL; }

  /// GDS_cd_commit(): hands GLOBAL entries to the parent; the handle becomes empty.
  void commit() { detail::check(GDS_cd_commit(&h_)); }
  /// GDS_cd_restore(): the CD's point in time back (descendants first, then its own).
  void restore() { detail::check(GDS_cd_restore(h_)); }
  /// GDS_cd_advance(): the point in time moves to now.
  void advance() { detail::check(GDS_cd_advance(h_)); }

  /// Preserves an object's bytes (trivially copyable), via copy or via the parent.
  template <class T>
  void preserve(T &object, GDS_cd_access_t access = GDS_CD_READ_WRITE, GDS_cd_via_t via = GDS_CD_VIA_COPY,
                GDS_cd_scope_t scope = GDS_CD_GLOBAL) {
    static_assert(std::is_trivially_copyable_v<T>, "gds::cd::preserve: the object is restored by copying bytes");
    preserve_bytes(&object, sizeof(T), access, via, scope);
  }
  /// Preserves `bytes` bytes at `address`.
  void preserve_bytes(void *address, std::size_t bytes, GDS_cd_access_t access = GDS_CD_READ_WRITE,
                      GDS_cd_via_t via = GDS_CD_VIA_COPY, GDS_cd_scope_t scope = GDS_CD_GLOBAL) {
    const GDS_cd_range_t r{address, bytes, access, scope};
    detail::check(GDS_cd_preserve(h_, via, &r, 1, nullptr, nullptr));
  }
  /// Preserves `bytes` bytes at `address` via regeneration (READ_ONLY): at a
  /// restore, fn(ranges, count, context) recomputes them and returns 0. The
  /// context must stay valid while this CD, or an ancestor its commit hands
  /// the entry to, lives.
  void preserve_regen(void *address, std::size_t bytes, GDS_cd_regen_func_t fn, void *context,
                      GDS_cd_scope_t scope = GDS_CD_GLOBAL) {
    const GDS_cd_range_t r{address, bytes, GDS_CD_READ_ONLY, scope};
    detail::check(GDS_cd_preserve(h_, GDS_CD_VIA_REGEN, &r, 1, fn, context));
  }
  /// Stops preserving `bytes` bytes at `address`.
  void forget_bytes(void *address, std::size_t bytes) {
    const GDS_cd_range_t r{address, bytes, GDS_CD_READ_ONLY, GDS_CD_GLOBAL};
    detail::check(GDS_cd_delete(h_, &r, 1));
  }
  /// Preserves a box of an array (any gds::array<T>) via copy or via the parent.
  template <class Array>
  void preserve(Array &a, const box &b, GDS_cd_access_t access = GDS_CD_READ_WRITE,
                GDS_cd_via_t via = GDS_CD_VIA_COPY) {
    preserve_box(a.native_handle(), b, access, via);
  }
  /// Preserves a box of an array given by its C handle.
  void preserve_box(GDS_gds_t a, const box &b, GDS_cd_access_t access = GDS_CD_READ_WRITE,
                    GDS_cd_via_t via = GDS_CD_VIA_COPY) {
    detail::check(GDS_cd_preserve_box(h_, via, a, b.lo.data(), b.hi.data(), access, nullptr, nullptr));
  }
  /// Preserves a file descriptor's position.
  void preserve_file(int fd) { detail::check(GDS_cd_preserve_file(h_, fd)); }

  /// Registers f(gds::raised_error &) for local errors raised while this CD
  /// (or a descendant) is current. It restores the CD (re-execution follows
  /// in run()) and resumes the error, or calls gds::cd::escalate(e).
  template <class F>
  void on_error(const predicate &p, F &&f) {
    using Fn = std::decay_t<F>;
    detail::check(GDS_cd_register_handler(h_, p.native_handle(), &trampoline<Fn>, new Fn(std::forward<F>(f)),
                                          &detail::destroy<Fn>));
  }
  /// From a CD's handler: the error goes on to the enclosing CDs.
  static void escalate(const raised_error &e) { detail::check(GDS_cd_escalate(e.native_handle())); }

  /// Runs body(*this); while the CD was restored during a run (by a handler
  /// or by the body), runs it again — at most `max_runs` times in all. A
  /// gds::error thrown by a run that was restored is the reason it was; any
  /// other exception leaves.
  template <class F>
  void run(F &&body, int max_runs = 1000) {
    for (int n = 0;; ++n) {
      if (n == max_runs)
        detail::raise(GDS_STATUS_RECOVERY_FAILED,
                      "gds::cd::run: the body was restored and re-executed " + std::to_string(n) + " times");
      bool threw = false;
      try {
        static_cast<void>(restored());
        body(*this);
      } catch (const gds::error &) {
        if (!restored()) throw;
        threw = true;
      }
      if (!threw && !restored()) return;
    }
  }
  /// Whether the CD was restored since the last call (GDS_cd_restored()).
  [[nodiscard]] bool restored() {
    int r = 0;
    detail::check(GDS_cd_restored(h_, &r));
    return r != 0;
  }

 private:
  template <class F>
  static GDS_status_t trampoline(GDS_cd_t, GDS_gds_t gds, GDS_error_t e, void *context) {
    raised_error ev(gds, e, false);
    return detail::invoke_status(*static_cast<F *>(context), ev);
  }
  void release_quietly() noexcept {
    if (h_ != GDS_CD_NULL) static_cast<void>(GDS_cd_commit(&h_));
    h_ = GDS_CD_NULL;
  }
  GDS_cd_t h_ = GDS_CD_NULL;
};

}  // namespace gds

#endif  // GDS_CXX_CD_HPP
