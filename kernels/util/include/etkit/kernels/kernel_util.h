#pragma once
// Shared kernel helpers: argument access, dtype dispatch, ATen type
// promotion, broadcasting and strided iteration. Nothing here allocates.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "etkit/core/kernel_registry.h"
#include "etkit/core/tensor.h"
#include "etkit/core/value.h"
#include "etkit/core/half_types.h"

namespace etkit::kernels {

/// Fails the kernel with a message naming the operator.
#define ETKIT_KERNEL_CHECK(context, condition, ...)                              \
  do {                                                                           \
    if (!(condition)) {                                                          \
      return ::etkit::Error::make(::etkit::ErrorCode::kInvalidArgument, __VA_ARGS__) \
          .with_context("%s", (context).op_name);                                \
    }                                                                            \
  } while (0)

// ---- argument access (tags were checked at method load) ----
inline Tensor& tensor_arg(Span<Value*> args, size_t i) { return args[i]->unchecked_tensor(); }
inline Tensor* optional_tensor_arg(Span<Value*> args, size_t i) {
  return args[i]->is_tensor() ? &args[i]->unchecked_tensor() : nullptr;
}
inline int64_t int_arg(Span<Value*> args, size_t i) { return args[i]->unchecked_int(); }
inline double double_arg(Span<Value*> args, size_t i) { return args[i]->scalar_as_double(); }
inline bool bool_arg(Span<Value*> args, size_t i) { return args[i]->unchecked_bool(); }

/// A boxed int list (items are Int values) copied into a small buffer.
struct IntList {
  static constexpr size_t kCapacity = 64;
  int64_t items[kCapacity] = {};
  size_t size = 0;
  int64_t operator[](size_t i) const { return items[i]; }
};
/// Reads int list argument `i` (None reads as empty); a list longer than
/// IntList::kCapacity (far beyond any rank or padding list) is an error
/// naming the op, never an empty list.
[[nodiscard]] Status int_list_arg(const KernelContext& context, Span<Value*> args, size_t i,
                                  IntList& out);

/// Wraps a possibly negative dim into [0, rank); false when out of range.
inline bool wrap_dim(int64_t& dim, int64_t rank) {
  const int64_t r = rank == 0 ? 1 : rank;  // scalars accept dim 0 and -1
  if (dim < -r || dim >= r) {
    return false;
  }
  if (dim < 0) {
    dim += r;
  }
  return true;
}

// ---- dtype categories and promotion (ATen's rules) ----
bool is_floating(ScalarType t);
bool is_integral(ScalarType t, bool include_bool);
/// torch.promote_types.
ScalarType promote_types(ScalarType a, ScalarType b);
/// torch.can_cast(from, to): no float->int, no non-bool->bool.
bool can_cast(ScalarType from, ScalarType to);

/// Result dtype of an op over tensors and scalars with ATen's priorities:
/// dimensioned tensors over zero-dim tensors over wrapped scalars.
struct ResultTypeState {
  ScalarType dim_result = ScalarType::kUndefined;
  ScalarType zero_result = ScalarType::kUndefined;
  ScalarType wrapped_result = ScalarType::kUndefined;
  void add_tensor(const Tensor& t);
  void add_scalar(const Value& v);
  ScalarType result() const;
};

// ---- dtype dispatch ----
// visit_<kind>(type, f) calls f with a value of `type`'s C++ type when the
// kind lists it, and says whether it did (for type tests and loaders).
// Kernels use dispatch_<kind>(context, type, f) instead: it returns f's
// Status (f may also return nothing), or an error naming the op and the
// dtype when the kind does not list it, so an unlisted dtype can never
// pass as a silent success.
template <typename F>
[[nodiscard]] bool visit_real(ScalarType type, F&& f) {
  switch (type) {
    case ScalarType::kByte: f(uint8_t{}); return true;
    case ScalarType::kChar: f(int8_t{}); return true;
    case ScalarType::kShort: f(int16_t{}); return true;
    case ScalarType::kInt: f(int32_t{}); return true;
    case ScalarType::kLong: f(int64_t{}); return true;
    case ScalarType::kFloat: f(float{}); return true;
    case ScalarType::kDouble: f(double{}); return true;
    default: return false;
  }
}
template <typename F>
[[nodiscard]] bool visit_real_bool(ScalarType type, F&& f) {
  if (type == ScalarType::kBool) {
    f(bool{});
    return true;
  }
  return visit_real(type, f);
}
template <typename F>
[[nodiscard]] bool visit_all(ScalarType type, F&& f) {
  if (type == ScalarType::kHalf) {
    f(Half{});
    return true;
  }
  if (type == ScalarType::kBFloat16) {
    f(BFloat16{});
    return true;
  }
  return visit_real_bool(type, f);
}
template <typename F>
[[nodiscard]] bool visit_floating(ScalarType type, F&& f) {
  switch (type) {
    case ScalarType::kFloat: f(float{}); return true;
    case ScalarType::kDouble: f(double{}); return true;
    default: return false;
  }
}
template <typename F>
[[nodiscard]] bool visit_integral(ScalarType type, F&& f) {
  switch (type) {
    case ScalarType::kByte: f(uint8_t{}); return true;
    case ScalarType::kChar: f(int8_t{}); return true;
    case ScalarType::kShort: f(int16_t{}); return true;
    case ScalarType::kInt: f(int32_t{}); return true;
    case ScalarType::kLong: f(int64_t{}); return true;
    default: return false;
  }
}
/// The compute type for a common dtype: half types compute in float, like
/// ATen's CPU kernels.
template <typename F>
[[nodiscard]] bool visit_compute(ScalarType common, F&& f) {
  if (common == ScalarType::kHalf || common == ScalarType::kBFloat16) {
    f(float{});
    return true;
  }
  return visit_real_bool(common, f);
}

namespace detail {
template <typename F, typename Tag>
Status call_with_tag(F& f, Tag tag) {
  if constexpr (std::is_void_v<decltype(f(tag))>) {
    f(tag);
    return Ok{};
  } else {
    return f(tag);
  }
}
/// "<op>: unsupported dtype <type>".
Error unsupported_dtype(const KernelContext& context, ScalarType type);
}  // namespace detail

#define ETKIT_DEFINE_DISPATCH(kind)                                                       \
  template <typename F>                                                                   \
  [[nodiscard]] Status dispatch_##kind(const KernelContext& context, ScalarType type,     \
                                       F&& f) {                                           \
    std::optional<Status> status; /* constructed in place: no assignment */               \
    if (!visit_##kind(type, [&](auto tag) { status.emplace(detail::call_with_tag(f, tag)); })) { \
      return detail::unsupported_dtype(context, type);                                    \
    }                                                                                     \
    return std::move(*status);                                                            \
  }
