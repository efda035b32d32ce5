// sum.IntList, mean, amax, amin, argmax and argmin: reduce over a set of
// dims (all dims when the list is empty or None), optionally keeping them.

#include <cmath>

#include "elementwise.h"

namespace etkit::kernels {
namespace {

// Kept and reduced dims of `in` for a dim list; out sizes with keepdim.
struct Reduction {
  int kept_rank = 0, reduced_rank = 0, out_rank = 0;
  int64_t kept_sizes[kMaxRank] = {}, kept_strides[kMaxRank] = {};
  int kept_out_dim[kMaxRank];  // which out dim each kept dim becomes
  int64_t reduced_sizes[kMaxRank] = {}, reduced_strides[kMaxRank] = {};
  int64_t out_sizes[kMaxRank] = {};
  int64_t reduced_count = 1;
};

Status plan_reduction(KernelContext& context, const Tensor& in, const IntList& dims, bool all,
                      bool keepdim, Reduction& r) {
  uint32_t mask = 0;
  if (all) {
    mask = in.dim() == 0 ? 0 : (1u << in.dim()) - 1;
  } else {
    for (size_t i = 0; i < dims.size; ++i) {
      int64_t d = dims[i];
      ETKIT_KERNEL_CHECK(context, wrap_dim(d, in.dim()), "dimension %lld out of range",
                         (long long)dims[i]);
      ETKIT_KERNEL_CHECK(context, in.dim() == 0 || !(mask >> d & 1u),
                         "dim %lld appears multiple times in the list of dims", (long long)d);
      if (in.dim() > 0) mask |= 1u << d;
    }
  }
  for (int d = 0; d < in.dim(); ++d) {
    if (mask >> d & 1u) {
      r.reduced_sizes[r.reduced_rank] = in.size(d);
      r.reduced_strides[r.reduced_rank++] = in.stride(d);
      r.reduced_count *= in.size(d);
      if (keepdim) r.out_sizes[r.out_rank++] = 1;
    } else {
      r.kept_sizes[r.kept_rank] = in.size(d);
      r.kept_out_dim[r.kept_rank] = r.out_rank;
      r.kept_strides[r.kept_rank++] = in.stride(d);
      r.out_sizes[r.out_rank++] = in.size(d);
    }
  }
  return Ok{};
}

// Calls reduce(in_offset_of_first, out_offset) per output element; the
// callee walks the reduced dims with walk().
template <typename F>
void for_each_output(const Reduction& r, const Tensor& out, F&& f) {
  int64_t out_strides[kMaxRank] = {};
  for (int k = 0; k < r.kept_rank; ++k) out_strides[k] = out.stride(r.kept_out_dim[k]);
  const int64_t* strides[2] = {r.kept_strides, out_strides};
  for_each_index<2>(r.kept_rank, r.kept_sizes, strides, [&](const int64_t* o) { f(o[0], o[1]); });
}

template <typename Acc, typename T, typename Op>
Acc walk(const Reduction& r, const T* base, Acc init, Op op) {
  Acc acc = init;
  const int64_t* strides[1] = {r.reduced_strides};
  for_each_index<1>(r.reduced_rank, r.reduced_sizes, strides,
                    [&](const int64_t* o) { acc = op(acc, base[o[0]]); });
  return acc;
}

template <bool mean>
Status sum_or_mean(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  IntList dims;
  int_list_arg(args, 1, dims);
  const bool keepdim = bool_arg(args, 2);
  Tensor& out = tensor_arg(args, 4);
  if (!args[3]->is_none()) {
    ETKIT_KERNEL_CHECK(context, int_arg(args, 3) == int64_t(out.scalar_type()),
                       "dtype argument and out dtype must match");
  }
  if (mean) {
    ETKIT_KERNEL_CHECK(context, is_floating(out.scalar_type()),
                       "mean(): could not infer output dtype; it must be floating, got %s",
                       to_string(out.scalar_type()));
  }
  Reduction r;
  ETKIT_TRY(plan_reduction(context, in, dims, dims.size == 0, keepdim, r));
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(r.out_sizes, size_t(r.out_rank))));
  bool known = false;
  dispatch_real_bool(in.scalar_type(), [&](auto in_tag) {
    using I = decltype(in_tag);
    known = dispatch_real_bool(out.scalar_type(), [&](auto out_tag) {
      using O = decltype(out_tag);
      // Accumulate floats in double, integers in int64 (wrapping like ATen).
      using Acc = std::conditional_t<std::is_floating_point_v<O>, double, int64_t>;
      const I* x = in.data_as<const I>();
      O* y = out.data_as<O>();
      for_each_output(r, out, [&](int64_t in_offset, int64_t out_offset) {
        Acc sum = walk<Acc>(r, x + in_offset, Acc(0), [](Acc a, I v) {
          if constexpr (std::is_integral_v<Acc>) {
            return wrap_add(a, convert<Acc>(v));
          } else {
            return a + convert<Acc>(v);
          }
        });
        if constexpr (mean && std::is_floating_point_v<Acc>) {
          sum /= Acc(r.reduced_count);
        }
        y[out_offset] = convert<O>(sum);
      });
    });
  });
  ETKIT_KERNEL_CHECK(context, known, "unsupported dtype %s -> %s", to_string(in.scalar_type()),
                     to_string(out.scalar_type()));
  return Ok{};
}

