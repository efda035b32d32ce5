#include "record_loading.h"

#include <CLI/CLI.hpp>

#include "etkit/inspector/source_links.h"
#include "option_checks.h"

namespace etkit::cli {

Result<etrecord::Etrecord> load_etrecord(const std::string& path, const std::string& method,
                                         Diagnostics& diagnostics) {
  ETKIT_ASSIGN_OR_RETURN(etrecord::Etrecord record, etrecord::Etrecord::load_file(path));
  for (const std::string& warning : record.warnings()) diagnostics.warning(warning);
  if (record.method(method) == nullptr) {
    std::vector<std::string> names;
    for (const auto& entry : record.methods()) names.push_back(entry.first);
    return unknown_name("--method", method, "method in " + path, names);
  }
  return record;
}

Status check_record_fits(const inspector::GroupedEvents& grouped, const etrecord::Etrecord& record,
                         const std::string& record_path, const std::string& method, bool allow_unlinked,
                         Diagnostics& diagnostics) {
  return check_record_fits(inspector::record_fit(grouped, record, method), record_path, allow_unlinked,
                           diagnostics);
}

Status check_record_fits(const inspector::LinkReport& fit, const std::string& record_path, bool allow_unlinked,
                         Diagnostics& diagnostics) {
  if (fit.unmatched <= fit.linked) return Ok{};
  const std::string what = record_path + " does not belong to this trace: " + std::to_string(fit.unmatched) +
                           " of " + std::to_string(fit.linked + fit.unmatched) +
                           " events have no graph node";
  if (!allow_unlinked) {
    return Error::make(ErrorCode::kInvalidArgument, "%s (--allow-unlinked goes on anyway)", what.c_str());
  }
  diagnostics.warning(what);
  return Ok{};
}

void add_allow_unlinked(CLI::App& command, bool& allow_unlinked) {
  command.add_flag("--allow-unlinked", allow_unlinked,
                   "Go on when the ETRecord does not match the trace (most events have no graph node)");
}

}  // namespace etkit::cli
