// The prim op set (upstream's kernels/prim_ops): scalar ops of dynamic-shape
// programs (executorch_prim::*, sym_size, _local_scalar_dense), which
// compute on Int/Double/Bool values and write the result value in place,
// and the tensor prims et_view and et_copy_index.

#include <cmath>
#include <cstring>

#include "etkit/kernels/kernel_util.h"
#include "etkit/kernels/op_sets.h"

namespace etkit::kernels {
namespace {

enum class Prim { kAdd, kSub, kMul, kFloorDiv, kTrueDiv, kMod };

template <Prim op>
Status prim_arith(KernelContext& context, Span<Value*> args) {
  const Value& a = *args[0];
  const Value& b = *args[1];
  ETKIT_KERNEL_CHECK(context, a.is_scalar() && b.is_scalar(), "expects two scalars");
  const bool ints = a.tag() != ValueTag::kDouble && b.tag() != ValueTag::kDouble;
  if (ints && op != Prim::kTrueDiv) {
    const int64_t x = a.tag() == ValueTag::kBool ? a.unchecked_bool() : a.unchecked_int();
    const int64_t y = b.tag() == ValueTag::kBool ? b.unchecked_bool() : b.unchecked_int();
    int64_t r = 0;
    switch (op) {
      case Prim::kAdd: r = int64_t(uint64_t(x) + uint64_t(y)); break;
      case Prim::kSub: r = int64_t(uint64_t(x) - uint64_t(y)); break;
      case Prim::kMul: r = int64_t(uint64_t(x) * uint64_t(y)); break;
      case Prim::kFloorDiv:
      case Prim::kMod: {
        ETKIT_KERNEL_CHECK(context, y != 0, "integer division by zero");
        if (y == -1) {  // INT64_MIN / -1 traps; the quotient wraps as add/sub/mul do
          r = op == Prim::kFloorDiv ? int64_t(0 - uint64_t(x)) : 0;
          break;
        }
        int64_t q = x / y, m = x % y;
        if (m != 0 && ((m < 0) != (y < 0))) {
          --q;
          m += y;
        }
        r = op == Prim::kFloorDiv ? q : m;
        break;
      }
      case Prim::kTrueDiv: break;
    }
    *args[2] = Value::from_int(r);
    return Ok{};
  }
  const double x = a.scalar_as_double(), y = b.scalar_as_double();
  double r = 0;
  switch (op) {
    case Prim::kAdd: r = x + y; break;
    case Prim::kSub: r = x - y; break;
    case Prim::kMul: r = x * y; break;
    case Prim::kFloorDiv: r = std::floor(x / y); break;
    case Prim::kTrueDiv: r = x / y; break;
    case Prim::kMod: r = x - std::floor(x / y) * y; break;
  }
  *args[2] = Value::from_double(r);
  return Ok{};
}

enum class PrimCompare { kEq, kGt, kLt, kGe, kLe };

template <PrimCompare op>
Status prim_compare(KernelContext& context, Span<Value*> args) {
  ETKIT_KERNEL_CHECK(context, args[0]->is_scalar() && args[1]->is_scalar(), "expects two scalars");
  const double x = args[0]->scalar_as_double(), y = args[1]->scalar_as_double();
  bool r = false;
  switch (op) {
    case PrimCompare::kEq: r = x == y; break;
    case PrimCompare::kGt: r = x > y; break;
    case PrimCompare::kLt: r = x < y; break;
    case PrimCompare::kGe: r = x >= y; break;
    case PrimCompare::kLe: r = x <= y; break;
  }
  *args[2] = Value::from_bool(r);
  return Ok{};
}

Status prim_neg(KernelContext& context, Span<Value*> args) {
  const Value& a = *args[0];
  ETKIT_KERNEL_CHECK(context, a.is_scalar(), "expects a scalar");
  if (a.tag() == ValueTag::kDouble) {
    *args[1] = Value::from_double(-a.unchecked_double());
  } else {
    // Two's complement, as the other integer ops: -INT64_MIN is INT64_MIN.
    const int64_t x = a.tag() == ValueTag::kBool ? a.unchecked_bool() : a.unchecked_int();
    *args[1] = Value::from_int(int64_t(0 - uint64_t(x)));
  }
  return Ok{};
}

Status sym_size_int(KernelContext& context, Span<Value*> args) {
  const Tensor& t = tensor_arg(args, 0);
  int64_t dim = int_arg(args, 1);
  ETKIT_KERNEL_CHECK(context, wrap_dim(dim, t.dim()), "dimension out of range");
  *args[2] = Value::from_int(t.dim() == 0 ? 1 : t.size(int(dim)));
  return Ok{};
}

Status sym_numel(KernelContext&, Span<Value*> args) {
  *args[1] = Value::from_int(tensor_arg(args, 0).numel());
  return Ok{};
}


// An int from an Int or Bool value.
int64_t as_int(const Value& v) { return v.tag() == ValueTag::kBool ? v.unchecked_bool() : v.unchecked_int(); }

// ceil/round/trunc.Scalar(a) -> Scalar: an int stays, a double becomes the
// int64 of its ceiling, Python round (half to even) or truncation.
enum class Rounding { kCeil, kRound, kTrunc };
template <Rounding mode>
Status prim_rounding(KernelContext& context, Span<Value*> args) {
  const Value& a = *args[0];
  ETKIT_KERNEL_CHECK(context, a.is_scalar(), "expects a scalar");
  if (a.tag() != ValueTag::kDouble) {
    *args[1] = Value::from_int(as_int(a));
    return Ok{};
  }
  const double x = a.unchecked_double();
  ETKIT_KERNEL_CHECK(context, std::isfinite(x) && std::fabs(x) < 9.2e18,
                     "cannot convert %g to an integer", x);
  double r = 0;
  switch (mode) {
    case Rounding::kCeil: r = std::ceil(x); break;
    case Rounding::kTrunc: r = std::trunc(x); break;
    case Rounding::kRound: {
      r = std::round(x);  // half away from zero; move ties to the even neighbour
      if (std::fabs(x - std::trunc(x)) == 0.5 && std::fmod(r, 2.0) != 0.0) r -= std::copysign(1.0, x);
      break;
    }
  }
  *args[1] = Value::from_int(int64_t(r));
  return Ok{};
}

// sym_max/sym_min.Scalar(SymInt a, SymInt b) -> SymInt.
template <bool is_max>
Status prim_sym_extreme(KernelContext& context, Span<Value*> args) {
  const Value& a = *args[0];
  const Value& b = *args[1];
  ETKIT_KERNEL_CHECK(context, a.tag() == ValueTag::kInt && b.tag() == ValueTag::kInt,
                     "sym_%s only supports int inputs, got %s and %s", is_max ? "max" : "min",
                     to_string(a.tag()), to_string(b.tag()));
  const int64_t x = a.unchecked_int(), y = b.unchecked_int();
  *args[2] = Value::from_int(is_max ? (x > y ? x : y) : (x < y ? x : y));
  return Ok{};
}

// sym_float.Scalar(a) -> float; sym_int.Scalar(a) -> int (truncating).
Status prim_sym_float(KernelContext& context, Span<Value*> args) {
  ETKIT_KERNEL_CHECK(context, args[0]->is_scalar(), "expects a scalar");
  *args[1] = Value::from_double(args[0]->scalar_as_double());
  return Ok{};
}
Status prim_sym_int(KernelContext& context, Span<Value*> args) {
  const Value& a = *args[0];
  ETKIT_KERNEL_CHECK(context, a.is_scalar(), "sym_int only supports int, double, or bool inputs");
  if (a.tag() != ValueTag::kDouble) {
    *args[1] = Value::from_int(as_int(a));
    return Ok{};
  }
  const double x = a.unchecked_double();
  ETKIT_KERNEL_CHECK(context, std::isfinite(x) && std::fabs(x) < 9.2e18, "cannot convert %g to an integer", x);
  *args[1] = Value::from_int(int64_t(x));
  return Ok{};
}

// sym_not.Scalar(bool a) -> bool; sym_ite.Scalar(bool b, Scalar t, Scalar f).
Status prim_sym_not(KernelContext&, Span<Value*> args) {
  *args[1] = Value::from_bool(!args[0]->unchecked_bool());
  return Ok{};
}
Status prim_sym_ite(KernelContext& context, Span<Value*> args) {
  ETKIT_KERNEL_CHECK(context, args[1]->is_scalar() && args[2]->is_scalar(),
                     "sym_ite values must be int, double, or bool");
  *args[3] = args[0]->unchecked_bool() ? *args[1] : *args[2];
  return Ok{};
}

// _local_scalar_dense(Tensor self) -> Scalar: the one element of self as an
// Int (integer dtypes), Double (floating) or Bool.
Status local_scalar_dense(KernelContext& context, Span<Value*> args) {
  const Tensor& t = tensor_arg(args, 0);
  ETKIT_KERNEL_CHECK(context, t.numel() == 1,
                     "a Tensor with %lld elements cannot be converted to Scalar", (long long)t.numel());
  if (t.scalar_type() == ScalarType::kBool) {
    *args[1] = Value::from_bool(t.data_as<const uint8_t>()[0] != 0);
    return Ok{};
  }
  return dispatch_all(context, t.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const T v = t.data_as<const T>()[0];
    if constexpr (std::is_integral_v<T>) {
      *args[1] = Value::from_int(int64_t(v));
    } else {
      *args[1] = Value::from_double(convert<double>(v));
    }
  });
}

// et_view.default(self, size) -> out: out shares self's memory with the
// given sizes (one may be -1); its data pointer is set at every call, so it
// follows self wherever self's memory is.
Status et_view(KernelContext& context, Span<Value*> args) {
  const Tensor& self = tensor_arg(args, 0);
  IntList size;
  ETKIT_TRY(int_list_arg(context, args, 1, size));
  Tensor& out = tensor_arg(args, 2);
  ETKIT_KERNEL_CHECK(context, self.scalar_type() == out.scalar_type(), "out dtype %s differs from self's %s",
                     to_string(out.scalar_type()), to_string(self.scalar_type()));
  ETKIT_KERNEL_CHECK(context, size.size == size_t(out.dim()), "%zu sizes for a rank-%d out", size.size,
                     out.dim());
  int64_t sizes[kMaxRank];
  int inferred = -1;
  int64_t known = 1;
  bool zero = false;
  for (size_t d = 0; d < size.size; ++d) {
    if (size[d] == -1) {
      ETKIT_KERNEL_CHECK(context, inferred < 0, "At most one view dim can be -1.");
      inferred = int(d);
      continue;
    }
    ETKIT_KERNEL_CHECK(context, size[d] >= 0, "Negative sizes are not allowed.");
    sizes[d] = size[d];
    known *= size[d];
    zero = zero || size[d] == 0;
  }
  if (inferred >= 0) {
    ETKIT_KERNEL_CHECK(context, !zero, "Cannot infer dimension size if there is a zero dim.");
    sizes[inferred] = self.numel() / known;
  }
  out.set_data(self.data(), self.capacity());
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, size.size)));
  ETKIT_KERNEL_CHECK(context, out.numel() == self.numel(), "self.numel(): %lld, out.numel(): %lld",
                     (long long)self.numel(), (long long)out.numel());
  ETKIT_KERNEL_CHECK(context, out.is_default_dim_order() && self.is_default_dim_order(),
                     "et_view needs contiguous tensors");
  return Ok{};
}

