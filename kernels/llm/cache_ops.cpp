// llama::update_cache.out and llama::update_cache_with_indices.out: write a
// step's keys or values, [batch, seq, heads, head_dim], into a cache
// [batch, max_seq, heads, head_dim] at sequence positions start_pos.. (or
// at the positions `indices` [batch, seq] names), in place. The out
// argument is not written, as upstream's kernels (extension/llm/custom_ops/
// op_update_cache.cpp at cff6f4dd32e6) leave it: programs read the cache.

#include <cstring>

#include "etkit/kernels/kernel_util.h"
#include "llm_families.h"

namespace etkit::kernels {
namespace {

Status check_cache(KernelContext& context, const Tensor& value, const Tensor& cache) {
  ETKIT_KERNEL_CHECK(context, value.dim() == 4 && cache.dim() == 4,
                     "value and cache must be 4-D [batch, seq, heads, head_dim], got %d-D and %d-D", value.dim(),
                     cache.dim());
  ETKIT_KERNEL_CHECK(context, value.size(0) == cache.size(0) && value.size(2) == cache.size(2) &&
                                  value.size(3) == cache.size(3),
                     "value [%lld, %lld, %lld, %lld] does not fit cache [%lld, %lld, %lld, %lld] (batch, heads and "
                     "head_dim must match)",
                     (long long)value.size(0), (long long)value.size(1), (long long)value.size(2),
                     (long long)value.size(3), (long long)cache.size(0), (long long)cache.size(1),
                     (long long)cache.size(2), (long long)cache.size(3));
  ETKIT_KERNEL_CHECK(context, value.element_size() == cache.element_size(),
                     "value (%s) and cache (%s) must have elements of one size", to_string(value.scalar_type()),
                     to_string(cache.scalar_type()));
  ETKIT_KERNEL_CHECK(context, value.is_default_dim_order() && cache.is_default_dim_order(),
                     "value and cache must be contiguous");
  return Ok{};
}

// Copies token `s` of batch line `b` of value to position `position` of the cache.
void copy_token(const Tensor& value, Tensor& cache, int64_t b, int64_t s, int64_t position) {
  const size_t token_bytes = size_t(value.size(2) * value.size(3)) * value.element_size();
  const uint8_t* from = static_cast<const uint8_t*>(value.data()) +
                        size_t((b * value.size(1) + s) * value.size(2) * value.size(3)) * value.element_size();
  uint8_t* to = static_cast<uint8_t*>(cache.data()) +
                size_t((b * cache.size(1) + position) * cache.size(2) * cache.size(3)) * cache.element_size();
  std::memmove(to, from, token_bytes);
}

// update_cache.out(Tensor value, Tensor(a!) cache, SymInt start_pos, *, Tensor(b!) out)
Status update_cache_out(KernelContext& context, Span<Value*> args) {
  const Tensor& value = tensor_arg(args, 0);
  Tensor& cache = tensor_arg(args, 1);
  const int64_t start_pos = int_arg(args, 2);
  ETKIT_TRY(check_cache(context, value, cache));
  const int64_t seq = value.size(1);
  ETKIT_KERNEL_CHECK(context, start_pos >= 0 && start_pos < cache.size(1) && start_pos + seq <= cache.size(1),
                     "start_pos %lld + seq_len %lld does not fit the cache's %lld positions", (long long)start_pos,
                     (long long)seq, (long long)cache.size(1));
  for (int64_t b = 0; b < value.size(0); ++b) {
    for (int64_t s = 0; s < seq; ++s) copy_token(value, cache, b, s, start_pos + s);
  }
  return Ok{};
}

// update_cache_with_indices.out(Tensor value, Tensor(a!) cache, SymInt start_pos, Tensor indices, *,
//                               Tensor(b!) out)
Status update_cache_with_indices_out(KernelContext& context, Span<Value*> args) {
  const Tensor& value = tensor_arg(args, 0);
  Tensor& cache = tensor_arg(args, 1);
  const Tensor& indices = tensor_arg(args, 3);
  ETKIT_TRY(check_cache(context, value, cache));
  ETKIT_KERNEL_CHECK(context, indices.dim() == 2 && indices.size(0) == value.size(0) &&
                                  indices.size(1) == value.size(1),
                     "indices must be [batch, seq_len] = [%lld, %lld]", (long long)value.size(0),
                     (long long)value.size(1));
  ETKIT_KERNEL_CHECK(context, indices.scalar_type() == ScalarType::kLong && indices.is_default_dim_order(),
                     "indices must be contiguous int64, got %s", to_string(indices.scalar_type()));
  const int64_t* positions = indices.data_as<const int64_t>();
  for (int64_t i = 0; i < indices.numel(); ++i) {  // all checked before anything is written
    ETKIT_KERNEL_CHECK(context, positions[i] >= 0 && positions[i] < cache.size(1),
                       "index %lld is outside the cache's %lld positions", (long long)positions[i],
                       (long long)cache.size(1));
  }
  for (int64_t b = 0; b < value.size(0); ++b) {
    for (int64_t s = 0; s < value.size(1); ++s) copy_token(value, cache, b, s, positions[b * value.size(1) + s]);
  }
  return Ok{};
}

}  // namespace

void register_cache_ops(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "llama::update_cache.out", "TWiWW", update_cache_out);
  ETKIT_REGISTER_KERNEL(r, "llama::update_cache_with_indices.out", "TWiTWW", update_cache_with_indices_out);
}

}  // namespace etkit::kernels
