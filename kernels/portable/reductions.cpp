// Reductions over a set of dims (all dims when the list is empty or None),
// optionally keeping them: sum, mean, amax/amin, argmax/argmin, any, prod,
// and max/min of all elements.

#include <cmath>

#include "etkit/kernels/elementwise.h"
#include "reduction_plan.h"

namespace etkit::kernels {
namespace {

// Calls f(I{}, O{}) for the input's and the out's dtypes. Sum, mean and
// prod share one body per such pair (their overloads and the mean flag are
// runtime arguments), which keeps this file's compile time and code size
// down; the out stays typed, so that its stores cannot alias the walk's
// state and the loops compile as tightly as one per op would.
template <typename F>
Status dispatch_input_and_out(KernelContext& context, const Tensor& in, const Tensor& out, F&& f) {
  return dispatch_real_bool(context, in.scalar_type(), [&](auto in_tag) {
    return dispatch_real_bool(context, out.scalar_type(), [&](auto out_tag) { f(in_tag, out_tag); });
  });
}

// Floats accumulate in double, integers in int64 (wrapping like ATen).
template <typename O>
using Accumulator = std::conditional_t<std::is_floating_point_v<O>, double, int64_t>;

template <typename I, typename O>
void sum_into(const KernelContext& context, const Reduction& r, const Tensor& in, bool mean,
              Tensor& out) {
  using Acc = Accumulator<O>;
  const I* x = in.data_as<const I>();
  O* y = out.data_as<O>();
  for_each_output(context, r, out, [&](int64_t in_offset, int64_t out_offset) {
    Acc sum = walk<Acc>(r, x + in_offset, Acc(0), [](Acc a, I v) {
      if constexpr (std::is_integral_v<Acc>) {
        return wrap_add(a, convert<Acc>(v));
      } else {
        return a + convert<Acc>(v);
      }
    });
    if constexpr (std::is_floating_point_v<Acc>) {
      if (mean) sum /= Acc(r.reduced_count);
    }
    y[out_offset] = convert<O>(sum);
  });
}

// sum and mean over `dims` (all when empty); `dtype` is the optional
// dtype argument, which must name the out's dtype.
Status sum_or_mean_impl(KernelContext& context, const Tensor& in, const IntList& dims, bool keepdim,
                        const Value& dtype, bool mean, Tensor& out) {
  if (!dtype.is_none()) {
    ETKIT_KERNEL_CHECK(context, dtype_arg_matches(ScalarType(dtype.unchecked_int()), out.scalar_type()),
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
  return dispatch_input_and_out(context, in, out, [&](auto in_tag, auto out_tag) {
    sum_into<decltype(in_tag), decltype(out_tag)>(context, r, in, mean, out);
  });
}

// sum.IntList_out / mean.out(self, dim?, keepdim, dtype?, out).
template <bool mean>
Status sum_or_mean(KernelContext& context, Span<Value*> args) {
  IntList dims;
  ETKIT_TRY(int_list_arg(context, args, 1, dims));
  return sum_or_mean_impl(context, tensor_arg(args, 0), dims, bool_arg(args, 2), *args[3], mean,
                          tensor_arg(args, 4));
}

// mean.dtype_out(self, dtype?, out): the mean of all elements.
Status mean_dtype_out(KernelContext& context, Span<Value*> args) {
  return sum_or_mean_impl(context, tensor_arg(args, 0), IntList{}, false, *args[1], true,
                          tensor_arg(args, 2));
}

template <bool is_max>
Status extreme(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  IntList dims;
  ETKIT_TRY(int_list_arg(context, args, 1, dims));
  const bool keepdim = bool_arg(args, 2);
  Tensor& out = tensor_arg(args, 3);
  ETKIT_KERNEL_CHECK(context, in.scalar_type() == out.scalar_type(), "out dtype must match input");
  Reduction r;
  ETKIT_TRY(plan_reduction(context, in, dims, dims.size == 0, keepdim, r));
  ETKIT_KERNEL_CHECK(context, r.reduced_count > 0,
                     "expected reduction dim to have a non-zero size");
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(r.out_sizes, size_t(r.out_rank))));
  ETKIT_TRY(dispatch_real_bool(context, in.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data_as<const T>();
    T* y = out.data_as<T>();
    for_each_output(context, r, out, [&](int64_t in_offset, int64_t out_offset) {
      y[out_offset] = walk<T>(r, x + in_offset, x[in_offset], [](T a, T v) {
        if constexpr (std::is_floating_point_v<T>) {
          if (std::isnan(a) || std::isnan(v)) return std::numeric_limits<T>::quiet_NaN();
        }
        return is_max ? (v > a ? v : a) : (v < a ? v : a);
      });
    });
  }));
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
  ETKIT_TRY(dispatch_real_bool(context, in.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data_as<const T>();
    int64_t* y = out.data_as<int64_t>();
    for_each_output(context, r, out, [&](int64_t in_offset, int64_t out_offset) {
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
  }));
  return Ok{};
}


// The reduced dims and keepdim of an any/prod overload: an int list (None
// or empty = all) or a single int at argument 1 and keepdim at 2, or, for
// the all-elements forms, neither.
enum class DimArg { kList, kOne, kAll };
struct ReducedDims {
  IntList dims;
  bool all = true;
  bool keepdim = false;
};
Status read_dims(KernelContext& context, Span<Value*> args, DimArg kind, ReducedDims& r) {
  if (kind == DimArg::kAll) return Ok{};
  if (kind == DimArg::kList) {
    ETKIT_TRY(int_list_arg(context, args, 1, r.dims));
  } else {
    r.dims.size = 1;
    r.dims.items[0] = int_arg(args, 1);
  }
  r.all = r.dims.size == 0;
  r.keepdim = bool_arg(args, 2);
  return Ok{};
}

// The any of `in` over the reduced dims into a bool or uint8 out.
Status any_impl(KernelContext& context, const Tensor& in, const ReducedDims& reduced, Tensor& out) {
  ETKIT_KERNEL_CHECK(context,
                     out.scalar_type() == ScalarType::kBool || out.scalar_type() == ScalarType::kByte,
                     "any expects a bool or uint8 out, got %s", to_string(out.scalar_type()));
  Reduction r;
  ETKIT_TRY(plan_reduction(context, in, reduced.dims, reduced.all, reduced.keepdim, r));
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(r.out_sizes, size_t(r.out_rank))));
  return dispatch_all(context, in.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data_as<const T>();
    uint8_t* y = static_cast<uint8_t*>(out.data());  // bool and uint8 are one byte
    for_each_output(context, r, out, [&](int64_t in_offset, int64_t out_offset) {
      y[out_offset] = walk<bool>(r, x + in_offset, false,
                                 [](bool a, T v) { return a || convert<bool>(v); });
    });
  });
}

