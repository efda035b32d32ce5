// The portable kernel set: one register function per op family.

#include "etkit/core/kernel_registry.h"

namespace etkit {
namespace kernels {
void register_binary_ops(KernelRegistry& r);
void register_unary_ops(KernelRegistry& r);
void register_linear_algebra(KernelRegistry& r);
void register_convolution(KernelRegistry& r);
void register_pooling(KernelRegistry& r);
void register_norm_ops(KernelRegistry& r);
void register_reductions(KernelRegistry& r);
void register_shape_ops(KernelRegistry& r);
void register_index_ops(KernelRegistry& r);
void register_quantized_ops(KernelRegistry& r);
void register_prim_ops(KernelRegistry& r);
void register_cortex_m_ops(KernelRegistry& r);
}  // namespace kernels

void register_portable_kernels(KernelRegistry& registry) {
  kernels::register_binary_ops(registry);
  kernels::register_unary_ops(registry);
  kernels::register_linear_algebra(registry);
  kernels::register_convolution(registry);
  kernels::register_pooling(registry);
  kernels::register_norm_ops(registry);
  kernels::register_reductions(registry);
  kernels::register_shape_ops(registry);
  kernels::register_index_ops(registry);
  kernels::register_quantized_ops(registry);
  kernels::register_prim_ops(registry);
  kernels::register_cortex_m_ops(registry);
}

}  // namespace etkit
