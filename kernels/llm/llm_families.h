#pragma once
// The LLM op set's families (upstream's extension/llm/custom_ops, namespace
// llama), one register function per file.

#include "etkit/core/kernel_registry.h"

namespace etkit::kernels {
void register_sdpa_ops(KernelRegistry& r);
void register_cache_ops(KernelRegistry& r);
void register_hadamard_op(KernelRegistry& r);
}  // namespace etkit::kernels
