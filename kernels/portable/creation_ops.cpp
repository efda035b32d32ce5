// Creation ops: full, full_like, arange, empty, ones, zeros, fill,
// scalar_tensor, copy/copy_, rand/randn, _empty_dim_order and the host
// side of et_copy's device copies.

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "etkit/core/tensor_access.h"

#include "etkit/core/checked_size.h"
#include "random_bits.h"
#include "view_util.h"

namespace etkit::kernels {
namespace {

Status full_out(KernelContext& context, Span<Value*> args) {
  IntList size;
  ETKIT_TRY(int_list_arg(context, args, 0, size));
  Tensor& out = tensor_arg(args, 2);
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(size.items, size.size)));
  return fill(context, *args[1], out);
}

Status full_like_out(KernelContext& context, Span<Value*> args) {
  Tensor& out = tensor_arg(args, 3);
  ETKIT_TRY(resize_output(context, out, tensor_arg(args, 0).sizes()));
  return fill(context, *args[1], out);
}

// arange.start_out(start, end, step, out); arange.out(end, out).
Status arange_impl(KernelContext& context, const Value& start, const Value& end,
                   const Value& step, Tensor& out) {
  const double s = start.scalar_as_double(), e = end.scalar_as_double();
  const double d = step.scalar_as_double();
  ETKIT_KERNEL_CHECK(context, d != 0, "step must be nonzero");
  ETKIT_KERNEL_CHECK(context, (d > 0 && e >= s) || (d < 0 && e <= s),
                     "upper bound and larger bound inconsistent with step sign");
  ETKIT_KERNEL_CHECK(context, std::isfinite(s) && std::isfinite(e),
                     "unsupported range: start and end must be finite");
  const double length = std::ceil((e - s) / d);
  ETKIT_KERNEL_CHECK(context, length >= 0 && length < double(kMaxTensorBytes),
                     "invalid size, possible overflow: %g elements", length);
  const auto count = static_cast<int64_t>(length);
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(&count, 1)));
  const bool integral = start.tag() == ValueTag::kInt && step.tag() == ValueTag::kInt;
  ETKIT_TRY(dispatch_real(context, out.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    T* p = out.data_as<T>();
    for (int64_t i = 0; i < count; ++i) {
      p[i] = integral ? convert<T>(start.unchecked_int() + i * step.unchecked_int()) : convert<T>(s + double(i) * d);
    }
  }));
  return Ok{};
}
Status arange_start_out(KernelContext& context, Span<Value*> args) {
  return arange_impl(context, *args[0], *args[1], *args[2], tensor_arg(args, 3));
}
Status arange_out(KernelContext& context, Span<Value*> args) {
  const Value zero = Value::from_int(0), one = Value::from_int(1);
  return arange_impl(context, zero, *args[0], one, tensor_arg(args, 1));
}

Status empty_out(KernelContext& context, Span<Value*> args) {
  IntList size;
  ETKIT_TRY(int_list_arg(context, args, 0, size));
  return resize_output(context, tensor_arg(args, 2), Span<const int64_t>(size.items, size.size));
}

// _empty_dim_order.out(size, dim_order?, out): the out's own dim order must
// be the one asked for.
Status empty_dim_order_out(KernelContext& context, Span<Value*> args) {
  IntList size, order;
  ETKIT_TRY(int_list_arg(context, args, 0, size));
  ETKIT_TRY(int_list_arg(context, args, 1, order));
  Tensor& out = tensor_arg(args, 2);
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(size.items, size.size)));
  if (!args[1]->is_none()) {
    ETKIT_KERNEL_CHECK(context, order.size == size_t(out.dim()), "dim_order has %zu entries for a rank-%d out",
                       order.size, out.dim());
    for (size_t d = 0; d < order.size; ++d) {
      ETKIT_KERNEL_CHECK(context, order[d] == out.dim_order()[d],
                         "dim_order does not match the out's dim order at position %zu", d);
    }
  }
  return Ok{};
}

template <int value>
Status constant_out(KernelContext& context, Span<Value*> args) {
  IntList size;
  ETKIT_TRY(int_list_arg(context, args, 0, size));
  Tensor& out = tensor_arg(args, 1);
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(size.items, size.size)));
  return fill(context, Value::from_int(value), out);
}

// fill.Scalar_out(self, value, out) and fill.Tensor_out(self, value, out)
// (a 0-dim value tensor): self's shape and dtype.
Status fill_scalar_out(KernelContext& context, Span<Value*> args) {
  const Tensor& self = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 2);
  ETKIT_TRY(check_same_dtype(context, self, out));
  ETKIT_TRY(resize_output(context, out, self.sizes()));
  return fill(context, *args[1], out);
}
Status fill_tensor_out(KernelContext& context, Span<Value*> args) {
  const Tensor& self = tensor_arg(args, 0);
  const Tensor& value = tensor_arg(args, 1);
  Tensor& out = tensor_arg(args, 2);
  ETKIT_TRY(check_same_dtype(context, self, out));
  ETKIT_KERNEL_CHECK(context, value.dim() == 0,
                     "fill only supports 0-dimension value tensor but got tensor with %d dimensions",
                     value.dim());
  ETKIT_TRY(resize_output(context, out, self.sizes()));
  return dispatch_all(context, value.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const T v = value.data_as<const T>()[0];
    const Value scalar = std::is_integral_v<T> ? Value::from_int(convert<int64_t>(v))
                                               : Value::from_double(convert<double>(v));
    return fill(context, scalar, out);
  });
}