template <bool is_max>
Status extreme(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  IntList dims;
  int_list_arg(args, 1, dims);
  const bool keepdim = bool_arg(args, 2);
  Tensor& out = tensor_arg(args, 3);
  ETKIT_KERNEL_CHECK(context, in.scalar_type() == out.scalar_type(), "out dtype must match input");
  Reduction r;
  ETKIT_TRY(plan_reduction(context, in, dims, dims.size == 0, keepdim, r));
  ETKIT_KERNEL_CHECK(context, r.reduced_count > 0,
                     "expected reduction dim to have a non-zero size");
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(r.out_sizes, size_t(r.out_rank))));
  const bool known = dispatch_real_bool(in.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data_as<const T>();
    T* y = out.data_as<T>();
    for_each_output(r, out, [&](int64_t in_offset, int64_t out_offset) {
      y[out_offset] = walk<T>(r, x + in_offset, x[in_offset], [](T a, T v) {
        if constexpr (std::is_floating_point_v<T>) {
          if (std::isnan(a) || std::isnan(v)) return std::numeric_limits<T>::quiet_NaN();
        }
        return is_max ? (v > a ? v : a) : (v < a ? v : a);
      });
    });
  });
  ETKIT_KERNEL_CHECK(context, known, "unsupported dtype %s", to_string(in.scalar_type()));
  return Ok{};
}

// argmax.out(self, dim?, keepdim, out): first index of the extreme; NaN
// counts as the extreme.
template <bool is_max>
Status arg_extreme(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  const bool all = args[1]->is_none();
  IntList dims;
  if (!all) {
    dims.size = 1;
    dims.items[0] = int_arg(args, 1);
  }
  const bool keepdim = bool_arg(args, 2);
  Tensor& out = tensor_arg(args, 3);
  ETKIT_KERNEL_CHECK(context, out.scalar_type() == ScalarType::kLong, "out must be int64");
  ETKIT_KERNEL_CHECK(context, in.numel() > 0, "expected a non-empty input");
  Reduction r;
  // With dim=None the result is a 0-dim index into the flattened input.
  ETKIT_TRY(plan_reduction(context, in, dims, all, all ? false : keepdim, r));
  if (all && keepdim) {
    r.out_rank = in.dim();
    for (int d = 0; d < in.dim(); ++d) r.out_sizes[d] = 1;
  }
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(r.out_sizes, size_t(r.out_rank))));
  const bool known = dispatch_real_bool(in.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data_as<const T>();
    int64_t* y = out.data_as<int64_t>();
    for_each_output(r, out, [&](int64_t in_offset, int64_t out_offset) {
      int64_t best_index = 0, index = 0;
      T best = x[in_offset];
      bool best_nan = false;
      if constexpr (std::is_floating_point_v<T>) best_nan = std::isnan(best);
      const int64_t* strides[1] = {r.reduced_strides};
      for_each_index<1>(r.reduced_rank, r.reduced_sizes, strides, [&](const int64_t* o) {
        const T v = x[in_offset + o[0]];
        bool nan = false;
        if constexpr (std::is_floating_point_v<T>) nan = std::isnan(v);
        if (!best_nan && (nan || (is_max ? v > best : v < best))) {
          best = v;
          best_index = index;
          best_nan = nan;
        }
        ++index;
      });
      y[out_offset] = best_index;
    });
  });
  ETKIT_KERNEL_CHECK(context, known, "unsupported dtype %s", to_string(in.scalar_type()));
  return Ok{};
}

}  // namespace

void register_reductions(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "aten::sum.IntList_out", "TJbnWW", sum_or_mean<false>);
  ETKIT_REGISTER_KERNEL(r, "aten::mean.out", "TJbnWW", sum_or_mean<true>);
  ETKIT_REGISTER_KERNEL(r, "aten::amax.out", "TIbWW", extreme<true>);
  ETKIT_REGISTER_KERNEL(r, "aten::amin.out", "TIbWW", extreme<false>);
  ETKIT_REGISTER_KERNEL(r, "aten::argmax.out", "TnbWW", arg_extreme<true>);
  ETKIT_REGISTER_KERNEL(r, "aten::argmin.out", "TnbWW", arg_extreme<false>);
}

}  // namespace etkit::kernels
