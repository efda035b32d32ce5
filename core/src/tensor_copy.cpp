#include "etkit/core/tensor_copy.h"

#include <cstring>

#include "etkit/core/half_types.h"

namespace etkit {
namespace {

// Element i of `in` to element i of `out`, in memory order: with one dim
// order and one shape, memory order is the same element order.
template <typename From, typename To>
void convert_dense(const Tensor& in, Tensor& out) {
  const auto* src = static_cast<const From*>(in.data());
  auto* dst = static_cast<To*>(out.data());
  for (int64_t i = 0; i < in.numel(); ++i) dst[i] = To(float(src[i]));
}

}  // namespace

void copy_logical_order(const Tensor& in, Tensor& out) {
  if (in.is_default_dim_order() && out.is_default_dim_order()) {
    if (in.nbytes() > 0) std::memcpy(out.data(), in.data(), in.nbytes());
    return;
  }
  // Walk both tensors' logical indices in lockstep with two odometers.
  const size_t size = in.element_size();
  const auto* src = static_cast<const uint8_t*>(in.data());
  auto* dst = static_cast<uint8_t*>(out.data());
  int64_t in_index[kMaxRank] = {}, out_index[kMaxRank] = {};
  int64_t in_offset = 0, out_offset = 0;
  for (int64_t n = 0; n < in.numel(); ++n) {
    std::memcpy(dst + out_offset * static_cast<int64_t>(size),
                src + in_offset * static_cast<int64_t>(size), size);
    for (int d = in.dim() - 1; d >= 0; --d) {
      in_offset += in.stride(d);
      if (++in_index[d] < in.size(d)) break;
      in_offset -= in.stride(d) * in.size(d);
      in_index[d] = 0;
    }
    for (int d = out.dim() - 1; d >= 0; --d) {
      out_offset += out.stride(d);
      if (++out_index[d] < out.size(d)) break;
      out_offset -= out.stride(d) * out.size(d);
      out_index[d] = 0;
    }
  }
}

Status convert_float_staging(const Tensor& in, Tensor& out) {
  if (in.dim() != out.dim() ||
      (in.dim() > 0 && std::memcmp(in.dim_order().data(), out.dim_order().data(), size_t(in.dim())) != 0)) {
    return Error::make(ErrorCode::kInternal, "float staging between tensors of different ranks or dim orders");
  }
  ETKIT_TRY(out.resize(in.sizes()));
  const ScalarType from = in.scalar_type(), to = out.scalar_type();
  if (from == ScalarType::kHalf && to == ScalarType::kFloat) convert_dense<Half, float>(in, out);
  else if (from == ScalarType::kBFloat16 && to == ScalarType::kFloat) convert_dense<BFloat16, float>(in, out);
  else if (from == ScalarType::kFloat && to == ScalarType::kHalf) convert_dense<float, Half>(in, out);
  else if (from == ScalarType::kFloat && to == ScalarType::kBFloat16) convert_dense<float, BFloat16>(in, out);
  else {
    return Error::make(ErrorCode::kInternal, "float staging from %s to %s", to_string(from), to_string(to));
  }
  return Ok{};
}

}  // namespace etkit
