#pragma once
// Durations and sizes as people read them: "12.4 µs", "1.05 ms", "3.26 MiB".

#include <cstdint>
#include <string>

namespace etkit::gui {

/// `ns` with three significant digits in ns, µs, ms or s: the events
/// table's duration_text, so every view writes a time alike.
std::string format_duration(double ns);

/// `bytes` in B, KiB (one decimal) or MiB (two decimals).
std::string format_bytes(uint64_t bytes);

}  // namespace etkit::gui