// et_copy_index.tensor(copy_to, copy_from, index): copy_to grows to
// [index + 1, *copy_from.sizes] and row `index` takes copy_from (the loop
// output of control-flow map). The program passes no return slot.
Status et_copy_index(KernelContext& context, Span<Value*> args) {
  Tensor& to = tensor_arg(args, 0);
  const Tensor& from = tensor_arg(args, 1);
  const int64_t index = int_arg(args, 2);
  ETKIT_KERNEL_CHECK(context, index >= 0, "Expected index to be non-negative.");
  ETKIT_KERNEL_CHECK(context, to.scalar_type() == from.scalar_type(), "copy_to is %s, copy_from %s",
                     to_string(to.scalar_type()), to_string(from.scalar_type()));
  ETKIT_KERNEL_CHECK(context, to.dim() == from.dim() + 1,
                     "Ranks of copy_to %d and copy_from tensor %d should only differ by 1.", to.dim(), from.dim());
  int64_t sizes[kMaxRank];
  sizes[0] = index + 1;
  for (int d = 0; d < from.dim(); ++d) {
    ETKIT_KERNEL_CHECK(context, to.size(d + 1) == from.size(d),
                       "Mismatch in shape between copy_to and copy_from tensors");
    sizes[d + 1] = from.size(d);
  }
  ETKIT_TRY(resize_output(context, to, Span<const int64_t>(sizes, size_t(to.dim()))));
  ETKIT_KERNEL_CHECK(context, to.is_default_dim_order() && from.is_default_dim_order(),
                     "et_copy_index needs contiguous tensors");
  if (from.nbytes() > 0) {
    std::memcpy(static_cast<uint8_t*>(to.data()) + size_t(index) * from.nbytes(), from.data(), from.nbytes());
  }
  return Ok{};
}

}  // namespace

}  // namespace etkit::kernels

