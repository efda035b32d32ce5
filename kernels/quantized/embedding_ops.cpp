// quantized_decomposed::embedding_{byte,2bit,4bit}: rows of a weight-only
// quantized embedding table, dequantized as they are looked up. Each row
// has one scale (and optional zero point) per group of columns:
//   out[..., j] = (w[index, j] - zero_point[index, j / group]) * scale[index, j / group]
// computed in float32. Sub-byte rows are packed as upstream packs them
// (ExecuTorch kernels/quantized, commit cff6f4dd32e6): 4-bit values are
// stored + 8, the even column in the high nibble; 2-bit values are stored
// + 2, column j at bits 2 * (j % 4).

#include "etkit/kernels/op_sets.h"
#include "quantize_util.h"
#include "quantized_families.h"

namespace etkit::kernels {
namespace {

// Column j of a packed row of `bits`-bit values.
template <int bits>
inline int32_t unpacked(const uint8_t* row, int64_t j) {
  if constexpr (bits == 4) {
    const uint8_t byte = row[j >> 1];
    return int32_t((j & 1) ? (byte & 0x0F) : (byte >> 4)) - 8;
  } else {
    static_assert(bits == 2);
    return int32_t((row[j >> 2] >> (2 * (j & 3))) & 3) - 2;
  }
}

bool is_embedding_float(ScalarType t) {
  return t == ScalarType::kFloat || t == ScalarType::kHalf || t == ScalarType::kBFloat16;
}

// The arguments embedding<bits> reads, as upstream's kernels check them.
template <int bits>
Status check_embedding(KernelContext& context, Span<Value*> args, bool has_dtype_arg) {
  const Tensor& weight = tensor_arg(args, 0);
  const Tensor& scales = tensor_arg(args, 1);
  const Tensor* zero_points = optional_tensor_arg(args, 2);
  const int64_t qmin = int_arg(args, 3), qmax = int_arg(args, 4);
  const Tensor& indices = tensor_arg(args, 5);
  const Tensor& out = tensor_arg(args, has_dtype_arg ? 7 : 6);
  const ScalarType out_type = out.scalar_type();
  if (has_dtype_arg && !args[6]->is_none()) {
    ETKIT_KERNEL_CHECK(context, dtype_arg_matches(ScalarType(args[6]->unchecked_int()), out_type), "out is %s but dtype says %s",
                       to_string(out_type), to_string(ScalarType(args[6]->unchecked_int())));
  }
  ETKIT_KERNEL_CHECK(context, weight.dim() == 2, "weight must be 2-D, got %d dims", weight.dim());
  ETKIT_KERNEL_CHECK(context, bits == 8 ? (weight.scalar_type() == ScalarType::kByte ||
                                           weight.scalar_type() == ScalarType::kChar)
                                        : weight.scalar_type() == ScalarType::kByte,
                     "weight must be %s, got %s", bits == 8 ? "uint8 or int8" : "uint8 (packed)",
                     to_string(weight.scalar_type()));
  ETKIT_KERNEL_CHECK(context, is_embedding_float(out_type), "out must be float32, float16 or bfloat16, got %s",
                     to_string(out_type));
  ETKIT_KERNEL_CHECK(context, is_embedding_float(scales.scalar_type()),
                     "weight_scales must be float32, float16 or bfloat16, got %s", to_string(scales.scalar_type()));
  ETKIT_KERNEL_CHECK(context, has_dtype_arg || scales.scalar_type() == out_type,
                     "weight_scales (%s) must have the out's dtype (%s)", to_string(scales.scalar_type()),
                     to_string(out_type));
  ETKIT_KERNEL_CHECK(context, (scales.dim() == 1 || scales.dim() == 2) && scales.size(0) == weight.size(0),
                     "weight_scales must be [%lld] or [%lld, groups]", static_cast<long long>(weight.size(0)),
                     static_cast<long long>(weight.size(0)));
  const int64_t dim = weight.size(1) * (8 / bits);
  const int64_t groups = scales.dim() == 2 ? scales.size(1) : 1;
  ETKIT_KERNEL_CHECK(context, groups > 0 && dim % groups == 0, "%lld groups do not divide the %lld columns",
                     static_cast<long long>(groups), static_cast<long long>(dim));
  if (zero_points != nullptr) {
    ETKIT_KERNEL_CHECK(context, zero_points->scalar_type() == out_type,
                       "weight_zero_points (%s) must have the out's dtype (%s)",
                       to_string(zero_points->scalar_type()), to_string(out_type));
    ETKIT_KERNEL_CHECK(context, zero_points->numel() == scales.numel() && zero_points->dim() == scales.dim(),
                       "weight_zero_points must have weight_scales' shape");
  }
  ETKIT_KERNEL_CHECK(context, indices.scalar_type() == ScalarType::kLong || indices.scalar_type() == ScalarType::kInt,
                     "indices must be int64 or int32, got %s", to_string(indices.scalar_type()));
  ETKIT_KERNEL_CHECK(context, qmin <= qmax, "weight_quant_min %lld is greater than weight_quant_max %lld",
                     static_cast<long long>(qmin), static_cast<long long>(qmax));
  ETKIT_KERNEL_CHECK(context, indices.dim() < kMaxRank, "indices have too many dims (%d)", indices.dim());
  ETKIT_KERNEL_CHECK(context, weight.is_default_dim_order() && scales.is_default_dim_order() &&
                                  indices.is_default_dim_order() && out.is_default_dim_order() &&
                                  (zero_points == nullptr || zero_points->is_default_dim_order()),
                     "expects contiguous tensors");
  return Ok{};
}

// bits = 8 (int8 or uint8 weights), 4 or 2 (packed uint8). The .out
// overloads (no dtype argument) read the scales as the out's dtype.
template <int bits>
Status embedding(KernelContext& context, Span<Value*> args, bool has_dtype_arg) {
  const Tensor& weight = tensor_arg(args, 0);
  const Tensor& scales = tensor_arg(args, 1);
  const Tensor* zero_points = optional_tensor_arg(args, 2);
  const Tensor& indices = tensor_arg(args, 5);
  Tensor& out = tensor_arg(args, has_dtype_arg ? 7 : 6);
  const ScalarType out_type = out.scalar_type();
  ETKIT_TRY(check_embedding<bits>(context, args, has_dtype_arg));
  const int64_t dim = weight.size(1) * (8 / bits);
  const int64_t groups = scales.dim() == 2 ? scales.size(1) : 1;
  int64_t sizes[kMaxRank];
  for (int d = 0; d < indices.dim(); ++d) sizes[d] = indices.size(d);
  sizes[indices.dim()] = dim;
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, size_t(indices.dim() + 1))));

  const int64_t group_size = dim / groups;
  const int64_t rows = weight.size(0);
  Status status = Ok{};
  (void)quantized::visit_float(scales.scalar_type(), [&](auto p_tag) {
    using P = decltype(p_tag);
    (void)quantized::visit_float(out_type, [&](auto o_tag) {
      using O = decltype(o_tag);
      const P* scale_data = scales.data_as<const P>();
      const O* zero_data = zero_points ? zero_points->data_as<const O>() : nullptr;
      O* y = out.data_as<O>();
      for (int64_t i = 0; i < indices.numel(); ++i, y += dim) {
        const int64_t index = indices.scalar_type() == ScalarType::kLong ? indices.data_as<const int64_t>()[i]
                                                                         : indices.data_as<const int32_t>()[i];
        if (index < 0 || index >= rows) {
          status = Error::make(ErrorCode::kInvalidArgument, "index %lld is out of range for %lld rows",
                               static_cast<long long>(index), static_cast<long long>(rows))
                       .with_context("%s", context.op_name);
          return;
        }
        const uint8_t* row = weight.data_as<const uint8_t>() + index * weight.size(1);
        for (int64_t g = 0; g < groups; ++g) {
          const float scale = float(scale_data[index * groups + g]);
          const float zero = zero_data ? float(zero_data[index * groups + g]) : 0.0f;
          for (int64_t j = g * group_size; j < (g + 1) * group_size; ++j) {
            float q;
            if constexpr (bits == 8) {
              q = weight.scalar_type() == ScalarType::kChar ? float(int8_t(row[j])) : float(row[j]);
            } else {
              q = float(unpacked<bits>(row, j));
            }
            y[j] = convert<O>((q - zero) * scale);
          }
        }
      }
    });
  });
  return status;
}