ETKIT_DEFINE_DISPATCH(real)
ETKIT_DEFINE_DISPATCH(real_bool)
ETKIT_DEFINE_DISPATCH(all)
ETKIT_DEFINE_DISPATCH(floating)
ETKIT_DEFINE_DISPATCH(integral)
ETKIT_DEFINE_DISPATCH(compute)
#undef ETKIT_DEFINE_DISPATCH

/// Converts as static_cast does in ATen (c10::convert): float->int
/// truncates, anything->bool tests != 0.
template <typename To, typename From>
inline To convert(From value) {
  if constexpr (std::is_same_v<To, bool>) {
    return static_cast<double>(value) != 0;
  } else if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) {
    return static_cast<To>(static_cast<float>(value));
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
    return To(static_cast<float>(value));
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    // Out-of-range float->int is undefined in C++; convert through int64.
    // [-2^63, 2^63) is exactly int64's range; outside it (and NaN) x86's
    // conversion, and so ATen on x86, gives INT64_MIN.
    if (!(value >= -9223372036854775808.0 && value < 9223372036854775808.0)) {
      return static_cast<To>(std::is_signed_v<To> ? INT64_MIN : 0);
    }
    return static_cast<To>(static_cast<int64_t>(value));
  } else {
    return static_cast<To>(value);
  }
}

/// Fills every element of the dense tensor `out` with a scalar converted to
/// its dtype (ints keep all 64 bits).
[[nodiscard]] Status fill(KernelContext& context, const Value& value, Tensor& out);

// ---- shapes ----
/// Sizes of the broadcast of a and b; false when incompatible.
bool broadcast_shape(Span<const int64_t> a, Span<const int64_t> b, int64_t* out, int& rank);

