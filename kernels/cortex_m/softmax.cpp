// cortex_m::softmax: CMSIS-NN's int8 softmax (arm_softmax_s8) along the
// last dimension. Per row: the difference to the row's maximum, scaled by
// the input multiplier and 2^shift into Q5.26, goes through the
// fixed-point exp; the sum of exps (Q12.19) is inverted by Newton-Raphson;
// each output is exp * (1 / sum) in Q0.8 minus 128, so the output zero
// point is -128 (upstream refuses any other). Differences below diff_min
// give -128 (probability 0).

#include "cmsis_arithmetic.h"
#include "cortex_m_families.h"
#include "cortex_m_util.h"
#include "etkit/kernels/op_sets.h"

namespace etkit::kernels {
namespace {

constexpr int32_t kAccumulationBits = 12;

void softmax_row(const int8_t* x, int8_t* y, int64_t n, int32_t multiplier, int32_t shift, int32_t diff_min) {
  using namespace cmsis;
  int8_t max = x[0];
  for (int64_t i = 1; i < n; ++i) max = std::max(max, x[i]);
  const int32_t scale_up = 1 << shift;
  auto exp_of = [&](int32_t diff) {
    return exp_on_negative_values(saturating_doubling_high_multiply(diff * scale_up, multiplier));
  };
  int32_t sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int32_t diff = int32_t(x[i]) - max;
    if (diff >= diff_min) sum += divide_by_power_of_two(exp_of(diff), kAccumulationBits);
  }
  const int32_t headroom = count_leading_zeros(uint32_t(sum));
  const int32_t bits_over_unit = kAccumulationBits - headroom + 23;
  const uint32_t normalized = sum > 0 ? uint32_t(sum) << headroom : 0u;
  const int32_t reciprocal = one_over_one_plus_x(int32_t(normalized - 0x80000000u));
  for (int64_t i = 0; i < n; ++i) {
    const int32_t diff = int32_t(x[i]) - max;
    if (diff < diff_min) {
      y[i] = -128;
      continue;
    }
    const int32_t scaled =
        divide_by_power_of_two(saturating_doubling_high_multiply(reciprocal, exp_of(diff)), bits_over_unit) - 128;
    y[i] = int8_t(clamp(scaled, -128, 127));
  }
}

// softmax.out(input, dim, input_zero_point, output_zero_point, input_multiplier, input_shift,
//             diff_min, *, out)
Status softmax_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 7);
  ETKIT_TRY(check_int8(context, in, "input"));
  ETKIT_TRY(check_int8(context, out, "out"));
  int64_t dim = int_arg(args, 1);
  ETKIT_KERNEL_CHECK(context, in.dim() >= 1 && wrap_dim(dim, in.dim()) && dim == in.dim() - 1,
                     "softmax runs along the last dimension only, got dim %lld of %d",
                     static_cast<long long>(int_arg(args, 1)), in.dim());
  ETKIT_KERNEL_CHECK(context, int_arg(args, 3) == -128, "output zero point must be -128, got %lld",
                     static_cast<long long>(int_arg(args, 3)));
  const int64_t multiplier = int_arg(args, 4), shift = int_arg(args, 5), diff_min = int_arg(args, 6);
  ETKIT_KERNEL_CHECK(context, multiplier >= 0 && multiplier <= INT32_MAX && shift >= 0 && shift <= 26 &&
                                  diff_min >= INT32_MIN && diff_min <= 0,
                     "input multiplier %lld, shift %lld or diff_min %lld is out of range",
                     static_cast<long long>(multiplier), static_cast<long long>(shift),
                     static_cast<long long>(diff_min));
  ETKIT_KERNEL_CHECK(context, in.is_default_dim_order() && out.is_default_dim_order(),
                     "expects contiguous tensors (rows along the last dimension)");
  ETKIT_TRY(resize_output(context, out, in.sizes()));
  const int64_t n = in.size(in.dim() - 1);
  if (n == 0) return Ok{};
  const int8_t* x = in.data_as<const int8_t>();
  int8_t* y = out.data_as<int8_t>();
  for (int64_t row = 0; row < in.numel() / n; ++row) {
    softmax_row(x + row * n, y + row * n, n, int32_t(multiplier), int32_t(shift), int32_t(diff_min));
  }
  return Ok{};
}

}  // namespace

void register_cortex_m_softmax(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "cortex_m::softmax.out", "TiiiiiiWW", softmax_out);
}

}  // namespace etkit::kernels
