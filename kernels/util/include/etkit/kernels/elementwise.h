#pragma once
// Elementwise unary and binary maps with broadcasting and dtype conversion.
// Same-dtype, same-layout operands take a flat loop the compiler
// vectorizes; same-dtype broadcasts walk the output's index space; both
// over the runtime's workers when large. Mixed dtypes go through per-type
// load/store functions.

#include <type_traits>

#include "etkit/kernels/cpu_features.h"
#include "etkit/kernels/kernel_util.h"
#include "etkit/kernels/parallel.h"

namespace etkit::kernels {

/// Calls body(begin, end) over ranges covering [0, n): over the workers
/// when the values are floating point and many (each element is computed
/// on its own, so any split gives the same bits). Integer maps stay on one
/// thread: their ops may note an error (a division by zero) in a flag
/// they share.
template <typename C, typename Body>
void for_dense_elements(const KernelContext& context, int64_t n, Body&& body) {
  constexpr int64_t kGrain = 4096;  // a few pages of floats per range
  if constexpr (std::is_floating_point_v<C>) {
    parallel_ranges(context, n, kGrain, kMinParallelValues,
                    [&](Span<uint8_t> /*scratch*/, int64_t begin, int64_t end) { body(begin, end); });
  } else {
    body(int64_t{0}, n);
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
template <typename In, typename Out, typename Op>
__attribute__((target("avx2"))) void dense_map_avx2(const In* in, Out* out, int64_t begin, int64_t end,
                                                     const Op& op) {
  for (int64_t i = begin; i < end; ++i) out[i] = op(in[i]);
}
template <typename In, typename Out, typename Op>
__attribute__((target("avx2"))) void dense_zip_avx2(const In* a, const In* b, Out* out, int64_t begin, int64_t end,
                                                     const Op& op) {
  for (int64_t i = begin; i < end; ++i) out[i] = op(a[i], b[i]);
}
#endif

/// Whether dense_map and dense_zip may take their AVX2 loops (true unless a
/// test turned them off to compare the two loops' bits).
inline bool& dense_map_avx2_allowed() {
  static bool allowed = true;
  return allowed;
}

/// out[i] = op(in[i]) over [begin, end). Float to float, the loop is
/// compiled a second time for AVX2 (without FMA, so no multiply-add is
/// fused: the same operations and bits, eight lanes at a time where the
/// baseline build has four) and chosen at run time; ReLU6 and clamps were
/// a seventh of MobileNetV2. (Where both operands of an operation are NaN,
/// which of the two comes out follows the compiler's operand order, which
/// the two builds may differ in.)
template <typename In, typename Out, typename Op>
void dense_map(const In* in, Out* out, int64_t begin, int64_t end, const Op& op) {
#if defined(__x86_64__) && defined(__GNUC__)
  if constexpr (std::is_same_v<In, float> && std::is_same_v<Out, float>) {
    if (cpu_has_avx2() && dense_map_avx2_allowed()) {
      dense_map_avx2(in, out, begin, end, op);
      return;
    }
  }
#endif
  for (int64_t i = begin; i < end; ++i) out[i] = op(in[i]);
}

/// out[i] = op(a[i], b[i]) over [begin, end), as dense_map.
template <typename In, typename Out, typename Op>
void dense_zip(const In* a, const In* b, Out* out, int64_t begin, int64_t end, const Op& op) {
#if defined(__x86_64__) && defined(__GNUC__)
  if constexpr (std::is_same_v<In, float> && std::is_same_v<Out, float>) {
    if (cpu_has_avx2() && dense_map_avx2_allowed()) {
      dense_zip_avx2(a, b, out, begin, end, op);
      return;
    }
  }
#endif
  for (int64_t i = begin; i < end; ++i) out[i] = op(a[i], b[i]);
}

template <typename T>
constexpr ScalarType scalar_type_of() {
  if constexpr (std::is_same_v<T, bool>) return ScalarType::kBool;
  else if constexpr (std::is_same_v<T, uint8_t>) return ScalarType::kByte;
  else if constexpr (std::is_same_v<T, int8_t>) return ScalarType::kChar;
  else if constexpr (std::is_same_v<T, int16_t>) return ScalarType::kShort;
  else if constexpr (std::is_same_v<T, int32_t>) return ScalarType::kInt;
  else if constexpr (std::is_same_v<T, int64_t>) return ScalarType::kLong;
  else if constexpr (std::is_same_v<T, float>) return ScalarType::kFloat;
  else if constexpr (std::is_same_v<T, double>) return ScalarType::kDouble;
  else if constexpr (std::is_same_v<T, Half>) return ScalarType::kHalf;
  else return ScalarType::kBFloat16;
}

template <typename C>
using Loader = C (*)(const void*, int64_t);
template <typename R>
using Storer = void (*)(void*, int64_t, R);

template <typename C, typename T>
C load_as(const void* base, int64_t i) {
  return convert<C>(static_cast<const T*>(base)[i]);
}
template <typename R, typename T>
void store_from(void* base, int64_t i, R value) {
  static_cast<T*>(base)[i] = convert<T>(value);
}

template <typename C>
Loader<C> loader_for(ScalarType type) {
  Loader<C> result = nullptr;
  (void)visit_all(type, [&](auto tag) { result = &load_as<C, decltype(tag)>; });  // null when unlisted
  return result;
}
template <typename R>
Storer<R> storer_for(ScalarType type) {
  Storer<R> result = nullptr;
  (void)visit_all(type, [&](auto tag) { result = &store_from<R, decltype(tag)>; });  // null when unlisted
  return result;
}

/// One side a single value (a Scalar argument, a one-element tensor) and
/// the other laid out as `out`: that value loaded once, in C, and the other
/// side read straight when it is in C (the same values binary_map's general
/// loops compute with). False when the operands are not so.
template <typename C, typename Op>
bool one_value_operand(const KernelContext& context, const Tensor& a, const Tensor& b, Tensor& out, Op op) {
  using R = decltype(op(C{}, C{}));
  if (out.scalar_type() != scalar_type_of<R>()) return false;
  for (const bool single_b : {true, false}) {
    const Tensor& single = single_b ? b : a;
    const Tensor& full = single_b ? a : b;
    if (single.numel() != 1 || full.scalar_type() != scalar_type_of<C>() || !same_dense_layout(full, out)) continue;
    Loader<C> load = loader_for<C>(single.scalar_type());
    if (!load) return false;
    const C value = load(single.data(), 0);
    const C* pf = full.data_as<const C>();
    R* po = out.data_as<R>();
    for_dense_elements<C>(context, out.numel(), [&](int64_t begin, int64_t end) {
      if (single_b) {
        dense_map(pf, po, begin, end, [&](C x) { return op(x, value); });
      } else {
        dense_map(pf, po, begin, end, [&](C x) { return op(value, x); });
      }
    });
    return true;
  }
  return false;
}

/// out = op(a, b) over the broadcast of a and b, computing in C.
template <typename C, typename Op>
Status binary_map(KernelContext& context, const Tensor& a, const Tensor& b, Tensor& out, Op op) {
  using R = decltype(op(C{}, C{}));
  int64_t sizes[kMaxRank];
  int rank = 0;
  ETKIT_KERNEL_CHECK(context, broadcast_shape(a.sizes(), b.sizes(), sizes, rank),
                     "shapes of the two inputs cannot be broadcast together");
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, static_cast<size_t>(rank))));
  const bool typed = a.scalar_type() == scalar_type_of<C>() &&
                     b.scalar_type() == scalar_type_of<C>() &&
                     out.scalar_type() == scalar_type_of<R>();
  if (typed && same_dense_layout(a, out) && same_dense_layout(b, out)) {
    const C* pa = a.data_as<const C>();
    const C* pb = b.data_as<const C>();
    R* po = out.data_as<R>();
    for_dense_elements<C>(context, out.numel(), [&](int64_t begin, int64_t end) { dense_zip(pa, pb, po, begin, end, op); });
    return Ok{};
  }
  if (one_value_operand<C>(context, a, b, out, op)) return Ok{};
  int64_t sa[kMaxRank], sb[kMaxRank];
  broadcast_strides(a, rank, sizes, sa);
  broadcast_strides(b, rank, sizes, sb);
  const int64_t* strides[3] = {sa, sb, out.strides().data()};
  if (typed && a.numel() > 0 && b.numel() > 0) {
    const C* pa = a.data_as<const C>();
    const C* pb = b.data_as<const C>();
    R* po = out.data_as<R>();
    for_dense_elements<C>(context, out.numel(), [&](int64_t begin, int64_t end) {
      for_index_range<3>(rank, sizes, strides, begin, end,
                         [&](const int64_t* o) { po[o[2]] = op(pa[o[0]], pb[o[1]]); });
    });
    return Ok{};
  }
  Loader<C> la = loader_for<C>(a.scalar_type());
  Loader<C> lb = loader_for<C>(b.scalar_type());
  Storer<R> so = storer_for<R>(out.scalar_type());
  ETKIT_KERNEL_CHECK(context, la && lb && so, "unsupported dtype (%s, %s -> %s)",
                     to_string(a.scalar_type()), to_string(b.scalar_type()),
                     to_string(out.scalar_type()));
  const void* pa = a.data();
  const void* pb = b.data();
  void* po = out.data();
  for_each_index<3>(rank, sizes, strides,
                    [&](const int64_t* o) { so(po, o[2], op(la(pa, o[0]), lb(pb, o[1]))); });
  return Ok{};
}

