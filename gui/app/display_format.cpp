#include "display_format.h"

#include "etkit/gui/events_table.h"

#include <cstdio>

namespace etkit::gui {

std::string format_duration(double ns) { return duration_text(ns, inspector::TimeUnit::kNanoseconds); }

std::string format_bytes(uint64_t bytes) {
  char text[32];
  if (bytes >= (1u << 20)) std::snprintf(text, sizeof(text), "%.2f MiB", double(bytes) / double(1u << 20));
  else if (bytes >= 1024) std::snprintf(text, sizeof(text), "%.1f KiB", double(bytes) / 1024.0);
  else std::snprintf(text, sizeof(text), "%llu B", static_cast<unsigned long long>(bytes));
  return text;
}

}  // namespace etkit::gui
