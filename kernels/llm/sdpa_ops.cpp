// Attention over a KV cache, as upstream's LLM custom ops compute it
// (extension/llm/custom_ops/op_sdpa.cpp at cff6f4dd32e6):
//
//   llama::custom_sdpa.out            q [B, S, Hq, D] against k, v [B, Skv, Hkv, D]
//   llama::sdpa_with_kv_cache.out     writes k, v into the caches at start_pos, then custom_sdpa
//   llama::custom_quantized_sdpa.out  int8 q, k, v with per-token, per-head scales and zero points
//
// Query row m sits at absolute position start_pos + m. Without a mask only
// the first start_pos + S keys take part (the rest of the cache is not
// read); is_causal lets row m see keys 0 .. start_pos + m. A float mask
// [S, Skv] is added to the scores instead (then every key takes part; mask
// and is_causal exclude each other). Grouped-query attention: query head h
// reads key/value head h / (Hq / Hkv). Scale defaults to 1 / sqrt(D).
//
// Blocked: a block of query rows is scored against all its keys at once
// (scores in kernel scratch, never a full mask), then softmaxed and
// multiplied by V in the same pass, all in float32 (float16 and bfloat16
// are computed in float32 by the runtime).

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "etkit/kernels/kernel_util.h"
#include "llm_families.h"

namespace etkit::kernels {
namespace {

constexpr int64_t kQueryBlock = 16;

// Rows of one head: row n at data + n * stride, D floats each.
struct Rows {
  const float* data = nullptr;
  int64_t stride = 0;
  const float* row(int64_t n) const { return data + n * stride; }
};

struct Attention {
  int64_t batch = 0, seq = 0, q_heads = 0, kv_heads = 0, kv_len = 0, head_dim = 0;
  int64_t start_pos = 0;
  int64_t keys = 0;  // keys that take part
  bool causal = false;
  float scale = 1;
  const float* mask = nullptr;  // [seq, kv_len] or null
};

float dot(const float* a, const float* b, int64_t n) {
  float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < n; ++i) s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}

// Query rows [row0, row0 + rows) of one head against keys and values;
// out row r at out + r * out_stride. `scores` holds rows × a.keys floats.
void attend(const Attention& a, Rows q, Rows k, Rows v, int64_t row0, int64_t rows, float* out, int64_t out_stride,
            float* scores) {
  const int64_t d = a.head_dim;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t m = row0 + r;
    const int64_t visible = a.causal ? std::min(a.start_pos + m + 1, a.keys) : a.keys;
    float* s = scores + r * a.keys;
    const float* qr = q.row(m);
    float best = -std::numeric_limits<float>::infinity();
    for (int64_t n = 0; n < visible; ++n) {
      float score = dot(qr, k.row(n), d) * a.scale;
      if (a.mask != nullptr) score += a.mask[m * a.kv_len + n];
      s[n] = score;
      best = std::max(best, score);
    }
    float* o = out + r * out_stride;
    std::fill(o, o + d, 0.0f);
    if (visible == 0 || best == -std::numeric_limits<float>::infinity()) {
      // Every key masked: softmax of all -inf is NaN in ATen.
      std::fill(o, o + d, std::numeric_limits<float>::quiet_NaN());
      continue;
    }
    float total = 0;
    for (int64_t n = 0; n < visible; ++n) {
      s[n] = std::exp(s[n] - best);
      total += s[n];
    }
    for (int64_t n = 0; n < visible; ++n) {
      const float p = s[n];
      const float* vr = v.row(n);
      for (int64_t i = 0; i < d; ++i) o[i] += p * vr[i];
    }
    const float inverse = 1.0f / total;
    for (int64_t i = 0; i < d; ++i) o[i] *= inverse;
  }
}

// Where each head's rows are: [B, S, H, D] (seq at dim 1) or [B, H, S, D].
struct Layout {
  bool seq_at_dim_2 = false;
  int64_t seq = 0, heads = 0, dim = 0;
  int64_t offset(int64_t b, int64_t h) const {
    return seq_at_dim_2 ? (b * heads + h) * seq * dim : b * seq * heads * dim + h * dim;
  }
  int64_t stride() const { return seq_at_dim_2 ? dim : heads * dim; }
};

