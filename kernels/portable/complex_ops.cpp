// The portable ops whose schema takes complex tensors: _conj_physical
// (negated imaginary parts) and view_as_real_copy (a complex [*] as real
// [*, 2]). complex32 (chalf), complex64 and complex128 are supported; the
// other ops do not take complex dtypes in etkit.

#include <cstring>

#include "view_util.h"

namespace etkit::kernels {
namespace {

// The real dtype of a complex one, or kUndefined.
ScalarType real_part_type(ScalarType t) {
  switch (t) {
    case ScalarType::kComplexHalf: return ScalarType::kHalf;
    case ScalarType::kComplexFloat: return ScalarType::kFloat;
    case ScalarType::kComplexDouble: return ScalarType::kDouble;
    default: return ScalarType::kUndefined;
  }
}

// _conj_physical.out(self, out): for real inputs a copy, as ATen.
Status conj_physical_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 1);
  ETKIT_TRY(check_same_dtype(context, in, out));
  ETKIT_TRY(copy_into(context, whole(in), out));
  const ScalarType part = real_part_type(in.scalar_type());
  if (part == ScalarType::kUndefined) return Ok{};
  // out is dense: flip the sign bit of every imaginary part.
  const size_t half = element_size(part);
  auto* bytes = static_cast<uint8_t*>(out.data());
  for (int64_t i = 0; i < out.numel(); ++i) bytes[size_t(i) * 2 * half + 2 * half - 1] ^= 0x80;
  return Ok{};
}

// view_as_real_copy.out(self, out): complex [*] -> real [*, 2].
Status view_as_real_copy_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 1);
  const ScalarType part = real_part_type(in.scalar_type());
  ETKIT_KERNEL_CHECK(context, part != ScalarType::kUndefined,
                     "view_as_real is only supported for complex tensors, got %s", to_string(in.scalar_type()));
  ETKIT_KERNEL_CHECK(context, out.scalar_type() == part, "expected a %s out, got %s", to_string(part),
                     to_string(out.scalar_type()));
  ETKIT_KERNEL_CHECK(context, in.dim() < kMaxRank && in.is_default_dim_order(),
                     "view_as_real_copy needs a contiguous input of rank < %d", kMaxRank);
  int64_t sizes[kMaxRank];
  for (int d = 0; d < in.dim(); ++d) sizes[d] = in.size(d);
  sizes[in.dim()] = 2;
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, size_t(in.dim() + 1))));
  ETKIT_KERNEL_CHECK(context, out.is_default_dim_order(), "view_as_real_copy needs a contiguous out");
  if (in.nbytes() > 0) std::memcpy(out.data(), in.data(), in.nbytes());
  return Ok{};
}

}  // namespace

void register_complex_ops(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "aten::_conj_physical.out", "TWW", conj_physical_out);
  ETKIT_REGISTER_KERNEL(r, "aten::view_as_real_copy.out", "TWW", view_as_real_copy_out);
}

}  // namespace etkit::kernels
