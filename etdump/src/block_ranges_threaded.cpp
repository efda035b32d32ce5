// The host build's block ranges: taken from a shared counter by the
// calling thread and up to seven more, so a worker that drew large blocks
// takes fewer ranges.

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "block_ranges.h"

namespace etkit::etdump::internal {
namespace {

// Below this many ranges per worker, starting a thread costs more than
// the blocks it would check.
constexpr size_t kMinRangesPerWorker = 4;
constexpr unsigned kMaxWorkers = 8;

unsigned worker_count(size_t ranges) {
  const unsigned cores = std::max(1u, std::min(kMaxWorkers, std::thread::hardware_concurrency()));
  return static_cast<unsigned>(std::max<size_t>(1, std::min<size_t>(cores, ranges / kMinRangesPerWorker)));
}

}  // namespace

void for_each_block_range(size_t count, size_t range, const std::function<bool(size_t, size_t)>& work) {
  range = std::max<size_t>(range, 1);
  const size_t ranges = (count + range - 1) / range;
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  auto take_ranges = [&] {
    while (!stop.load(std::memory_order_relaxed)) {
      const size_t index = next.fetch_add(1, std::memory_order_relaxed);
      if (index >= ranges) return;
      const size_t begin = index * range;
      if (!work(begin, std::min(count, begin + range))) stop.store(true, std::memory_order_relaxed);
    }
  };
  std::vector<std::thread> helpers;
  for (unsigned w = 1; w < worker_count(ranges); ++w) helpers.emplace_back(take_ranges);
  take_ranges();
  for (std::thread& helper : helpers) helper.join();
}

}  // namespace etkit::etdump::internal