// Float q, k, v, out; runs every (batch, head) through `attend`.
Status run_float(KernelContext& context, const Attention& a, const float* q, const float* k, const float* v,
                 float* out, const Layout& q_layout, const Layout& kv_layout) {
  const int64_t block = std::min<int64_t>(kQueryBlock, std::max<int64_t>(a.seq, 1));
  const size_t need = size_t(block * a.keys) * sizeof(float);
  ETKIT_KERNEL_CHECK(context, need <= context.scratch.size(),
                     "%lld keys need %zu bytes of scores, more than the kernel scratch (%zu)", (long long)a.keys,
                     need, context.scratch.size());
  float* scores = reinterpret_cast<float*>(context.scratch.data());
  const int64_t reps = a.q_heads / a.kv_heads;
  for (int64_t b = 0; b < a.batch; ++b) {
    for (int64_t h = 0; h < a.q_heads; ++h) {
      const Rows qh{q + q_layout.offset(b, h), q_layout.stride()};
      const Rows kh{k + kv_layout.offset(b, h / reps), kv_layout.stride()};
      const Rows vh{v + kv_layout.offset(b, h / reps), kv_layout.stride()};
      for (int64_t row0 = 0; row0 < a.seq; row0 += block) {
        const int64_t rows = std::min(block, a.seq - row0);
        attend(a, qh, kh, vh, row0, rows, out + q_layout.offset(b, h) + row0 * q_layout.stride(),
               q_layout.stride(), scores);
      }
    }
  }
  return Ok{};
}

// Checks shared by the three ops; fills the sizes of `a`.
Status check_attention(KernelContext& context, const Tensor& q, const Tensor& k, const Tensor& v,
                       const Tensor* mask, bool causal, bool seq_at_dim_2, Attention& a) {
  ETKIT_KERNEL_CHECK(context, q.dim() == 4 && k.dim() == 4 && v.dim() == 4,
                     "query, key and value must be 4-D, got %d-D, %d-D and %d-D", q.dim(), k.dim(), v.dim());
  ETKIT_KERNEL_CHECK(context, q.size(3) == v.size(3) && k.size(3) == v.size(3),
                     "query, key and value must share a head size, got %lld, %lld and %lld", (long long)q.size(3),
                     (long long)k.size(3), (long long)v.size(3));
  ETKIT_KERNEL_CHECK(context, same_sizes(k, v), "key and value must have the same shape");
  ETKIT_KERNEL_CHECK(context, q.scalar_type() == k.scalar_type() && q.scalar_type() == v.scalar_type(),
                     "query, key and value must share a dtype, got %s, %s and %s", to_string(q.scalar_type()),
                     to_string(k.scalar_type()), to_string(v.scalar_type()));
  ETKIT_KERNEL_CHECK(context, q.is_default_dim_order() && k.is_default_dim_order() && v.is_default_dim_order(),
                     "query, key and value must be contiguous");
  ETKIT_KERNEL_CHECK(context, mask == nullptr || !causal, "attn_mask and is_causal cannot be set at the same time");
  const int s_dim = seq_at_dim_2 ? 2 : 1, h_dim = seq_at_dim_2 ? 1 : 2;
  a.batch = q.size(0);
  a.seq = q.size(s_dim);
  a.q_heads = q.size(h_dim);
  a.kv_heads = k.size(h_dim);
  a.kv_len = k.size(s_dim);
  a.head_dim = q.size(3);
  ETKIT_KERNEL_CHECK(context, k.size(0) == a.batch, "key batch %lld differs from the query's %lld",
                     (long long)k.size(0), (long long)a.batch);
  ETKIT_KERNEL_CHECK(context, a.kv_heads > 0 && a.kv_heads <= a.q_heads && a.q_heads % a.kv_heads == 0,
                     "query heads (%lld) must be a multiple of key/value heads (%lld)", (long long)a.q_heads,
                     (long long)a.kv_heads);
  if (mask != nullptr) {
    ETKIT_KERNEL_CHECK(context, mask->dim() == 2 && mask->scalar_type() == ScalarType::kFloat &&
                                    mask->is_default_dim_order(),
                       "attn_mask must be a contiguous 2-D float tensor");
    ETKIT_KERNEL_CHECK(context, mask->size(0) == a.seq && mask->size(1) == a.kv_len,
                       "attn_mask must be [%lld, %lld] (query length, key length), got [%lld, %lld]",
                       (long long)a.seq, (long long)a.kv_len, (long long)mask->size(0), (long long)mask->size(1));
    a.mask = mask->data_as<const float>();
  }
  a.causal = causal;
  return Ok{};
}

