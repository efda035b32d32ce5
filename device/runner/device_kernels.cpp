#include "device_kernels.h"

#include "etkit/kernels/op_sets.h"

namespace etkit::device {

const KernelRegistry& device_kernels() {
  static KernelRegistry registry;
  static bool registered = false;  // the runner is single-threaded
  if (!registered) {
#ifdef ETKIT_DEVICE_OP_SET_PORTABLE
    register_portable_kernels(registry);
#endif
#ifdef ETKIT_DEVICE_OP_SET_PRIM
    register_prim_kernels(registry);
#endif
#ifdef ETKIT_DEVICE_OP_SET_QUANTIZED
    register_quantized_kernels(registry);
#endif
#ifdef ETKIT_DEVICE_OP_SET_CORTEX_M
    register_cortex_m_kernels(registry);
#endif
#ifdef ETKIT_DEVICE_OP_SET_LLM
    register_llm_kernels(registry);
#endif
    registered = true;
  }
  return registry;
}

}  // namespace etkit::device
