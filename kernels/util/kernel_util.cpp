#include "etkit/kernels/kernel_util.h"

#include "etkit/kernels/elementwise.h"

#include <cstring>

namespace etkit::kernels {
namespace {

using ST = ScalarType;

int bits_of(ScalarType t) { return static_cast<int>(element_size(t)) * 8; }

ScalarType promote_skip_undefined(ScalarType a, ScalarType b) {
  if (a == ST::kUndefined) return b;
  if (b == ST::kUndefined) return a;
  return promote_types(a, b);
}

// ATen's combine_categories (no complex types here).
ScalarType combine_categories(ScalarType higher, ScalarType lower) {
  if (is_floating(higher)) return higher;
  if (higher == ST::kBool || is_floating(lower)) return promote_skip_undefined(higher, lower);
  if (higher != ST::kUndefined) return higher;
  return lower;
}

}  // namespace

bool is_floating(ScalarType t) {
  return t == ST::kFloat || t == ST::kDouble || t == ST::kHalf || t == ST::kBFloat16;
}

bool is_integral(ScalarType t, bool include_bool) {
  switch (t) {
    case ST::kByte: case ST::kChar: case ST::kShort: case ST::kInt: case ST::kLong:
      return true;
    case ST::kBool:
      return include_bool;
    default:
      return false;
  }
}

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (a == ST::kBool) return b;
  if (b == ST::kBool) return a;
  const bool fa = is_floating(a), fb = is_floating(b);
  if (fa && fb) {
    if ((a == ST::kHalf && b == ST::kBFloat16) || (a == ST::kBFloat16 && b == ST::kHalf)) {
      return ST::kFloat;
    }
    return bits_of(a) >= bits_of(b) ? a : b;
  }
  if (fa) return a;
  if (fb) return b;
  if (!is_integral(a, false) || !is_integral(b, false)) return ST::kUndefined;
  // Integers: uint8 is the only unsigned type; mixing it with a signed type
  // needs one more bit.
  if (a == ST::kByte || b == ST::kByte) {
    const ScalarType other = a == ST::kByte ? b : a;
    return other == ST::kChar ? ST::kShort : other;
  }
  return bits_of(a) >= bits_of(b) ? a : b;
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_floating(from) && is_integral(to, true)) return false;
  if (from != ST::kBool && to == ST::kBool) return false;
  return true;
}

void ResultTypeState::add_tensor(const Tensor& t) {
  if (t.dim() == 0) {
    zero_result = promote_skip_undefined(zero_result, t.scalar_type());
  } else {
    dim_result = promote_skip_undefined(dim_result, t.scalar_type());
  }
}

void ResultTypeState::add_scalar(const Value& v) {
  // Python numbers take their category's default type.
  const ScalarType type = v.tag() == ValueTag::kDouble ? ST::kFloat
                          : v.tag() == ValueTag::kBool ? ST::kBool
                                                       : ST::kLong;
  wrapped_result = promote_skip_undefined(wrapped_result, type);
}

ScalarType ResultTypeState::result() const {
  return combine_categories(dim_result, combine_categories(zero_result, wrapped_result));
}

bool broadcast_shape(Span<const int64_t> a, Span<const int64_t> b, int64_t* out, int& rank) {
  rank = static_cast<int>(a.size() > b.size() ? a.size() : b.size());
  for (int i = 0; i < rank; ++i) {
    const int ia = static_cast<int>(a.size()) - rank + i;
    const int ib = static_cast<int>(b.size()) - rank + i;
    const int64_t sa = ia >= 0 ? a[static_cast<size_t>(ia)] : 1;
    const int64_t sb = ib >= 0 ? b[static_cast<size_t>(ib)] : 1;
    if (sa != sb && sa != 1 && sb != 1) {
      return false;
    }
    out[i] = sa == 1 ? sb : sa;
  }
  return true;
}

Status resize_output(KernelContext& context, Tensor& out, Span<const int64_t> sizes) {
  // (An empty size list may have no data pointer: memcmp must not see it.)
  if (out.dim() == static_cast<int>(sizes.size()) &&
      (sizes.size() == 0 ||
       std::memcmp(out.sizes().data(), sizes.data(), sizes.size() * sizeof(int64_t)) == 0)) {
    return Ok{};
  }
  if (out.dim() != static_cast<int>(sizes.size())) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "%s: out tensor has rank %d, the result has rank %zu", context.op_name,
                       out.dim(), sizes.size());
  }
  Status status = out.resize(sizes);
  if (!status.ok()) {
    return status.error().with_context("%s: out tensor", context.op_name);
  }
  return Ok{};
}

void broadcast_strides(const Tensor& t, int rank, const int64_t* out_sizes, int64_t* strides) {
  const int offset = rank - t.dim();
  for (int d = 0; d < rank; ++d) {
    const int td = d - offset;
    // Missing and size-1 dims repeat the same element.
    strides[d] = (td < 0 || t.size(td) == 1) ? 0 : t.stride(td);
    (void)out_sizes;
  }
}

bool same_dense_layout(const Tensor& a, const Tensor& b) {
  if (a.dim() != b.dim()) return false;
  for (int d = 0; d < a.dim(); ++d) {
    if (a.size(d) != b.size(d) || a.dim_order()[static_cast<size_t>(d)] != b.dim_order()[static_cast<size_t>(d)]) {
      return false;
    }
  }
  return true;
}

}  // namespace etkit::kernels

namespace etkit::kernels {

Error detail::unsupported_dtype(const KernelContext& context, ScalarType type) {
  return Error::make(ErrorCode::kInvalidArgument, "unsupported dtype %s", to_string(type))
      .with_context("%s", context.op_name);
}

Status int_list_arg(const KernelContext& context, Span<Value*> args, size_t i, IntList& out) {
  out.size = 0;
  if (args[i]->is_none()) return Ok{};
  const auto items = args[i]->int_list_items();
  ETKIT_KERNEL_CHECK(context, items.size() <= IntList::kCapacity,
                     "int list argument %zu has %zu items; at most %zu are supported", i,
                     items.size(), IntList::kCapacity);
  out.size = items.size();
  for (size_t k = 0; k < items.size(); ++k) out.items[k] = items[k]->unchecked_int();
  return Ok{};
}

Status fill(KernelContext& context, const Value& value, Tensor& out) {
  ETKIT_TRY(dispatch_all(context, out.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    T v = value.tag() == ValueTag::kInt ? convert<T>(value.unchecked_int())
                                        : convert<T>(value.scalar_as_double());
    T* p = out.data_as<T>();
    for (int64_t i = 0; i < out.numel(); ++i) p[i] = v;  // dense: order is irrelevant
  }));
  return Ok{};
}

}  // namespace etkit::kernels
