#pragma once
// A kernel's work over the runtime's workers (etkit/core/parallel.h): the
// items split into contiguous ranges, one per worker, each with that
// worker's scratch. An item is computed the same way whichever range holds
// it, so the split decides only which thread computes it: results do not
// depend on the worker count.

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "etkit/core/kernel_registry.h"

namespace etkit::kernels {

/// Below this many values of work in all, a kernel stays on one thread:
/// waking workers costs more than they save.
constexpr int64_t kMinParallelValues = int64_t{1} << 16;

/// The min_items for parallel_ranges that runs `items` over the workers
/// exactly when their work, `values` in all, reaches kMinParallelValues.
inline int64_t min_items_for(int64_t items, int64_t values) {
  return values >= kMinParallelValues ? 0 : items + 1;
}

/// Calls f(scratch, begin, end) over ranges covering [0, items), each a
/// multiple of `grain` items (the last excepted), at most one per worker;
/// in parallel when the context has workers and there are at least
/// `min_items` items (below that, threads cost more than they save).
template <typename F>
void parallel_ranges(const KernelContext& context, int64_t items, int64_t grain, int64_t min_items, F&& f) {
  const size_t workers = context.parallel != nullptr ? context.parallel->workers : 1;
  grain = std::max<int64_t>(grain, 1);
  const int64_t grains = (items + grain - 1) / grain;
  const int64_t ranges = std::min<int64_t>(int64_t(workers), grains);
  if (ranges <= 1 || items < min_items || context.worker_scratch.size() < size_t(ranges) * kKernelScratchBytes) {
    f(context.scratch, int64_t{0}, items);
    return;
  }
  struct Job {
    std::remove_reference_t<F>* f;
    const KernelContext* context;
    int64_t items, per_range;
  };
  // Whole grains per range, spread evenly; the last range takes the rest.
  Job job{&f, &context, items, ((grains + ranges - 1) / ranges) * grain};
  auto task = [](void* opaque, size_t index) {
    const Job& j = *static_cast<const Job*>(opaque);
    const int64_t begin = int64_t(index) * j.per_range;
    const int64_t end = std::min(j.items, begin + j.per_range);
    if (begin >= end) return;
    Span<uint8_t> scratch(j.context->worker_scratch.data() + index * kKernelScratchBytes, kKernelScratchBytes);
    (*j.f)(scratch, begin, end);
  };
  context.parallel->run(context.parallel->pool, size_t(ranges), task, &job);
}

/// Calls f(n, c) for every plane of an (N, C, ...) tensor; the planes split
/// over the workers when their work, `values_per_plane` each, reaches
/// kMinParallelValues in all. Each plane must be computed alone (pooling,
/// resampling): any split then gives the same bits.
template <typename F>
void for_each_plane(const KernelContext& context, int64_t n, int64_t c, int64_t values_per_plane, F&& f) {
  const int64_t planes = n * c;
  parallel_ranges(context, planes, 1, min_items_for(planes, planes * values_per_plane),
                  [&](Span<uint8_t> /*scratch*/, int64_t first, int64_t last) {
                    for (int64_t p = first; p < last; ++p) f(p / c, p % c);
                  });
}

}  // namespace etkit::kernels