Status embedding_byte_out(KernelContext& c, Span<Value*> a) { return embedding<8>(c, a, false); }
Status embedding_byte_dtype_out(KernelContext& c, Span<Value*> a) { return embedding<8>(c, a, true); }
Status embedding_4bit_out(KernelContext& c, Span<Value*> a) { return embedding<4>(c, a, false); }
Status embedding_4bit_dtype_out(KernelContext& c, Span<Value*> a) { return embedding<4>(c, a, true); }
Status embedding_2bit_out(KernelContext& c, Span<Value*> a) { return embedding<2>(c, a, false); }
Status embedding_2bit_dtype_out(KernelContext& c, Span<Value*> a) { return embedding<2>(c, a, true); }

}  // namespace

void register_quantized_embedding_ops(KernelRegistry& r) {
  // (weight, weight_scales, weight_zero_points?, weight_quant_min, weight_quant_max, indices[, dtype?], *, out)
  ETKIT_REGISTER_KERNEL(r, "quantized_decomposed::embedding_byte.out", "TTtiiTWW", embedding_byte_out);
  ETKIT_REGISTER_KERNEL(r, "quantized_decomposed::embedding_byte.dtype_out", "TTtiiTnWW", embedding_byte_dtype_out);
  ETKIT_REGISTER_KERNEL(r, "quantized_decomposed::embedding_4bit.out", "TTtiiTWW", embedding_4bit_out);
  ETKIT_REGISTER_KERNEL(r, "quantized_decomposed::embedding_4bit.dtype_out", "TTtiiTnWW", embedding_4bit_dtype_out);
  ETKIT_REGISTER_KERNEL(r, "quantized_decomposed::embedding_2bit.out", "TTtiiTWW", embedding_2bit_out);
  ETKIT_REGISTER_KERNEL(r, "quantized_decomposed::embedding_2bit.dtype_out", "TTtiiTnWW", embedding_2bit_dtype_out);
}

}  // namespace etkit::kernels
