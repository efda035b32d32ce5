// llama::fast_hadamard_transform.out: the normalized Walsh-Hadamard
// transform of every row of the last dimension, out = x · H_n / sqrt(n)
// with H_n Sylvester's Hadamard matrix (H_1 = [1], H_2k = [[H_k, H_k],
// [H_k, -H_k]]), n a power of two, as upstream's SpinQuant rotation
// computes it (extension/llm/custom_ops at cff6f4dd32e6). Upstream also
// takes n = 28 · 2^k through a particular order-28 Hadamard matrix; etkit
// refuses those sizes, naming them.

#include <cmath>
#include <cstring>

#include "etkit/kernels/kernel_util.h"
#include "llm_families.h"

namespace etkit::kernels {
namespace {

// In-place butterflies, then the 1/sqrt(n) scale (for odd log2 n,
// 2^floor(log2 n / 2) · sqrt(2), as upstream computes it).
void transform_row(float* x, int64_t n, int log2_n) {
  for (int64_t step = 1; step < n; step *= 2) {
    for (int64_t i = 0; i < n; i += 2 * step) {
      for (int64_t j = i; j < i + step; ++j) {
        const float a = x[j], b = x[j + step];
        x[j] = a + b;
        x[j + step] = a - b;
      }
    }
  }
  const float root = float(int64_t(1) << (log2_n / 2)) * (log2_n % 2 ? std::sqrt(2.0f) : 1.0f);
  const float inverse = 1.0f / root;
  for (int64_t i = 0; i < n; ++i) x[i] *= inverse;
}

// fast_hadamard_transform.out(Tensor mat, *, Tensor(a!) out)
Status fast_hadamard_transform_out(KernelContext& context, Span<Value*> args) {
  const Tensor& mat = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 1);
  ETKIT_KERNEL_CHECK(context, mat.scalar_type() == out.scalar_type(), "mat (%s) and out (%s) must share a dtype",
                     to_string(mat.scalar_type()), to_string(out.scalar_type()));
  ETKIT_TRY(resize_output(context, out, mat.sizes()));
  if (mat.dim() == 0 || mat.numel() == 0) return Ok{};
  ETKIT_KERNEL_CHECK(context, mat.is_default_dim_order() && out.is_default_dim_order(),
                     "mat and out must be contiguous");
  const int64_t n = mat.size(mat.dim() - 1);
  ETKIT_KERNEL_CHECK(context, (n & (n - 1)) == 0,
                     "the last dimension (%lld) must be a power of two (upstream's 28 x 2^k sizes are not "
                     "supported by etkit)",
                     (long long)n);
  ETKIT_KERNEL_CHECK(context, mat.scalar_type() == ScalarType::kFloat,
                     "mat must be float32 (float16 is computed in float32 by the runtime), got %s",
                     to_string(mat.scalar_type()));
  int log2_n = 0;
  while ((int64_t(1) << log2_n) < n) ++log2_n;
  float* data = out.data_as<float>();
  std::memmove(data, mat.data_as<const float>(), size_t(mat.numel()) * sizeof(float));
  for (int64_t row = 0; row < mat.numel() / n; ++row) transform_row(data + row * n, n, log2_n);
  return Ok{};
}

}  // namespace

void register_hadamard_op(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "llama::fast_hadamard_transform.out", "TWW", fast_hadamard_transform_out);
}

}  // namespace etkit::kernels
