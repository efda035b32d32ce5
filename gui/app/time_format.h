#pragma once
// Durations and instants as people read them: "12.4 µs", "1.05 ms".

#include <string>

namespace etkit::gui {

/// `ns` with three significant digits in ns, µs, ms or s.
std::string format_duration(double ns);

}  // namespace etkit::gui
