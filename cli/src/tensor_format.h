#pragma once
// Short human and JSON views of runtime values, for run and verify output.

#include <string>

#include "etkit/core/value.h"
#include "printer.h"

namespace etkit::cli {

/// "float32[2, 3]".
std::string shape_text(const Tensor& tensor);
/// The first `limit` elements in logical order, e.g. "[1, 2.5, nan, …]".
std::string values_preview(const Tensor& tensor, size_t limit);
/// Prints a value: kind, dtype, sizes and a preview of its elements.
void print_value(Printer& out, const Value& value, size_t preview);

}  // namespace etkit::cli
