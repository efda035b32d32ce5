// The LLM op set: upstream's LLM custom ops (extension/llm/custom_ops,
// namespace llama), which its LLM export flow puts in every KV-cache
// program: attention over a cache, cache updates, the Hadamard transform.

#include "etkit/kernels/op_sets.h"
#include "llm_families.h"

namespace etkit {

void register_llm_kernels(KernelRegistry& registry) {
  kernels::register_sdpa_ops(registry);
  kernels::register_cache_ops(registry);
  kernels::register_hadamard_op(registry);
}

}  // namespace etkit
