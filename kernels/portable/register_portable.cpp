// The portable op set: aten ops, one register function per op family.

#include "etkit/kernels/op_sets.h"
#include "portable_families.h"

namespace etkit {

void register_portable_kernels(KernelRegistry& registry) {
  kernels::register_binary_ops(registry);
  kernels::register_binary_math_ops(registry);
  kernels::register_bitwise_ops(registry);
  kernels::register_unary_ops(registry);
  kernels::register_linear_algebra(registry);
  kernels::register_convolution(registry);
  kernels::register_pooling(registry);
  kernels::register_norm_ops(registry);
  kernels::register_reductions(registry);
  kernels::register_statistics(registry);
  kernels::register_along_dim_ops(registry);
  kernels::register_shape_ops(registry);
  kernels::register_view_copies(registry);
  kernels::register_rearrange_ops(registry);
  kernels::register_index_ops(registry);
  kernels::register_padding_ops(registry);
  kernels::register_sampling_ops(registry);
  kernels::register_activation_ops(registry);
  kernels::register_distance_ops(registry);
  kernels::register_complex_ops(registry);
  kernels::register_scatter_ops(registry);
  kernels::register_creation_ops(registry);
}

}  // namespace etkit
