// Activations that are not pointwise maps: glu (one half gated by the
// sigmoid of the other) and native_dropout.

#include <cmath>

#include "random_bits.h"
#include "reduction_plan.h"
#include "view_util.h"

namespace etkit::kernels {
namespace {

// glu.out(self, dim, out): a * sigmoid(b) for the two halves of dim.
Status glu_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  int64_t dim = int_arg(args, 1);
  Tensor& out = tensor_arg(args, 2);
  ETKIT_TRY(check_same_dtype(context, in, out));
  ETKIT_KERNEL_CHECK(context, in.dim() > 0, "glu does not support scalars because halving size must be even");
  ETKIT_KERNEL_CHECK(context, wrap_dim(dim, in.dim()), "dimension out of range");
  const int d = int(dim);
  ETKIT_KERNEL_CHECK(context, in.size(d) % 2 == 0,
                     "Halving dimension must be even, but dimension %d is size %lld", d, (long long)in.size(d));
  int64_t sizes[kMaxRank];
  for (int i = 0; i < in.dim(); ++i) sizes[i] = i == d ? in.size(i) / 2 : in.size(i);
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, size_t(in.dim()))));
  const int64_t half = sizes[d], step = in.stride(d), out_step = out.stride(d);
  return dispatch_floating(context, in.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data_as<const T>();
    T* y = out.data_as<T>();
    for_each_lane(in, d, out, [&](int64_t i0, int64_t o0) {
      for (int64_t k = 0; k < half; ++k) {
        const T a = x[i0 + k * step], b = x[i0 + (k + half) * step];
        y[o0 + k * out_step] = a / (T(1) + std::exp(-b));
      }
    });
  });
}

// native_dropout.out(input, p, train?, out0, out1): in eval (train False)
// the input and an all-true mask; in training (train True or None, as ATen)
// each element is kept with probability 1 - p and scaled by 1 / (1 - p).
Status native_dropout_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  const double p = double_arg(args, 1);
  const bool train = args[2]->is_none() || bool_arg(args, 2);
  Tensor& out = tensor_arg(args, 3);
  Tensor& mask = tensor_arg(args, 4);
  ETKIT_TRY(check_same_dtype(context, in, out));
  ETKIT_KERNEL_CHECK(context, mask.scalar_type() == ScalarType::kBool, "expected a bool mask, got %s",
                     to_string(mask.scalar_type()));
  ETKIT_KERNEL_CHECK(context, p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got %g", p);
  ETKIT_TRY(copy_into(context, whole(in), out));
  ETKIT_TRY(resize_output(context, mask, in.sizes()));
  ETKIT_KERNEL_CHECK(context, same_dense_layout(out, mask), "out and mask must share one layout");
  auto* m = mask.data_as<uint8_t>();
  if (!train) {
    for (int64_t i = 0; i < mask.numel(); ++i) m[i] = 1;
    return Ok{};
  }
  ETKIT_KERNEL_CHECK(context, is_floating(in.scalar_type()), "training dropout needs a floating input, got %s",
                     to_string(in.scalar_type()));
  const double keep = 1.0 - p, scale = keep == 0 ? 0.0 : 1.0 / keep;
  CallRandom random;
  return dispatch_floating(context, out.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    T* y = out.data_as<T>();
    for (int64_t i = 0; i < out.numel(); ++i) {  // out and mask are dense and share a layout
      m[i] = random.uniform() < keep;
      y[i] = m[i] ? T(double(y[i]) * scale) : T(0);
    }
  });
}

}  // namespace

void register_activation_ops(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "aten::glu.out", "TiWW", glu_out);
  ETKIT_REGISTER_KERNEL(r, "aten::native_dropout.out", "TdcWWM", native_dropout_out);
}

}  // namespace etkit::kernels
