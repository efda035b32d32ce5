#include "display_format.h"

#include <cmath>
#include <cstdio>

namespace etkit::gui {

std::string format_duration(double ns) {
  const double magnitude = std::abs(ns);
  const char* unit = "ns";
  double value = ns;
  if (magnitude >= 1e9) {
    value = ns / 1e9;
    unit = "s";
  } else if (magnitude >= 1e6) {
    value = ns / 1e6;
    unit = "ms";
  } else if (magnitude >= 1e3) {
    value = ns / 1e3;
    unit = "µs";
  }
  char text[48];
  std::snprintf(text, sizeof(text), "%.3g %s", value, unit);
  return text;
}

std::string format_bytes(uint64_t bytes) {
  char text[32];
  if (bytes >= (1u << 20)) std::snprintf(text, sizeof(text), "%.2f MiB", double(bytes) / double(1u << 20));
  else if (bytes >= 1024) std::snprintf(text, sizeof(text), "%.1f KiB", double(bytes) / 1024.0);
  else std::snprintf(text, sizeof(text), "%llu B", static_cast<unsigned long long>(bytes));
  return text;
}

}  // namespace etkit::gui