// Scale, start position and the keys that take part.
Status finish_setup(KernelContext& context, Span<Value*> args, size_t start_arg, size_t dropout_arg,
                    size_t scale_arg, Attention& a) {
  a.start_pos = int_arg(args, start_arg);
  const double dropout = double_arg(args, dropout_arg);
  ETKIT_KERNEL_CHECK(context, dropout == 0.0, "dropout_p %g: dropout is for training; inference programs pass 0",
                     dropout);
  ETKIT_KERNEL_CHECK(context, a.start_pos >= 0, "start_pos %lld is negative", (long long)a.start_pos);
  a.keys = a.mask != nullptr ? a.kv_len : a.start_pos + a.seq;
  ETKIT_KERNEL_CHECK(context, a.keys <= a.kv_len,
                     "start_pos %lld + query length %lld exceeds the %lld cached keys", (long long)a.start_pos,
                     (long long)a.seq, (long long)a.kv_len);
  const Value* scale = args[scale_arg];
  a.scale = scale->is_none() ? 1.0f / std::sqrt(float(a.head_dim)) : float(scale->scalar_as_double());
  return Ok{};
}

// Float q [B, S, H, D] against float k and v: checks the dtypes, sizes out
// as q and attends.
Status attend_float(KernelContext& context, const Attention& a, const Tensor& q, const Tensor& k, const Tensor& v,
                    Tensor& out) {
  ETKIT_KERNEL_CHECK(context, q.scalar_type() == ScalarType::kFloat && out.scalar_type() == ScalarType::kFloat,
                     "query and out must be floating point, got %s and %s", to_string(q.scalar_type()),
                     to_string(out.scalar_type()));
  ETKIT_TRY(resize_output(context, out, q.sizes()));
  const Layout q_layout{false, a.seq, a.q_heads, a.head_dim}, kv_layout{false, a.kv_len, a.kv_heads, a.head_dim};
  return run_float(context, a, q.data_as<const float>(), k.data_as<const float>(), v.data_as<const float>(),
                   out.data_as<float>(), q_layout, kv_layout);
}

// custom_sdpa.out(Tensor q, Tensor k, Tensor v, SymInt start_pos, Tensor? attn_mask=None,
//                 float dropout_p=0.0, bool is_causal=False, float? scale=None, *, Tensor(a!) out)
Status custom_sdpa_out(KernelContext& context, Span<Value*> args) {
  const Tensor& q = tensor_arg(args, 0);
  const Tensor& k = tensor_arg(args, 1);
  const Tensor& v = tensor_arg(args, 2);
  Tensor& out = tensor_arg(args, 8);
  Attention a;
  ETKIT_TRY(check_attention(context, q, k, v, optional_tensor_arg(args, 4), bool_arg(args, 6), false, a));
  ETKIT_TRY(finish_setup(context, args, 3, 5, 7, a));
  return attend_float(context, a, q, k, v, out);
}

// Writes the step's keys or values into a cache at start_pos (checked).
Status write_cache(KernelContext& context, const Tensor& step, Tensor& cache, int64_t start_pos, const char* what) {
  ETKIT_KERNEL_CHECK(context, cache.dim() == 4 && step.dim() == 4 && cache.size(0) == step.size(0) &&
                                  cache.size(2) == step.size(2) && cache.size(3) == step.size(3) &&
                                  cache.scalar_type() == step.scalar_type() && cache.is_default_dim_order() &&
                                  step.is_default_dim_order(),
                     "%s cache and the projected %s must be contiguous 4-D tensors of one dtype with equal batch, "
                     "heads and head size",
                     what, what);
  ETKIT_KERNEL_CHECK(context, start_pos >= 0 && start_pos + step.size(1) <= cache.size(1),
                     "start_pos %lld + seq_len %lld does not fit the %s cache's %lld positions", (long long)start_pos,
                     (long long)step.size(1), what, (long long)cache.size(1));
  const size_t token = size_t(step.size(2) * step.size(3)) * step.element_size();
  for (int64_t b = 0; b < step.size(0); ++b) {
    std::memmove(static_cast<uint8_t*>(cache.data()) + size_t(b * cache.size(1) + start_pos) * token,
                 static_cast<const uint8_t*>(step.data()) + size_t(b * step.size(1)) * token,
                 size_t(step.size(1)) * token);
  }
  return Ok{};
}

