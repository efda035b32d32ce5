#pragma once
// The quantized op set's families, one register function per file.

#include "etkit/core/kernel_registry.h"

namespace etkit::kernels {
void register_quantize_ops(KernelRegistry& r);
void register_choose_qparams_ops(KernelRegistry& r);
void register_quantized_embedding_ops(KernelRegistry& r);
void register_mixed_matmul_ops(KernelRegistry& r);
void register_quantized_add(KernelRegistry& r);
}  // namespace etkit::kernels
