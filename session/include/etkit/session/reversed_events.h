#pragma once
// The warning for profile events that end before they start: every tool
// times them with upstream's 32-bit wraparound rule (etdump::elapsed_ticks),
// and says which event it was, since such times may be bogus.

#include <string>
#include <vector>

#include "etkit/etdump/etdump_reader.h"

namespace etkit::session {

/// One warning per run block holding such events, naming the first.
std::vector<std::string> reversed_events_warnings(const std::string& path, const etdump::ETDump& trace);

/// The warning's text for one block (info builds it from its summary).
std::string reversed_events_warning(const std::string& path, size_t block, const std::string& block_name,
                                    size_t count, const std::string& first);

}  // namespace etkit::session
