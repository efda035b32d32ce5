#pragma once
/// @file
/// The runtime's worker threads, as the host gives them: the runtime itself
/// creates no thread (a device build has none to give), so a method runs
/// its kernels on one thread unless MethodOptions::parallel names a pool.
/// Kernels split their work into pieces whose results do not depend on
/// which worker computes them or how many there are (a piece is whole
/// outputs; no sum is split across pieces), so every worker count gives
/// the same bits.

#include <cstddef>

namespace etkit {

struct ParallelRunner {
  /// How many tasks may run at once (>= 1); each kernel gets scratch for
  /// this many.
  size_t workers = 1;
  void* pool = nullptr;
  /// Calls task(context, i) for every i in [0, tasks), at most `workers` at
  /// once, and returns when all are done. Must not allocate or throw.
  void (*run)(void* pool, size_t tasks, void (*task)(void* context, size_t index), void* context) = nullptr;
};

}  // namespace etkit
