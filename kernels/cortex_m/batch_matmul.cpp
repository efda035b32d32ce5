// cortex_m::quantized_batch_matmul: int8 batched matrix products with the
// right operand transposed (CMSIS-NN's arm_batch_matmul_s8):
//   out[b, i, j] = clamp(requantize(sum_k (lhs[b, i, k] + lhs_offset) * (rhs[b, j, k] + rhs_offset))
//                        + output_offset, -128, 127)

#include "cmsis_arithmetic.h"
#include "cortex_m_families.h"
#include "cortex_m_util.h"
#include "etkit/kernels/op_sets.h"

namespace etkit::kernels {
namespace {

// quantized_batch_matmul.out(lhs, lhs_zero_point, rhs_transposed, rhs_zero_point,
//     output_zero_point, output_multiplier, output_shift, scratch, *, out); the
// "zero points" are the offsets CMSIS-NN adds (minus the zero points).
Status quantized_batch_matmul_out(KernelContext& context, Span<Value*> args) {
  const Tensor& lhs = tensor_arg(args, 0);
  const Tensor& rhs = tensor_arg(args, 2);
  Tensor& out = tensor_arg(args, 8);
  ETKIT_TRY(check_int8(context, lhs, "lhs"));
  ETKIT_TRY(check_int8(context, rhs, "rhs_transposed"));
  ETKIT_TRY(check_int8(context, out, "out"));
  ETKIT_KERNEL_CHECK(context, lhs.dim() == 3 && rhs.dim() == 3 && lhs.size(0) == rhs.size(0) &&
                                  lhs.size(2) == rhs.size(2),
                     "lhs [B, M, K] and rhs_transposed [B, N, K] do not match");
  ETKIT_KERNEL_CHECK(context, lhs.is_default_dim_order() && rhs.is_default_dim_order() &&
                                  out.is_default_dim_order(),
                     "expects contiguous tensors");
  const int64_t batch = lhs.size(0), m = lhs.size(1), k = lhs.size(2), n = rhs.size(1);
  const int64_t sizes[3] = {batch, m, n};
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, 3)));
  const int32_t lhs_offset = int32_t(int_arg(args, 1)), rhs_offset = int32_t(int_arg(args, 3));
  const int32_t out_offset = int32_t(int_arg(args, 4));
  ETKIT_KERNEL_CHECK(context, cmsis::valid_shift(int_arg(args, 6)), "output_shift %lld is outside [%d, %d]",
                     (long long)int_arg(args, 6), cmsis::kMinShift, cmsis::kMaxShift);
  const int32_t multiplier = int32_t(int_arg(args, 5)), shift = int32_t(int_arg(args, 6));
  const int8_t* a = lhs.data_as<const int8_t>();
  const int8_t* bt = rhs.data_as<const int8_t>();
  int8_t* y = out.data_as<int8_t>();
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const int8_t* row = a + (b * m + i) * k;
        const int8_t* col = bt + (b * n + j) * k;
        int32_t acc = 0;
        for (int64_t t = 0; t < k; ++t) acc += (int32_t(row[t]) + lhs_offset) * (int32_t(col[t]) + rhs_offset);
        y[(b * m + i) * n + j] =
            int8_t(cmsis::clamp(cmsis::requantize(acc, multiplier, shift) + out_offset, -128, 127));
      }
  return Ok{};
}

}  // namespace

void register_cortex_m_batch_matmul(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "cortex_m::quantized_batch_matmul.out", "TiTiiiiTWW", quantized_batch_matmul_out);
}

}  // namespace etkit::kernels
