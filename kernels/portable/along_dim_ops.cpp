// Ops along one dim: cumsum, max.dim / min.dim (values and indices) and
// topk. Each walks lanes of the input (reduction_plan.h).

#include <algorithm>
#include <cmath>
#include <limits>

#include "reduction_plan.h"

namespace etkit::kernels {
namespace {

Status checked_dim(KernelContext& context, const Tensor& in, int64_t& dim) {
  ETKIT_KERNEL_CHECK(context, wrap_dim(dim, in.dim()),
                     "dimension out of range (expected to be in range of [%d, %d], but got %lld)",
                     in.dim() == 0 ? -1 : -in.dim(), in.dim() == 0 ? 0 : in.dim() - 1,
                     (long long)dim);
  return Ok{};
}

// cumsum.out(self, dim, dtype?, out): sums run in double for floating outs
// and in int64 (wrapping) for integer ones, as ATen's CPU kernel.
Status cumsum_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  int64_t dim = int_arg(args, 1);
  Tensor& out = tensor_arg(args, 3);
  ETKIT_TRY(checked_dim(context, in, dim));
  if (!args[2]->is_none()) {
    ETKIT_KERNEL_CHECK(context, int_arg(args, 2) == int64_t(out.scalar_type()),
                       "dtype argument and out dtype must match");
  }
  ETKIT_TRY(resize_output(context, out, in.sizes()));
  const int d = int(dim);
  const int64_t n = lane_size(in, d), in_step = lane_stride(in, d), out_step = lane_stride(out, d);
  return dispatch_real_bool(context, in.scalar_type(), [&](auto in_tag) {
    using I = decltype(in_tag);
    return dispatch_real_bool(context, out.scalar_type(), [&](auto out_tag) {
      using O = decltype(out_tag);
      using Acc = std::conditional_t<std::is_floating_point_v<O>, double, int64_t>;
      const I* x = in.data_as<const I>();
      O* y = out.data_as<O>();
      if constexpr (std::is_same_v<I, float> && std::is_same_v<O, float>) {
        if (in_step == 1 && out_step == 1) {
          // Contiguous float lanes: the common case of audio and position models.
          for_each_lane(in, d, out, [&](int64_t i0, int64_t o0) {
            double sum = 0;
            for (int64_t k = 0; k < n; ++k) {
              sum += double(x[i0 + k]);
              y[o0 + k] = float(sum);
            }
          });
          return;
        }
      }
      for_each_lane(in, d, out, [&](int64_t i0, int64_t o0) {
        Acc sum = 0;
        for (int64_t k = 0; k < n; ++k) {
          if constexpr (std::is_integral_v<Acc>) {
            sum = wrap_add(sum, convert<Acc>(x[i0 + k * in_step]));
          } else {
            sum += convert<Acc>(x[i0 + k * in_step]);
          }
          y[o0 + k * out_step] = convert<O>(sum);
        }
      });
    });
  });
}

// NaN ranks above every number (the max, and first in a descending topk);
// ties keep the lower index.
template <typename T>
bool greater(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return !std::isnan(b);
    if (std::isnan(b)) return false;
  }
  return a > b;
}

// Whether `a` replaces `b` as the running extreme: a NaN is the extreme of
// both max and min, and an equal value keeps the earlier one.
template <bool is_max, typename T>
bool replaces(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(b)) return false;
    if (std::isnan(a)) return true;
  }
  return is_max ? a > b : a < b;
}

// max.dim_max / min.dim_min(self, dim, keepdim, values, indices): the first
// index of the extreme (a NaN is the extreme of both).
template <bool is_max>
Status extreme_dim(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  int64_t dim = int_arg(args, 1);
  const bool keepdim = bool_arg(args, 2);
  Tensor& values = tensor_arg(args, 3);
  Tensor& indices = tensor_arg(args, 4);
  ETKIT_TRY(checked_dim(context, in, dim));
  ETKIT_KERNEL_CHECK(context, values.scalar_type() == in.scalar_type(),
                     "expected values of dtype %s, got %s", to_string(in.scalar_type()),
                     to_string(values.scalar_type()));
  ETKIT_KERNEL_CHECK(context, indices.scalar_type() == ScalarType::kLong,
                     "expected indices of dtype int64, got %s", to_string(indices.scalar_type()));
  const int d = int(dim);
  ETKIT_KERNEL_CHECK(context, lane_size(in, d) > 0,
                     "cannot compute over dimension %d of size 0 (no identity)", d);
  IntList dims;
  dims.size = 1;
  dims.items[0] = dim;
  Reduction r;
  ETKIT_TRY(plan_reduction(context, in, dims, false, keepdim, r));
  const Span<const int64_t> sizes(r.out_sizes, size_t(r.out_rank));
  ETKIT_TRY(resize_output(context, values, sizes));
  ETKIT_TRY(resize_output(context, indices, sizes));
  ETKIT_KERNEL_CHECK(context, same_dense_layout(values, indices),
                     "values and indices must share one layout");
  const int64_t n = lane_size(in, d), step = lane_stride(in, d);
  return dispatch_real_bool(context, in.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data_as<const T>();
    T* v = values.data_as<T>();
    int64_t* ix = indices.data_as<int64_t>();
    for_each_output(context, r, values, [&](int64_t i0, int64_t o) {
      int64_t best = 0;
      for (int64_t k = 1; k < n; ++k) {
        if (replaces<is_max>(x[i0 + k * step], x[i0 + best * step])) best = k;
      }
      v[o] = x[i0 + best * step];
      ix[o] = best;
    });
  });
}

