#include "low_precision_staging.h"

#include "etkit/core/tensor_copy.h"

namespace etkit::detail {
namespace {

bool is_low_precision(const Tensor& t) {
  return t.scalar_type() == ScalarType::kHalf || t.scalar_type() == ScalarType::kBFloat16;
}

// Float32 bytes for a low-precision tensor's capacity (or its declared
// size when it has no memory yet, as a borrowed input).
size_t staged_bytes(const Tensor& t) {
  const size_t elements = (t.capacity() > t.nbytes() ? t.capacity() : t.nbytes()) / 2;
  return (elements * 4 + 63) / 64 * 64;
}

Status staged_copy(const KernelContext& context, const Tensor& in, Tensor& out) {
  Status converted = convert_float_staging(in, out);
  if (!converted.ok()) return converted.error().with_context("%s", context.op_name);
  return Ok{};
}

}  // namespace

bool needs_low_precision_staging(Span<Value*> args) {
  for (Value* v : args) {
    if (v->is_tensor() && is_low_precision(v->unchecked_tensor())) return true;
    if (v->tag() == ValueTag::kTensorList || v->tag() == ValueTag::kOptionalTensorList) {
      for (Tensor* t : v->tensor_list()) {
        if (t != nullptr && is_low_precision(*t)) return true;
      }
    }
  }
  return false;
}

LowPrecisionStaging plan_staging(Span<Value*> args, uint64_t out_args) {
  LowPrecisionStaging s;
  // Sized first: values and tensors are referenced by pointer.
  size_t tensors = 0, items = 0;
  for (Value* v : args) {
    if (v->is_tensor()) ++tensors;
    if (v->tag() == ValueTag::kTensorList || v->tag() == ValueTag::kOptionalTensorList) {
      tensors += v->tensor_list().size();
      items += v->tensor_list().size();
    }
  }
  s.tensors.reserve(tensors);
  s.list_items.reserve(items);
  s.values.reserve(args.size());
  auto stage = [&](Tensor* original, bool out) {
    if (original == nullptr || !is_low_precision(*original)) return original;
    // An out passed twice (as an argument and as the returned value) is
    // one tensor: staged once.
    for (LowPrecisionStaging::Pair& p : s.pairs) {
      if (p.original == original) {
        p.out = p.out || out;
        return p.staged;
      }
    }
    s.tensors.push_back(*original);  // shape and dim order; dtype and memory set when bound
    s.bytes += staged_bytes(*original);
    s.pairs.push_back({original, &s.tensors.back(), out});
    return &s.tensors.back();
  };
  for (size_t a = 0; a < args.size(); ++a) {
    Value* v = args[a];
    const bool out = a < 64 && ((out_args >> a) & 1u) != 0;
    if (v->is_tensor() && is_low_precision(v->unchecked_tensor())) {
      s.values.push_back(Value::from_tensor(stage(&v->unchecked_tensor(), out)));
      s.args.push_back(&s.values.back());
    } else if (v->tag() == ValueTag::kTensorList || v->tag() == ValueTag::kOptionalTensorList) {
      const size_t first = s.list_items.size();
      for (Tensor* t : v->tensor_list()) s.list_items.push_back(stage(t, out));
      s.values.push_back(Value::from_tensor_list(Span<Tensor* const>(s.list_items.data() + first, v->tensor_list().size()),
                                                 v->tag() == ValueTag::kOptionalTensorList));
      s.args.push_back(&s.values.back());
    } else {
      s.args.push_back(v);
    }
  }
  return s;
}

Status bind_staging(LowPrecisionStaging& s, Span<uint8_t> arena) {
  size_t offset = 0;
  for (LowPrecisionStaging::Pair& p : s.pairs) {
    const size_t bytes = staged_bytes(*p.original);
    ETKIT_ASSIGN_OR_RETURN(*p.staged, Tensor::make(ScalarType::kFloat, p.original->sizes(), p.original->dim_order(),
                                                   arena.data() + offset, bytes));
    offset += bytes;
  }
  return Ok{};
}

Status run_staged(KernelFunction kernel, KernelContext& context, LowPrecisionStaging& s) {
  for (LowPrecisionStaging::Pair& p : s.pairs) {
    if (p.original->nbytes() * 2 > p.staged->capacity()) {
      return Error::make(ErrorCode::kOutOfRange, "%s: a %s tensor of %lld elements outgrew its float32 staging",
                         context.op_name, to_string(p.original->scalar_type()), (long long)p.original->numel());
    }
    ETKIT_TRY(staged_copy(context, *p.original, *p.staged));
  }
  ETKIT_TRY(kernel(context, Span<Value*>(s.args.data(), s.args.size())));
  for (LowPrecisionStaging::Pair& p : s.pairs) {
    if (p.out) ETKIT_TRY(staged_copy(context, *p.staged, *p.original));
  }
  return Ok{};
}

}  // namespace etkit::detail