// scalar_tensor.out(s, out): a 0-dim tensor holding s.
Status scalar_tensor_out(KernelContext& context, Span<Value*> args) {
  Tensor& out = tensor_arg(args, 1);
  ETKIT_TRY(resize_output(context, out, {}));
  return fill(context, *args[0], out);
}

// Copies src, broadcast to `target`'s shape, into target converted to its
// dtype.
Status broadcast_copy(KernelContext& context, const Tensor& src, Tensor& target) {
  int64_t sizes[kMaxRank];
  int rank = 0;
  ETKIT_KERNEL_CHECK(context,
                     broadcast_shape(target.sizes(), src.sizes(), sizes, rank) && rank == target.dim() &&
                         std::equal(sizes, sizes + rank, target.sizes().begin()),
                     "src of shape %s does not broadcast to self of shape %s",
                     format_sizes(src.sizes()).c_str(), format_sizes(target.sizes()).c_str());
  int64_t src_strides[kMaxRank];
  broadcast_strides(src, rank, sizes, src_strides);
  return dispatch_all(context, target.scalar_type(), [&](auto tag) -> Status {
    using T = decltype(tag);
    Loader<T> load = loader_for<T>(src.scalar_type());
    ETKIT_KERNEL_CHECK(context, load != nullptr, "unsupported src dtype %s", to_string(src.scalar_type()));
    T* y = target.data_as<T>();
    const int64_t* strides[2] = {src_strides, target.strides().data()};
    for_each_index<2>(rank, sizes, strides, [&](const int64_t* o) { y[o[1]] = load(src.data(), o[0]); });
    return Ok{};
  });
}

// copy.out(self, src, non_blocking, out): self's shape and dtype, src's values.
Status copy_out(KernelContext& context, Span<Value*> args) {
  const Tensor& self = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 3);
  ETKIT_TRY(check_same_dtype(context, self, out));
  ETKIT_TRY(resize_output(context, out, self.sizes()));
  return broadcast_copy(context, tensor_arg(args, 1), out);
}

// copy_(self, src, non_blocking): in place.
Status copy_inplace(KernelContext& context, Span<Value*> args) {
  return broadcast_copy(context, tensor_arg(args, 1), tensor_arg(args, 0));
}

// et_copy::_h2d_copy.out / _d2h_copy.out(self, out): on the host both are a
// plain copy (upstream uses them around device delegates).
Status device_copy_out(KernelContext& context, Span<Value*> args) {
  const Tensor& self = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 1);
  ETKIT_TRY(check_same_dtype(context, self, out));
  return copy_into(context, whole(self), out);
}

// rand.out / randn.out(size, out): uniform [0, 1) and standard normal
// floats (random_bits.h).
template <bool normal>
Status random_out(KernelContext& context, Span<Value*> args) {
  IntList size;
  ETKIT_TRY(int_list_arg(context, args, 0, size));
  Tensor& out = tensor_arg(args, 1);
  ETKIT_KERNEL_CHECK(context, is_floating(out.scalar_type()) || out.scalar_type() == ScalarType::kHalf ||
                                  out.scalar_type() == ScalarType::kBFloat16,
                     "%s expects a floating out, got %s", normal ? "randn" : "rand",
                     to_string(out.scalar_type()));
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(size.items, size.size)));
  CallRandom random;
  return dispatch_all(context, out.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    T* y = out.data_as<T>();
    for (int64_t i = 0; i < out.numel(); ++i) {
      double v = random.uniform();
      if (normal) {  // Box-Muller: u1 in (0, 1]
        const double u1 = 1.0 - v, u2 = random.uniform();
        v = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
      }
      y[i] = convert<T>(v);
    }
  });
}

}  // namespace

void register_creation_ops(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "aten::full.out", "IsWW", full_out);
  ETKIT_REGISTER_KERNEL(r, "aten::full_like.out", "TsnWW", full_like_out);
  ETKIT_REGISTER_KERNEL(r, "aten::arange.start_out", "sssWW", arange_start_out);
  ETKIT_REGISTER_KERNEL(r, "aten::arange.out", "sWW", arange_out);
  ETKIT_REGISTER_KERNEL(r, "aten::empty.out", "InWW", empty_out);
  ETKIT_REGISTER_KERNEL(r, "dim_order_ops::_empty_dim_order.out", "IJWW", empty_dim_order_out);
  ETKIT_REGISTER_KERNEL(r, "aten::ones.out", "IWW", constant_out<1>);
  ETKIT_REGISTER_KERNEL(r, "aten::zeros.out", "IWW", constant_out<0>);
  ETKIT_REGISTER_KERNEL(r, "aten::fill.Scalar_out", "TsWW", fill_scalar_out);
  ETKIT_REGISTER_KERNEL(r, "aten::fill.Tensor_out", "TTWW", fill_tensor_out);
  ETKIT_REGISTER_KERNEL(r, "aten::scalar_tensor.out", "sWW", scalar_tensor_out);
  ETKIT_REGISTER_KERNEL(r, "aten::copy.out", "TTbWW", copy_out);
  ETKIT_REGISTER_KERNEL(r, "aten::copy_", "WTbW", copy_inplace);
  ETKIT_REGISTER_KERNEL(r, "et_copy::_h2d_copy.out", "TWW", device_copy_out);
  ETKIT_REGISTER_KERNEL(r, "et_copy::_d2h_copy.out", "TWW", device_copy_out);
  ETKIT_REGISTER_KERNEL(r, "aten::rand.out", "IWW", random_out<false>);
  ETKIT_REGISTER_KERNEL(r, "aten::randn.out", "IWW", random_out<true>);
}

}  // namespace etkit::kernels
