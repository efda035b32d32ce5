#include "time_format.h"

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

}  // namespace etkit::gui