/// out = op(in), computing in C. `out` takes in's shape.
template <typename C, typename Op>
Status unary_map(KernelContext& context, const Tensor& in, Tensor& out, Op op) {
  using R = decltype(op(C{}));
  ETKIT_TRY(resize_output(context, out, in.sizes()));
  const bool typed =
      in.scalar_type() == scalar_type_of<C>() && out.scalar_type() == scalar_type_of<R>();
  if (typed && same_dense_layout(in, out)) {
    const C* pi = in.data_as<const C>();
    R* po = out.data_as<R>();
    for_dense_elements<C>(context, out.numel(), [&](int64_t begin, int64_t end) { dense_map(pi, po, begin, end, op); });
    return Ok{};
  }
  const int64_t* strides[2] = {in.strides().data(), out.strides().data()};
  Loader<C> li = loader_for<C>(in.scalar_type());
  Storer<R> so = storer_for<R>(out.scalar_type());
  ETKIT_KERNEL_CHECK(context, li && so, "unsupported dtype (%s -> %s)",
                     to_string(in.scalar_type()), to_string(out.scalar_type()));
  const void* pi = in.data();
  void* po = out.data();
  for_each_index<2>(in.dim(), in.sizes().data(), strides,
                    [&](const int64_t* o) { so(po, o[1], op(li(pi, o[0]))); });
  return Ok{};
}

/// Wrapping integer arithmetic (ATen wraps on overflow; C++ signed
/// overflow is undefined, so go through unsigned).
template <typename T>
T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}
template <typename T>
T wrap_sub(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return a - b;
  }
}
template <typename T>
T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    // Promote to at least unsigned int to avoid int promotion overflow.
    using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
    return static_cast<T>(static_cast<W>(static_cast<U>(a)) * static_cast<W>(static_cast<U>(b)));
  } else {
    return a * b;
  }
}

}  // namespace etkit::kernels
