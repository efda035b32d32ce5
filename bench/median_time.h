#pragma once
// Timing shared by the benchmarks: the median of repeated calls.

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace etkit::bench {

/// Median milliseconds of `repeats` calls, after one untimed call that
/// warms caches and lazy initialisation.
inline double median_ms(const std::function<void()>& call, int repeats) {
  call();
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    call();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace etkit::bench
