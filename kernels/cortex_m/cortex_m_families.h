#pragma once
// The Cortex-M op set's families, one register function per file.

#include "etkit/core/kernel_registry.h"

namespace etkit::kernels {
void register_cortex_m_conv_linear_and_pad(KernelRegistry& r);
void register_cortex_m_elementwise_ops(KernelRegistry& r);
void register_cortex_m_softmax(KernelRegistry& r);
void register_cortex_m_transpose(KernelRegistry& r);
void register_cortex_m_transpose_conv2d(KernelRegistry& r);
void register_cortex_m_batch_matmul(KernelRegistry& r);
void register_cortex_m_max_pool2d(KernelRegistry& r);
}  // namespace etkit::kernels
