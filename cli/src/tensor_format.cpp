#include "tensor_format.h"

#include "etkit/core/tensor_access.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

namespace etkit::cli {

std::string shape_text(const Tensor& tensor) {
  return std::string(to_string(tensor.scalar_type())) + format_sizes(tensor.sizes());
}

void print_value(report::Printer& out, const Value& value, size_t preview) {
  out.field("kind", to_string(value.tag()));
  if (value.is_tensor()) {
    const Tensor& t = value.unchecked_tensor();
    out.field("dtype", to_string(t.scalar_type()));
    out.int_list("sizes", std::vector<int64_t>(t.sizes().begin(), t.sizes().end()));
    out.field("numel", t.numel());
    if (preview > 0) {
      const int64_t count = std::min<int64_t>(t.numel(), int64_t(preview));
      std::vector<double> values(static_cast<size_t>(count));
      for (int64_t i = 0; i < count; ++i) values[size_t(i)] = element_as_double(t, i);
      out.double_list("values", values, size_t(t.numel()));
    }
  } else if (value.tag() == ValueTag::kInt) {
    out.field("value", value.unchecked_int());
  } else if (value.tag() == ValueTag::kDouble) {
    out.field("value", value.unchecked_double());
  } else if (value.tag() == ValueTag::kBool) {
    out.field("value", value.unchecked_bool());
  }
}

}  // namespace etkit::cli