// topk.values(self, k, dim, largest, sorted, values, indices): the k
// largest (or smallest) along dim, in order; index order for ties follows
// the lower index first. Candidates are sorted in the kernel scratch.
Status topk_values(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  const int64_t k = int_arg(args, 1);
  int64_t dim = int_arg(args, 2);
  const bool largest = bool_arg(args, 3);
  Tensor& values = tensor_arg(args, 5);
  Tensor& indices = tensor_arg(args, 6);
  ETKIT_TRY(checked_dim(context, in, dim));
  const int d = int(dim);
  const int64_t n = lane_size(in, d), step = lane_stride(in, d);
  ETKIT_KERNEL_CHECK(context, k >= 0 && k <= n, "selected index k out of range");
  ETKIT_KERNEL_CHECK(context, values.scalar_type() == in.scalar_type(),
                     "expected values of dtype %s, got %s", to_string(in.scalar_type()),
                     to_string(values.scalar_type()));
  ETKIT_KERNEL_CHECK(context, indices.scalar_type() == ScalarType::kLong,
                     "expected indices of dtype int64, got %s", to_string(indices.scalar_type()));
  ETKIT_KERNEL_CHECK(context, size_t(n) * 16 <= context.scratch.size(),
                     "a lane of %lld elements exceeds the kernel scratch", (long long)n);
  int64_t sizes[kMaxRank];
  for (int i = 0; i < in.dim(); ++i) sizes[i] = i == d ? k : in.size(i);
  const Span<const int64_t> out_sizes(sizes, size_t(in.dim()));
  ETKIT_TRY(resize_output(context, values, out_sizes));
  ETKIT_TRY(resize_output(context, indices, out_sizes));
  ETKIT_KERNEL_CHECK(context, same_dense_layout(values, indices),
                     "values and indices must share one layout");
  if (k == 0) return Ok{};
  const int64_t out_step = lane_stride(values, d);
  return dispatch_real_bool(context, in.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    // (value, index) pairs in the scratch, partially sorted (a strict
    // order: value, then index): for the small k of detectors and samplers
    // most elements cost one comparison against the heap's top.
    struct Entry {
      T value;
      int64_t index;
    };
    Entry* entries = reinterpret_cast<Entry*>(context.scratch.data());
    const auto before = [largest](const Entry& a, const Entry& b) {
      if (largest ? greater(a.value, b.value) : greater(b.value, a.value)) return true;
      if (largest ? greater(b.value, a.value) : greater(a.value, b.value)) return false;
      return a.index < b.index;
    };
    const T* x = in.data_as<const T>();
    T* v = values.data_as<T>();
    int64_t* ix = indices.data_as<int64_t>();
    for_each_lane(in, d, values, [&](int64_t i0, int64_t o0) {
      for (int64_t i = 0; i < n; ++i) entries[i] = {x[i0 + i * step], i};
      std::partial_sort(entries, entries + k, entries + n, before);
      for (int64_t i = 0; i < k; ++i) {
        v[o0 + i * out_step] = entries[i].value;
        ix[o0 + i * out_step] = entries[i].index;
      }
    });
  });
}

}  // namespace

void register_along_dim_ops(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "aten::cumsum.out", "TinWW", cumsum_out);
  ETKIT_REGISTER_KERNEL(r, "aten::max.dim_max", "TibWWM", extreme_dim<true>);
  ETKIT_REGISTER_KERNEL(r, "aten::min.dim_min", "TibWWM", extreme_dim<false>);
  ETKIT_REGISTER_KERNEL(r, "aten::topk.values", "TiibbWWM", topk_values);
}

}  // namespace etkit::kernels
