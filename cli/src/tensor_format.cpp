#include "tensor_format.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace etkit::cli {

std::string shape_text(const Tensor& tensor) {
  std::string text = std::string(to_string(tensor.scalar_type())) + "[";
  for (int d = 0; d < tensor.dim(); ++d) {
    text += (d ? ", " : "") + std::to_string(tensor.size(d));
  }
  return text + "]";
}

double element_as_double(const Tensor& tensor, int64_t index) {
  int64_t offset = 0;
  for (int d = tensor.dim() - 1; d >= 0; --d) {
    offset += (index % tensor.size(d)) * tensor.stride(d);
    index /= tensor.size(d);
  }
  const auto* p = static_cast<const uint8_t*>(tensor.data()) + offset * int64_t(tensor.element_size());
  switch (tensor.scalar_type()) {
    case ScalarType::kFloat: { float v; std::memcpy(&v, p, 4); return v; }
    case ScalarType::kDouble: { double v; std::memcpy(&v, p, 8); return v; }
    case ScalarType::kByte: return *p;
    case ScalarType::kBool: return *p != 0;
    case ScalarType::kChar: return static_cast<int8_t>(*p);
    case ScalarType::kShort: { int16_t v; std::memcpy(&v, p, 2); return v; }
    case ScalarType::kInt: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case ScalarType::kLong: { int64_t v; std::memcpy(&v, p, 8); return double(v); }
    case ScalarType::kHalf: {
      uint16_t h; std::memcpy(&h, p, 2);
      const int e = (h >> 10) & 31, m = h & 1023;
      const double s = (h >> 15) ? -1 : 1;
      if (e == 0) return s * m * std::pow(2.0, -24);
      if (e == 31) return m ? NAN : s * INFINITY;
      return s * (1 + m / 1024.0) * std::pow(2.0, e - 15);
    }
    case ScalarType::kBFloat16: {
      uint32_t bits = uint32_t(p[0] | p[1] << 8) << 16;
      float v; std::memcpy(&v, &bits, 4); return v;
    }
    default: return NAN;
  }
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
