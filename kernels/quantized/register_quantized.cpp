// The quantized op set: upstream's quantized_decomposed ops (its
// kernels/quantized/quantized.yaml), one register function per family.

#include "etkit/kernels/op_sets.h"
#include "quantized_families.h"

namespace etkit {

void register_quantized_kernels(KernelRegistry& registry) {
  kernels::register_quantize_ops(registry);
  kernels::register_choose_qparams_ops(registry);
  kernels::register_quantized_embedding_ops(registry);
  kernels::register_mixed_matmul_ops(registry);
  kernels::register_quantized_add(registry);
}

}  // namespace etkit
