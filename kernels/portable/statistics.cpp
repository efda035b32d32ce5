// var and var_mean: the variance over a set of dims with a correction
// (Bessel's: 1; unbiased=False: 0), computed in double with two passes.

#include <cmath>
#include <limits>

#include "reduction_plan.h"

namespace etkit::kernels {
namespace {

Status check_floating_out(KernelContext& context, const Tensor& in, const Tensor& out) {
  ETKIT_KERNEL_CHECK(context, is_floating(in.scalar_type()),
                     "std and var only support floating point and complex dtypes, got %s",
                     to_string(in.scalar_type()));
  ETKIT_KERNEL_CHECK(context, out.scalar_type() == in.scalar_type(),
                     "out dtype %s differs from the input's %s", to_string(out.scalar_type()),
                     to_string(in.scalar_type()));
  return Ok{};
}

// Writes the variance (and, when `mean_out` is given, the mean) of every
// reduced group. As ATen, the divisor is max(0, count - correction): with
// too few elements 0/0 gives NaN and x/0 infinity.
Status variance(KernelContext& context, const Tensor& in, const IntList& dims, bool all,
                double correction, bool keepdim, Tensor& out, Tensor* mean_out) {
  ETKIT_TRY(check_floating_out(context, in, out));
  if (mean_out) ETKIT_TRY(check_floating_out(context, in, *mean_out));
  Reduction r;
  ETKIT_TRY(plan_reduction(context, in, dims, all, keepdim, r));
  const Span<const int64_t> sizes(r.out_sizes, size_t(r.out_rank));
  ETKIT_TRY(resize_output(context, out, sizes));
  if (mean_out) {
    ETKIT_TRY(resize_output(context, *mean_out, sizes));
    ETKIT_KERNEL_CHECK(context, same_dense_layout(out, *mean_out),
                       "the variance and mean outs must share one layout");
  }
  const double count = double(r.reduced_count);
  const double divisor = std::max(0.0, count - correction);
  return dispatch_floating(context, in.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data_as<const T>();
    T* y = out.data_as<T>();
    T* m = mean_out ? mean_out->data_as<T>() : nullptr;
    for_each_output(context, r, out, [&](int64_t in_offset, int64_t out_offset) {
      const double sum = walk<double>(r, x + in_offset, 0.0, [](double a, T v) { return a + double(v); });
      const double mean = count > 0 ? sum / count : std::numeric_limits<double>::quiet_NaN();
      const double squares = walk<double>(r, x + in_offset, 0.0, [mean](double a, T v) {
        const double d = double(v) - mean;
        return a + d * d;
      });
      y[out_offset] = T(squares / divisor);
      if (m) m[out_offset] = T(mean);
    });
  });
}

// var.out(self, dim?, unbiased, keepdim, out).
Status var_out(KernelContext& context, Span<Value*> args) {
  IntList dims;
  ETKIT_TRY(int_list_arg(context, args, 1, dims));
  return variance(context, tensor_arg(args, 0), dims, dims.size == 0, bool_arg(args, 2) ? 1.0 : 0.0,
                  bool_arg(args, 3), tensor_arg(args, 4), nullptr);
}

double correction_arg(const Value& v) { return v.is_none() ? 1.0 : v.scalar_as_double(); }

// var.correction_out(self, dim?, *, correction?, keepdim, out).
Status var_correction_out(KernelContext& context, Span<Value*> args) {
  IntList dims;
  ETKIT_TRY(int_list_arg(context, args, 1, dims));
  return variance(context, tensor_arg(args, 0), dims, dims.size == 0, correction_arg(*args[2]),
                  bool_arg(args, 3), tensor_arg(args, 4), nullptr);
}

// var_mean.correction_out(self, dim?, *, correction?, keepdim, out0, out1):
// the variance in out0, the mean in out1.
Status var_mean_correction_out(KernelContext& context, Span<Value*> args) {
  IntList dims;
  ETKIT_TRY(int_list_arg(context, args, 1, dims));
  return variance(context, tensor_arg(args, 0), dims, dims.size == 0, correction_arg(*args[2]),
                  bool_arg(args, 3), tensor_arg(args, 4), &tensor_arg(args, 5));
}

}  // namespace

void register_statistics(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "aten::var.out", "TJbbWW", var_out);
  ETKIT_REGISTER_KERNEL(r, "aten::var.correction_out", "TJobWW", var_correction_out);
  ETKIT_REGISTER_KERNEL(r, "aten::var_mean.correction_out", "TJobWWM", var_mean_correction_out);
}

}  // namespace etkit::kernels
