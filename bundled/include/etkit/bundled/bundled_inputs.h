#pragma once
/// @file
/// Feeds a bundled test case's inputs to a loaded method.

#include "etkit/bundled/bundled_program.h"
#include "etkit/core/method.h"

namespace etkit::bundled {

/// Makes a tensor view of a bundled tensor value (borrowing its bytes).
Result<Tensor> tensor_view(const BundledValue& value);

/// Sets every input of `method` from `test_case`. Fails naming the input
/// when the count, kind, dtype or shape does not match the method.
Status set_inputs(Method& method, const TestCase& test_case);

}  // namespace etkit::bundled
