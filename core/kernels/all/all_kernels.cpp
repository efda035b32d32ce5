#include "etkit/kernels/all_kernels.h"

#include "etkit/kernels/op_sets.h"

namespace etkit {

void register_all_kernels(KernelRegistry& registry) {
  register_portable_kernels(registry);
  register_prim_kernels(registry);
  register_quantized_kernels(registry);
  register_cortex_m_kernels(registry);
  register_llm_kernels(registry);
}

const KernelRegistry& all_kernels() {
  static const KernelRegistry* registry = [] {
    auto* r = new KernelRegistry();
    register_all_kernels(*r);
    return r;
  }();
  return *registry;
}

}  // namespace etkit
