#pragma once
// Loading an ETRecord for a command: its warnings, and a method the record
// does not know, are reported once, the same way by every command.

#include <string>

#include "diagnostics.h"
#include "etkit/core/result.h"
#include "etkit/etrecord/etrecord.h"

namespace etkit::cli {

/// The record at `path`; warnings go to `diagnostics`. Fails only when the
/// file is not a readable ETRecord.
Result<etrecord::Etrecord> load_etrecord(const std::string& path, const std::string& method,
                                         Diagnostics& diagnostics);

}  // namespace etkit::cli