// any.all_out(self, out), any.out(self, dim, keepdim, out) and
// any.dims_out(self, dim?, keepdim, out): the out is bool (uint8 accepted,
// as ATen 1.13 gives for uint8 inputs).
template <DimArg kind>
Status any_out(KernelContext& context, Span<Value*> args) {
  ReducedDims reduced;
  ETKIT_TRY(read_dims(context, args, kind, reduced));
  return any_impl(context, tensor_arg(args, 0), reduced, tensor_arg(args, kind == DimArg::kAll ? 1 : 3));
}

// max.unary_out / min.unary_out(self, out): the extreme of all elements, NaN
// if any is NaN; an empty input is refused.
template <bool is_max>
Status extreme_all(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 1);
  ETKIT_KERNEL_CHECK(context, in.numel() > 0,
                     "Expected reduction dim to be specified for input.numel() == 0. Specify the "
                     "reduction dim with the 'dim' argument.");
  ETKIT_KERNEL_CHECK(context, can_cast(in.scalar_type(), out.scalar_type()),
                     "result type %s can't be cast to the out dtype %s", to_string(in.scalar_type()),
                     to_string(out.scalar_type()));
  Reduction r;
  ETKIT_TRY(plan_reduction(context, in, IntList{}, true, false, r));
  ETKIT_TRY(resize_output(context, out, {}));
  return dispatch_real_bool(context, in.scalar_type(), [&](auto tag) -> Status {
    using T = decltype(tag);
    const T* x = in.data_as<const T>();
    const T result = walk<T>(r, x, x[0], [](T a, T v) {
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(a) || std::isnan(v)) return std::numeric_limits<T>::quiet_NaN();
      }
      return is_max ? (v > a ? v : a) : (v < a ? v : a);
    });
    Storer<T> store = storer_for<T>(out.scalar_type());
    ETKIT_KERNEL_CHECK(context, store != nullptr, "unsupported out dtype %s", to_string(out.scalar_type()));
    store(out.data(), 0, result);
    return Ok{};
  });
}

