#include "etkit/session/reversed_events.h"

#include <thread>

namespace etkit::session {

std::string reversed_events_warning(const std::string& path, size_t block, const std::string& block_name,
                                    size_t count, const std::string& first) {
  return path + ": run block " + std::to_string(block) + " ('" + block_name + "'): " + std::to_string(count) +
         " event(s) end before they start, the first " + first +
         "; they are timed with upstream's 32-bit wraparound rule";
}

namespace {

// Every block's statistics, on up to two threads (a million-event trace
// takes a pass of its own for them before any table).
std::vector<etdump::RunBlockStats> block_stats(const etdump::ETDump& trace) {
  constexpr size_t kMinBlocksPerThread = 64;
  std::vector<etdump::RunBlockStats> stats(trace.block_count());
  auto range = [&](size_t begin, size_t end) {
    for (size_t b = begin; b < end; ++b) stats[b] = trace.block(b).stats();
  };
  const size_t half = stats.size() / 2;
  if (half < kMinBlocksPerThread) {
    range(0, stats.size());
    return stats;
  }
  std::thread second(range, half, stats.size());
  range(0, half);
  second.join();
  return stats;
}

}  // namespace

std::vector<std::string> reversed_events_warnings(const std::string& path, const etdump::ETDump& trace) {
  std::vector<std::string> warnings;
  const std::vector<etdump::RunBlockStats> stats = block_stats(trace);
  for (size_t b = 0; b < stats.size(); ++b) {
    if (stats[b].reversed_events == 0) continue;
    const etdump::RunBlock block = trace.block(b);
    const std::string first = "event " + std::to_string(stats[b].first_reversed) + " '" +
                              std::string(block.event(stats[b].first_reversed).profile.name) + "'";
    warnings.push_back(reversed_events_warning(path, b, std::string(block.name()), stats[b].reversed_events, first));
  }
  return warnings;
}

}  // namespace etkit::session
