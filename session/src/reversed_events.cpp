#include "etkit/session/reversed_events.h"

namespace etkit::session {

std::string reversed_events_warning(const std::string& path, size_t block, const std::string& block_name,
                                    size_t count, const std::string& first) {
  return path + ": run block " + std::to_string(block) + " ('" + block_name + "'): " + std::to_string(count) +
         " event(s) end before they start, the first " + first +
         "; they are timed with upstream's 32-bit wraparound rule";
}

std::vector<std::string> reversed_events_warnings(const std::string& path, const etdump::ETDump& trace) {
  std::vector<std::string> warnings;
  for (size_t b = 0; b < trace.block_count(); ++b) {
    const etdump::RunBlock block = trace.block(b);
    const etdump::RunBlockStats stats = block.stats();
    if (stats.reversed_events == 0) continue;
    const std::string first = "event " + std::to_string(stats.first_reversed) + " '" +
                              std::string(block.event(stats.first_reversed).profile.name) + "'";
    warnings.push_back(reversed_events_warning(path, b, std::string(block.name()), stats.reversed_events, first));
  }
  return warnings;
}

}  // namespace etkit::session
