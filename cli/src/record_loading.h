#pragma once
// Loading an ETRecord for a command: its warnings, and a method the record
// does not know, are reported once, the same way by every command.

#include <string>

#include "diagnostics.h"
#include "etkit/core/result.h"
#include "etkit/etrecord/etrecord.h"
#include "etkit/inspector/event_blocks.h"
#include "etkit/inspector/source_links.h"

namespace CLI {
class App;
}

namespace etkit::cli {

/// The record at `path`; warnings go to `diagnostics`. Fails when the file
/// is not a readable ETRecord or has no `method` (naming those it has).
Result<etrecord::Etrecord> load_etrecord(const std::string& path, const std::string& method,
                                         Diagnostics& diagnostics);

/// Fails when `record` does not belong to the trace: most of the events
/// of its first run find no graph node. `allow_unlinked` (the commands'
/// --allow-unlinked) turns that into a warning.
Status check_record_fits(const inspector::GroupedEvents& grouped, const etrecord::Etrecord& record,
                         const std::string& record_path, const std::string& method, bool allow_unlinked,
                         Diagnostics& diagnostics);
/// The same from a link report of the caller's own linking.
Status check_record_fits(const inspector::LinkReport& fit, const std::string& record_path, bool allow_unlinked,
                         Diagnostics& diagnostics);

/// Adds --allow-unlinked (for commands that take --etrecord).
void add_allow_unlinked(CLI::App& command, bool& allow_unlinked);

}  // namespace etkit::cli
