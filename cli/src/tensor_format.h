#pragma once
// Short human and JSON views of runtime values, for run and verify output.

#include <string>

#include "etkit/core/value.h"
#include "etkit/report/printer.h"

namespace etkit::cli {

/// "float32[2, 3]".
std::string shape_text(const Tensor& tensor);
/// Prints a value: kind, dtype, sizes, numel and its first `preview`
/// elements in logical order as numbers.
void print_value(report::Printer& out, const Value& value, size_t preview);

}  // namespace etkit::cli
