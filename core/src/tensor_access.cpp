#include "etkit/core/tensor_access.h"

#include <cmath>
#include <cstring>

namespace etkit {

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

std::string format_sizes(Span<const int64_t> sizes) {
  std::string text = "[";
  for (size_t i = 0; i < sizes.size(); ++i) text += (i ? ", " : "") + std::to_string(sizes[i]);
  return text + "]";
}

std::vector<int64_t> unravel_index(int64_t index, Span<const int64_t> sizes) {
  std::vector<int64_t> position(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    position[d] = sizes[d] == 0 ? 0 : index % sizes[d];
    index = sizes[d] == 0 ? 0 : index / sizes[d];
  }
  return position;
}

}  // namespace etkit
