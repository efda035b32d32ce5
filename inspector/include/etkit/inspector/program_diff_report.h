#pragma once
// What `etinspect diff-program` reports: two programs' differences
// (program_diff.h), printed as text or JSON by one function.

#include <cstddef>
#include <string>

#include "etkit/inspector/program_diff.h"
#include "etkit/report/printer.h"

namespace etkit::inspector {

struct ProgramDiffReport {
  std::string old_path, new_path;
  ProgramDiff diff;
  size_t text_rows = 20;  ///< operators and constants the text lists per table (JSON: all)
};

/// {old, new, old_file_bytes, new_file_bytes, file_change, methods_added,
/// methods_removed, methods: [{name, old_instructions, new_instructions,
/// operators: [{name, old, new}], delegate_calls: [...]}], constants:
/// [{key, status, old_shape, new_shape, old_bytes, new_bytes,
/// max_abs_change}], constants_unchanged, sizes: [{category, old_bytes,
/// new_bytes, change}]}.
void print(report::Printer& out, const ProgramDiffReport& report);

}  // namespace etkit::inspector
