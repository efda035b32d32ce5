#pragma once
// The portable op set's families, one register function per file.

#include "etkit/core/kernel_registry.h"

namespace etkit::kernels {
void register_binary_ops(KernelRegistry& r);
void register_binary_math_ops(KernelRegistry& r);
void register_bitwise_ops(KernelRegistry& r);
void register_unary_ops(KernelRegistry& r);
void register_linear_algebra(KernelRegistry& r);
void register_convolution(KernelRegistry& r);
void register_pooling(KernelRegistry& r);
void register_norm_ops(KernelRegistry& r);
void register_reductions(KernelRegistry& r);
void register_statistics(KernelRegistry& r);
void register_along_dim_ops(KernelRegistry& r);
void register_shape_ops(KernelRegistry& r);
void register_view_copies(KernelRegistry& r);
void register_rearrange_ops(KernelRegistry& r);
void register_index_ops(KernelRegistry& r);
void register_padding_ops(KernelRegistry& r);
void register_sampling_ops(KernelRegistry& r);
void register_activation_ops(KernelRegistry& r);
void register_distance_ops(KernelRegistry& r);
void register_complex_ops(KernelRegistry& r);
void register_scatter_ops(KernelRegistry& r);
void register_creation_ops(KernelRegistry& r);
}  // namespace etkit::kernels
