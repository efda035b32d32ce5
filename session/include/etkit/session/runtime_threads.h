#pragma once
// The worker threads the front ends give the runtime (etkit/core/parallel.h):
// one pthreadpool (the library XNNPACK runs on, so the delegate and the
// portable kernels share it) of the asked size, or none (one thread, or a
// build without libpthreadpool-dev).

#include <cstddef>
#include <memory>

#include "etkit/core/parallel.h"

namespace etkit::session {

class RuntimeThreads {
 public:
  /// `threads`: how many (0: the machine's cores; 1: no pool).
  explicit RuntimeThreads(int threads);
  ~RuntimeThreads();
  RuntimeThreads(const RuntimeThreads&) = delete;
  RuntimeThreads& operator=(const RuntimeThreads&) = delete;

  /// Null with one thread: kernels run on the caller's.
  const ParallelRunner* runner() const { return runner_.workers > 1 ? &runner_ : nullptr; }
  /// The pthreadpool (pthreadpool_t) for XNNPACK to share; null without one.
  void* pool() const { return runner_.pool; }
  size_t count() const { return runner_.workers; }

 private:
  ParallelRunner runner_;
};

/// The machine's cores (at least 1).
size_t machine_cores();

}  // namespace etkit::session
