#pragma once
// Events that end before they start, said on stderr (the text is
// session/reversed_events.h's).

#include <string>

#include "diagnostics.h"
#include "etkit/etdump/etdump_reader.h"

namespace etkit::cli {

/// One warning per run block holding such events, naming the first.
void warn_reversed_events(Diagnostics& diagnostics, const std::string& path, const etdump::ETDump& trace);

}  // namespace etkit::cli