// sdpa_with_kv_cache.out(Tensor query, Tensor key, Tensor value, Tensor(a!) key_cache,
//     Tensor(b!) value_cache, SymInt start_pos, SymInt seq_len, Tensor? attn_mask=None,
//     float drpout_p=0.0, bool is_causal=False, float? scale=None, *, Tensor(c!) out)
Status sdpa_with_kv_cache_out(KernelContext& context, Span<Value*> args) {
  const Tensor& q = tensor_arg(args, 0);
  const Tensor& k = tensor_arg(args, 1);
  const Tensor& v = tensor_arg(args, 2);
  Tensor& k_cache = tensor_arg(args, 3);
  Tensor& v_cache = tensor_arg(args, 4);
  const int64_t start_pos = int_arg(args, 5);
  const int64_t seq_len = int_arg(args, 6);
  Tensor& out = tensor_arg(args, 11);
  ETKIT_KERNEL_CHECK(context, q.dim() == 4 && seq_len == q.size(1),
                     "seq_len %lld must be the query's length (dim 1)", (long long)seq_len);
  ETKIT_TRY(write_cache(context, k, k_cache, start_pos, "key"));
  ETKIT_TRY(write_cache(context, v, v_cache, start_pos, "value"));
  Attention a;
  ETKIT_TRY(check_attention(context, q, k_cache, v_cache, optional_tensor_arg(args, 7), bool_arg(args, 9), false, a));
  ETKIT_TRY(finish_setup(context, args, 5, 8, 10, a));
  return attend_float(context, a, q, k_cache, v_cache, out);
}

// An int8 tensor's per-token, per-head parameters: shaped as the tensor but
// for a last dimension of 1.
Status check_quant_params(KernelContext& context, const Tensor& t, const Tensor* zero_points, const Tensor* scales,
                          const char* what) {
  ETKIT_KERNEL_CHECK(context, zero_points != nullptr && scales != nullptr,
                     "an int8 %s needs its zero points and scales", what);
  ETKIT_KERNEL_CHECK(context, scales->scalar_type() == ScalarType::kFloat, "%s scales must be float32", what);
  ETKIT_KERNEL_CHECK(context, zero_points->scalar_type() == ScalarType::kChar, "%s zero points must be int8", what);
  ETKIT_KERNEL_CHECK(context, scales->dim() == t.dim() && zero_points->dim() == t.dim() &&
                                  scales->is_default_dim_order() && zero_points->is_default_dim_order(),
                     "%s scales and zero points must be contiguous with the %s's rank", what, what);
  for (int i = 0; i + 1 < t.dim(); ++i) {
    ETKIT_KERNEL_CHECK(context, scales->size(i) == t.size(i) && zero_points->size(i) == t.size(i),
                       "%s scales and zero points must match the %s's shape but for the last dimension (dim %d)",
                       what, what, i);
  }
  ETKIT_KERNEL_CHECK(context, scales->size(t.dim() - 1) == 1 && zero_points->size(t.dim() - 1) == 1,
                     "%s scales and zero points hold one value per row (last dimension 1)", what);
  return Ok{};
}

// (q - zero point) × scale per row of D, into `out` (same layout as `t`).
void dequantize_rows(const Tensor& t, const Tensor& zero_points, const Tensor& scales, float* out) {
  const int64_t d = t.size(t.dim() - 1), rows = t.numel() / std::max<int64_t>(d, 1);
  const int8_t* q = t.data_as<const int8_t>();
  const int8_t* z = zero_points.data_as<const int8_t>();
  const float* s = scales.data_as<const float>();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < d; ++i) out[r * d + i] = float(int32_t(q[r * d + i]) - int32_t(z[r])) * s[r];
  }
}

