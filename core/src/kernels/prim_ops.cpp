// Scalar ops of dynamic-shape programs (executorch_prim::*, sym_size):
// they compute on Int/Double values and write the result value in place.

#include <cmath>

#include "kernel_util.h"

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

}  // namespace

void register_prim_ops(KernelRegistry& r) {
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
}

}  // namespace etkit::kernels
