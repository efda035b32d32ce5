// The Cortex-M op set: upstream's cortex_m:: ops (its
// backends/cortex_m/ops/operators.yaml) with CMSIS-NN's integer
// semantics, one register function per family.

#include "cortex_m_families.h"
#include "etkit/kernels/op_sets.h"

namespace etkit {

void register_cortex_m_kernels(KernelRegistry& registry) {
  kernels::register_cortex_m_conv_linear_and_pad(registry);
  kernels::register_cortex_m_elementwise_ops(registry);
  kernels::register_cortex_m_softmax(registry);
  kernels::register_cortex_m_transpose(registry);
  kernels::register_cortex_m_transpose_conv2d(registry);
  kernels::register_cortex_m_batch_matmul(registry);
  kernels::register_cortex_m_max_pool2d(registry);
}

}  // namespace etkit
