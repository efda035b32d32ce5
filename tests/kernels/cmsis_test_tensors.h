#pragma once
// Small integer tensors for the cortex_m:: kernel tests, and CMSIS-NN's Q31
// one half: shared by the tests of its arithmetic, element-wise and layout
// kernels.

#include <ATen/ATen.h>

#include <cstdint>
#include <vector>

namespace etkit::test {

/// `values` as a contiguous tensor of `sizes` and `type` (int8 by default).
inline at::Tensor int8(std::vector<int64_t> values, at::IntArrayRef sizes, at::ScalarType type = at::kChar) {
  return at::tensor(values, at::kLong).to(type).reshape(sizes).contiguous();
}
inline at::Tensor int32(std::vector<int64_t> values) { return at::tensor(values, at::kLong).to(at::kInt); }
/// Every element of `t` as int64, in its logical order.
inline std::vector<int64_t> values_of(const at::Tensor& t) {
  at::Tensor flat = t.contiguous().to(at::kLong).flatten();
  return std::vector<int64_t>(flat.data_ptr<int64_t>(), flat.data_ptr<int64_t>() + flat.numel());
}

inline constexpr int32_t kHalf = 1 << 30;  ///< Q31 0.5

}  // namespace etkit::test