/// Resizes `out` to `sizes`, with an error naming the op when it does not fit.
Status resize_output(KernelContext& context, Tensor& out, Span<const int64_t> sizes);

/// Strides of `t` as seen from a broadcast output of rank `rank` (0 where
/// broadcast), in elements.
void broadcast_strides(const Tensor& t, int rank, const int64_t* out_sizes, int64_t* strides);

/// True when all tensors share sizes and a dense layout with the same dim
/// order, so elementwise ops may run over flat memory.
bool same_dense_layout(const Tensor& a, const Tensor& b);

/// Whether a dtype argument names a tensor the kernel sees as `actual`:
/// the runtime hands kernels float16 and bfloat16 tensors as float32
/// copies (low-precision staging), so those names match a float32 tensor.
inline bool dtype_arg_matches(ScalarType named, ScalarType actual) {
  return named == actual ||
         (actual == ScalarType::kFloat && (named == ScalarType::kHalf || named == ScalarType::kBFloat16));
}

/// Whether a and b have the same sizes.
inline bool same_sizes(const Tensor& a, const Tensor& b) {
  if (a.dim() != b.dim()) return false;
  for (int d = 0; d < a.dim(); ++d) {
    if (a.size(d) != b.size(d)) return false;
  }
  return true;
}

/// Advances a row-major multi-index over `sizes` (the last dim fastest);
/// false after the last element.
inline bool next_index(int64_t* index, const int64_t* sizes, int rank) {
  for (int d = rank - 1; d >= 0; --d) {
    if (++index[d] < sizes[d]) return true;
    index[d] = 0;
  }
  return false;
}

/// Calls f(offsets...) for the elements [begin, end) of `sizes` in
/// row-major order, where each operand's offset (in elements) follows its
/// strides: a part of for_each_index's walk, so that workers can each take
/// a range of it.
template <int N, typename F>
void for_index_range(int rank, const int64_t* sizes, const int64_t* const (&strides)[N], int64_t begin,
                     int64_t end, F&& f) {
  if (begin >= end) return;
  const int inner = rank - 1;
  const int64_t inner_size = rank == 0 ? 1 : sizes[inner];
  int64_t inner_stride[N];
  for (int k = 0; k < N; ++k) inner_stride[k] = rank == 0 ? 0 : strides[k][inner];
  // The multi-index of `begin` and its offsets; the walk starts mid-row.
  int64_t index[kMaxRank] = {};
  int64_t offset[N] = {};
  int64_t column = begin % inner_size;
  int64_t row = begin / inner_size;
  for (int d = inner - 1; d >= 0; --d) {
    index[d] = row % sizes[d];
    row /= sizes[d];
    for (int k = 0; k < N; ++k) offset[k] += index[d] * strides[k][d];
  }
  for (int64_t done = begin; done < end;) {
    const int64_t count = std::min(inner_size - column, end - done);
    int64_t o[N];
    for (int k = 0; k < N; ++k) o[k] = offset[k] + column * inner_stride[k];
    for (int64_t i = 0; i < count; ++i) {
      f(o);
      for (int k = 0; k < N; ++k) o[k] += inner_stride[k];
    }
    done += count;
    column = 0;
    // Advance the outer index like an odometer.
    for (int d = inner - 1; d >= 0; --d) {
      ++index[d];
      for (int k = 0; k < N; ++k) offset[k] += strides[k][d];
      if (index[d] < sizes[d]) break;
      for (int k = 0; k < N; ++k) offset[k] -= strides[k][d] * sizes[d];
      index[d] = 0;
    }
  }
}

/// Number of elements of `sizes` (1 for rank 0).
inline int64_t index_count(int rank, const int64_t* sizes) {
  int64_t numel = 1;
  for (int d = 0; d < rank; ++d) numel *= sizes[d];
  return numel;
}

/// Calls f(offsets...) for every element of `sizes` in row-major order,
/// where each operand's offset (in elements) follows its strides.
template <int N, typename F>
void for_each_index(int rank, const int64_t* sizes, const int64_t* const (&strides)[N], F&& f) {
  for_index_range<N>(rank, sizes, strides, 0, index_count(rank, sizes), f);
}

}  // namespace etkit::kernels
