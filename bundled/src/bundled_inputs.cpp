#include "etkit/bundled/bundled_inputs.h"

#include <vector>

namespace etkit::bundled {

Result<Tensor> tensor_view(const BundledValue& value) {
  std::vector<int64_t> sizes(value.sizes.begin(), value.sizes.end());
  // Bundled tensor bytes are read-only; inputs are never written by kernels.
  return Tensor::make(value.scalar_type, Span<const int64_t>(sizes.data(), sizes.size()),
                      Span<const uint8_t>(value.dim_order.data(), value.dim_order.size()),
                      const_cast<uint8_t*>(value.data.data), value.data.size);
}

Status set_inputs(Method& method, const TestCase& test_case) {
  if (test_case.inputs.size() != method.input_count()) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "method '%s' takes %zu inputs, the test case has %zu",
                       method.name().c_str(), method.input_count(), test_case.inputs.size());
  }
  for (size_t i = 0; i < test_case.inputs.size(); ++i) {
    const BundledValue& value = test_case.inputs[i];
    Status status = Ok{};
    switch (value.kind) {
      case BundledValue::Kind::kTensor: {
        ETKIT_ASSIGN_OR_RETURN(Tensor view, tensor_view(value));
        status = method.set_input(i, view);
        break;
      }
      case BundledValue::Kind::kInt:
        status = method.set_input(i, Value::from_int(value.int_value));
        break;
      case BundledValue::Kind::kBool:
        status = method.set_input(i, Value::from_bool(value.bool_value));
        break;
      case BundledValue::Kind::kDouble:
        status = method.set_input(i, Value::from_double(value.double_value));
        break;
    }
    if (!status.ok()) {
      return status.error().with_context("bundled input %zu", i);
    }
  }
  return Ok{};
}

}  // namespace etkit::bundled
