#include "reversed_events.h"

#include "etkit/session/reversed_events.h"

namespace etkit::cli {

void warn_reversed_events(Diagnostics& diagnostics, const std::string& path, const etdump::ETDump& trace) {
  for (const std::string& warning : session::reversed_events_warnings(path, trace)) diagnostics.warning(warning);
}

}  // namespace etkit::cli
