#pragma once
/// @file
/// The intermediate outputs of a trace and its debug buffer as files: what
/// `etinspect gap` and etkit's Python calculate_numeric_gap both start from.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "etkit/core/result.h"
#include "etkit/inspector/numeric_gap.h"

namespace etkit {
class Program;
}

namespace etkit::inspector {

/// recorded_outputs() of the trace at `trace_path` and its debug buffer at
/// `buffer_path`: of run block `block`, or of the first block that has
/// any. With `program`, the values delegates logged are decoded into the
/// graph's terms (decode_delegate_outputs); its warnings, prefixed with
/// `program_name`, are appended to `warnings`. Errors name the file.
/// Empty when the trace holds no intermediate outputs: the caller says how
/// to record them in its own terms.
Result<std::vector<RecordedOutput>> load_recorded_outputs(const std::string& trace_path,
                                                          const std::string& buffer_path,
                                                          std::optional<size_t> block, const Program* program,
                                                          const std::string& program_name,
                                                          const std::string& method,
                                                          std::vector<std::string>& warnings);

}  // namespace etkit::inspector