namespace etkit {
void register_prim_kernels(KernelRegistry& r) {
  using namespace kernels;
  ETKIT_REGISTER_KERNEL(r, "executorch_prim::add.Scalar", "ssx", prim_arith<Prim::kAdd>);
  ETKIT_REGISTER_KERNEL(r, "executorch_prim::sub.Scalar", "ssx", prim_arith<Prim::kSub>);
  ETKIT_REGISTER_KERNEL(r, "executorch_prim::mul.Scalar", "ssx", prim_arith<Prim::kMul>);
  ETKIT_REGISTER_KERNEL(r, "executorch_prim::floordiv.Scalar", "ssx", prim_arith<Prim::kFloorDiv>);
  ETKIT_REGISTER_KERNEL(r, "executorch_prim::floordiv.int", "ssx", prim_arith<Prim::kFloorDiv>);
  ETKIT_REGISTER_KERNEL(r, "executorch_prim::truediv.Scalar", "ssx", prim_arith<Prim::kTrueDiv>);
  ETKIT_REGISTER_KERNEL(r, "executorch_prim::mod.Scalar", "ssx", prim_arith<Prim::kMod>);
  ETKIT_REGISTER_KERNEL(r, "executorch_prim::mod.int", "ssx", prim_arith<Prim::kMod>);
  ETKIT_REGISTER_KERNEL(r, "executorch_prim::eq.Scalar", "ssx", prim_compare<PrimCompare::kEq>);
  ETKIT_REGISTER_KERNEL(r, "executorch_prim::gt.Scalar", "ssx", prim_compare<PrimCompare::kGt>);
  ETKIT_REGISTER_KERNEL(r, "executorch_prim::lt.Scalar", "ssx", prim_compare<PrimCompare::kLt>);
  ETKIT_REGISTER_KERNEL(r, "executorch_prim::ge.Scalar", "ssx", prim_compare<PrimCompare::kGe>);
  ETKIT_REGISTER_KERNEL(r, "executorch_prim::le.Scalar", "ssx", prim_compare<PrimCompare::kLe>);
  ETKIT_REGISTER_KERNEL(r, "executorch_prim::neg.Scalar", "sx", prim_neg);
  ETKIT_REGISTER_KERNEL(r, "aten::sym_size.int", "Tix", sym_size_int);
  ETKIT_REGISTER_KERNEL(r, "aten::sym_numel", "Tx", sym_numel);
  ETKIT_REGISTER_KERNEL(r, "aten::_local_scalar_dense", "Tx", local_scalar_dense);
  ETKIT_REGISTER_KERNEL(r, "executorch_prim::ceil.Scalar", "sx", prim_rounding<Rounding::kCeil>);
  ETKIT_REGISTER_KERNEL(r, "executorch_prim::round.Scalar", "sx", prim_rounding<Rounding::kRound>);
  ETKIT_REGISTER_KERNEL(r, "executorch_prim::trunc.Scalar", "sx", prim_rounding<Rounding::kTrunc>);
  ETKIT_REGISTER_KERNEL(r, "executorch_prim::sym_max.Scalar", "ssx", prim_sym_extreme<true>);
  ETKIT_REGISTER_KERNEL(r, "executorch_prim::sym_min.Scalar", "ssx", prim_sym_extreme<false>);
  ETKIT_REGISTER_KERNEL(r, "executorch_prim::sym_float.Scalar", "sx", prim_sym_float);
  ETKIT_REGISTER_KERNEL(r, "executorch_prim::sym_int.Scalar", "sx", prim_sym_int);
  ETKIT_REGISTER_KERNEL(r, "executorch_prim::sym_not.Scalar", "bx", prim_sym_not);
  ETKIT_REGISTER_KERNEL(r, "executorch_prim::sym_ite.Scalar", "bssx", prim_sym_ite);
  ETKIT_REGISTER_KERNEL(r, "executorch_prim::et_view.default", "TIW", et_view);
  ETKIT_REGISTER_KERNEL(r, "executorch_prim::et_copy_index.tensor", "WTi", et_copy_index);
}

}  // namespace etkit
