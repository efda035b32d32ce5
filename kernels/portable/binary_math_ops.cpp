// atan2, fmod (Tensor and Scalar) and clamp with tensor bounds.

#include <cmath>
#include <limits>

#include "binary_util.h"

namespace etkit::kernels {
namespace {

// atan2.out(self, other, out): integer and bool inputs compute in float32,
// as ATen promotes them.
Status atan2_out(KernelContext& context, Span<Value*> args) {
  const Tensor& a = tensor_arg(args, 0);
  const Tensor& b = tensor_arg(args, 1);
  Tensor& out = tensor_arg(args, 2);
  ScalarType common = common_type(a, &b, nullptr);
  if (is_integral(common, true)) common = ScalarType::kFloat;
  ETKIT_TRY(check_out_type(context, common, out));
  const ScalarType compute = common == ScalarType::kDouble ? common : ScalarType::kFloat;
  return dispatch_floating(context, compute, [&](auto tag) {
    using C = decltype(tag);
    return binary_map<C>(context, a, b, out, [](C y, C x) { return std::atan2(y, x); });
  });
}

// fmod: the remainder with the dividend's sign (C's fmod and %); integer
// division by zero is refused as ATen refuses it.
Status fmod_impl(KernelContext& context, const Tensor& a, const Tensor& b, ScalarType common,
                 Tensor& out) {
  ETKIT_TRY(check_out_type(context, common, out));
  ETKIT_KERNEL_CHECK(context, common != ScalarType::kBool, "fmod is not implemented for bool");
  bool divided_by_zero = false;
  ETKIT_TRY(dispatch_compute(context, common, [&](auto tag) {
    using C = decltype(tag);
    return binary_map<C>(context, a, b, out, [&](C x, C y) {
      if constexpr (std::is_floating_point_v<C>) {
        return std::fmod(x, y);
      } else if constexpr (std::is_same_v<C, bool>) {
        return C(false);  // refused above
      } else {
        if (y == 0) {
          divided_by_zero = true;
          return C(0);
        }
        if (std::is_signed_v<C> && y == C(-1)) return C(0);  // INT_MIN % -1 traps
        return static_cast<C>(x % y);
      }
    });
  }));
  ETKIT_KERNEL_CHECK(context, !divided_by_zero, "ZeroDivisionError");
  return Ok{};
}
Status fmod_tensor_out(KernelContext& context, Span<Value*> args) {
  const Tensor& a = tensor_arg(args, 0);
  const Tensor& b = tensor_arg(args, 1);
  return fmod_impl(context, a, b, common_type(a, &b, nullptr), tensor_arg(args, 2));
}
Status fmod_scalar_out(KernelContext& context, Span<Value*> args) {
  const Tensor& a = tensor_arg(args, 0);
  ScalarTensor b(*args[1]);
  return fmod_impl(context, a, b.tensor, common_type(a, nullptr, args[1]), tensor_arg(args, 2));
}

// clamp.Tensor_out(self, min?, max?, out): bounds broadcast with self; the
// result dtype includes them (bools too, as ATen). NaN anywhere gives NaN,
// as ATen's kernel.
Status clamp_tensor_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  const Tensor* lo = optional_tensor_arg(args, 1);
  const Tensor* hi = optional_tensor_arg(args, 2);
  Tensor& out = tensor_arg(args, 3);
  ETKIT_KERNEL_CHECK(context, lo || hi, "at least one of 'min' or 'max' must not be None");
  ResultTypeState state;
  state.add_tensor(in);
  if (lo) state.add_tensor(*lo);
  if (hi) state.add_tensor(*hi);
  const ScalarType common = state.result();
  ETKIT_TRY(check_out_type(context, common, out));
  // Broadcast all three (a missing bound reads as self, so it never binds).
  const Tensor& l = lo ? *lo : in;
  const Tensor& h = hi ? *hi : in;
  int64_t s1[kMaxRank], sizes[kMaxRank];
  int r1 = 0, rank = 0;
  ETKIT_KERNEL_CHECK(context, broadcast_shape(in.sizes(), l.sizes(), s1, r1) &&
                                  broadcast_shape(Span<const int64_t>(s1, size_t(r1)), h.sizes(),
                                                  sizes, rank),
                     "shapes of self, min and max cannot be broadcast together");
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, size_t(rank))));
  int64_t si[kMaxRank], sl[kMaxRank], sh[kMaxRank];
  broadcast_strides(in, rank, sizes, si);
  broadcast_strides(l, rank, sizes, sl);
  broadcast_strides(h, rank, sizes, sh);
  const int64_t* strides[4] = {si, sl, sh, out.strides().data()};
  return dispatch_compute(context, common, [&](auto tag) -> Status {
    using C = decltype(tag);
    Loader<C> load_in = loader_for<C>(in.scalar_type());
    Loader<C> load_lo = loader_for<C>(l.scalar_type());
    Loader<C> load_hi = loader_for<C>(h.scalar_type());
    Storer<C> store = storer_for<C>(out.scalar_type());
    ETKIT_KERNEL_CHECK(context, load_in && load_lo && load_hi && store, "unsupported dtype");
    for_each_index<4>(rank, sizes, strides, [&](const int64_t* o) {
      C x = load_in(in.data(), o[0]);
      const C a = load_lo(l.data(), o[1]);
      const C b = load_hi(h.data(), o[2]);
      if constexpr (std::is_floating_point_v<C>) {
        if (std::isnan(x) || (lo && std::isnan(a)) || (hi && std::isnan(b))) {
          x = std::numeric_limits<C>::quiet_NaN();
          store(out.data(), o[3], x);
          return;
        }
      }
      if (lo && x < a) x = a;
      if (hi && x > b) x = b;
      store(out.data(), o[3], x);
    });
    return Ok{};
  });
}

}  // namespace

void register_binary_math_ops(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "aten::atan2.out", "TTWW", atan2_out);
  ETKIT_REGISTER_KERNEL(r, "aten::fmod.Tensor_out", "TTWW", fmod_tensor_out);
  ETKIT_REGISTER_KERNEL(r, "aten::fmod.Scalar_out", "TsWW", fmod_scalar_out);
  ETKIT_REGISTER_KERNEL(r, "aten::clamp.Tensor_out", "TttWW", clamp_tensor_out);
}

}  // namespace etkit::kernels