// custom_quantized_sdpa.out(Tensor query, Tensor key, Tensor value, SymInt start_pos,
//     Tensor? attn_mask=None, float drpout_p=0.0, bool is_causal=False, float? scale=None,
//     Tensor? q_zero_points=None, Tensor? q_scales=None, Tensor? k_zero_points=None, Tensor? k_scales=None,
//     Tensor? v_zero_points=None, Tensor? v_scales=None, bool is_seq_at_dim_2=False, *, Tensor(a!) out)
// Float q, k, v run as custom_sdpa; int8 ones (all three) are dequantized
// row by row (upstream multiplies int8 rows and applies the scales after,
// the same values up to float32 rounding).
Status custom_quantized_sdpa_out(KernelContext& context, Span<Value*> args) {
  const Tensor& q = tensor_arg(args, 0);
  const Tensor& k = tensor_arg(args, 1);
  const Tensor& v = tensor_arg(args, 2);
  const bool seq_at_dim_2 = bool_arg(args, 14);
  Tensor& out = tensor_arg(args, 15);
  Attention a;
  ETKIT_TRY(check_attention(context, q, k, v, optional_tensor_arg(args, 4), bool_arg(args, 6), seq_at_dim_2, a));
  ETKIT_TRY(finish_setup(context, args, 3, 5, 7, a));
  ETKIT_KERNEL_CHECK(context, out.scalar_type() == ScalarType::kFloat, "out must be floating point, got %s",
                     to_string(out.scalar_type()));
  ETKIT_KERNEL_CHECK(context, q.scalar_type() == ScalarType::kFloat || q.scalar_type() == ScalarType::kChar,
                     "query must be float or int8, got %s", to_string(q.scalar_type()));
  ETKIT_TRY(resize_output(context, out, q.sizes()));
  const Layout q_layout{seq_at_dim_2, a.seq, a.q_heads, a.head_dim};
  const Layout kv_layout{seq_at_dim_2, a.kv_len, a.kv_heads, a.head_dim};
  if (q.scalar_type() == ScalarType::kFloat) {
    return run_float(context, a, q.data_as<const float>(), k.data_as<const float>(), v.data_as<const float>(),
                     out.data_as<float>(), q_layout, kv_layout);
  }
  ETKIT_TRY(check_quant_params(context, q, optional_tensor_arg(args, 8), optional_tensor_arg(args, 9), "query"));
  ETKIT_TRY(check_quant_params(context, k, optional_tensor_arg(args, 10), optional_tensor_arg(args, 11), "key"));
  ETKIT_TRY(check_quant_params(context, v, optional_tensor_arg(args, 12), optional_tensor_arg(args, 13), "value"));
  // Dequantized copies after the scores' room in scratch.
  const int64_t block = std::min<int64_t>(kQueryBlock, std::max<int64_t>(a.seq, 1));
  const size_t score_bytes = (size_t(block * a.keys) * sizeof(float) + 63) / 64 * 64;
  const size_t need = score_bytes + size_t(q.numel() + k.numel() + v.numel()) * sizeof(float);
  ETKIT_KERNEL_CHECK(context, need <= context.scratch.size(),
                     "dequantized query, key and value need %zu bytes, more than the kernel scratch (%zu)", need,
                     context.scratch.size());
  float* fq = reinterpret_cast<float*>(context.scratch.data() + score_bytes);
  float* fk = fq + q.numel();
  float* fv = fk + k.numel();
  dequantize_rows(q, *optional_tensor_arg(args, 8), *optional_tensor_arg(args, 9), fq);
  dequantize_rows(k, *optional_tensor_arg(args, 10), *optional_tensor_arg(args, 11), fk);
  dequantize_rows(v, *optional_tensor_arg(args, 12), *optional_tensor_arg(args, 13), fv);
  KernelContext scores = context;
  scores.scratch = Span<uint8_t>(context.scratch.data(), score_bytes);
  return run_float(scores, a, fq, fk, fv, out.data_as<float>(), q_layout, kv_layout);
}

}  // namespace

void register_sdpa_ops(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "llama::custom_sdpa.out", "TTTitdbeWW", custom_sdpa_out);
  ETKIT_REGISTER_KERNEL(r, "llama::sdpa_with_kv_cache.out", "TTTWWiitdbeWW", sdpa_with_kv_cache_out);
  ETKIT_REGISTER_KERNEL(r, "llama::custom_quantized_sdpa.out", "TTTitdbettttttbWW", custom_quantized_sdpa_out);
}

}  // namespace etkit::kernels
