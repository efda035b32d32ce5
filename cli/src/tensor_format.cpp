#include "tensor_format.h"

#include "etkit/core/tensor_access.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace etkit::cli {

std::string shape_text(const Tensor& tensor) {
  return std::string(to_string(tensor.scalar_type())) + format_sizes(tensor.sizes());
}

std::string values_preview(const Tensor& tensor, size_t limit) {
  std::string text = "[";
  const int64_t count = std::min<int64_t>(tensor.numel(), int64_t(limit));
  for (int64_t i = 0; i < count; ++i) {
    char item[32];
    std::snprintf(item, sizeof(item), "%.6g", element_as_double(tensor, i));
    text += (i ? ", " : "") + std::string(item);
  }
  if (tensor.numel() > count) text += ", …";
  return text + "]";
}

void print_value(Printer& out, const Value& value, size_t preview) {
  out.field("kind", to_string(value.tag()));
  if (value.is_tensor()) {
    const Tensor& t = value.to_tensor();
    out.field("dtype", to_string(t.scalar_type()));
    out.int_list("sizes", std::vector<int64_t>(t.sizes().begin(), t.sizes().end()));
    if (preview > 0) out.field("values", values_preview(t, preview));
  } else if (value.tag() == ValueTag::kInt) {
    out.field("value", value.to_int());
  } else if (value.tag() == ValueTag::kDouble) {
    out.field("value", value.to_double());
  } else if (value.tag() == ValueTag::kBool) {
    out.field("value", value.to_bool());
  }
}

}  // namespace etkit::cli