template <typename I, typename O>
void prod_into(const KernelContext& context, const Reduction& r, const Tensor& in, Tensor& out) {
  using Acc = Accumulator<O>;
  const I* x = in.data_as<const I>();
  O* y = out.data_as<O>();
  for_each_output(context, r, out, [&](int64_t in_offset, int64_t out_offset) {
    y[out_offset] = convert<O>(walk<Acc>(r, x + in_offset, Acc(1), [](Acc a, I v) { return wrap_mul(a, convert<Acc>(v)); }));
  });
}

// prod.out(self, dtype?, out) and prod.int_out(self, dim, keepdim, dtype?,
// out): floats multiply in double, integers in int64 (wrapping), bool as
// int64; the out dtype is the dtype argument when given.
template <DimArg kind>
Status prod_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  ReducedDims reduced;
  ETKIT_TRY(read_dims(context, args, kind, reduced));
  const size_t dtype_index = kind == DimArg::kAll ? 1 : 3;
  Tensor& out = tensor_arg(args, dtype_index + 1);
  if (!args[dtype_index]->is_none()) {
    ETKIT_KERNEL_CHECK(context, int_arg(args, dtype_index) == int64_t(out.scalar_type()),
                       "dtype argument and out dtype must match");
  }
  Reduction r;
  ETKIT_TRY(plan_reduction(context, in, reduced.dims, reduced.all, reduced.keepdim, r));
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(r.out_sizes, size_t(r.out_rank))));
  return dispatch_input_and_out(context, in, out, [&](auto in_tag, auto out_tag) {
    prod_into<decltype(in_tag), decltype(out_tag)>(context, r, in, out);
  });
}

}  // namespace

void register_reductions(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "aten::sum.IntList_out", "TJbnWW", sum_or_mean<false>);
  ETKIT_REGISTER_KERNEL(r, "aten::mean.out", "TJbnWW", sum_or_mean<true>);
  ETKIT_REGISTER_KERNEL(r, "aten::amax.out", "TIbWW", extreme<true>);
  ETKIT_REGISTER_KERNEL(r, "aten::amin.out", "TIbWW", extreme<false>);
  ETKIT_REGISTER_KERNEL(r, "aten::argmax.out", "TnbWW", arg_extreme<true>);
  ETKIT_REGISTER_KERNEL(r, "aten::argmin.out", "TnbWW", arg_extreme<false>);
  ETKIT_REGISTER_KERNEL(r, "aten::any.all_out", "TWW", any_out<DimArg::kAll>);
  ETKIT_REGISTER_KERNEL(r, "aten::any.out", "TibWW", any_out<DimArg::kOne>);
  ETKIT_REGISTER_KERNEL(r, "aten::any.dims_out", "TJbWW", any_out<DimArg::kList>);
  ETKIT_REGISTER_KERNEL(r, "aten::max.unary_out", "TWW", extreme_all<true>);
  ETKIT_REGISTER_KERNEL(r, "aten::min.unary_out", "TWW", extreme_all<false>);
  ETKIT_REGISTER_KERNEL(r, "aten::prod.out", "TnWW", prod_out<DimArg::kAll>);
  ETKIT_REGISTER_KERNEL(r, "aten::prod.int_out", "TibnWW", prod_out<DimArg::kOne>);
  ETKIT_REGISTER_KERNEL(r, "aten::mean.dtype_out", "TnWW", mean_dtype_out);
}

}  // namespace etkit::kernels
